// Reductions: sum, mean, max, min with axis lists, negative axes, keepdims and exclude.
#include <cmath>
#include <limits>

#include "ops_math_test_util.h"

namespace tessera {
namespace {

using namespace math_test;  // NOLINT

using Shape = std::vector<int64_t>;

void ExpectValues(const NDArray& a, const std::vector<double>& want) {
  std::vector<double> got = Values(a);
  ASSERT_EQ(got.size(), want.size()) << a.Describe();
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else
      EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

Attrs Axis(std::vector<int64_t> axes) {
  return Attrs{{"axis", AttrValue::Ints(axes)}};
}

TEST(OpsReduce, SumOverAllAxesByDefault) {
  NDArray out = RunOp("sum", {Iota({3, 5})});
  EXPECT_EQ(out.ndim(), 0);
  ExpectValues(out, {105});
  // axis=[] also means every axis (TVM's GetReduceAxes).
  ExpectValues(RunOp("sum", {Iota({3, 5})}, Axis({})), {105});
  NDArray kept = RunOp("sum", {Iota({3, 5})}, Attrs{{"keepdims", true}});
  EXPECT_EQ(kept.shape(), (Shape{1, 1}));
}

TEST(OpsReduce, SumOverOneAxisPositiveAndNegative) {
  NDArray rows = RunOp("sum", {Iota({3, 5})}, Axis({1}));
  EXPECT_EQ(rows.shape(), (Shape{3}));
  ExpectValues(rows, {10, 35, 60});
  NDArray cols = RunOp("sum", {Iota({3, 5})}, Axis({-2}).With("keepdims", true));
  EXPECT_EQ(cols.shape(), (Shape{1, 5}));
  ExpectValues(cols, {15, 18, 21, 24, 27});
}

TEST(OpsReduce, ExcludeReducesTheOtherAxes) {
  NDArray out = RunOp("sum", {Iota({3, 5})}, Axis({0}).With("exclude", true));
  EXPECT_EQ(out.shape(), (Shape{3}));
  ExpectValues(out, {10, 35, 60});
  NDArray kept =
      RunOp("sum", {Iota({2, 3, 2})}, Axis({-2}).With("exclude", true).With("keepdims", true));
  EXPECT_EQ(kept.shape(), (Shape{1, 3, 1}));
  ExpectValues(kept, {14, 22, 30});
}

TEST(OpsReduce, MeanOverTwoAxes) {
  NDArray out = RunOp("mean", {Iota({2, 3, 2})}, Axis({0, 2}));
  EXPECT_EQ(out.shape(), (Shape{3}));
  ExpectValues(out, {3.5, 5.5, 7.5});
  // Integer mean truncates toward zero.
  NDArray ints = RunOp("mean", {Arr({2, 2}, {1, 2, 3, -6}, DType::kInt32)}, Axis({1}));
  EXPECT_EQ(ints.dtype(), DType::kInt32);
  ExpectValues(ints, {1, -1});
}

TEST(OpsReduce, MaxAndMin) {
  ExpectValues(RunOp("max", {Iota({3, 5})}, Axis({1})), {4, 9, 14});
  ExpectValues(RunOp("min", {Iota({3, 5})}, Axis({0})), {0, 1, 2, 3, 4});
  ExpectValues(RunOp("max", {Arr({3}, {1, std::nan(""), 3})}), {std::nan("")});
  ExpectValues(RunOp("min", {Arr({2, 2}, {-7, 5, 9, -128}, DType::kInt8)}, Axis({0})), {-7, -128});
  ExpectValues(RunOp("max", {Arr({2, 2}, {-7, 5, 9, -128}, DType::kInt8)}, Axis({-1})), {5, 9});
}

TEST(OpsReduce, IntegerSumIsExactInInt64) {
  NDArray big = NDArray::Empty({2}, DType::kInt64);
  big.SetInt(0, int64_t{1} << 53);
  big.SetInt(1, 1);
  EXPECT_EQ(RunOp("sum", {big}).GetInt(0), (int64_t{1} << 53) + 1);
}

TEST(OpsReduce, EmptyAxesGiveIdentities) {
  NDArray empty = NDArray::Empty({2, 0}, DType::kFloat32);
  ExpectValues(RunOp("sum", {empty}, Axis({1})), {0, 0});
  double inf = std::numeric_limits<double>::infinity();
  ExpectValues(RunOp("max", {empty}, Axis({1})), {-inf, -inf});
  ExpectValues(RunOp("min", {empty}, Axis({1})), {inf, inf});
  ExpectValues(RunOp("mean", {empty}, Axis({1})), {std::nan(""), std::nan("")});
  EXPECT_EQ(RunOp("sum", {empty}, Axis({0})).shape(), (Shape{0}));
}

TEST(OpsReduce, ScalarInput) {
  NDArray out = RunOp("sum", {Arr({}, {4})});
  EXPECT_EQ(out.ndim(), 0);
  ExpectValues(out, {4});
}

TEST(OpsReduce, AxisErrors) {
  auto msg = ErrorOf([] { Infer("sum", {F32({3, 5})}, Axis({2})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 2 is out of range for rank 2");
  msg = ErrorOf([] { Infer("mean", {F32({3, 5})}, Axis({-3})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "axis -3 is out of range for rank 2");
  msg = ErrorOf([] { Infer("max", {F32({3, 5})}, Axis({1, -1})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "axis -1 is repeated in [1, -1]");
  msg = ErrorOf([] { Infer("sum", {F32({})}, Axis({0})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 0 is out of range for rank 0");
}

TEST(OpsReduce, AttributeValidation) {
  Var x = MakeVar("x", F32({3, 5}));
  auto msg = ErrorOf([&] { MakeOpCall("sum", {x}, Attrs{{"axis", "rows"}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'sum': attribute 'axis' must be an array of integers or None, got \"rows\"");
  msg = ErrorOf([&] { MakeOpCall("min", {x}, Attrs{{"keep_dims", true}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'min': unknown attribute 'keep_dims' (valid: axis, keepdims, exclude)");
  // A single int is coerced to a one-element array, 0/1 to bools.
  Call call = MakeOpCall("sum", {x}, Attrs{{"axis", 1}, {"keepdims", 1}});
  EXPECT_EQ(call->attrs.Get("axis"), AttrValue::Ints({1}));
  EXPECT_EQ(call->attrs.Get("keepdims"), AttrValue(true));
  EXPECT_TRUE(call->attrs.Get("exclude") == AttrValue(false));
}

TEST(OpsReduce, NonTensorInputIsATypeError) {
  auto msg = ErrorOf([] { Infer("sum", {MakeTupleType({F32({2})})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "input 0 must be a tensor");
}

}  // namespace
}  // namespace tessera
