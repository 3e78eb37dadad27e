// The thread pool: a lock-free slot for one caller's parallel loop and a shared queue for
// the others; each thread claims its own run of chunks first; idle workers spin a while
// before they sleep.
#include "tessera/runtime/thread_pool.h"

#include <chrono>
#include <system_error>

#include "tessera/support/error.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>

#include "tessera/support/logging.h"

namespace tessera::runtime {

namespace {

/// The pool whose worker the calling thread is (null for other threads).
thread_local const ThreadPool* tls_worker_of = nullptr;

using Clock = std::chrono::steady_clock;

/// How long an idle worker, and a caller waiting for the workers' chunks, spin before they
/// block. A model's kernels run back to back, each a parallel region of tens to hundreds
/// of microseconds; waking a blocked thread costs tens of microseconds on a VM, so a pool
/// that sleeps between regions runs small kernels slower on two threads than on one.
constexpr auto kSpin = std::chrono::microseconds(1000);

/// After spin / kYieldAfter, a spinning thread yields its CPU at every clock check: a
/// library's own threads (oneDNN's OpenMP team) may need that CPU, and a spinning worker
/// that never yields holds it for a whole time slice (a MobileNetV2 whose oneDNN
/// partitions alternated with native kernels ran slower on 2 threads than on 1).
constexpr int kYieldAfter = 20;

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
  const Clock::time_point start = Clock::now(), until = start + spin;
  const Clock::time_point polite = start + spin / kYieldAfter;
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 0) {
      const Clock::time_point now = Clock::now();
      if (now >= until) return done();
      if (now >= polite) std::this_thread::yield();
    }
  }
}

/// Locks `lock`'s mutex, spinning for it first (up to `spin`): its holders keep it for a
/// few instructions, and a thread that blocks on it instead sleeps in the kernel until the
/// holder's unlock wakes it, microseconds later on a VM (workers that saw a new job while
/// its caller still held the lock joined it 1-20 us late).
void LockSpinning(std::unique_lock<std::mutex>& lock, Clock::duration spin) {
  if (!SpinUntil(spin, [&] { return lock.try_lock(); })) lock.lock();
}

/// Pins thread `t` to CPU `cpu` (failure is only logged: the pool works unpinned).
void PinThread(pthread_t t, int cpu) {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  int rc = pthread_setaffinity_np(t, sizeof(set), &set);
  if (rc != 0)
    LogDebug("thread pool: could not pin a worker to CPU " + std::to_string(cpu) + " (error " +
             std::to_string(rc) + ")");
#else
  (void)t;
  (void)cpu;
#endif
}

/// The CPU the calling thread runs on, or -1 when unknown.
int CurrentCpu() {
#ifdef __linux__
  return sched_getcpu();
#else
  return -1;
#endif
}

void ParallelForEntry(void* pool, int64_t n, TsParallelBody body, void* closure) {
  static_cast<ThreadPool*>(pool)->ParallelFor(n, body, closure);
}

/// How a loop of n iterations is cut: `chunks` contiguous chunks (more than threads, so a
/// thread that starts late takes fewer), dealt as `runs` contiguous runs, one per thread.
struct Split {
  Split(int64_t n, int threads)
      : n(n),
        chunks(std::min<int64_t>(n, int64_t{threads} * ThreadPool::kChunksPerThread)),
        runs(std::min<int64_t>(threads, chunks)) {}
  int64_t RunBegin(int64_t k) const { return chunks * k / runs; }
  int64_t RunEnd(int64_t k) const { return chunks * (k + 1) / runs; }
  int64_t ChunkBegin(int64_t c) const { return n * c / chunks; }

  int64_t n, chunks, runs;
};

/// A loop's chunks not yet done and its first error; the caller waits on it.
struct Completion {
  std::atomic<int64_t> remaining{0};
  std::atomic<bool> caller_waiting{false};
  std::mutex mutex;  // guards error; the done signal
  std::condition_variable done;
  std::exception_ptr error;

  /// Runs chunk [begin, end) of the loop, keeping its exception, and counts it done.
  void RunChunk(TsParallelBody body, void* closure, int64_t begin, int64_t end) {
    try {
      body(closure, begin, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
    }
    // Sequentially consistent with Wait's store of caller_waiting: one of the two sees
    // the other's write, so a caller never sleeps through the last chunk.
    if (remaining.fetch_sub(1) == 1 && caller_waiting.load()) {
      std::lock_guard<std::mutex> lock(mutex);
      done.notify_all();
    }
  }

  /// Returns once every chunk is done, spinning for up to `spin` before it sleeps.
  void Wait(Clock::duration spin) {
    if (SpinUntil(spin, [&] { return remaining.load(std::memory_order_acquire) == 0; })) return;
    std::unique_lock<std::mutex> lock(mutex);
    caller_waiting.store(true);
    done.wait(lock, [&] { return remaining.load() == 0; });
    caller_waiting.store(false);
  }

  /// The first error of the loop, cleared.
  std::exception_ptr TakeError() {
    std::lock_guard<std::mutex> lock(mutex);
    std::exception_ptr e;
    std::swap(e, error);
    return e;
  }
};

}  // namespace

/// One ParallelFor call through the queue. Thread k of the pool (the caller is 0, worker i
/// is i) owns the k-th run of chunks and claims from it first, then from the others' runs,
/// so the same thread computes the same part of every kernel's output each time: a model's
/// next kernel then finds most of its input in its own core's cache. With chunks handed
/// to whichever thread came first, a kernel read half its input from the other core's
/// cache and wrote over lines the other core held (3-4x slower than local L2 on this VM).
struct ThreadPool::Job {
  Job(int64_t n, int threads, TsParallelBody body, void* closure)
      : body(body), closure(closure), split(n, threads), runs(split.runs) {
    for (int64_t k = 0; k < split.runs; ++k) {
      runs[k].next = split.RunBegin(k);
      runs[k].end = split.RunEnd(k);
    }
    completion.remaining = split.chunks;
  }
  /// One thread's run of chunks; claimed with an atomic counter (past `end`: exhausted).
  struct alignas(64) Run {
    std::atomic<int64_t> next{0};
    int64_t end = 0;
  };
  TsParallelBody body;
  void* closure;
  Split split;
  std::vector<Run> runs;
  std::atomic<int> joined{0};  // workers that took this job
  Completion completion;
};

/// The slot a caller takes when it is free (the common case: one executor running a model),
/// published without locks: a worker joins by reading one cache line and claiming a chunk,
/// where the queue costs it a mutex, the queue's memory and a reference count, each a
/// transfer from the caller's core (a worker joined a 4 us kernel's loop 1 us late, or not
/// at all). Every claim carries the job's number, so a worker that read a finished job's
/// fields claims nothing from the next job with them.
struct ThreadPool::Fast {
  alignas(64) std::atomic<uint64_t> job{0};  // number of the last job published
  std::atomic<TsParallelBody> body{nullptr};
  std::atomic<void*> closure{nullptr};
  std::atomic<int64_t> n{0};        // the loop's extent; Split(n, threads) cuts it
  std::atomic<int> caller_cpu{-1};  // where the caller runs (workers keep off that CPU)
  /// Thread k's run: the job's number (its low 32 bits) in the high half, the next chunk
  /// in the low half.
  struct alignas(64) RunClaim {
    std::atomic<uint64_t> packed{0};
  };
  std::vector<RunClaim> claims;
  alignas(64) Completion completion;
  alignas(64) std::atomic<bool> busy{false};  // a caller holds the slot

  /// The chunk number of a run that has none (beyond any run's end).
  static constexpr int64_t kExhausted = 0x7fffffff;

  static uint64_t Pack(uint64_t job, int64_t chunk) {
    return (job << 32) | static_cast<uint32_t>(chunk);
  }

  /// Claims the next chunk of run k of job `job`, or -1 when that run is exhausted or
  /// the job is no longer the current one.
  int64_t Claim(uint64_t job, int64_t k, int64_t end) {
    std::atomic<uint64_t>& c = claims[static_cast<size_t>(k)].packed;
    uint64_t v = c.load(std::memory_order_acquire);
    while (true) {
      if ((v >> 32) != (job & 0xffffffffu)) return -1;
      int64_t chunk = static_cast<int64_t>(v & 0xffffffffu);
      if (chunk >= end) return -1;
      if (c.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel)) return chunk;
    }
  }

  /// Runs chunks of job `job` as pool thread `thread` of `threads`: its own run first,
  /// then the others'.
  void Run(uint64_t job, int thread, int threads) {
    // Acquire: a field of a newer job brings its claims with it (see RunInSlot), and
    // those refuse `job`.
    const TsParallelBody b = body.load(std::memory_order_acquire);
    void* const cl = closure.load(std::memory_order_acquire);
    const Split split(n.load(std::memory_order_acquire), threads);
    for (int64_t i = 0; i < split.runs; ++i) {
      const int64_t k = (thread + i) % split.runs;
      for (int64_t chunk; (chunk = Claim(job, k, split.RunEnd(k))) >= 0;) {
        // A successful claim means the job is live (this chunk is not done), so the
        // fields read above were its own: the next job's are written only after every
        // chunk of this one is done, and its claims before its fields.
        completion.RunChunk(b, cl, split.ChunkBegin(chunk), split.ChunkBegin(chunk + 1));
      }
    }
  }
};

ThreadPool::ThreadPool(int num_threads) {
  if (num_threads <= 0) num_threads = static_cast<int>(std::thread::hardware_concurrency());
  num_threads_ = num_threads < 1 ? 1 : num_threads;
  if (num_threads_ > kMaxThreads)
    TS_THROW(kValue) << "a thread pool of " << num_threads_ << " threads is more than the "
                     << kMaxThreads << " allowed";
  // The CPUs this process may use, in order: worker i starts pinned to the i-th after the
  // creating thread's, and follows the caller of the slot (see WorkerLoop).
#ifdef __linux__
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus_.push_back(c);
#endif
  // Spinning pays only with a CPU per thread: with more threads than the CPUs this process
  // may use, a spinning thread takes the time of the one holding the last chunk.
  const int usable = cpus_.empty() ? static_cast<int>(std::thread::hardware_concurrency())
                                   : static_cast<int>(cpus_.size());
  spin_ = num_threads_ <= usable ? std::chrono::duration_cast<Clock::duration>(kSpin)
                                 : Clock::duration::zero();
  fast_ = std::make_unique<Fast>();
  fast_->claims = std::vector<Fast::RunClaim>(static_cast<size_t>(num_threads_));
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
    if (!cpus_.empty()) PinThread(workers_.back().native_handle(), WorkerCpu(CurrentCpu(), i));
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

void ThreadPool::RunChunks(Job& job, int thread) {
  const int64_t runs = job.split.runs;
  // Its own run first, then the others' in turn (what a late or slow thread left).
  for (int64_t k = 0; k < runs; ++k) {
    Job::Run& run = job.runs[(thread + k) % runs];
    for (int64_t chunk; (chunk = run.next.fetch_add(1)) < run.end;)
      job.completion.RunChunk(job.body, job.closure, job.split.ChunkBegin(chunk),
                              job.split.ChunkBegin(chunk + 1));
  }
}

int ThreadPool::WorkerCpu(int caller_cpu, int index) const {
  const int n = static_cast<int>(cpus_.size());
  int at = 0;
  while (at < n && cpus_[at] != caller_cpu) ++at;
  return cpus_[(at % n + index) % n];
}

void ThreadPool::WorkerLoop(int index) {
  tls_worker_of = this;
  Fast& fast = *fast_;
  uint64_t seen = fast.job.load();
  int pinned = -1;
  while (true) {
    // Spin for the next job first: the slot's, or the queue's (queued_ mirrors jobs_.size()).
    bool got = SpinUntil(spin_, [&] {
      return fast.job.load(std::memory_order_acquire) != seen ||
             queued_.load(std::memory_order_acquire) > 0 || stop_.load();
    });
    if (stop_.load()) return;
    if (uint64_t job = fast.job.load(std::memory_order_acquire); job != seen) {
      // Keep off the caller's CPU: the caller is not pinned, and the system left it on a
      // worker's CPU for whole runs (the worker spinning, then asleep; the other CPU idle),
      // where two threads ran slower than one. Each worker takes the CPU `index` places
      // after the caller's, moving only when the caller has moved.
      if (int cpu = fast.caller_cpu.load(std::memory_order_relaxed); cpu >= 0 && !cpus_.empty()) {
        if (int want = WorkerCpu(cpu, index); want != pinned) {
          PinThread(pthread_self(), want);
          pinned = want;
        }
      }
      seen = job;
      fast.Run(job, index, num_threads_);
      continue;
    }
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
      LockSpinning(lock, got ? spin_ : Clock::duration::zero());
      if (jobs_.empty()) {
        if (got) continue;  // another thread took it first: spin again
        // Nothing for a while: sleep. A caller that publishes after the check below sees
        // sleepers_ (both sequentially consistent) and wakes us under the mutex.
        sleepers_.fetch_add(1);
        wake_.wait(lock, [&] {
          return stop_.load() || !jobs_.empty() || fast.job.load() != seen;
        });
        sleepers_.fetch_sub(1);
        if (stop_.load()) return;
        if (jobs_.empty()) continue;  // the slot's job: the loop's top takes it
      }
      job = jobs_.front();
      // Every worker it has a run for took it: nobody else needs to see this job (each
      // stays until no chunk is left).
      if (job->joined.fetch_add(1) + 2 >= job->split.runs) PopFront();
    }
    RunChunks(*job, static_cast<int>(index % job->split.runs));
  }
}

void ThreadPool::PopFront() {
  jobs_.pop_front();
  queued_.fetch_sub(1, std::memory_order_release);
}

void ThreadPool::RunInSlot(int64_t n, TsParallelBody body, void* closure) {
  Fast& fast = *fast_;
  const Split split(n, num_threads_);
  const uint64_t job = fast.job.load(std::memory_order_relaxed) + 1;
  // The claims first, every thread's: a worker still holding the last job's number can
  // claim nothing once they carry this one, so it never runs a chunk with fields of this
  // job it read half-written (each field's release store brings the claims along to a
  // worker's acquire load of it).
  for (int64_t k = 0; k < num_threads_; ++k)
    fast.claims[static_cast<size_t>(k)].packed.store(
        Fast::Pack(job, k < split.runs ? split.RunBegin(k) : Fast::kExhausted),
        std::memory_order_relaxed);
  fast.body.store(body, std::memory_order_release);
  fast.closure.store(closure, std::memory_order_release);
  fast.n.store(n, std::memory_order_release);
  fast.completion.remaining.store(split.chunks, std::memory_order_relaxed);
  // A worker publishing a nested loop does not move the others: it is one of them.
  fast.caller_cpu.store(tls_worker_of == this ? -1 : CurrentCpu(), std::memory_order_relaxed);
  fast.job.store(job);  // publishes the fields above (sequentially consistent)
  if (sleepers_.load() > 0) {
    // Taking the mutex orders this after a sleeper's check of the job number.
    { std::lock_guard<std::mutex> lock(mutex_); }
    wake_.notify_all();
  }
  fast.Run(job, 0, num_threads_);
  fast.completion.Wait(spin_);
  if (std::exception_ptr error = fast.completion.TakeError()) std::rethrow_exception(error);
}

void ThreadPool::ParallelFor(int64_t n, TsParallelBody body, void* closure) {
  if (n <= 0) return;
  if (num_threads_ == 1 || n == 1) {
    body(closure, 0, n);
    return;
  }
  if (!fast_->busy.exchange(true, std::memory_order_acquire)) {
    // Released however RunInSlot ends, or every later call would take the queue.
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false, std::memory_order_release); }
    } release{fast_->busy};
    RunInSlot(n, body, closure);
    return;
  }
  auto job = std::make_shared<Job>(n, num_threads_, body, closure);
  bool sleeping = false;
  {
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    LockSpinning(lock, spin_);
    jobs_.push_back(job);
    queued_.fetch_add(1, std::memory_order_release);
    sleeping = sleepers_.load() > 0;
  }
  // Spinning workers see the job without a wake-up; sleeping ones need one.
  if (sleeping) {
    if (job->split.runs - 1 >= static_cast<int64_t>(workers_.size()))
      wake_.notify_all();
    else
      for (int64_t i = 0; i < job->split.runs - 1; ++i) wake_.notify_one();
  }
  RunChunks(*job, 0);
  job->completion.Wait(spin_);
  {
    // Remove the job if no worker got to pop it (the caller claimed everything).
    std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
    LockSpinning(lock, spin_);
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
      if (*it == job) {
        jobs_.erase(it);
        queued_.fetch_sub(1, std::memory_order_release);
        break;
      }
  }
  if (std::exception_ptr error = job->completion.TakeError()) std::rethrow_exception(error);
}

TsKernelEnv KernelEnvFor(ThreadPool* pool) {
  TsKernelEnv env;
  env.pool = pool;
  env.parallel_for = pool ? &ParallelForEntry : nullptr;
  env.reverse = 0;
  return env;
}

}  // namespace tessera::runtime
