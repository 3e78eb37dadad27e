// The thread pool: a shared queue of parallel loops whose chunks workers and callers claim;
// idle workers spin a while before they sleep.
#include "tessera/runtime/thread_pool.h"

#include <chrono>
#include <system_error>

#include "tessera/support/error.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <exception>
#include <string>

#include "tessera/support/logging.h"

namespace tessera::runtime {

/// One ParallelFor call: chunks are claimed with an atomic counter, so the caller and
/// any number of workers can share it without further locking.
struct ThreadPool::Job {
  TsParallelBody body = nullptr;
  void* closure = nullptr;
  int64_t n = 0;
  int64_t num_chunks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> remaining{0};
  std::mutex mutex;  // guards error and the done signal
  std::condition_variable done;
  std::exception_ptr error;
};

namespace {

using Clock = std::chrono::steady_clock;

/// How long an idle worker, and a caller waiting for the workers' chunks, spin before they
/// block. A model's kernels run back to back, each a parallel region of tens to hundreds
/// of microseconds; waking a blocked thread costs tens of microseconds on a VM, so a pool
/// that sleeps between regions runs small kernels slower on two threads than on one.
constexpr auto kSpin = std::chrono::microseconds(1000);

/// A spin-wait hint to the core (lets the other hyperthread run, saves power).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Spins until `done()` or `spin` has passed; whether `done()` became true.
template <typename F>
bool SpinUntil(Clock::duration spin, F&& done) {
  if (spin == Clock::duration::zero()) return done();
  const Clock::time_point until = Clock::now() + spin;
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 0 && Clock::now() >= until) return done();
  }
}

void PinToCore(std::thread& t, int core) {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  int rc = pthread_setaffinity_np(t.native_handle(), sizeof(set), &set);
  if (rc != 0)
    LogDebug("thread pool: could not pin a worker to core " + std::to_string(core) + " (error " +
             std::to_string(rc) + ")");
#else
  (void)t;
  (void)core;
#endif
}

void ParallelForEntry(void* pool, int64_t n, TsParallelBody body, void* closure) {
  static_cast<ThreadPool*>(pool)->ParallelFor(n, body, closure);
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::thread::hardware_concurrency());
  num_threads_ = num_threads < 1 ? 1 : num_threads;
  if (num_threads_ > kMaxThreads)
    TS_THROW(kValue) << "a thread pool of " << num_threads_ << " threads is more than the "
                     << kMaxThreads << " allowed";
  unsigned cores = std::thread::hardware_concurrency();
  // Spinning pays only with a core per thread: with more threads than the CPUs this
  // process may use, a spinning thread takes the time of the one holding the last chunk.
  int usable = static_cast<int>(cores);
#ifdef __linux__
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) usable = CPU_COUNT(&allowed);
#endif
  spin_ = num_threads_ <= usable ? std::chrono::duration_cast<Clock::duration>(kSpin)
                                 : Clock::duration::zero();
  for (int i = 1; i < num_threads_; ++i) {
    try {
      workers_.emplace_back([this, i] { WorkerLoop(i); });
    } catch (const std::system_error& e) {
      // The destructor does not run for a half-built pool: stop the workers started so
      // far here, or they would wait forever on a destroyed condition variable.
      StopWorkers();
      TS_THROW(kUnsupported) << "cannot start " << num_threads_ - 1 << " worker threads (started "
                             << i - 1 << "): " << e.what();
    }
    if (cores > 0) PinToCore(workers_.back(), static_cast<int>(i % cores));
  }
}

ThreadPool::~ThreadPool() {
  StopWorkers();
}

void ThreadPool::StopWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
}

void ThreadPool::RunChunks(Job& job) {
  while (true) {
    int64_t chunk = job.next.fetch_add(1);
    if (chunk >= job.num_chunks) return;
    int64_t begin = job.n * chunk / job.num_chunks;
    int64_t end = job.n * (chunk + 1) / job.num_chunks;
    try {
      job.body(job.closure, begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.mutex);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.remaining.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(job.mutex);
      job.done.notify_all();
    }
  }
}

void ThreadPool::WorkerLoop(int) {
  while (true) {
    // Spin for the next job first (lock-free: queued_ mirrors jobs_.size()).
    bool seen = SpinUntil(
        spin_, [&] { return queued_.load(std::memory_order_acquire) > 0 || stop_.load(); });
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (jobs_.empty() && !stop_.load()) {
        if (seen) continue;  // another thread took it first: spin again
        ++sleepers_;
        wake_.wait(lock, [&] { return stop_.load() || !jobs_.empty(); });
        --sleepers_;
      }
      if (stop_.load()) return;
      job = jobs_.front();
      // Every chunk claimed: nobody else needs to see this job.
      if (job->next.load() >= job->num_chunks - 1) PopFront();
    }
    RunChunks(*job);
  }
}

void ThreadPool::PopFront() {
  jobs_.pop_front();
  queued_.fetch_sub(1, std::memory_order_release);
}

void ThreadPool::ParallelFor(int64_t n, TsParallelBody body, void* closure) {
  if (n <= 0) return;
  if (num_threads_ == 1 || n == 1) {
    body(closure, 0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = body;
  job->closure = closure;
  job->n = n;
  // More chunks than threads, claimed as they go: a worker that starts late takes fewer.
  const int64_t most = static_cast<int64_t>(num_threads_) * kChunksPerThread;
  job->num_chunks = n < most ? n : most;
  job->remaining = job->num_chunks;
  bool sleeping = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(job);
    queued_.fetch_add(1, std::memory_order_release);
    sleeping = sleepers_ > 0;
  }
  // Spinning workers see the job without a wake-up; sleeping ones need one.
  if (sleeping) {
    if (job->num_chunks - 1 >= static_cast<int64_t>(workers_.size()))
      wake_.notify_all();
    else
      for (int64_t i = 0; i < job->num_chunks - 1; ++i) wake_.notify_one();
  }
  RunChunks(*job);
  if (!SpinUntil(spin_, [&] { return job->remaining.load(std::memory_order_acquire) == 0; })) {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->done.wait(lock, [&] { return job->remaining.load() == 0; });
  }
  {
    // Remove the job if no worker got to pop it (the caller claimed everything).
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
      if (*it == job) {
        jobs_.erase(it);
        queued_.fetch_sub(1, std::memory_order_release);
        break;
      }
  }
  if (job->error) std::rethrow_exception(job->error);
}

TsKernelEnv KernelEnvFor(ThreadPool* pool) {
  TsKernelEnv env;
  env.pool = pool;
  env.parallel_for = pool ? &ParallelForEntry : nullptr;
  return env;
}

}  // namespace tessera::runtime
