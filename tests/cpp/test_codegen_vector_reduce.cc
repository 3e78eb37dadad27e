// Native codegen: the vector math of vectorized loops (exp, sigmoid, tanh, erf) on special
// and ordinary inputs, and reductions with vector accumulators, against the interpreter.
#include <cstring>
#include <limits>

#include "codegen_test_util.h"

namespace tessera {
namespace {

using namespace tir;  // NOLINT: builders read better unqualified here
using testing::ExpectClose;
using testing::MakeArgs;
using testing::RunInterp;
using testing::RunNative;
using testing::TestCompileOptions;

/// Distance in representable floats between two float32 values (both finite or equal).
int64_t UlpDistance(float a, float b) {
  auto ordered = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, 4);
    return i < 0 ? static_cast<int64_t>(INT32_MIN) - i : static_cast<int64_t>(i);
  };
  return std::abs(ordered(a) - ordered(b));
}

/// Inputs for the math functions: NaN, infinities, signed zeros, the edges of exp's range
/// (overflow, subnormal results, underflow), then a sweep over [-20, 20].
NDArray MathInputs(int64_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(),
                          inf,
                          -inf,
                          0.0f,
                          -0.0f,
                          88.72f,
                          88.73f,
                          88.99f,  // between the overflow edge and exp's clamp (89)
                          -87.5f,
                          -95.0f,
                          -100.0f,
                          -103.9f,
                          -103.98f,  // between the underflow edge and exp's clamp (-104)
                          -104.5f,
                          -200.0f,
                          1e-6f,
                          -3e-4f,
                          0.624f,
                          0.626f,
                          0.999f,
                          1.001f,
                          -1.0f,
                          9.0f,
                          -12.0f};
  while (static_cast<int64_t>(v.size()) < n)
    v.push_back(-20.0f + 40.0f * static_cast<float>(v.size()) / static_cast<float>(n));
  NDArray a = NDArray::Zeros({n}, DType::kFloat32);
  for (int64_t i = 0; i < n; ++i) a.SetFloat(i, v[i]);
  return a;
}

TEST(CodegenVector, MathIntrinsicsInVectorLoopsWithinTwoUlps) {
  // 8 * 12 + 5 elements: full registers and a scalar tail on 16-, 32- and 64-byte hosts.
  const int64_t n = 101;
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (const char* name : {"exp", "sigmoid", "tanh", "erf"}) {
    Buffer a = MakeBuffer("A", {n}), b = MakeBuffer("B", {n});
    tir::Var i = tir::MakeVar("i");
    kernels.emplace_back(
        name, MakePrimFunc({a, b}, 1,
                           MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized,
                                   MakeStore(b, MakeIntrinsic(name, {MakeLoad(a, {i})}), {i}))));
  }
  // The vector store's value calls the vector form (the prelude defines all of them).
  std::string c = native::GenerateC(kernels);
  for (const char* fn : {"ts_vexp_f32(", "ts_vsigmoid_f32(", "ts_vtanh_f32(", "ts_verf_f32("})
    EXPECT_NE(c.find(std::string(", ") + fn), std::string::npos) << fn;
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  NDArray x = MathInputs(n);
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, 1, {x});
    NDArray got = RunNative(mod, name, args).back(), want = RunInterp(f, args).back();
    for (int64_t i = 0; i < n; ++i) {
      float g = static_cast<float>(got.GetFloat(i)), w = static_cast<float>(want.GetFloat(i));
      SCOPED_TRACE(name + std::string("(") + std::to_string(x.GetFloat(i)) + ")");
      // The sigmoid intrinsic is 1 / (1 + exp(-x)) in float (scalar and vector alike):
      // below -88.7 exp overflows and the result is 0 where double gives a subnormal.
      if (name == "sigmoid" && x.GetFloat(i) < -88.7) continue;
      if (std::isnan(w)) {
        EXPECT_TRUE(std::isnan(g)) << g;
      } else if (std::isinf(w) || w == 0.0f) {
        EXPECT_EQ(g, w);
      } else if (std::fabs(w) < std::numeric_limits<float>::min()) {
        EXPECT_LE(std::fabs(g - w), 2 * std::numeric_limits<float>::denorm_min()) << g << " " << w;
      } else {
        // sigmoid deep in the negative range divides by exp's result: 3 ulps.
        EXPECT_LE(UlpDistance(g, w), 3) << g << " vs " << w;
      }
    }
  }
}

/// for i { acc[i] = init; for k { block: acc[i] = acc[i] op value(X[i, k], acc[i]) } }.
PrimFunc RowReduction(int64_t rows, int64_t len, DType d, BinaryOp op, double init,
                      const std::function<PrimExpr(PrimExpr, PrimExpr)>& value) {
  Buffer x = MakeBuffer("X", {rows, len}, d), acc = MakeBuffer("Acc", {rows}, d);
  tir::Var i = tir::MakeVar("i"), k = tir::MakeVar("k");
  IterVar vi{tir::MakeVar("vi"), Range{IntImm(0), IntImm(rows)}, IterKind::kSpatial, i};
  IterVar vk{tir::MakeVar("vk"), Range{IntImm(0), IntImm(len)}, IterKind::kReduce, k};
  PrimExpr cur = MakeLoad(acc, {vi.var});
  Stmt step = MakeBlock(
      "red", {vi, vk}, {}, {BufferRegion{acc, {Range{vi.var, IntImm(1)}}}}, nullptr,
      MakeStore(acc, MakeBinary(op, cur, value(MakeLoad(x, {vi.var, vk.var}), cur)), {vi.var}));
  Stmt body = MakeSeq({MakeStore(acc, FloatImm(init, d), {i}),
                       MakeFor(k, IntImm(0), IntImm(len), ForKind::kSerial, step)});
  return MakePrimFunc({x, acc}, 1, MakeFor(i, IntImm(0), IntImm(rows), ForKind::kSerial, body));
}

PrimExpr Plain(PrimExpr x, PrimExpr) {
  return x;
}

TEST(CodegenVector, InnerAxisReductionsUseVectorAccumulators) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* name;
    BinaryOp op;
    double init;
  };
  const Case cases[] = {{"sum", BinaryOp::kAdd, 0.0},
                        {"prod", BinaryOp::kMul, 1.0},
                        {"max", BinaryOp::kMax, -inf},
                        {"min", BinaryOp::kMin, inf}};
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (DType d : {DType::kFloat32, DType::kFloat64})
    for (const Case& c : cases)
      for (int64_t len : {1, 3, 8, 37, 64, 67, 130}) {
        // prod of many values in [-4, 4] overflows: reduce exp(x / len)-like small factors.
        auto value = [&](PrimExpr x, PrimExpr) -> PrimExpr {
          if (c.op == BinaryOp::kMul) return x * FloatImm(0.05, d) + FloatImm(1.0, d);
          return x;
        };
        kernels.emplace_back(std::string(c.name) + "_" + DTypeName(d) + "_" + std::to_string(len),
                             RowReduction(5, len, d, c.op, c.init, value));
      }
  // The exp-sum of softmax (value with a vector intrinsic and an invariant operand).
  kernels.emplace_back(
      "expsum", RowReduction(3, 45, DType::kFloat32, BinaryOp::kAdd, 0.0, [](PrimExpr x, PrimExpr) {
        return MakeIntrinsic("exp", {x - FloatImm(1.0)});
      }));
  std::string c = native::GenerateC(kernels);
  EXPECT_NE(c.find("vectorized reduction: 4 x"), std::string::npos);
  EXPECT_NE(c.find("ts_vexp_f32("), std::string::npos);
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  uint32_t seed = 21;
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, seed++);
    // The reduction is reassociated: sums differ from the interpreter's order by rounding.
    ExpectClose(RunNative(mod, name, args).back(), RunInterp(f, args).back(), name, 1e-5);
  }
  // NaN and infinities in max/min/sum follow the interpreter (NaN is skipped by max/min
  // that start from an ordinary value, as std::max does).
  for (const Case& c : cases) {
    PrimFunc f = RowReduction(2, 29, DType::kFloat32, c.op, c.init, Plain);
    NDArray x = testing::RandomArray({2, 29}, DType::kFloat32, 5);
    x.SetFloat(3, std::numeric_limits<double>::quiet_NaN());
    x.SetFloat(29 + 20, inf);
    x.SetFloat(29 + 27, -inf);
    runtime::Module m = native::BuildNativeModule({{"special", f}}, TestCompileOptions());
    std::vector<NDArray> args = MakeArgs(f, 1, {x});
    ExpectClose(RunNative(m, "special", args).back(), RunInterp(f, args).back(),
                std::string("special ") + c.name, 1e-5);
  }
}

TEST(CodegenVector, CodeForLesserCpusRunsWithoutAvx512) {
  // What an AVX2 host gets (8-float vectors, scalar loop tails), and the AVX-512 shape
  // compiled for a CPU without it (16-float vectors through the lane-by-lane masked tails),
  // both built with -mavx2 -mfma and run here against the interpreter.
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (int64_t n : {int64_t{37}, int64_t{101}})
    for (const char* name : {"exp", "sigmoid", "tanh", "erf"}) {
      Buffer a = MakeBuffer("A", {n}), b = MakeBuffer("B", {n});
      tir::Var i = tir::MakeVar("i");
      PrimExpr x = MakeLoad(a, {i});
      PrimExpr v = MakeSelect(MakeBinary(BinaryOp::kLT, x, FloatImm(0.5)),
                              MakeIntrinsic(name, {x}), MakeBinary(BinaryOp::kMax, x, FloatImm(1.0)));
      kernels.emplace_back(std::string(name) + "_" + std::to_string(n),
                           MakePrimFunc({a, b}, 1,
                                        MakeFor(i, IntImm(0), IntImm(n), ForKind::kVectorized,
                                                MakeStore(b, v, {i}))));
    }
  for (DType d : {DType::kFloat32, DType::kFloat64}) {
    kernels.emplace_back(std::string("sum_") + DTypeName(d),
                         RowReduction(3, 67, d, BinaryOp::kAdd, 0.0, Plain));
    kernels.emplace_back(std::string("max_") + DTypeName(d),
                         RowReduction(3, 67, d, BinaryOp::kMax,
                                      -std::numeric_limits<double>::infinity(), Plain));
  }
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    GTEST_SKIP() << "this CPU cannot run AVX2 code";
  // 16 bytes: SSE's min / max builtins; 32: AVX's; 64 without AVX-512: the select forms.
  for (int vector_bytes : {16, 32, 64}) {
    SCOPED_TRACE(vector_bytes);
    native::CodegenOptions options;
    options.vector_bytes = vector_bytes;
    std::string c = native::GenerateC(kernels, options);
    EXPECT_NE(c.find(std::to_string(vector_bytes / 4) + " lanes of float32"), std::string::npos);
    EXPECT_EQ(c.find("ts_vloadm_f32(&") != std::string::npos, vector_bytes == 64);
    runtime::Module mod = testing::BuildForIsa(kernels, options, "-mavx2 -mfma");
    uint32_t seed = 3;
    for (const auto& [name, f] : kernels) {
      bool reduction = name.rfind("sum_", 0) == 0 || name.rfind("max_", 0) == 0;
      std::vector<NDArray> args = reduction ? MakeArgs(f, seed++)
                                            : MakeArgs(f, seed++, {MathInputs(f->params[0]->shape[0])});
      NDArray got = RunNative(mod, name, args).back(), want = RunInterp(f, args).back();
      // sigmoid below -88.7: 0 in float where double gives a subnormal (as in the test above).
      for (int64_t i = 0; i < want.NumElements(); ++i)
        if (std::fabs(want.GetFloat(i)) < std::numeric_limits<float>::min() &&
            std::fabs(got.GetFloat(i)) < std::numeric_limits<float>::min())
          got.SetFloat(i, want.GetFloat(i));
      ExpectClose(got, want, name, 1e-5);
    }
  }
}

TEST(CodegenVector, ReductionsThatCannotUseVectorAccumulatorsStaySerial) {
  // The value reads the accumulator itself: a real loop-carried dependence.
  PrimFunc dep = RowReduction(2, 19, DType::kFloat32, BinaryOp::kAdd, 1.0,
                              [](PrimExpr x, PrimExpr cur) { return x * cur * FloatImm(0.01); });
  std::string c = native::GenerateC({{"dep", dep}});
  EXPECT_EQ(c.find("vectorized reduction"), std::string::npos) << c;
  testing::ExpectMatchesInterp(dep, "dep", 4);
  tir::Var i = tir::MakeVar("i"), k = tir::MakeVar("k");
  // A strided value (reducing down a column) and an integer accumulator stay serial.
  Buffer col = MakeBuffer("C", {19, 2}), out = MakeBuffer("O", {2});
  Buffer xi = MakeBuffer("XI", {2, 19}, DType::kInt32), ai = MakeBuffer("AI", {2}, DType::kInt32);
  Stmt cbody = MakeSeq({MakeStore(out, FloatImm(0.0), {i}),
                        MakeFor(k, IntImm(0), IntImm(19), ForKind::kSerial,
                                MakeStore(out, MakeLoad(out, {i}) + MakeLoad(col, {k, i}), {i}))});
  Stmt ibody = MakeSeq({MakeStore(ai, IntImm(0, DType::kInt32), {i}),
                        MakeFor(k, IntImm(0), IntImm(19), ForKind::kSerial,
                                MakeStore(ai, MakeLoad(ai, {i}) + MakeLoad(xi, {i, k}), {i}))});
  PrimFunc strided =
      MakePrimFunc({col, out}, 1, MakeFor(i, IntImm(0), IntImm(2), ForKind::kSerial, cbody));
  PrimFunc ints =
      MakePrimFunc({xi, ai}, 1, MakeFor(i, IntImm(0), IntImm(2), ForKind::kSerial, ibody));
  std::string c2 = native::GenerateC({{"strided", strided}, {"ints", ints}});
  EXPECT_EQ(c2.find("vectorized reduction"), std::string::npos) << c2;
  testing::ExpectMatchesInterp(strided, "strided", 5);
  testing::ExpectMatchesInterp(ints, "ints", 6);
}

}  // namespace
}  // namespace tessera
