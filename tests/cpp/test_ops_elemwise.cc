// Elementwise ops: broadcasting binaries, comparisons, where, unary math and activations,
// clip, cast, dropout and the creation ops zeros/ones/full.
#include <cmath>
#include <limits>

#include "ops_math_test_util.h"

namespace tessera {
namespace {

using namespace math_test;  // NOLINT

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Element-by-element comparison where NaN matches NaN.
void ExpectValues(const NDArray& a, const std::vector<double>& want, double tol = 0) {
  std::vector<double> got = Values(a);
  ASSERT_EQ(got.size(), want.size()) << a.Describe();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " = " << got[i];
    else if (tol == 0)
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    else
      EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
  }
}

TEST(OpsElemwiseBinary, AddBroadcastsColumnAgainstRow) {
  NDArray out = RunOp("add", {Arr({3, 1}, {1, 2, 3}), Arr({1, 4}, {10, 20, 30, 40})});
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{3, 4}));
  ExpectValues(out, {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
}

TEST(OpsElemwiseBinary, SubtractWithRankMismatch) {
  NDArray out = RunOp("subtract", {Iota({2, 3}), Arr({3}, {1, 2, 3})});
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{2, 3}));
  ExpectValues(out, {-1, -1, -1, 2, 2, 2});
  // The scalar on the left broadcasts too.
  ExpectValues(RunOp("subtract", {Arr({}, {10}), Arr({3}, {1, 2, 3})}), {9, 8, 7});
}

TEST(OpsElemwiseBinary, MultiplyOddShapeByScalar) {
  NDArray out = RunOp("multiply", {Iota({3, 5}), Arr({}, {2})});
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{3, 5}));
  std::vector<double> want;
  for (int i = 0; i < 15; ++i) want.push_back(2.0 * i);
  ExpectValues(out, want);
}

TEST(OpsElemwiseBinary, DivideFloatIsIeee) {
  ExpectValues(RunOp("divide", {Arr({4}, {1, -7, 3, 0}), Arr({4}, {2, 2, 0, 0})}),
               {0.5, -3.5, kInf, kNaN});
}

TEST(OpsElemwiseBinary, DivideIntTruncatesTowardZero) {
  NDArray out = RunOp("divide", {Arr({5}, {7, -7, 7, -7, 5}, DType::kInt32),
                                 Arr({5}, {2, 2, -2, -2, 0}, DType::kInt32)});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  ExpectValues(out, {3, -3, -3, 3, 0});  // x / 0 is defined as 0
  NDArray min = NDArray::Empty({1}, DType::kInt64);
  min.SetInt(0, std::numeric_limits<int64_t>::min());
  NDArray r = RunOp("divide", {min, Arr({1}, {-1}, DType::kInt64)});
  EXPECT_EQ(r.GetInt(0), std::numeric_limits<int64_t>::min());  // wraps instead of trapping
}

TEST(OpsElemwiseBinary, PowerFloatAndInt) {
  ExpectValues(RunOp("power", {Arr({3}, {2, 4, 9}), Arr({3}, {3, 0.5, 0.5})}), {8, 2, 3});
  ExpectValues(RunOp("power", {Arr({6}, {2, -2, 2, 1, -1, 0}, DType::kInt64),
                               Arr({6}, {10, 3, -1, -5, -3, -1}, DType::kInt64)}),
               {1024, -8, 0, 1, -1, 0});
}

TEST(OpsElemwiseBinary, MaximumMinimumPropagateNaN) {
  ExpectValues(RunOp("maximum", {Arr({3}, {1, 5, kNaN}), Arr({1}, {3})}), {3, 5, kNaN});
  ExpectValues(RunOp("minimum", {Arr({3}, {1, 5, kNaN}), Arr({1}, {3})}), {1, 3, kNaN});
  ExpectValues(
      RunOp("maximum", {Arr({2}, {-4, 9}, DType::kInt8), Arr({2}, {-5, 10}, DType::kInt8)}),
      {-4, 10});
}

TEST(OpsElemwiseBinary, IntegerArithmeticWrapsToTheDtype) {
  ExpectValues(RunOp("add", {Arr({1}, {100}, DType::kInt8), Arr({1}, {100}, DType::kInt8)}), {-56});
  ExpectValues(RunOp("subtract", {Arr({1}, {1}, DType::kUInt8), Arr({1}, {2}, DType::kUInt8)}),
               {255});
  // int64 stays exact beyond 2**53 (no detour through double).
  NDArray big = NDArray::Empty({1}, DType::kInt64);
  big.SetInt(0, (int64_t{1} << 53) + 1);
  EXPECT_EQ(RunOp("add", {big, Arr({1}, {2}, DType::kInt64)}).GetInt(0), (int64_t{1} << 53) + 3);
}

TEST(OpsElemwiseBinary, Float16ComputesInDoubleAndRounds) {
  NDArray out = RunOp("multiply", {Arr({2}, {1.5, 3}, DType::kFloat16),
                                   Arr({2}, {2, 0.333251953125}, DType::kFloat16)});
  EXPECT_EQ(out.dtype(), DType::kFloat16);
  ExpectValues(out, {3, 1});  // 0.999755859375 is a tie between halves; rounds to even
}

TEST(OpsElemwiseCompare, AllSixComparisons) {
  std::vector<NDArray> in = {Arr({3}, {1, 2, 3}), Arr({3}, {2, 2, 2})};
  std::vector<std::pair<const char*, std::vector<double>>> cases = {
      {"equal", {0, 1, 0}},      {"not_equal", {1, 0, 1}}, {"less", {1, 0, 0}},
      {"less_equal", {1, 1, 0}}, {"greater", {0, 0, 1}},   {"greater_equal", {0, 1, 1}},
  };
  for (const auto& [name, want] : cases) {
    SCOPED_TRACE(name);
    NDArray out = RunOp(name, in);
    EXPECT_EQ(out.dtype(), DType::kBool);
    ExpectValues(out, want);
    EXPECT_EQ(OpRegistry::Global().Get(name).pattern, OpPatternKind::kBroadcast);
  }
}

TEST(OpsElemwiseCompare, BroadcastsAndComparesIntegersExactly) {
  NDArray out =
      RunOp("less", {Arr({3, 1}, {0, 1, 2}, DType::kInt32), Arr({1, 2}, {1, 2}, DType::kInt32)});
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{3, 2}));
  ExpectValues(out, {1, 1, 0, 1, 0, 0});
  NDArray a = NDArray::Empty({1}, DType::kInt64), b = NDArray::Empty({1}, DType::kInt64);
  a.SetInt(0, (int64_t{1} << 53) + 1);
  b.SetInt(0, int64_t{1} << 53);
  EXPECT_EQ(RunOp("equal", {a, b}).GetInt(0), 0);
  EXPECT_EQ(RunOp("not_equal", {Arr({1}, {kNaN}), Arr({1}, {kNaN})}).GetInt(0), 1);
}

TEST(OpsElemwiseWhere, ThreeWayBroadcast) {
  NDArray cond = Arr({3, 1}, {1, 0, 1}, DType::kBool);
  NDArray out = RunOp("where", {cond, Arr({1, 4}, {0, 1, 2, 3}), Arr({}, {9})});
  EXPECT_EQ(out.shape(), (std::vector<int64_t>{3, 4}));
  ExpectValues(out, {0, 1, 2, 3, 9, 9, 9, 9, 0, 1, 2, 3});
  EXPECT_EQ(OpRegistry::Global().Get("where").pattern, OpPatternKind::kBroadcast);
}

TEST(OpsElemwiseTypeErrors, BroadcastAndDTypeMismatches) {
  auto msg = ErrorOf([] { Infer("add", {F32({3, 2}), F32({4})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "shapes [3, 2] and [4] cannot be broadcast together");
  msg = ErrorOf(
      [] {
        Infer("multiply", {F32({2}), MakeTensorType({2}, DType::kInt32)});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "input dtypes differ: float32 and int32");
  msg = ErrorOf(
      [] {
        Infer("less", {F32({2}), MakeTensorType({2}, DType::kFloat16)});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "input dtypes differ: float32 and float16");
  msg = ErrorOf([] { Infer("where", {F32({2}), F32({2}), F32({2})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "condition must be a bool tensor, got float32");
  msg = ErrorOf(
      [] {
        Infer("where",
              {MakeTensorType({2}, DType::kBool), F32({2}), MakeTensorType({2}, DType::kInt32)});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "x and y dtypes differ: float32 and int32");
  msg = ErrorOf(
      [] {
        Infer("where", {MakeTensorType({3}, DType::kBool), F32({2}), F32({2})});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "shapes [3] and [2] cannot be broadcast together");
  msg = ErrorOf([] { Infer("add", {F32({2}), MakeTupleType({F32({2})})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "input 1 must be a tensor");
}

TEST(OpsElemwiseTypeErrors, ArityAndAttributes) {
  Var x = MakeVar("x", F32({2}));
  auto msg = ErrorOf([&] { MakeOpCall("add", {x}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "op 'add' takes 2 input(s), got 1");
  msg = ErrorOf([&] { MakeOpCall("add", {x, x}, Attrs{{"axis", 1}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'add': unknown attribute 'axis' (it takes no attributes)");
  msg = ErrorOf(
      [&] {
        MakeOpCall("nn.leaky_relu", {x}, Attrs{{"slope", 0.1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'nn.leaky_relu': unknown attribute 'slope' (valid: alpha)");
  msg = ErrorOf(
      [&] {
        MakeOpCall("nn.leaky_relu", {x}, Attrs{{"alpha", "big"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'alpha' must be a number, got \"big\"");
}

TEST(OpsElemwiseUnary, MathFunctions) {
  auto f64 = [](std::vector<double> v) {
    return Arr({static_cast<int64_t>(v.size())}, v, DType::kFloat64);
  };
  ExpectValues(RunOp("negative", {f64({1, -2, 0})}), {-1, 2, 0});
  ExpectValues(RunOp("exp", {f64({0, 1})}), {1, 2.718281828459045});
  ExpectValues(RunOp("log", {f64({1, 2.718281828459045, 0, -1})}), {0, 1, -kInf, kNaN});
  ExpectValues(RunOp("sqrt", {f64({4, 9, 2})}), {2, 3, std::sqrt(2.0)});
  ExpectValues(RunOp("rsqrt", {f64({4, 0.25})}), {0.5, 2});
  ExpectValues(RunOp("tanh", {f64({0, 1})}), {0, 0.7615941559557649});
  ExpectValues(RunOp("sigmoid", {f64({0, 2, -2, -1000, 1000})}),
               {0.5, 0.8807970779778823, 0.11920292202211755, 0, 1});
  ExpectValues(RunOp("erf", {f64({0, 1})}), {0, 0.8427007929497149});
  ExpectValues(RunOp("abs", {f64({-1.5, 2})}), {1.5, 2});
  std::vector<double> r = {-1.5, -0.5, 0.5, 1.5, 2.5, 2.7};
  ExpectValues(RunOp("floor", {f64(r)}), {-2, -1, 0, 1, 2, 2});
  ExpectValues(RunOp("ceil", {f64(r)}), {-1, 0, 1, 2, 3, 3});
  ExpectValues(RunOp("round", {f64(r)}), {-2, 0, 0, 2, 2, 3});  // ties to even
}

TEST(OpsElemwiseUnary, Float32ResultsAreRoundedFromDouble) {
  NDArray out = RunOp("exp", {Arr({2, 1}, {0, 1})});
  EXPECT_EQ(out.dtype(), DType::kFloat32);
  EXPECT_EQ(out.data_as<float>()[1], static_cast<float>(2.718281828459045));
}

TEST(OpsElemwiseUnary, IntegerInputs) {
  ExpectValues(RunOp("negative", {Arr({3}, {1, -2, 0}, DType::kInt32)}), {-1, 2, 0});
  ExpectValues(RunOp("abs", {Arr({2}, {-3, 4}, DType::kInt32)}), {3, 4});
  ExpectValues(RunOp("abs", {Arr({1}, {-128}, DType::kInt8)}), {-128});  // wraps like TVM
  ExpectValues(RunOp("nn.relu", {Arr({3}, {-1, 0, 2}, DType::kInt64)}), {0, 0, 2});
  ExpectValues(RunOp("floor", {Arr({2}, {-7, 7}, DType::kInt32)}), {-7, 7});
  for (const char* name :
       {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "nn.gelu", "nn.leaky_relu"}) {
    SCOPED_TRACE(name);
    auto msg =
        ErrorOf([&] { Infer(name, {MakeTensorType({2}, DType::kInt32)}); }, ErrorKind::kType);
    EXPECT_HAS(msg, "data must be a floating-point tensor, got int32");
  }
}

TEST(OpsElemwiseUnary, CopyIsADeepCopyOfAnyDType) {
  NDArray in = Arr({3, 5}, std::vector<double>(15, 7), DType::kInt64);
  NDArray out = RunOp("copy", {in});
  EXPECT_TRUE(out.BitwiseEqual(in));
  EXPECT_NE(out.data(), in.data());
}

TEST(OpsElemwiseActivations, ReluLeakyReluGelu) {
  ExpectValues(RunOp("nn.relu", {Arr({3}, {-1, 0, 2})}), {0, 0, 2});
  ExpectValues(RunOp("nn.leaky_relu", {Arr({2}, {-100, 5})}), {-1, 5}, 1e-6);
  ExpectValues(RunOp("nn.leaky_relu", {Arr({2}, {-100, 5})}, Attrs{{"alpha", 0.5}}), {-50, 5});
  NDArray x = Arr({3}, {1, -1, 0}, DType::kFloat64);
  ExpectValues(RunOp("nn.gelu", {x}), {0.8413447460685429, -0.15865525393145707, 0}, 1e-15);
  ExpectValues(
      RunOp("nn.gelu", {Arr({2}, {1, -2}, DType::kFloat64)}, Attrs{{"approximate", "tanh"}}),
      {0.8411919906082768, -0.04540230591222494}, 1e-15);
  auto msg = ErrorOf(
      [] {
        Infer("nn.gelu", {F32({2})}, Attrs{{"approximate", "fast"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'nn.gelu': attribute 'approximate' must be \"none\" or \"tanh\"");
}

TEST(OpsElemwiseClip, FloatAndIntBounds) {
  Attrs bounds{{"a_min", -1.0}, {"a_max", 1}};
  ExpectValues(RunOp("clip", {Arr({3, 1}, {-2, 0.5, 3})}, bounds), {-1, 0.5, 1});
  ExpectValues(RunOp("clip", {Arr({1}, {kNaN})}, bounds), {kNaN});
  // Integer tensors convert the bounds to the dtype first (truncation), as TVM does.
  ExpectValues(RunOp("clip", {Arr({4}, {-5, 0, 5, 2}, DType::kInt32)},
                     Attrs{{"a_min", -1.5}, {"a_max", 2.7}}),
               {-1, 0, 2, 2});
  ExpectValues(
      RunOp("clip", {Arr({2}, {-5, 300}, DType::kUInt8)}, Attrs{{"a_min", -1e30}, {"a_max", 1e30}}),
      {251, 44});  // -5 and 300 wrapped on the way in; bounds saturate
}

TEST(OpsElemwiseClip, AttributeValidation) {
  Var x = MakeVar("x", F32({2}));
  auto msg = ErrorOf([&] { MakeOpCall("clip", {x}, Attrs{{"a_min", 0.0}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'clip': attribute 'a_max' is required");
  msg = ErrorOf(
      [&] {
        MakeOpCall("clip", {x}, Attrs{{"a_min", "low"}, {"a_max", 1.0}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'clip': attribute 'a_min' must be a number, got \"low\"");
  msg = ErrorOf(
      [&] {
        MakeOpCall("clip", {x}, Attrs{{"a_min", 2.0}, {"a_max", 1.0}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'clip': a_min 2 is greater than a_max 1");
  msg = ErrorOf(
      [&] {
        MakeOpCall("clip", {x}, Attrs{{"a_min", kNaN}, {"a_max", 1.0}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "clip bounds must not be NaN");
}

TEST(OpsElemwiseCast, ConversionsBetweenDTypes) {
  NDArray out = RunOp("cast", {Arr({5}, {1.7, -1.7, 300, kNaN, -1e30})}, Attrs{{"dtype", "int8"}});
  EXPECT_EQ(out.dtype(), DType::kInt8);
  ExpectValues(out, {1, -1, 127, 0, -128});  // truncate, saturate, NaN -> 0
  out = RunOp("cast", {Arr({2}, {-3, 5}, DType::kInt32)}, Attrs{{"dtype", "float16"}});
  EXPECT_EQ(out.dtype(), DType::kFloat16);
  ExpectValues(out, {-3, 5});
  ExpectValues(RunOp("cast", {Arr({3}, {0, 2.5, -0.1})}, Attrs{{"dtype", "bool"}}), {0, 1, 1});
  ExpectValues(RunOp("cast", {Arr({2}, {-1, 257}, DType::kInt32)}, Attrs{{"dtype", "uint8"}}),
               {255, 1});
  EXPECT_EQ(OpRegistry::Global().Get("cast").pattern, OpPatternKind::kElemwise);
  Var x = MakeVar("x", F32({2}));
  auto msg = ErrorOf(
      [&] {
        MakeOpCall("cast", {x}, Attrs{{"dtype", "float31"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'cast': attribute 'dtype': unknown dtype 'float31'");
  msg = ErrorOf([&] { MakeOpCall("cast", {x}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'cast': attribute 'dtype' is required");
  msg = ErrorOf([&] { MakeOpCall("cast", {x}, Attrs{{"dtype", 3}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'dtype' must be a string, got 3");
}

TEST(OpsElemwiseDropout, InferenceReturnsInputAndOnesMask) {
  const OpDef& def = OpRegistry::Global().Get("nn.dropout");
  EXPECT_EQ(def.pattern, OpPatternKind::kOpaque);
  Type t = Infer("nn.dropout", {F32({2, 3})});
  const auto* tuple = t.as<TupleTypeNode>();
  ASSERT_NE(tuple, nullptr);
  ASSERT_EQ(tuple->fields.size(), 2u);
  EXPECT_TRUE(TypeEqual(tuple->fields[0], F32({2, 3})));
  EXPECT_TRUE(TypeEqual(tuple->fields[1], F32({2, 3})));
  NDArray x = Arr({2, 3}, {1, -2, 3, -4, 5, -6});
  std::vector<NDArray> out = RunAll("nn.dropout", {x}, Attrs{{"rate", 0.25}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].BitwiseEqual(x));
  ExpectValues(out[1], {1, 1, 1, 1, 1, 1});
  auto msg = ErrorOf(
      [] {
        Infer("nn.dropout", {F32({2})}, Attrs{{"rate", 1.0}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'rate' must be in [0, 1), got 1");
}

TEST(OpsElemwiseFill, ZerosAndOnes) {
  NDArray z = RunOp("zeros", {}, Attrs{{"shape", AttrValue::Ints({2, 3})}, {"dtype", "int32"}});
  EXPECT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 3}));
  ExpectValues(z, std::vector<double>(6, 0));
  NDArray o = RunOp("ones", {}, Attrs{{"shape", AttrValue::Ints({3})}});
  EXPECT_EQ(o.dtype(), DType::kFloat32);
  ExpectValues(o, {1, 1, 1});
  NDArray scalar = RunOp("ones", {}, Attrs{{"shape", AttrValue::Ints({})}, {"dtype", "bool"}});
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.GetInt(0), 1);
  EXPECT_EQ(RunOp("zeros", {}, Attrs{{"shape", AttrValue::Ints({0, 4})}}).NumElements(), 0);
  auto msg = ErrorOf(
      [] {
        MakeOpCall("zeros", {}, Attrs{{"shape", AttrValue::Ints({2, -1})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'zeros': attribute 'shape' [2, -1] has a negative dimension");
  msg = ErrorOf(
      [] {
        MakeOpCall("ones", {}, Attrs{{"shape", 2}, {"dtype", "complex"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "unknown dtype 'complex'");
  msg = ErrorOf([] { MakeOpCall("ones", {}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'shape' is required");
}

TEST(OpsElemwiseFill, FullTakesItsDTypeFromTheFillValue) {
  Attrs shape{{"shape", AttrValue::Ints({2, 2})}};
  NDArray a = RunOp("full", {Arr({}, {7}, DType::kInt32)}, shape);
  EXPECT_EQ(a.dtype(), DType::kInt32);
  ExpectValues(a, {7, 7, 7, 7});
  NDArray b = RunOp("full", {Arr({}, {7}, DType::kInt32)}, shape.With("dtype", "float32"));
  EXPECT_EQ(b.dtype(), DType::kFloat32);
  ExpectValues(b, {7, 7, 7, 7});
  ExpectValues(RunOp("full", {Arr({}, {-2.9})}, shape.With("dtype", "int8")), {-2, -2, -2, -2});
  auto msg = ErrorOf([&] { Infer("full", {F32({1})}, shape); }, ErrorKind::kType);
  EXPECT_HAS(msg, "fill_value must be a scalar (rank-0) tensor, got shape [1]");
}

TEST(OpsElemwisePatterns, RegisteredKinds) {
  const OpRegistry& r = OpRegistry::Global();
  for (const char* name : {"add", "subtract", "multiply", "divide", "power", "maximum", "minimum"})
    EXPECT_EQ(r.Get(name).pattern, OpPatternKind::kBroadcast) << name;
  for (const char* name :
       {"negative", "exp", "nn.relu", "nn.gelu", "clip", "copy", "zeros", "full"})
    EXPECT_EQ(r.Get(name).pattern, OpPatternKind::kElemwise) << name;
  for (const char* name : {"sum", "mean", "max", "min"})
    EXPECT_EQ(r.Get(name).pattern, OpPatternKind::kCommReduce) << name;
  for (const char* name : {"reshape", "transpose", "concatenate", "split", "squeeze", "expand_dims",
                           "strided_slice", "take", "layout_transform", "crop"})
    EXPECT_EQ(r.Get(name).pattern, OpPatternKind::kInjective) << name;
}

TEST(OpsElemwisePatterns, EveryOpHasDescriptionRelationAndKernel) {
  const char* names[] = {"add",
                         "subtract",
                         "multiply",
                         "divide",
                         "power",
                         "maximum",
                         "minimum",
                         "equal",
                         "not_equal",
                         "less",
                         "less_equal",
                         "greater",
                         "greater_equal",
                         "where",
                         "negative",
                         "exp",
                         "log",
                         "sqrt",
                         "rsqrt",
                         "tanh",
                         "sigmoid",
                         "erf",
                         "abs",
                         "floor",
                         "ceil",
                         "round",
                         "copy",
                         "nn.relu",
                         "nn.leaky_relu",
                         "nn.gelu",
                         "clip",
                         "cast",
                         "nn.dropout",
                         "zeros",
                         "ones",
                         "full",
                         "sum",
                         "mean",
                         "max",
                         "min",
                         "reshape",
                         "transpose",
                         "concatenate",
                         "split",
                         "squeeze",
                         "expand_dims",
                         "strided_slice",
                         "take",
                         "layout_transform",
                         "crop"};
  for (const char* name : names) {
    const OpDef* def = OpRegistry::Global().Find(name);
    ASSERT_NE(def, nullptr) << name;
    EXPECT_FALSE(def->description.empty()) << name;
    EXPECT_TRUE(static_cast<bool>(def->type_rel)) << name;
    EXPECT_TRUE(static_cast<bool>(def->kernel)) << name;
  }
}

}  // namespace
}  // namespace tessera
