// The executor on hand-written lowered modules: results against RunMain, the memory plan,
// unsupported constructs and input validation.
#include <thread>

#include "runtime_test_util.h"
#include "tessera/ir/op.h"

namespace tessera {
namespace {

using runtime::Executable;
using runtime::Executor;
using runtime::ExecutorOptions;
using testing_runtime::Compile;
using testing_runtime::ExpectError;
using testing_runtime::ExpectMatchesInterpreter;
using testing_runtime::Iota;
using testing_runtime::StdKernels;

const char* kT = "Tensor[(8), float32]";

std::string Main(const std::string& params, const std::string& body) {
  return "def @main(" + params + ") {\n" + body + "\n}\n";
}

std::string Split2() {
  return R"(primfn @split2(%A: Buffer[(8), float32], global_symbol="split2_k") -> (%B: Buffer[(8), float32], %C: Buffer[(8), float32]) {
  for %i: int32 in 0 +: 8 {
    block "c"(%vi: int32 in 0 +: 8 spatial = %i) reads(%A[%vi]) writes(%B[%vi], %C[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
      %C[%vi] = %A[%vi] * 2f;
    }
  }
}
)";
}

/// @main applying add_one `n` times to %x.
std::string ChainText(int n) {
  std::string body = "  %0 = call_tir(@add_one, (%x,), " + std::string(kT) + ");\n";
  for (int i = 1; i < n; ++i)
    body += "  %" + std::to_string(i) + " = call_tir(@" + (i % 3 == 1 ? "twice" : "add_one") +
            ", (%" + std::to_string(i - 1) + ",), " + kT + ");\n";
  body += "  %" + std::to_string(n - 1);
  return Main("%x: " + std::string(kT), body) + StdKernels();
}

std::map<std::string, NDArray> XY() {
  return {{"x", Iota({8}, 1.0f)}, {"y", Iota({8}, -2.0f)}};
}

void CheckAgainstInterpreter(const IRModule& mod, const std::map<std::string, NDArray>& inputs,
                             size_t num_outputs) {
  auto exe = Compile(mod);
  Executor ex(exe, ExecutorOptions{2, nullptr});
  std::vector<NDArray> out = ex.Run(inputs);
  EXPECT_EQ(out.size(), num_outputs);
  ExpectMatchesInterpreter(mod, out, inputs);
  // A second run reuses the arena and gives the same answer.
  ExpectMatchesInterpreter(mod, ex.Run(inputs), inputs);
}

TEST(RuntimeExecutor, ReadmeExample) {
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(10), float32]) {
  call_tir(@add_one, (%x,), Tensor[(10), float32])
}
primfn @add_one(%A: Buffer[(10), float32]) -> (%B: Buffer[(10), float32]) {
  for %i: int32 in 0 +: 10 parallel {
    block "compute"(%vi: int32 in 0 +: 10 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
}
)");
  auto exe = Compile(mod);  // no global_symbol: the global name is the symbol
  EXPECT_EQ(exe->instructions().size(), 1u);
  EXPECT_EQ(exe->instructions()[0].symbol, "add_one");
  EXPECT_EQ(exe->input_names(), std::vector<std::string>{"x"});
  Executor ex(exe);
  std::vector<NDArray> out = ex.Run({{"x", Iota({10}, 0.0f)}});
  ASSERT_EQ(out.size(), 1u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[0].data_as<float>()[i], 0.5f * i + 1.0f);
  ExpectMatchesInterpreter(mod, out, {{"x", Iota({10}, 0.0f)}});
  EXPECT_EQ(exe->memory_plan().num_storages, 0);
}

TEST(RuntimeExecutor, ConcurrentCallsEachGetTheirOwnMemory) {
  // Two chained kernels, so a shared arena would mix one call's intermediate into another.
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(64), float32]) {
  %0 = call_tir(@scale, (%x,), Tensor[(64), float32]);
  call_tir(@scale, (%0,), Tensor[(64), float32])
}
primfn @scale(%A: Buffer[(64), float32]) -> (%B: Buffer[(64), float32]) {
  for %i: int32 in 0 +: 64 serial {
    block "compute"(%vi: int32 in 0 +: 64 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] * 3f + 1f;
    }
  }
}
)");
  Executor ex(Compile(mod), ExecutorOptions{1, nullptr});
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      NDArray x = Iota({64}, static_cast<float>(100 * t));
      for (int r = 0; r < 50; ++r) {
        std::vector<NDArray> out = ex.Run({{"x", x}});
        for (int i = 0; i < 64; ++i) {
          float v = x.data_as<float>()[i];
          if (out[0].data_as<float>()[i] != (v * 3 + 1) * 3 + 1) ++mismatches;
        }
      }
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(RuntimeExecutor, MultipleOutputsAndTuples) {
  IRModule mod =
      ParseModule(Main("%x: " + std::string(kT) + ", %y: " + kT,
                       "  %0 = call_tir(@split2, (%x,), (" + std::string(kT) + ", " + kT +
                           "));\n"
                           "  %1 = call_tir(@add, (%0.0, %y), " +
                           kT +
                           ");\n"
                           "  %2 = (%1, %0.1);\n"
                           "  (%2, %y, %0.0)") +
                  Split2() + StdKernels());
  CheckAgainstInterpreter(mod, XY(), 4);
  auto exe = Compile(mod);
  EXPECT_EQ(exe->instructions().size(), 2u);
  EXPECT_EQ(exe->instructions()[0].num_outputs, 2);
  // Returning an input gives a copy, not the caller's array.
  std::map<std::string, NDArray> in = XY();
  std::vector<NDArray> out = Executor(exe).Run(in);
  EXPECT_TRUE(out[2].BitwiseEqual(in["y"]));
  EXPECT_NE(out[2].data(), in["y"].data());
}

TEST(RuntimeExecutor, UnusedKernelOutput) {
  IRModule mod =
      ParseModule(Main("%x: " + std::string(kT), "  %0 = call_tir(@split2, (%x,), (" +
                                                     std::string(kT) + ", " + kT +
                                                     "));\n"
                                                     "  %1 = call_tir(@twice, (%0.1,), " +
                                                     kT +
                                                     ");\n"
                                                     "  call_tir(@add_one, (%1,), " +
                                                     kT + ")") +
                  Split2() + StdKernels());
  CheckAgainstInterpreter(mod, {{"x", Iota({8}, 3.0f)}}, 1);
}

TEST(RuntimeExecutor, Constants) {
  IRModule kernels = ParseModule(StdKernels());
  Var x = MakeVar("x", MakeTensorType({8}));
  Constant c = MakeConstant(Iota({8}, 10.0f));
  Type t = MakeTensorType({8});
  Expr a = MakeOpCall(kCallTirOp, {MakeGlobalVar("add"), MakeTuple({x, c})}, {}, {t});
  Expr b = MakeOpCall(kCallTirOp, {MakeGlobalVar("mul"), MakeTuple({a, c})}, {}, {t});
  IRModule mod = kernels.WithFunction("main", MakeFunction({x}, MakeTuple({b, c})));
  CheckAgainstInterpreter(mod, {{"x", Iota({8}, 1.0f)}}, 2);
  auto exe = Compile(mod);
  EXPECT_EQ(exe->constants().size(), 1u);
}

TEST(RuntimeExecutor, DiamondReusesStorage) {
  IRModule mod = ParseModule(
      Main("%x: " + std::string(kT), "  %0 = call_tir(@add_one, (%x,), " + std::string(kT) +
                                         ");\n"
                                         "  %1 = call_tir(@twice, (%0,), " +
                                         kT +
                                         ");\n"
                                         "  %2 = call_tir(@add_one, (%0,), " +
                                         kT +
                                         ");\n"
                                         "  %3 = call_tir(@mul, (%1, %2), " +
                                         kT +
                                         ");\n"
                                         "  %4 = call_tir(@twice, (%3,), " +
                                         kT +
                                         ");\n"
                                         "  call_tir(@add, (%4, %x), " +
                                         kT + ")") +
      StdKernels());
  CheckAgainstInterpreter(mod, {{"x", Iota({8}, -1.0f)}}, 1);
  auto exe = Compile(mod);
  const runtime::MemoryPlanStats& plan = exe->memory_plan();
  EXPECT_EQ(plan.num_intermediates, 5);
  EXPECT_EQ(plan.num_storages, 3);  // %0, %1 and %2 are live together
  EXPECT_LT(plan.arena_bytes, plan.total_intermediate_bytes);
  // Values live at once never share storage.
  const auto& s = exe->slots();
  const auto& prog = exe->instructions();
  int s0 = prog[0].args.back(), s1 = prog[1].args.back(), s2 = prog[2].args.back();
  EXPECT_NE(s[s0].storage, s[s1].storage);
  EXPECT_NE(s[s0].storage, s[s2].storage);
  EXPECT_NE(s[s1].storage, s[s2].storage);
}

TEST(RuntimeExecutor, LongChainReusesTwoStorages) {
  IRModule mod = ParseModule(ChainText(40));
  CheckAgainstInterpreter(mod, {{"x", Iota({8}, 0.25f)}}, 1);
  auto exe = Compile(mod);
  const runtime::MemoryPlanStats& plan = exe->memory_plan();
  EXPECT_EQ(exe->instructions().size(), 40u);
  EXPECT_EQ(plan.num_intermediates, 39);  // the last result is an output
  EXPECT_EQ(plan.num_storages, 2);
  EXPECT_EQ(plan.arena_bytes, 2u * 64u);
  EXPECT_EQ(plan.total_intermediate_bytes, 39u * 64u);
  EXPECT_LT(plan.arena_bytes, plan.total_intermediate_bytes);
}

TEST(RuntimeExecutor, DeepChainBuildsIteratively) {
  IRModule mod = ParseModule(ChainText(3000));
  auto exe = Compile(mod);
  EXPECT_EQ(exe->memory_plan().num_storages, 2);
  std::map<std::string, NDArray> in = {{"x", Iota({8}, 0.0f)}};
  ExpectMatchesInterpreter(mod, Executor(exe, ExecutorOptions{1, nullptr}).Run(in), in);
}

TEST(RuntimeExecutor, SharedPoolAndConcurrentExecutors) {
  IRModule mod = ParseModule(ChainText(12));
  auto exe = Compile(mod);
  auto pool = std::make_shared<runtime::ThreadPool>(2);
  std::map<std::string, NDArray> in = {{"x", Iota({8}, 1.0f)}};
  std::vector<NDArray> want = RunMain(mod, in).Flatten();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      Executor ex(exe, ExecutorOptions{0, pool});
      for (int r = 0; r < 10; ++r)
        if (!ex.Run(in)[0].BitwiseEqual(want[0])) mismatches.fetch_add(1);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  // One executor called from several threads at once serialises the calls.
  Executor shared(exe, ExecutorOptions{0, pool});
  threads.clear();
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&] {
      for (int r = 0; r < 10; ++r)
        if (!shared.Run(in)[0].BitwiseEqual(want[0])) mismatches.fetch_add(1);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(RuntimeExecutor, InputValidation) {
  IRModule mod = ParseModule(Main("%x: " + std::string(kT) + ", %y: " + kT,
                                  "  call_tir(@add, (%x, %y), " + std::string(kT) + ")") +
                             StdKernels());
  Executor ex(Compile(mod));
  NDArray good = Iota({8}, 0.0f);
  ExpectError(
      [&] {
        ex.Run({{"x", good}, {"y", good}, {"z", good}});
      },
      ErrorKind::kValue, {"unknown input 'z'", "x, y"});
  ExpectError([&] { ex.Run({{"x", good}}); }, ErrorKind::kValue, {"missing input 'y'", "x, y"});
  ExpectError(
      [&] {
        ex.Run({{"x", good}, {"y", Iota({2, 4}, 0.0f)}});
      },
      ErrorKind::kType, {"input 'y'", "float32[8]", "float32[2, 4]"});
  ExpectError(
      [&] {
        ex.Run({{"x", NDArray::Zeros({8}, DType::kInt32)}, {"y", good}});
      },
      ErrorKind::kType, {"input 'x'", "float32[8]", "int32[8]"});
  EXPECT_EQ(ex.Run({{"x", good}, {"y", good}}).size(), 1u);
}

TEST(RuntimeExecutor, UnsupportedConstructs) {
  std::string x = "%x: Tensor[(1, 8), float32]";
  ExpectError([&] { Compile(ParseModule(Main(x, "  nn.relu(%x)"))); }, ErrorKind::kUnsupported,
              {"op 'nn.relu'"});
  ExpectError([&] { Compile(ParseModule(Main(x, "  let %y = %x;\n  %y"))); },
              ErrorKind::kUnsupported, {"let binding"});
  ExpectError(
      [&] {
        Compile(ParseModule("def @g(%a: Tensor[(1, 8), float32]) { %a }\n" + Main(x, "  @g(%x)")));
      },
      ErrorKind::kUnsupported, {"call of @g"});
}

TEST(RuntimeExecutor, KernelErrorsNameTheKernel) {
  IRModule mod = ParseModule(
      Main("%x: " + std::string(kT), "  call_tir(@bad, (%x,), " + std::string(kT) + ")") +
      testing_runtime::ElemwiseFn("bad", 8, 1, "%A[%vi + 1]"));
  Executor ex(Compile(mod));
  ExpectError([&] { ex.Run({{"x", Iota({8}, 0.0f)}}); }, ErrorKind::kValue, {"kernel 'bad_k'"});
}

TEST(RuntimeExecutor, MissingKernelFailsAtCreate) {
  IRModule mod = ParseModule(ChainText(3));
  runtime::Module partial = InterpCodegen(mod, {"add_one_k"}, Target("interp"));
  ExpectError([&] { CreateExecutable(mod, partial); }, ErrorKind::kNotFound, {"'twice_k'"});
}

TEST(RuntimeExecutor, ProfileAndBenchmark) {
  IRModule mod = ParseModule(ChainText(6));  // add_one x4, twice x2
  Executor ex(Compile(mod), ExecutorOptions{1, nullptr});
  runtime::ProfileReport report = ex.Profile({{"x", Iota({8}, 0.0f)}}, 3);
  ASSERT_EQ(report.rows.size(), 2u);
  std::map<std::string, runtime::ProfileRow> rows;
  double share = 0;
  for (const auto& r : report.rows) {
    rows[r.symbol] = r;
    share += r.share;
    EXPECT_EQ(r.module_kind, "interp");
    EXPECT_GE(r.total_ms, 0.0);
    EXPECT_NEAR(r.mean_ms * r.calls, r.total_ms, 1e-9);
  }
  EXPECT_EQ(rows["add_one_k"].calls, 4 * 3);
  EXPECT_EQ(rows["twice_k"].calls, 2 * 3);
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_GE(report.rows[0].total_ms, report.rows[1].total_ms);
  EXPECT_NE(report.table.find("add_one_k"), std::string::npos) << report.table;
  EXPECT_NE(report.table.find("Kernel"), std::string::npos) << report.table;
  EXPECT_NE(report.table.find("Total"), std::string::npos) << report.table;

  runtime::BenchmarkResult b = ex.Benchmark({{"x", Iota({8}, 0.0f)}}, 1, 5);
  EXPECT_EQ(b.repeat, 5);
  EXPECT_LE(b.min_ms, b.median_ms);
  EXPECT_LE(b.median_ms, b.p90_ms);
  ExpectError([&] { ex.Profile({{"x", Iota({8}, 0.0f)}}, 0); }, ErrorKind::kValue, {"repeat"});
}

TEST(RuntimeExecutor, NoKernelsAndPoolSize) {
  // @main returning only a parameter and a constant: nothing to run, outputs are copies.
  Var x = MakeVar("x", MakeTensorType({8}));
  Constant c = MakeConstant(Iota({8}, 5.0f));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeTuple({x, c})));
  auto exe = CreateExecutable(mod, InterpCodegen(mod, {}, Target("interp")));
  EXPECT_TRUE(exe->instructions().empty());
  EXPECT_EQ(exe->memory_plan().arena_bytes, 0u);
  Executor ex(exe, ExecutorOptionsFor(Target::Parse("interp -num_threads=2")));
  EXPECT_EQ(ex.pool().num_threads(), 2);
  std::map<std::string, NDArray> in = {{"x", Iota({8}, 1.0f)}};
  std::vector<NDArray> out = ex.Run(in);
  ExpectMatchesInterpreter(mod, out, in);
  EXPECT_NE(out[1].data(), c->data.data());
}

}  // namespace
}  // namespace tessera
