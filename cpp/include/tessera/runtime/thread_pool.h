// A fixed pool of pinned worker threads implementing the kernel ABI's parallel_for.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tessera/runtime/kernel_abi.h"

namespace tessera::runtime {

/// Runs parallel loops on `num_threads` threads: the calling thread plus num_threads - 1
/// workers, each pinned to a CPU of its own, other than the caller's while there are CPUs
/// enough (failure to pin is only logged).
/// Several threads may call ParallelFor on one pool at once (one through a lock-free slot,
/// the others through a queue). Idle workers spin for a millisecond (a model's
/// next kernel starts sooner than a sleeping thread wakes), then sleep on a condition
/// variable; a pool with more threads than the CPUs the process may use does not spin.
class ThreadPool {
 public:
  /// The most threads a pool may have.
  static constexpr int kMaxThreads = 4096;
  /// Chunks per thread a loop is split into (balance when a worker starts late).
  static constexpr int kChunksPerThread = 4;
  /// `num_threads` <= 0 means the hardware concurrency; more than kMaxThreads is a value
  /// error, and threads the system refuses to start are an unsupported error.
  explicit ThreadPool(int num_threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Total parallelism (workers plus the calling thread).
  int num_threads() const { return num_threads_; }

  /// Splits [0, n) into at most kChunksPerThread * num_threads() contiguous chunks, runs
  /// `body` on each and returns when all are done. Thread k (the caller is 0) runs the
  /// k-th contiguous share first, then helps with what the others have not claimed. With
  /// one thread or n <= 1 it runs inline. An exception thrown by `body` is rethrown here.
  void ParallelFor(int64_t n, TsParallelBody body, void* closure);

 private:
  struct Job;
  struct Fast;
  /// ParallelFor through the lock-free slot (the caller holds it).
  void RunInSlot(int64_t n, TsParallelBody body, void* closure);
  void WorkerLoop(int index);
  /// The CPU worker `index` takes when the caller runs on `caller_cpu` (cpus_ non-empty).
  int WorkerCpu(int caller_cpu, int index) const;
  void StopWorkers();
  /// Drops jobs_'s front (under mutex_).
  void PopFront();
  /// Runs chunks of `job` as pool thread `thread` (0: the caller) until none is left.
  static void RunChunks(Job& job, int thread);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> jobs_;  // jobs with chunks still unclaimed
  std::atomic<int64_t> queued_{0};         // jobs_.size(), read by spinning workers
  std::unique_ptr<Fast> fast_;             // the one caller's lock-free slot
  std::vector<int> cpus_;                  // the CPUs the process may use (empty: unknown)
  std::atomic<int> sleepers_{0};           // workers blocked on wake_
  std::atomic<bool> stop_{false};
  /// How long idle workers and waiting callers spin (zero: more threads than usable CPUs).
  std::chrono::steady_clock::duration spin_{};
};

/// The kernel environment whose parallel_for runs on `pool` (serial when null).
TsKernelEnv KernelEnvFor(ThreadPool* pool);

}  // namespace tessera::runtime
