// The thread pool: coverage of every index, sums, concurrent callers, small n, one thread,
// back-to-back loops of changing sizes, workers off the caller's CPU.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "tessera/runtime/ndarray.h"
#include "tessera/runtime/thread_pool.h"
#include "tessera/support/error.h"

// AddressSanitizer reserves terabytes of shadow address space, so an RLIMIT_AS limit
// starves its allocator rather than the thread stacks under test.
#if defined(__SANITIZE_ADDRESS__)
#define TESSERA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_TEST_ASAN 1
#endif
#endif

namespace tessera {
namespace {

using runtime::KernelEnvFor;
using runtime::ThreadPool;

struct CountClosure {
  std::vector<std::atomic<int>>* hits;
  std::atomic<int64_t>* chunks;
};

void CountBody(void* closure, int64_t begin, int64_t end) {
  auto* c = static_cast<CountClosure*>(closure);
  c->chunks->fetch_add(1);
  for (int64_t i = begin; i < end; ++i) (*c->hits)[i].fetch_add(1);
}

void ExpectEachOnce(ThreadPool& pool, int64_t n, int64_t* chunks_out = nullptr) {
  std::vector<std::atomic<int>> hits(n);
  std::atomic<int64_t> chunks{0};
  CountClosure c{&hits, &chunks};
  TsKernelEnv env = KernelEnvFor(&pool);
  env.parallel_for(env.pool, n, CountBody, &c);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
  if (chunks_out) *chunks_out = chunks.load();
}

struct SumClosure {
  const std::vector<int64_t>* data;
  std::atomic<int64_t>* sum;
};

void SumBody(void* closure, int64_t begin, int64_t end) {
  auto* c = static_cast<SumClosure*>(closure);
  int64_t local = 0;
  for (int64_t i = begin; i < end; ++i) local += (*c->data)[i];
  c->sum->fetch_add(local);
}

int64_t ParallelSum(ThreadPool& pool, int64_t n) {
  std::vector<int64_t> data(n);
  for (int64_t i = 0; i < n; ++i) data[i] = i * 3 + 1;
  std::atomic<int64_t> sum{0};
  SumClosure c{&data, &sum};
  pool.ParallelFor(n, SumBody, &c);
  return sum.load();
}

int64_t Expected(int64_t n) {
  return 3 * n * (n - 1) / 2 + n;
}

TEST(RuntimeThreadPool, EveryIndexExactlyOnce) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.num_threads(), 4);
  for (int64_t n : {0, 1, 2, 3, 4, 5, 7, 64, 1000, 12345}) {
    int64_t chunks = 0;
    ExpectEachOnce(pool, n, &chunks);
    EXPECT_LE(chunks, std::min<int64_t>(n, 4 * ThreadPool::kChunksPerThread)) << n;
  }
}

TEST(RuntimeThreadPool, Sums) {
  ThreadPool pool(3);
  for (int64_t n : {1, 2, 10, 999, 100000}) EXPECT_EQ(ParallelSum(pool, n), Expected(n)) << n;
}

TEST(RuntimeThreadPool, FewerItemsThanThreads) {
  ThreadPool pool(8);
  int64_t chunks = 0;
  ExpectEachOnce(pool, 3, &chunks);
  EXPECT_EQ(chunks, 3);
}

TEST(RuntimeThreadPool, OneThreadRunsInline) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.num_threads(), 1);
  int64_t chunks = 0;
  ExpectEachOnce(pool, 100, &chunks);
  EXPECT_EQ(chunks, 1);
  EXPECT_EQ(ParallelSum(pool, 1000), Expected(1000));
}

TEST(RuntimeThreadPool, DefaultIsHardwareConcurrency) {
  ThreadPool pool;
  EXPECT_EQ(pool.num_threads(),
            static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_EQ(ParallelSum(pool, 5000), Expected(5000));
}

TEST(RuntimeThreadPool, ConcurrentCallers) {
  ThreadPool pool(4);
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 6; ++t)
    callers.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        int64_t n = 1 + (t * 131 + rep * 17) % 3000;
        if (ParallelSum(pool, n) != Expected(n)) failures.fetch_add(1);
      }
    });
  for (std::thread& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

struct NestedClosure {
  ThreadPool* pool;
  std::atomic<int64_t>* sum;
};

void NestedBody(void* closure, int64_t begin, int64_t end) {
  auto* c = static_cast<NestedClosure*>(closure);
  for (int64_t i = begin; i < end; ++i) c->sum->fetch_add(ParallelSum(*c->pool, 100));
}

TEST(RuntimeThreadPool, NestedLoopsDoNotDeadlock) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  NestedClosure c{&pool, &sum};
  pool.ParallelFor(10, NestedBody, &c);
  EXPECT_EQ(sum.load(), 10 * Expected(100));
}

void ThrowingBody(void*, int64_t begin, int64_t) {
  if (begin == 0) TS_THROW(kValue) << "chunk failed";
}

TEST(RuntimeThreadPool, BackToBackLoopsOfChangingSizes) {
  // Loops follow one another with no pause, each of a different size, so the number of
  // chunks and runs changes from one to the next while workers still finish the last:
  // every index of every loop must run exactly once.
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    for (int rep = 0; rep < 3000; ++rep) {
      int64_t n = 1 + (rep * 7919) % 37;
      ExpectEachOnce(pool, n);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

struct CpuClosure {
  std::atomic<int>* on_caller_cpu;
  std::atomic<int>* worker_chunks;
  std::thread::id caller;
  int caller_cpu;
};

void RecordCpuBody(void* closure, int64_t, int64_t) {
  auto* c = static_cast<CpuClosure*>(closure);
  if (std::this_thread::get_id() != c->caller) {
    c->worker_chunks->fetch_add(1);
    if (sched_getcpu() == c->caller_cpu) c->on_caller_cpu->fetch_add(1);
  }
  // Long enough for the worker to take a share of the chunks.
  for (auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
       std::chrono::steady_clock::now() < until;) {
  }
}

TEST(RuntimeThreadPool, WorkersKeepOffTheCallersCpu) {
  // The caller on the CPU a worker was pinned to at first: the worker moves to another.
  cpu_set_t saved;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) cpus.push_back(c);
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs, this process may use " << cpus.size();
  ThreadPool pool(2);  // its worker starts on the CPU after ours: cpus[1] while we run on cpus[0]
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpus[1], &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
  std::atomic<int> on_caller_cpu{0}, worker_chunks{0};
  CpuClosure c{&on_caller_cpu, &worker_chunks, std::this_thread::get_id(), cpus[1]};
  for (int rep = 0; rep < 50; ++rep) pool.ParallelFor(8, RecordCpuBody, &c);
  pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
  EXPECT_GT(worker_chunks.load(), 0);
  EXPECT_EQ(on_caller_cpu.load(), 0);
}

TEST(RuntimeThreadPool, ExceptionsReachTheCaller) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.ParallelFor(10, ThrowingBody, nullptr), Error);
  EXPECT_EQ(ParallelSum(pool, 100), Expected(100));  // still usable
}

TEST(RuntimeThreadPool, NullPoolEnvIsSerial) {
  TsKernelEnv env = KernelEnvFor(nullptr);
  EXPECT_EQ(env.pool, nullptr);
  EXPECT_EQ(env.parallel_for, nullptr);
}

}  // namespace
}  // namespace tessera

namespace tessera::runtime {
namespace {

TEST(RuntimeThreadPool, TooManyThreadsIsAnErrorNotAHang) {
  EXPECT_THROW(ThreadPool(ThreadPool::kMaxThreads + 1), Error);
#ifndef TESSERA_TEST_ASAN
  // Under an address-space limit the system refuses thread stacks part-way: the pool must
  // stop the workers it started and throw. A child process takes the limit (and an alarm,
  // so a regression fails instead of hanging the suite).
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(20);
    struct rlimit limit = {size_t{256} << 20, size_t{256} << 20};
    ::setrlimit(RLIMIT_AS, &limit);
    try {
      ThreadPool pool(1000);
    } catch (const Error& e) {
      ::_exit(std::string(e.what()).find("cannot start 999 worker threads") != std::string::npos
                  ? 0
                  : 3);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(5);  // all 1000 threads started: the limit did not bite
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed (hang or crash), status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
#endif
}

TEST(RuntimeNDArray, SizesThatOverflowAreRejected) {
  EXPECT_THROW(NDArray::Empty({INT64_MAX / 2, 4}, DType::kFloat32), Error);
  EXPECT_THROW(NDArray::Zeros({int64_t{1} << 62}, DType::kFloat32), Error);
  EXPECT_THROW(NDArray::Empty({int64_t{1} << 31, int64_t{1} << 31, 4}, DType::kFloat64), Error);
  EXPECT_EQ(NDArray::Empty({0, int64_t{1} << 62}, DType::kFloat32).NumElements(), 0);
}

}  // namespace
}  // namespace tessera::runtime
