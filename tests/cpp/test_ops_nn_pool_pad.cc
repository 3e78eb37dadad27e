// Pooling (max/avg, global, adaptive), nn.pad and nn.batch_flatten tests.
#include <gtest/gtest.h>

#include <limits>
#include <numeric>

#include "ops_nn_test_util.h"

namespace tessera {
namespace {

using nn_test::ErrorOf;
using nn_test::ExpectClose;
using nn_test::Infer;
using nn_test::RandomArray;
using nn_test::RunOp;

/// A [1, 1, h, w] array holding 0, 1, 2, ... (or `start`, `start + 1`, ...).
NDArray Iota(int64_t h, int64_t w, float start = 0) {
  std::vector<float> v(static_cast<size_t>(h * w));
  std::iota(v.begin(), v.end(), start);
  return NDArray::FromFloats({1, 1, h, w}, v);
}

AttrValue Pairs(std::vector<std::vector<int64_t>> pairs) {
  std::vector<AttrValue> items;
  for (const auto& p : pairs) items.push_back(AttrValue::Ints(p));
  return AttrValue(items);
}

TEST(OpsNNPool, MaxPoolBasicCeilModeAndPadding) {
  ExpectClose(RunOp("nn.max_pool2d", {Iota(4, 4)}, {{"pool_size", 2}, {"strides", 2}}),
              {1, 1, 2, 2}, {5, 7, 13, 15});
  Attrs a{{"pool_size", 2}, {"strides", 2}};
  ExpectClose(RunOp("nn.max_pool2d", {Iota(5, 5)}, a), {1, 1, 2, 2}, {6, 8, 16, 18});
  // ceil_mode: the last window hangs over the edge and only sees row/column 4.
  ExpectClose(RunOp("nn.max_pool2d", {Iota(5, 5)}, a.With("ceil_mode", true)), {1, 1, 3, 3},
              {6, 8, 9, 16, 18, 19, 21, 23, 24});
  // Asymmetric padding [top=1, left=0, bottom=0, right=0].
  ExpectClose(RunOp("nn.max_pool2d", {Iota(3, 3, 1)},
                    {{"pool_size", 2}, {"padding", AttrValue::Ints({1, 0, 0, 0})}}),
              {1, 1, 3, 2}, {2, 3, 5, 6, 8, 9});
  // Dilation 2: out(i, j) = x(i + 2, j + 2) for increasing data.
  ExpectClose(RunOp("nn.max_pool2d", {Iota(5, 5)}, {{"pool_size", 2}, {"dilation", 2}}),
              {1, 1, 3, 3}, {12, 13, 14, 17, 18, 19, 22, 23, 24});
  // Padding wider than the window: windows entirely in padding give the dtype's lowest.
  NDArray p = RunOp("nn.max_pool2d", {Iota(1, 1, 7)}, {{"padding", 1}});
  ASSERT_EQ(p.shape(), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(p.GetFloat(4), 7.0);
  EXPECT_EQ(p.GetFloat(0), static_cast<double>(std::numeric_limits<float>::lowest()));
}

TEST(OpsNNPool, AvgPoolCountIncludePadAndCeilMode) {
  Attrs a{{"pool_size", 3}, {"padding", 1}};
  NDArray x = Iota(3, 3, 1);  // 1..9
  ExpectClose(RunOp("nn.avg_pool2d", {x}, a), {1, 1, 3, 3},
              {12 / 4.0, 21 / 6.0, 16 / 4.0, 27 / 6.0, 5, 33 / 6.0, 24 / 4.0, 39 / 6.0, 28 / 4.0});
  ExpectClose(RunOp("nn.avg_pool2d", {x}, a.With("count_include_pad", true)), {1, 1, 3, 3},
              {12 / 9.0, 21 / 9.0, 16 / 9.0, 27 / 9.0, 5, 33 / 9.0, 24 / 9.0, 39 / 9.0, 28 / 9.0});
  // ceil_mode overhang is never counted, even with count_include_pad.
  Attrs c{{"pool_size", 2}, {"strides", 2}, {"ceil_mode", true}};
  std::vector<double> want = {(0 + 1 + 5 + 6) / 4.0,     (2 + 3 + 7 + 8) / 4.0,     (4 + 9) / 2.0,
                              (10 + 11 + 15 + 16) / 4.0, (12 + 13 + 17 + 18) / 4.0, (14 + 19) / 2.0,
                              (20 + 21) / 2.0,           (22 + 23) / 2.0,           24};
  ExpectClose(RunOp("nn.avg_pool2d", {Iota(5, 5)}, c), {1, 1, 3, 3}, want);
  ExpectClose(RunOp("nn.avg_pool2d", {Iota(5, 5)}, c.With("count_include_pad", true)), {1, 1, 3, 3},
              want);
  // Dilation: mean of the four taps (i, j), (i, j + 2), (i + 2, j), (i + 2, j + 2).
  ExpectClose(RunOp("nn.avg_pool2d", {Iota(5, 5)}, {{"pool_size", 2}, {"dilation", 2}}),
              {1, 1, 3, 3}, {6, 7, 8, 11, 12, 13, 16, 17, 18});
}

/// Copies NCHW `x` to NHWC.
NDArray ToNHWC(const NDArray& x) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  NDArray out = NDArray::Empty({N, H, W, C}, x.dtype());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w)
          out.SetFloat(((n * H + h) * W + w) * C + c, x.GetFloat(((n * C + c) * H + h) * W + w));
  return out;
}

TEST(OpsNNPool, NHWCMatchesNCHW) {
  NDArray x = RandomArray({2, 3, 7, 9}, 41);
  std::vector<std::pair<std::string, Attrs>> cases = {
      {"nn.max_pool2d", {{"pool_size", 3}, {"strides", 2}, {"padding", 1}, {"ceil_mode", true}}},
      {"nn.avg_pool2d",
       {{"pool_size", AttrValue::Ints({3, 2})},
        {"strides", AttrValue::Ints({2, 1})},
        {"padding", AttrValue::Ints({1, 0, 2, 1})}}},
      {"nn.global_avg_pool2d", {}},
      {"nn.global_max_pool2d", {}},
      {"nn.adaptive_avg_pool2d", {{"output_size", AttrValue::Ints({3, 4})}}},
  };
  for (const auto& [name, attrs] : cases) {
    SCOPED_TRACE(name);
    NDArray want = ToNHWC(RunOp(name, {x}, attrs));
    NDArray got = RunOp(name, {ToNHWC(x)}, attrs.With("layout", "NHWC"));
    ExpectClose(got, want.shape(), nn_test::Values(want), 1e-6);
  }
}

TEST(OpsNNPool, GlobalAndAdaptive) {
  NDArray x = NDArray::FromFloats({1, 2, 2, 2}, {1, 2, 3, 6, -1, -2, -3, -4});
  ExpectClose(RunOp("nn.global_avg_pool2d", {x}), {1, 2, 1, 1}, {3, -2.5});
  ExpectClose(RunOp("nn.global_max_pool2d", {x}), {1, 2, 1, 1}, {6, -1});
  NDArray y = Iota(7, 7);  // y(h, w) = 7h + w
  ExpectClose(RunOp("nn.adaptive_avg_pool2d", {y}, {{"output_size", 1}}), {1, 1, 1, 1}, {24});
  // 7 -> 3 windows: [0, 3), [2, 5), [4, 7) with means 1, 3, 5.
  std::vector<double> want;
  for (double mh : {1.0, 3.0, 5.0})
    for (double mw : {1.0, 3.0, 5.0}) want.push_back(7 * mh + mw);
  ExpectClose(RunOp("nn.adaptive_avg_pool2d", {y}, {{"output_size", 3}}), {1, 1, 3, 3}, want);
  // 7 -> 2 rows ([0, 4), [3, 7): means 1.5, 4.5) x 1 column.
  ExpectClose(RunOp("nn.adaptive_avg_pool2d", {y}, {{"output_size", AttrValue::Ints({2, 1})}}),
              {1, 1, 2, 1}, {7 * 1.5 + 3, 7 * 4.5 + 3});
  // Default (None) is [1, 1]; an explicit [] keeps the input size as in TVM.
  Var v = MakeVar("v", MakeTensorType({1, 1, 7, 7}));
  EXPECT_EQ(MakeOpCall("nn.adaptive_avg_pool2d", {v})->attrs.GetInts("output_size"),
            (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(
      MakeOpCall("nn.adaptive_avg_pool2d", {v}, {{"output_size", 4}})->attrs.GetInts("output_size"),
      (std::vector<int64_t>{4, 4}));
  ExpectClose(RunOp("nn.adaptive_avg_pool2d", {y}), {1, 1, 1, 1}, {24});
  NDArray same =
      RunOp("nn.adaptive_avg_pool2d", {y}, {{"output_size", AttrValue(std::vector<AttrValue>{})}});
  ExpectClose(same, {1, 1, 7, 7}, nn_test::Values(y));
  EXPECT_NE(ErrorOf(
                [&] {
                  MakeOpCall("nn.adaptive_avg_pool2d", {v}, {{"output_size", 0}});
                },
                ErrorKind::kValue)
                .find("output_size [0, 0] must be >= 1"),
            std::string::npos);
}

TEST(OpsNNPool, TypeErrorsAndNormalisation) {
  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.max_pool2d", {MakeTensorType({1, 3, 4})});
                },
                ErrorKind::kType)
                .find("data must be 4-D (NCHW), got shape [1, 3, 4]"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.avg_pool2d", {MakeTensorType({1, 3, 2, 2})}, {{"pool_size", 3}});
                },
                ErrorKind::kType)
                .find("input height 2 plus padding 0 is smaller than the dilated pool height 3"),
            std::string::npos);
  Var v = MakeVar("v", MakeTensorType({1, 1, 4, 4}));
  Call c =
      MakeOpCall("nn.max_pool2d", {v}, {{"pool_size", 3}, {"padding", AttrValue::Ints({1, 1})}});
  EXPECT_EQ(c->attrs.GetInts("pool_size"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(c->attrs.GetInts("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_FALSE(c->attrs.Has("count_include_pad"));
  EXPECT_TRUE(MakeOpCall("nn.avg_pool2d", {v})->attrs.Has("count_include_pad"));
  EXPECT_NE(ErrorOf(
                [&] {
                  MakeOpCall("nn.max_pool2d", {v}, {{"padding", AttrValue::Ints({1, 2, 3})}});
                },
                ErrorKind::kValue)
                .find("op 'nn.max_pool2d': padding must have 1, 2 or 4 elements, got 3"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  MakeOpCall("nn.max_pool2d", {v}, {{"count_include_pad", true}});
                },
                ErrorKind::kValue)
                .find("unknown attribute 'count_include_pad'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  MakeOpCall("nn.global_avg_pool2d", {v}, {{"layout", "NCW"}});
                },
                ErrorKind::kValue)
                .find("layout 'NCW' is not supported"),
            std::string::npos);
  // TVM's ceil_mode extent: (5 + 0 - 3 + 2 - 1) / 2 + 1 = 2.
  Type t = Infer("nn.max_pool2d", {MakeTensorType({1, 1, 5, 6})},
                 {{"pool_size", 3}, {"strides", 2}, {"ceil_mode", true}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 1, 2, 3}));
  for (const char* name : {"nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d",
                           "nn.global_max_pool2d", "nn.adaptive_avg_pool2d"})
    EXPECT_EQ(OpRegistry::Global().Get(name).pattern, OpPatternKind::kOutEWiseFusable) << name;
}

TEST(OpsNNPad, ConstantEdgeReflect) {
  NDArray x = NDArray::FromFloats({2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray nine = NDArray::Scalar(9, DType::kFloat32);
  ExpectClose(RunOp("nn.pad", {x, nine}, {{"pad_width", Pairs({{0, 0}, {1, 2}})}}), {2, 6},
              {9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9});
  ExpectClose(RunOp("nn.pad", {x, nine}, {{"pad_width", Pairs({{1, 0}, {0, 0}})}}), {3, 3},
              {9, 9, 9, 1, 2, 3, 4, 5, 6});
  ExpectClose(
      RunOp("nn.pad", {x, nine}, {{"pad_width", Pairs({{1, 1}, {2, 1}})}, {"pad_mode", "edge"}}),
      {4, 6}, {1, 1, 1, 2, 3, 3, 1, 1, 1, 2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 4, 5, 6, 6});
  ExpectClose(
      RunOp("nn.pad", {x, nine}, {{"pad_width", Pairs({{1, 1}, {2, 2}})}, {"pad_mode", "reflect"}}),
      {4, 7}, {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
  // Integer data with an integer pad value (Relay's const(0) is int32) stays exact.
  NDArray big = NDArray::Empty({2}, DType::kInt64);
  big.SetInt(0, (int64_t{1} << 60) + 1);
  big.SetInt(1, -3);
  NDArray r =
      RunOp("nn.pad", {big, NDArray::Scalar(7, DType::kInt32)}, {{"pad_width", Pairs({{1, 1}})}});
  ASSERT_EQ(r.dtype(), DType::kInt64);
  EXPECT_EQ(r.GetInt(0), 7);
  EXPECT_EQ(r.GetInt(1), (int64_t{1} << 60) + 1);
  EXPECT_EQ(r.GetInt(3), 7);
  // A 4-D NCHW spatial pad as frontends emit it.
  NDArray img = RandomArray({1, 2, 3, 3}, 51);
  NDArray padded = RunOp("nn.pad", {img, NDArray::Scalar(0, DType::kFloat32)},
                         {{"pad_width", Pairs({{0, 0}, {0, 0}, {1, 1}, {1, 1}})}});
  ASSERT_EQ(padded.shape(), (std::vector<int64_t>{1, 2, 5, 5}));
  EXPECT_EQ(padded.GetFloat(25 + 6), img.GetFloat(9));
  EXPECT_EQ(padded.GetFloat(25 + 24), 0.0);
  EXPECT_EQ(OpRegistry::Global().Get("nn.pad").pattern, OpPatternKind::kInjective);
}

TEST(OpsNNPad, Errors) {
  std::vector<Type> types = {MakeTensorType({2, 3}), MakeTensorType({})};
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.pad", types, {{"pad_width", Pairs({{0, 0}, {-1, 0}})}});
                },
                ErrorKind::kValue)
                .find("op 'nn.pad': pad_width[1] [-1, 0] must not be negative"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.pad", types, {{"pad_width", Pairs({{0, 0}, {1}})}});
                },
                ErrorKind::kValue)
                .find("pad_width[1] must have 2 elements [before, after], got 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.pad", types, {{"pad_width", Pairs({{1, 1}})}});
                },
                ErrorKind::kType)
                .find("pad_width has 1 pairs but data shape [2, 3] has rank 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.pad", types,
                        {{"pad_width", Pairs({{2, 0}, {0, 0}})}, {"pad_mode", "reflect"}});
                },
                ErrorKind::kType)
                .find("reflect padding [2, 0] on axis 0 must be smaller than the dimension 2"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(
          [&] {
            Infer("nn.pad", types, {{"pad_width", Pairs({{0, 0}, {0, 0}})}, {"pad_mode", "wrap"}});
          },
          ErrorKind::kValue)
          .find("pad_mode 'wrap' is not one of constant, edge, reflect"),
      std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.pad", {MakeTensorType({2, 3}), MakeTensorType({1})},
                        {{"pad_width", Pairs({{0, 0}, {0, 0}})}});
                },
                ErrorKind::kType)
                .find("pad_value must be a scalar (rank-0) tensor, got shape [1]"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { Infer("nn.pad", types); }, ErrorKind::kValue)
                .find("attribute 'pad_width' is required"),
            std::string::npos);
}

TEST(OpsNNBatchFlatten, FlattensTrailingAxes) {
  NDArray x = RandomArray({2, 3, 4}, 61);
  NDArray y = RunOp("nn.batch_flatten", {x});
  ExpectClose(y, {2, 12}, nn_test::Values(x), 0);
  EXPECT_NE(y.data(), x.data());
  EXPECT_EQ(Infer("nn.batch_flatten", {MakeTensorType({5})}).as<TensorTypeNode>()->shape,
            (std::vector<int64_t>{5, 1}));
  EXPECT_NE(ErrorOf([] { Infer("nn.batch_flatten", {MakeTensorType({})}); }, ErrorKind::kType)
                .find("data must have rank >= 1"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
