// Native codegen vs the interpreter on every scalar operation: binary ops per dtype,
// comparisons and logic, intrinsics, casts between all dtypes, integer corner cases.
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

const DType kAllDTypes[] = {DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                            DType::kFloat64, DType::kInt8,    DType::kInt32,
                            DType::kInt64,   DType::kUInt8,   DType::kBool};

/// out[i] = op(A[i], B[i]) over 37 elements.
PrimFunc Elementwise(DType in, DType out, const std::function<PrimExpr(PrimExpr, PrimExpr)>& op) {
  Buffer a = MakeBuffer("A", {37}, in), b = MakeBuffer("B", {37}, in),
         c = MakeBuffer("C", {37}, out);
  tir::Var i = tir::MakeVar("i");
  Stmt body = MakeFor(i, IntImm(0), IntImm(37), ForKind::kSerial,
                      MakeStore(c, op(MakeLoad(a, {i}), MakeLoad(b, {i})), {i}));
  return MakePrimFunc({a, b, c}, 1, body);
}

/// Builds all kernels in one module and compares every one with the interpreter.
void CheckAll(const std::vector<std::pair<std::string, PrimFunc>>& kernels, bool nonzero) {
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  EXPECT_EQ(mod->ListFunctions().size(), kernels.size());
  uint32_t seed = 7;
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, seed++, {}, nonzero);
    std::vector<NDArray> want = RunInterp(f, args);
    std::vector<NDArray> got = RunNative(mod, name, args);
    ExpectClose(got.back(), want.back(), name);
  }
}

TEST(CodegenOps, EveryArithmeticOpOnEveryDType) {
  const std::pair<const char*, BinaryOp> ops[] = {
      {"add", BinaryOp::kAdd},           {"sub", BinaryOp::kSub},
      {"mul", BinaryOp::kMul},           {"div", BinaryOp::kDiv},
      {"floordiv", BinaryOp::kFloorDiv}, {"floormod", BinaryOp::kFloorMod},
      {"min", BinaryOp::kMin},           {"max", BinaryOp::kMax}};
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (DType d : kAllDTypes) {
    if (d == DType::kBool) continue;
    for (const auto& [name, op] : ops)
      kernels.emplace_back(
          std::string(name) + "_" + DTypeName(d),
          Elementwise(d, d, [op = op](PrimExpr x, PrimExpr y) { return MakeBinary(op, x, y); }));
  }
  CheckAll(kernels, /*nonzero=*/true);
}

TEST(CodegenOps, ComparisonsAndLogic) {
  const BinaryOp cmps[] = {BinaryOp::kEQ, BinaryOp::kNE, BinaryOp::kLT,
                           BinaryOp::kLE, BinaryOp::kGT, BinaryOp::kGE};
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (DType d : kAllDTypes)
    for (BinaryOp op : cmps)
      kernels.emplace_back(
          std::string("cmp") + std::to_string(static_cast<int>(op)) + "_" + DTypeName(d),
          Elementwise(d, DType::kBool,
                      [op](PrimExpr x, PrimExpr y) { return MakeBinary(op, x, y); }));
  kernels.emplace_back("and", Elementwise(DType::kBool, DType::kBool, [](PrimExpr x, PrimExpr y) {
                         return MakeBinary(BinaryOp::kAnd, x, y);
                       }));
  kernels.emplace_back("or", Elementwise(DType::kBool, DType::kBool, [](PrimExpr x, PrimExpr y) {
                         return MakeBinary(BinaryOp::kOr, MakeNot(x), y);
                       }));
  kernels.emplace_back("select",
                       Elementwise(DType::kFloat32, DType::kFloat32, [](PrimExpr x, PrimExpr y) {
                         return MakeSelect(MakeBinary(BinaryOp::kLT, x, y), x * y, x - y);
                       }));
  CheckAll(kernels, false);
}

TEST(CodegenOps, EveryIntrinsicOnFloatAndIntegerDTypes) {
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                  DType::kInt32, DType::kInt8}) {
    for (const auto& [name, arity] : IntrinsicNames()) {
      DType out = name == "isnan" ? DType::kBool : d;
      kernels.emplace_back(
          name + "_" + DTypeName(d),
          Elementwise(d, out, [name = name, arity = arity](PrimExpr x, PrimExpr y) {
            std::vector<PrimExpr> args{x};
            if (arity == 2) args.push_back(y);
            return MakeIntrinsic(name, args);
          }));
    }
  }
  // f16 results are rounded to 11 bits: a float-vs-double difference may move one ulp.
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  uint32_t seed = 3;
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, seed++, {}, /*nonzero=*/true);
    DType d = f->params[0]->dtype;
    double rel = d == DType::kFloat16 ? 1e-3 : d == DType::kBFloat16 ? 8e-3 : 1e-6;
    ExpectClose(RunNative(mod, name, args).back(), RunInterp(f, args).back(), name, rel);
  }
}

/// Values that exercise every conversion rule: limits, fractions, NaN, infinities,
/// float16 overflow and subnormals.
NDArray CastInputs(DType d) {
  const double specials[] = {
      0.0,   -0.0,   0.5,     -0.5,         1.5,           2.5,          -2.5,
      127.9, -128.7, 255.9,   256.0,        300.7,         -129.5,       65504,
      65520, 1e-8,   -1e-7,   3e9,          -3e9,          1e10,         -1e19,
      1e19,  1e300,  1.0 / 3, 2147483647.0, -2147483648.0, 4294967296.0, 123456789.123};
  size_t n = sizeof(specials) / sizeof(specials[0]) + 3;
  NDArray a = NDArray::Zeros({static_cast<int64_t>(n)}, d);
  for (size_t i = 0; i + 3 < n; ++i) {
    if (IsFloat(d))
      a.SetFloat(i, specials[i]);
    else
      a.SetInt(i, static_cast<int64_t>(std::fmod(specials[i], 1e18)));
  }
  if (IsFloat(d)) {
    a.SetFloat(n - 3, std::numeric_limits<double>::quiet_NaN());
    a.SetFloat(n - 2, std::numeric_limits<double>::infinity());
    a.SetFloat(n - 1, -std::numeric_limits<double>::infinity());
  } else {
    a.SetInt(n - 3, std::numeric_limits<int64_t>::min());
    a.SetInt(n - 2, std::numeric_limits<int64_t>::max());
    a.SetInt(n - 1, -1);
  }
  return a;
}

TEST(CodegenOps, CastsBetweenAllDTypesIncludingHalfRoundTrips) {
  std::vector<std::pair<std::string, PrimFunc>> kernels;
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      int64_t n = CastInputs(from).NumElements();
      Buffer a = MakeBuffer("A", {n}, from), b = MakeBuffer("B", {n}, to);
      tir::Var i = tir::MakeVar("i");
      kernels.emplace_back(
          std::string("cast_") + DTypeName(from) + "_to_" + DTypeName(to),
          MakePrimFunc({a, b}, 1,
                       MakeFor(i, IntImm(0), IntImm(n), ForKind::kSerial,
                               MakeStore(b, MakeCast(to, MakeLoad(a, {i})), {i}))));
    }
    // float -> half -> float round trips, and a rounding of a computed value.
    for (DType half : {DType::kFloat16, DType::kBFloat16}) {
      int64_t n = CastInputs(from).NumElements();
      Buffer a = MakeBuffer("A", {n}, from), b = MakeBuffer("B", {n}, DType::kFloat32);
      tir::Var i = tir::MakeVar("i");
      PrimExpr x = MakeCast(DType::kFloat32, MakeLoad(a, {i}));
      PrimExpr rt = MakeCast(DType::kFloat32, MakeCast(half, x * FloatImm(1.0009765625)));
      kernels.emplace_back(
          std::string("roundtrip_") + DTypeName(from) + "_" + DTypeName(half),
          MakePrimFunc({a, b}, 1,
                       MakeFor(i, IntImm(0), IntImm(n), ForKind::kSerial, MakeStore(b, rt, {i}))));
    }
  }
  runtime::Module mod = native::BuildNativeModule(kernels, TestCompileOptions());
  for (const auto& [name, f] : kernels) {
    std::vector<NDArray> args = MakeArgs(f, 0, {CastInputs(f->params[0]->dtype)});
    ExpectClose(RunNative(mod, name, args).back(), RunInterp(f, args).back(), name, 0.0);
  }
}

TEST(CodegenOps, IntegerFloorDivModRoundTowardMinusInfinity) {
  Buffer a = MakeBuffer("A", {8}, DType::kInt32), b = MakeBuffer("B", {8}, DType::kInt32);
  Buffer q = MakeBuffer("Q", {8}, DType::kInt32), r = MakeBuffer("R", {8}, DType::kInt32);
  Buffer qc = MakeBuffer("QC", {8}, DType::kInt32), rc = MakeBuffer("RC", {8}, DType::kInt32);
  tir::Var i = tir::MakeVar("i");
  PrimExpr x = MakeLoad(a, {i}), y = MakeLoad(b, {i});
  Stmt body = MakeSeq(
      {MakeStore(q, FloorDiv(x, y), {i}), MakeStore(r, FloorMod(x, y), {i}),
       MakeStore(qc, FloorDiv(x, IntImm(-3)), {i}),
       MakeStore(rc, FloorMod(x, IntImm(4)) + MakeBinary(BinaryOp::kDiv, x, IntImm(3)), {i})});
  PrimFunc f = MakePrimFunc({a, b, q, r, qc, rc}, 4,
                            MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial, body));
  NDArray av = NDArray::Zeros({8}, DType::kInt32), bv = NDArray::Zeros({8}, DType::kInt32);
  const int32_t xs[8] = {-7, 7, -7, 7, INT32_MIN, INT32_MIN, 0, -1};
  const int32_t ys[8] = {2, -2, -2, 2, -1, 3, -5, 5};
  for (int k = 0; k < 8; ++k) {
    av.SetInt(k, xs[k]);
    bv.SetInt(k, ys[k]);
  }
  runtime::Module mod = native::BuildNativeModule({{"fdm", f}}, TestCompileOptions());
  std::vector<NDArray> args = MakeArgs(f, 0, {av, bv});
  std::vector<NDArray> got = RunNative(mod, "fdm", args), want = RunInterp(f, args);
  for (size_t k = 2; k < 6; ++k) ExpectClose(got[k], want[k], f->params[k]->name);
  const int32_t expect_q[8] = {-4, -4, 3, 3, INT32_MIN, -715827883, 0, -1};
  const int32_t expect_r[8] = {1, -1, -1, 1, 0, 1, 0, 4};
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(got[2].GetInt(k), expect_q[k]) << k;
    EXPECT_EQ(got[3].GetInt(k), expect_r[k]) << k;
  }
}

TEST(CodegenOps, IntegerDivisionByZeroFailsTheKernel) {
  PrimFunc f = Elementwise(DType::kInt32, DType::kInt32,
                           [](PrimExpr x, PrimExpr y) { return FloorDiv(x, y); });
  runtime::Module mod = native::BuildNativeModule({{"divzero", f}}, TestCompileOptions());
  std::vector<NDArray> args = MakeArgs(f, 1);
  args[1] = NDArray::Zeros({37}, DType::kInt32);
  try {
    RunNative(mod, "divzero", args);
    FAIL() << "expected an error";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
  }
  EXPECT_THROW(RunInterp(f, args), tessera::Error);
}

}  // namespace
}  // namespace tessera
