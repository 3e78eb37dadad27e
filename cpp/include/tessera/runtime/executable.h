// Executable: a program of kernel calls with a static memory plan, plus the runtime module
// holding the kernels; Executor runs it. Saved as one file; needs no compiler to load.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/runtime/module.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/runtime/object_pool.h"
#include "tessera/runtime/thread_pool.h"

namespace tessera::runtime {

/// Where a tensor value lives at run time.
enum class SlotKind { kInput, kConstant, kIntermediate, kOutput };

/// One tensor value of @main.
struct Slot {
  SlotKind kind = SlotKind::kIntermediate;
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  size_t bytes = 0;
  int index = -1;     ///< input position, constant index or output-buffer index
  int storage = -1;   ///< kIntermediate: storage id in the arena
  size_t offset = 0;  ///< kIntermediate: byte offset in the arena
  /// kIntermediate: the slot this one is a part of (-1: none). A slot with parts is the
  /// concatenation of its parts' bytes, which cover it: kernels write the parts in place and
  /// nothing writes the whole (a concatenation the program does not run).
  int view_of = -1;
  size_t view_offset = 0;  ///< bytes from the start of `view_of`, a multiple of 64
};

/// One kernel call: buffers are slots (inputs, then outputs).
struct Instruction {
  std::string symbol;
  std::vector<int> args;
  int num_outputs = 0;
};

/// The static memory plan of the intermediates.
struct MemoryPlanStats {
  size_t arena_bytes = 0;               ///< peak intermediate bytes (the arena's size)
  int num_storages = 0;                 ///< storages the intermediates share
  int num_intermediates = 0;            ///< intermediate tensors with storage (not parts)
  size_t total_intermediate_bytes = 0;  ///< what one buffer per intermediate would take
};

/// A compiled model's program as a compiler hands it over: the kernel calls of @main in
/// dataflow order over tensor slots (the compiler's `CreateExecutable` makes it from IR).
struct Program {
  std::vector<std::string> input_names;  ///< @main's parameter names, in order
  std::vector<Slot> slots;                ///< every tensor value
  std::vector<Instruction> instructions;  ///< kernel calls in dataflow order
  std::vector<int> output_slots;          ///< the (flattened) results, in order
  std::vector<NDArray> constants;         ///< indexed by kConstant slots
  bool returns_tuple = false;             ///< @main returns a tuple (not one tensor)
};

/// A compiled model: the kernel calls of @main in dataflow order and its memory plan.
class Executable {
 public:
  /// Checks `program` against itself (slot indexes, shapes, constants) and against
  /// `kernels` (every symbol is looked up now); errors say what is inconsistent.
  static std::shared_ptr<Executable> Create(Program program, Module kernels);
  /// Reads a file written by Save; throws a parse error for a damaged or truncated file.
  static std::shared_ptr<Executable> Load(const std::string& path);
  /// Writes the program, its constants and the module tree to one file.
  void Save(const std::string& path) const;
  /// The same as bytes (Save writes these).
  std::string SaveToBytes() const;
  /// Reads what SaveToBytes wrote.
  static std::shared_ptr<Executable> LoadFromBytes(const std::string& bytes);

  /// @main's parameter names, in order.
  const std::vector<std::string>& input_names() const { return program_.input_names; }
  /// Every tensor value of the program.
  const std::vector<Slot>& slots() const { return program_.slots; }
  /// The kernel calls, in order.
  const std::vector<Instruction>& instructions() const { return program_.instructions; }
  /// Slots of the (flattened) outputs, in order.
  const std::vector<int>& output_slots() const { return program_.output_slots; }
  /// The constants, indexed by kConstant slots' `index`.
  const std::vector<NDArray>& constants() const { return program_.constants; }
  /// True when @main returns a tuple (even of one tensor).
  bool returns_tuple() const { return program_.returns_tuple; }
  /// The static memory plan of the intermediates.
  const MemoryPlanStats& memory_plan() const { return plan_; }
  /// The module tree holding the kernels.
  const Module& module() const { return module_; }
  /// The kind of the module defining `symbol` ("interp", "native", ...).
  std::string ModuleKindOf(const std::string& symbol) const;
  /// The thread count executors use when their options give none (0 = all cores): the
  /// build target's `num_threads`, saved with the program.
  int default_num_threads() const { return num_threads_; }
  /// Sets default_num_threads.
  void SetDefaultNumThreads(int num_threads);
  /// The report (JSON) of the Collage search that chose the kernels, or "" when the
  /// program was built without Collage. Saved and loaded with the program.
  const std::string& collage_report() const { return collage_report_; }
  /// Sets collage_report.
  void SetCollageReport(const std::string& json) { collage_report_ = json; }

 private:
  Executable() = default;

  Program program_;
  Module module_;
  int num_output_buffers_ = 0;
  MemoryPlanStats plan_;
  int num_threads_ = 0;
  std::string collage_report_;
  friend class Executor;
};

/// Inputs for every parameter of `exe`'s @main: floats uniform in [-1, 1], integers and
/// bools 0 (always a valid index), from a fixed `seed`. For timing and smoke runs.
std::map<std::string, NDArray> RandomInputs(const Executable& exe, uint64_t seed = 1);

/// How an Executor runs.
struct ExecutorOptions {
  /// Threads of the pool when `pool` is null (0 = the executable's default_num_threads,
  /// whose 0 means all cores).
  int num_threads = 0;
  /// A pool to share with other executors (optional).
  std::shared_ptr<ThreadPool> pool;
};

/// Per-kernel profile of some runs.
struct ProfileRow {
  std::string symbol;
  std::string module_kind;
  int64_t calls = 0;
  double total_ms = 0;
  double mean_ms = 0;
  double share = 0;  ///< fraction of the kernels' total time, 0..1
};

/// Profile rows (slowest first) and a formatted table.
struct ProfileReport {
  std::vector<ProfileRow> rows;
  double total_ms = 0;
  std::string table;
};

/// Whole-run timings in milliseconds.
struct BenchmarkResult {
  double median_ms = 0;
  double p90_ms = 0;
  double min_ms = 0;
  double mean_ms = 0;
  int repeat = 0;
  int number = 1;                   ///< runs per sample
  std::vector<double> samples_ms;   ///< every sample (ms per run), ascending
};

/// Runs an Executable on a thread pool. Calls may come from several threads at once: each
/// call runs with an arena of its own, taken from a pool of arenas that grows to the
/// number of concurrent calls (the first is allocated up front) and is reused after.
/// Executors may share an Executable and a pool.
class Executor {
 public:
  explicit Executor(std::shared_ptr<const Executable> exe, ExecutorOptions options = {});
  ~Executor();

  /// Runs @main on `inputs` by parameter name; returns the flattened outputs (fresh
  /// arrays). Throws a value error for unknown/missing names (listing the expected
  /// ones) and a type error naming the input for a wrong shape or dtype.
  std::vector<NDArray> Run(const std::map<std::string, NDArray>& inputs);
  /// Runs @main writing the flattened outputs into caller buffers (`outputs[k]`: dense,
  /// the k-th output's shape and dtype), without allocating them; returns the outputs as
  /// arrays borrowing those buffers. Errors as Run.
  std::vector<NDArray> RunInto(const std::map<std::string, NDArray>& inputs,
                               void* const* outputs);
  /// Runs `repeat` times timing each kernel call.
  ProfileReport Profile(const std::map<std::string, NDArray>& inputs, int repeat = 10);
  /// Runs `warmup` untimed times, then takes `repeat` samples of `number` runs each (a
  /// sample is their mean). Output buffers are allocated once for all runs, so the times
  /// are the kernels' and the executor's, not the allocator's.
  /// `before_sample` (optional) runs untimed before each sample (e.g. to flush caches).
  BenchmarkResult Benchmark(const std::map<std::string, NDArray>& inputs, int warmup = 3,
                            int repeat = 10, int number = 1,
                            const std::function<void()>& before_sample = nullptr);

  const Executable& executable() const { return *exe_; }
  ThreadPool& pool() const { return *pool_; }

 private:
  /// `reuse_outputs`: output buffers kept between calls (allocated on first use).
  std::vector<NDArray> RunImpl(const std::map<std::string, NDArray>& inputs,
                               std::vector<double>* kernel_ms,
                               std::vector<NDArray>* reuse_outputs = nullptr);

  /// The memory one call runs in: the arena of intermediates and, per instruction, its
  /// buffer table (static pointers filled in; inputs and outputs set per call).
  struct RunState {
    NDArray arena;
    std::vector<std::vector<void*>> buffers;
    /// The kernels' environment for this state's runs: the executor's, with `reverse`
    /// flipped on each run (see kernel_abi.h).
    TsKernelEnv env;
  };
  RunState NewState() const;

  std::shared_ptr<const Executable> exe_;
  std::shared_ptr<ThreadPool> pool_;
  TsKernelEnv env_;
  std::vector<KernelFunction> kernels_;
  ObjectPool<RunState> states_;  // one per concurrent call, reused
};

}  // namespace tessera::runtime
