// build() for the native backend on fused models: numerics against the interpreter with
// odd and even shapes, how the PassContext shapes the kernels, save -> load in a fresh
// process, and run-time input errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "lower_test_util.h"
#include "tessera/backend/build.h"
#include "tessera/backend/external_native.h"
#include "tessera/runtime/executable_module.h"
#include "tessera/runtime/native_module.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_context.h"

namespace tessera {
namespace {

using testing_lower::ExpectClose;
using testing_lower::RandomInputs;

/// Builds `text` for native under the current context, runs it and compares every output
/// with the interpreter; returns the executable.
std::shared_ptr<runtime::Executable> CheckNative(const std::string& text, unsigned seed = 3) {
  SCOPED_TRACE(text);
  IRModule mod = InferTypes(ParseModule(text));
  auto inputs = RandomInputs(mod, seed);
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  auto exe = Build(mod, "native");
  runtime::Executor executor(exe);
  std::vector<NDArray> got = executor.Run(inputs);
  EXPECT_EQ(got.size(), want.size());
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    ExpectClose(want[i], got[i], "output " + std::to_string(i));
  return exe;
}

std::string ConvBiasRelu(int c, int hw, int oc, int stride) {
  auto s = [](int v) { return std::to_string(v); };
  return "def @main(%x: Tensor[(1, " + s(c) + ", " + s(hw) + ", " + s(hw) +
         "), float32], %w: Tensor[(" + s(oc) + ", " + s(c) + ", 3, 3), float32], %b: Tensor[(" +
         s(oc) + "), float32]) {\n  %0 = nn.conv2d(%x, %w, strides=[" + s(stride) + ", " +
         s(stride) + "], padding=[1, 1], channels=" + s(oc) +
         ", kernel_size=[3, 3]);\n  %1 = nn.bias_add(%0, %b);\n  nn.relu(%1)\n}\n";
}

TEST(BuildNative, ConvBiasReluOddAndEvenShapesIsOneKernel) {
  for (auto [c, hw, oc, stride] :
       std::vector<std::array<int, 4>>{{3, 7, 5, 1}, {4, 8, 8, 1}, {3, 9, 16, 2}, {8, 16, 17, 2}}) {
    auto exe = CheckNative(ConvBiasRelu(c, hw, oc, stride));
    EXPECT_EQ(exe->instructions().size(), 1u);
  }
}

TEST(BuildNative, DenseBiasGeluSoftmaxLayerNorm) {
  for (const char* shape : {"3, 17", "4, 32"}) {
    std::string k = std::string(shape).substr(3);
    CheckNative("def @main(%x: Tensor[(" + std::string(shape) + "), float32], %w: Tensor[(9, " + k +
                "), float32], %b: Tensor[(9), float32]) {\n"
                "  %0 = nn.dense(%x, %w);\n  %1 = nn.bias_add(%0, %b, axis=-1);\n"
                "  nn.gelu(%1)\n}\n");
    CheckNative("def @main(%x: Tensor[(" + std::string(shape) +
                "), float32]) {\n"
                "  nn.softmax(%x)\n}\n");
    CheckNative("def @main(%x: Tensor[(" + std::string(shape) + "), float32], %g: Tensor[(" + k +
                "), float32], %b: Tensor[(" + k +
                "), float32]) {\n"
                "  nn.layer_norm(%x, %g, %b)\n}\n");
  }
}

const char* kResidualBlock = R"(
def @main(%x: Tensor[(1, 4, 9, 9), float32], %w1: Tensor[(4, 4, 3, 3), float32],
          %w2: Tensor[(4, 4, 3, 3), float32], %g: Tensor[(4), float32],
          %be: Tensor[(4), float32], %m: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);
  %1 = nn.batch_norm(%0, %g, %be, %m, %g);
  %2 = nn.relu(%1.0);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);
  %4 = add(%3, %x);
  %5 = nn.relu(%4);
  %6 = nn.max_pool2d(%5, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);
  %7 = nn.global_avg_pool2d(%6);
  (%6, nn.batch_flatten(%7))
})";

TEST(BuildNative, ResidualBlockWithTupleResult) {
  // batch_norm's variance is %g: keep it positive.
  IRModule mod = InferTypes(ParseModule(kResidualBlock));
  auto inputs = RandomInputs(mod, 11);
  NDArray g = inputs.at("g");
  for (int64_t i = 0; i < g.NumElements(); ++i) g.SetFloat(i, std::fabs(g.GetFloat(i)) + 0.5);
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  runtime::Executor executor(Build(mod, "native"));
  std::vector<NDArray> got = executor.Run(inputs);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) ExpectClose(want[i], got[i], "output " + std::to_string(i));
}

TEST(BuildNative, TransformerStyleAttention) {
  CheckNative(R"(
def @main(%x: Tensor[(6, 16), float32], %wq: Tensor[(16, 16), float32],
          %wk: Tensor[(16, 16), float32]) {
  %0 = nn.dense(%x, %wq);
  %1 = nn.dense(%x, %wk);
  %2 = reshape(%0, newshape=[6, 2, 8]);
  %3 = transpose(%2, axes=[1, 0, 2]);
  %4 = reshape(%1, newshape=[6, 2, 8]);
  %5 = transpose(%4, axes=[1, 0, 2]);
  %6 = nn.batch_matmul(%3, %5);
  %7 = multiply(%6, 0.35f);
  nn.softmax(%7)
})");
}

/// Two dense layers of %x (`units` and 32 wide) joined along axis 1 (%2) and fed to a third
/// (%3); %x is (rows, 8) and `result` the body's last line.
std::string ConcatOfDenseLayers(int rows, const std::string& result, int units = 16) {
  std::string r = std::to_string(rows), u = std::to_string(units), all = std::to_string(units + 32);
  return "def @main(%x: Tensor[(" + r + ", 8), float32], %w1: Tensor[(" + u +
         ", 8), float32], %w2: Tensor[(32, 8), float32], %w3: Tensor[(4, " + all +
         "), float32]) {\n"
         "  %0 = nn.dense(%x, %w1);\n  %1 = nn.dense(%x, %w2);\n"
         "  %2 = concatenate((%0, %1), axis=1);\n  %3 = nn.dense(%2, %w3);\n  " +
         result + "\n}\n";
}

/// The number of concatenate calls the executable runs.
size_t ConcatCalls(const runtime::Executable& exe) {
  size_t n = 0;
  for (const runtime::Instruction& ins : exe.instructions())
    n += ins.symbol.find("concatenate") != std::string::npos;
  return n;
}

TEST(BuildNative, ConcatenatedKernelResultsAreWrittenInPlace) {
  // One row: each dense result is a contiguous part of the concatenation, which never runs.
  auto exe = CheckNative(ConcatOfDenseLayers(1, "%3"));
  EXPECT_EQ(ConcatCalls(*exe), 0u);
  int parts = 0;
  for (const runtime::Slot& s : exe->slots()) parts += s.view_of >= 0;
  EXPECT_EQ(parts, 2);
  // Two rows interleave the parts; a result read twice, a concatenation that is @main's
  // result and one of @main's parameter keep the call.
  EXPECT_EQ(ConcatCalls(*CheckNative(ConcatOfDenseLayers(2, "%3"))), 1u);
  // A concatenation of a concatenation is flattened (SimplifyExpr) and then placed too.
  exe = CheckNative(
      "def @main(%x: Tensor[(1, 8), float32], %w1: Tensor[(16, 8), float32],\n"
      "          %w2: Tensor[(16, 8), float32], %w3: Tensor[(16, 8), float32],\n"
      "          %v: Tensor[(4, 48), float32]) {\n"
      "  %0 = nn.dense(%x, %w1);\n  %1 = nn.dense(%x, %w2);\n  %2 = nn.dense(%x, %w3);\n"
      "  %3 = concatenate((%0, %1), axis=1);\n  %4 = concatenate((%3, %2), axis=1);\n"
      "  nn.dense(%4, %v)\n}\n");
  EXPECT_EQ(ConcatCalls(*exe), 0u);
  // 4 floats (16 bytes) first: the second part would start unaligned.
  EXPECT_EQ(ConcatCalls(*CheckNative(ConcatOfDenseLayers(1, "%3", 4))), 1u);
  EXPECT_EQ(ConcatCalls(*CheckNative(ConcatOfDenseLayers(1, "(%3, %0)"))), 1u);
  EXPECT_EQ(ConcatCalls(*CheckNative(ConcatOfDenseLayers(1, "(%3, %2)"))), 1u);
  EXPECT_EQ(ConcatCalls(*CheckNative(
                "def @main(%x: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32],\n"
                "          %v: Tensor[(4, 32), float32]) {\n"
                "  %0 = nn.dense(%x, %w);\n  %1 = concatenate((%0, %x), axis=1);\n"
                "  nn.dense(%1, %v)\n}\n")),
            1u);
}

TEST(BuildNative, PassContextDecidesFusion) {
  const char* text = R"(
def @main(%x: Tensor[(4, 8), float32]) {
  %0 = exp(%x);
  %1 = add(%0, %x);
  nn.relu(%1)
})";
  size_t fused = CheckNative(text)->instructions().size();
  EXPECT_EQ(fused, 1u);
  {
    PassContext::Scope scope(PassContext::Create(/*opt_level=*/0));
    EXPECT_EQ(CheckNative(text)->instructions().size(), 3u);  // level 0: no fusion
  }
  {
    PassContext::Scope scope(PassContext::Create(2, {}, {"FuseOps"}));
    EXPECT_EQ(CheckNative(text)->instructions().size(), 3u);  // FuseOps disabled
  }
}

TEST(BuildNative, SavedExecutableRunsTheSameInAFreshProcess) {
  namespace fs = std::filesystem;
  IRModule mod = InferTypes(ParseModule(ConvBiasRelu(3, 7, 5, 1)));
  auto inputs = RandomInputs(mod, 4);
  auto exe = Build(mod, "native");
  std::vector<NDArray> want = runtime::Executor(exe).Run(inputs);
  std::string path =
      (fs::temp_directory_path() / ("tessera_exe_" + std::to_string(::getpid()))).string();
  exe->Save(path);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A fresh process image is not needed to prove independence from the build: the
    // child loads from the file alone and exits with the comparison's verdict.
    int code = 0;
    try {
      std::vector<NDArray> got = runtime::Executor(runtime::Executable::Load(path)).Run(inputs);
      code = got.size() == 1 && got[0].BitwiseEqual(want[0]) ? 0 : 1;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  fs::remove(path);
}

TEST(BuildNative, RunTimeInputErrorsNameTheInput) {
  IRModule mod = InferTypes(ParseModule(ConvBiasRelu(3, 7, 5, 1)));
  auto inputs = RandomInputs(mod, 4);
  runtime::Executor executor(Build(mod, "native"));
  auto expect_error = [&](std::map<std::string, NDArray> in, const std::string& needle) {
    try {
      executor.Run(in);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto wrong_shape = inputs;
  wrong_shape["x"] = NDArray::Zeros({1, 3, 7, 8}, DType::kFloat32);
  expect_error(wrong_shape, "'x'");
  auto missing = inputs;
  missing.erase("b");
  expect_error(missing, "b");
  auto extra = inputs;
  extra["y"] = inputs.at("b");
  expect_error(extra, "'y'");
  EXPECT_THROW(Build(mod, "native -num_threads=x"), Error);
  EXPECT_THROW(Build(mod, "gpu"), Error);
}

TEST(BuildNative, PartitionsCompiledNativelyTakeTheSerialThreshold) {
  // A partition compiled by the native generator (an external backend's) gets the
  // target's -min_parallel_work like the host's kernels: with it above the relu's
  // 200K element stores the kernel has no parallel region, with 0 it has one.
  IRModule mod = InferTypes(
      ParseModule("def @main(%x: Tensor[(1, 64, 56, 56), float32]) { nn.relu(%x) }"));
  Function relu = mod.LookupFunction("main");
  auto partition_source = [&](const std::string& target) {
    runtime::Module m = CompilePartitionNatively(relu, "ext_relu", Target::Parse(target));
    const auto* exe = dynamic_cast<const runtime::ExecutableModuleNode*>(m.get());
    EXPECT_NE(exe, nullptr);
    std::string source;
    std::vector<runtime::Module> stack{exe->executable().module()};
    while (!stack.empty()) {
      runtime::Module node = stack.back();
      stack.pop_back();
      if (const auto* native = dynamic_cast<const runtime::NativeModuleNode*>(node.get()))
        source += native->source();
      for (const runtime::Module& i : node->imports) stack.push_back(i);
    }
    return source;
  };
  EXPECT_EQ(partition_source("native -num_threads=2 -min_parallel_work=1000000000")
                .find("env->parallel_for("),
            std::string::npos);
  EXPECT_NE(partition_source("native -num_threads=2 -min_parallel_work=0").find("env->parallel_for("),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
