// nn.conv2d tests: kernel against a pad-then-window reference, layouts, type errors, attrs.
#include <gtest/gtest.h>

#include "ops_nn_test_util.h"

namespace tessera {
namespace {

using nn_test::ErrorOf;
using nn_test::ExpectClose;
using nn_test::Infer;
using nn_test::RandomArray;
using nn_test::RunOp;

struct ConvConfig {
  std::vector<int64_t> data_shape;                  // NCHW
  std::vector<int64_t> weight_shape;                // OIHW
  std::vector<int64_t> strides, padding, dilation;  // padding as [top, left, bottom, right]
  int64_t groups;
};

/// Reference: copy the data into an explicitly zero-padded buffer, then take windowed
/// dot products. Returns the NCHW output shape and values.
std::pair<std::vector<int64_t>, std::vector<double>> ReferenceConv(const NDArray& x,
                                                                   const NDArray& w,
                                                                   const ConvConfig& c) {
  int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  int64_t O = w.shape()[0], I = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
  int64_t Hp = H + c.padding[0] + c.padding[2], Wp = W + c.padding[1] + c.padding[3];
  std::vector<double> padded(N * C * Hp * Wp, 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t ww = 0; ww < W; ++ww)
          padded[((n * C + ch) * Hp + h + c.padding[0]) * Wp + ww + c.padding[1]] =
              x.GetFloat(((n * C + ch) * H + h) * W + ww);
  int64_t OH = (Hp - (c.dilation[0] * (KH - 1) + 1)) / c.strides[0] + 1;
  int64_t OW = (Wp - (c.dilation[1] * (KW - 1) + 1)) / c.strides[1] + 1;
  std::vector<double> out;
  int64_t per_group = O / c.groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double s = 0;
          int64_t g = o / per_group;
          for (int64_t i = 0; i < I; ++i)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ph = oh * c.strides[0] + kh * c.dilation[0];
                int64_t pw = ow * c.strides[1] + kw * c.dilation[1];
                s += padded[((n * C + g * I + i) * Hp + ph) * Wp + pw] *
                     w.GetFloat(((o * I + i) * KH + kh) * KW + kw);
              }
          out.push_back(s);
        }
  return {{N, O, OH, OW}, out};
}

/// A copy of `a` with axes permuted: result axis i is `a` axis perm[i].
NDArray Permute(const NDArray& a, const std::vector<int>& perm) {
  std::vector<int64_t> shape;
  for (int p : perm) shape.push_back(a.shape()[p]);
  NDArray out = NDArray::Empty(shape, a.dtype());
  std::vector<int64_t> in_strides(a.ndim(), 1);
  for (int d = a.ndim() - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * a.shape()[d + 1];
  std::vector<int64_t> idx(a.ndim(), 0);
  for (int64_t flat = 0; flat < out.NumElements(); ++flat) {
    int64_t src = 0;
    for (int d = 0; d < a.ndim(); ++d) src += idx[d] * in_strides[perm[d]];
    out.SetFloat(flat, a.GetFloat(src));
    for (int d = a.ndim() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Attrs ConvAttrs(const ConvConfig& c) {
  return Attrs{{"strides", AttrValue::Ints(c.strides)},
               {"padding", AttrValue::Ints(c.padding)},
               {"dilation", AttrValue::Ints(c.dilation)},
               {"groups", c.groups}};
}

void CheckConfig(const ConvConfig& c, uint32_t seed) {
  NDArray x = RandomArray(c.data_shape, seed);
  NDArray w = RandomArray(c.weight_shape, seed + 100);
  auto [shape, want] = ReferenceConv(x, w, c);
  NDArray got = RunOp("nn.conv2d", {x, w}, ConvAttrs(c));
  ExpectClose(got, shape, want, 1e-4);
}

TEST(OpsNNConv2D, OddSpatialNoPadding) {
  CheckConfig({{2, 3, 7, 9}, {4, 3, 3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1}, 1);
}

TEST(OpsNNConv2D, StrideTwoWithPadding) {
  CheckConfig({{1, 3, 7, 9}, {5, 3, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1}, 2);
  CheckConfig({{1, 2, 8, 8}, {3, 2, 1, 1}, {2, 3}, {0, 0, 0, 0}, {1, 1}, 1}, 3);
}

TEST(OpsNNConv2D, AsymmetricPadding) {
  CheckConfig({{1, 2, 7, 9}, {3, 2, 3, 2}, {1, 1}, {1, 0, 2, 1}, {1, 1}, 1}, 4);
  CheckConfig({{2, 2, 7, 9}, {3, 2, 3, 3}, {2, 2}, {1, 0, 2, 1}, {1, 1}, 1}, 5);
}

TEST(OpsNNConv2D, Dilation) {
  CheckConfig({{1, 3, 7, 9}, {2, 3, 3, 3}, {1, 1}, {0, 0, 0, 0}, {2, 2}, 1}, 6);
  CheckConfig({{1, 3, 7, 9}, {2, 3, 3, 3}, {2, 1}, {2, 2, 2, 2}, {2, 3}, 1}, 7);
}

TEST(OpsNNConv2D, GroupsAndDepthwise) {
  CheckConfig({{2, 4, 7, 9}, {6, 2, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2}, 8);
  // Depthwise with channel multiplier 2.
  CheckConfig({{1, 3, 7, 9}, {6, 1, 3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, 3}, 9);
  CheckConfig({{1, 4, 5, 5}, {4, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4}, 10);
}

TEST(OpsNNConv2D, KernelLargerThanInputWithPadding) {
  CheckConfig({{1, 1, 2, 2}, {1, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1}, 11);
}

TEST(OpsNNConv2D, NHWCAndOtherKernelLayoutsMatchNCHW) {
  ConvConfig c{{2, 4, 7, 9}, {6, 2, 3, 3}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2};
  NDArray x = RandomArray(c.data_shape, 21);
  NDArray w = RandomArray(c.weight_shape, 22);
  NDArray base = RunOp("nn.conv2d", {x, w}, ConvAttrs(c));
  NDArray x_nhwc = Permute(x, {0, 2, 3, 1});
  std::vector<double> want = nn_test::Values(Permute(base, {0, 2, 3, 1}));
  std::vector<int64_t> want_shape = Permute(base, {0, 2, 3, 1}).shape();
  struct Case {
    const char* layout;
    std::vector<int> perm;  // from OIHW
  };
  for (const Case& k :
       {Case{"HWIO", {2, 3, 1, 0}}, Case{"OHWI", {0, 2, 3, 1}}, Case{"HWOI", {2, 3, 0, 1}}}) {
    Attrs attrs = ConvAttrs(c).With("data_layout", "NHWC").With("kernel_layout", k.layout);
    NDArray got = RunOp("nn.conv2d", {x_nhwc, Permute(w, k.perm)}, attrs);
    SCOPED_TRACE(k.layout);
    ExpectClose(got, want_shape, want, 1e-5);
  }
  // NCHW data with an HWIO weight.
  NDArray got =
      RunOp("nn.conv2d", {x, Permute(w, {2, 3, 1, 0})}, ConvAttrs(c).With("kernel_layout", "HWIO"));
  ExpectClose(got, base.shape(), nn_test::Values(base), 1e-6);
}

TEST(OpsNNConv2D, OutDTypeAndChecksOfOptionalAttrs) {
  NDArray x = RandomArray({1, 2, 5, 5}, 31);
  NDArray w = RandomArray({3, 2, 3, 3}, 32);
  Attrs attrs{{"out_dtype", "float64"}, {"channels", 3}, {"kernel_size", AttrValue::Ints({3, 3})}};
  NDArray got = RunOp("nn.conv2d", {x, w}, attrs);
  EXPECT_EQ(got.dtype(), DType::kFloat64);
  auto [shape, want] =
      ReferenceConv(x, w, {{1, 2, 5, 5}, {3, 2, 3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1});
  ExpectClose(got, shape, want, 1e-12);  // accumulation happens in double

  std::vector<Type> types = {MakeTensorType({1, 2, 5, 5}), MakeTensorType({3, 2, 3, 3})};
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.conv2d", types, {{"channels", 4}});
                },
                ErrorKind::kType)
                .find("channels 4 does not match weight out-channels 3"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [&] {
                  Infer("nn.conv2d", types, {{"kernel_size", 5}});
                },
                ErrorKind::kType)
                .find("kernel_size [5, 5] does not match the weight kernel [3, 3]"),
            std::string::npos);
}

TEST(OpsNNConv2D, TypeInferenceShapes) {
  Type t = Infer("nn.conv2d", {MakeTensorType({1, 3, 224, 224}), MakeTensorType({64, 3, 7, 7})},
                 {{"strides", AttrValue::Ints({2, 2})}, {"padding", AttrValue::Ints({3, 3})}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 64, 112, 112}));
  t = Infer("nn.conv2d", {MakeTensorType({1, 224, 224, 3}), MakeTensorType({7, 7, 3, 64})},
            {{"strides", 2}, {"padding", 3}, {"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 112, 112, 64}));
}

TEST(OpsNNConv2D, TypeErrors) {
  auto err = [](std::vector<int64_t> d, std::vector<int64_t> w, Attrs attrs = {},
                DType wd = DType::kFloat32) {
    return ErrorOf(
        [&] {
          Infer("nn.conv2d", {MakeTensorType(d), MakeTensorType(w, wd)}, attrs);
        },
        ErrorKind::kType);
  };
  EXPECT_NE(err({1, 4, 5, 5}, {2, 3, 3, 3})
                .find("data channels 4 (data shape [1, 4, 5, 5]) must equal weight in-channels 3 "
                      "x groups 1 (weight shape [2, 3, 3, 3])"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 5, 5}, {3, 2, 3, 3}, {{"groups", 2}})
                .find("weight out-channels 3 (weight shape [3, 2, 3, 3]) is not divisible by "
                      "groups 2"),
            std::string::npos);
  EXPECT_NE(err({1, 3, 5}, {2, 3, 3, 3}).find("data must be 4-D (NCHW), got shape [1, 3, 5]"),
            std::string::npos);
  EXPECT_NE(err({1, 3, 5, 5}, {2, 3, 3}).find("weight must be 4-D (OIHW), got shape [2, 3, 3]"),
            std::string::npos);
  EXPECT_NE(err({1, 3, 5, 5}, {2, 3, 3, 3}, {}, DType::kFloat16)
                .find("data dtype float32 and weight dtype float16 differ"),
            std::string::npos);
  EXPECT_NE(err({1, 3, 2, 2}, {2, 3, 3, 3})
                .find("input height 2 plus padding 0 is smaller than the dilated kernel height 3"),
            std::string::npos);
}

TEST(OpsNNConv2D, AttributeNormalisation) {
  Var x = MakeVar("x", MakeTensorType({1, 3, 5, 5}));
  Var w = MakeVar("w", MakeTensorType({2, 3, 3, 3}));
  Call c = MakeOpCall("nn.conv2d", {x, w}, {{"padding", AttrValue::Ints({1, 1})}});
  EXPECT_EQ(c->attrs.GetInts("padding"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(c->attrs.GetInts("strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(c->attrs.Get("channels").is_none());
  EXPECT_EQ(c->attrs.GetString("data_layout"), "NCHW");
  EXPECT_EQ(c->attrs.items().front().first, "strides");  // schema order
  c = MakeOpCall("nn.conv2d", {x, w},
                 {{"padding", AttrValue::Ints({1, 2})}, {"strides", 2}, {"dilation", 3}});
  EXPECT_EQ(c->attrs.GetInts("padding"), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(c->attrs.GetInts("strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c->attrs.GetInts("dilation"), (std::vector<int64_t>{3, 3}));
  c = MakeOpCall("nn.conv2d", {x, w}, {{"padding", 2}, {"kernel_size", 3}});
  EXPECT_EQ(c->attrs.GetInts("padding"), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(c->attrs.GetInts("kernel_size"), (std::vector<int64_t>{3, 3}));
  // Equal programs get equal attributes.
  EXPECT_TRUE(MakeOpCall("nn.conv2d", {x, w}, {{"padding", 1}})->attrs ==
              MakeOpCall("nn.conv2d", {x, w}, {{"padding", AttrValue::Ints({1, 1, 1, 1})}})->attrs);

  auto value_err = [&](Attrs attrs) {
    return ErrorOf([&] { MakeOpCall("nn.conv2d", {x, w}, attrs); }, ErrorKind::kValue);
  };
  EXPECT_NE(value_err({{"padding", AttrValue::Ints({1, 2, 3})}})
                .find("op 'nn.conv2d': padding must have 1, 2 or 4 elements, got 3"),
            std::string::npos);
  EXPECT_NE(value_err({{"padding", -1}}).find("must not be negative"), std::string::npos);
  EXPECT_NE(value_err({{"strides", AttrValue::Ints({1, 1, 1})}})
                .find("strides must have 1 or 2 elements, got 3"),
            std::string::npos);
  EXPECT_NE(value_err({{"strides", 0}}).find("strides [0, 0] must be >= 1"), std::string::npos);
  EXPECT_NE(value_err({{"groups", 0}}).find("groups must be >= 1"), std::string::npos);
  EXPECT_NE(value_err({{"foo", 1}}).find("unknown attribute 'foo'"), std::string::npos);
  EXPECT_NE(value_err({{"data_layout", "NHWC16c"}}).find("data_layout 'NHWC16c' is not supported"),
            std::string::npos);
  EXPECT_NE(value_err({{"out_layout", "NHWC"}}).find("out_layout 'NHWC' differs"),
            std::string::npos);
  EXPECT_NE(value_err({{"out_dtype", "float33"}}).find("out_dtype"), std::string::npos);
  EXPECT_NE(value_err({{"padding", "same"}}).find("attribute 'padding' must be"),
            std::string::npos);
}

TEST(OpsNNConv2D, PatternKind) {
  EXPECT_EQ(OpRegistry::Global().Get("nn.conv2d").pattern, OpPatternKind::kOutEWiseFusable);
}

}  // namespace
}  // namespace tessera
