// nn.conv2d with channel-blocked layouts (NCHW{x}c data and output, OIHW{y}i{x}o weights):
// the reference kernel against the NCHW convolution of the same data moved with
// layout_transform, and the type relation's errors.
#include <gtest/gtest.h>

#include "ops_nn_test_util.h"

namespace tessera {
namespace {

using nn_test::ErrorOf;
using nn_test::ExpectClose;
using nn_test::Infer;
using nn_test::RandomArray;
using nn_test::RunOp;

/// `a` moved from layout `src` to `dst` by the layout_transform op.
NDArray Move(const NDArray& a, const std::string& src, const std::string& dst) {
  return RunOp("layout_transform", {a}, {{"src_layout", src}, {"dst_layout", dst}});
}

struct BlockedCase {
  std::vector<int64_t> data_shape, weight_shape;  // NCHW, OIHW
  Attrs conv;                                     // strides, padding, groups, ...
  std::string data_layout, kernel_layout, out_layout;
};

/// Runs the convolution in NCHW/OIHW and in the case's layouts on the same values and
/// compares the second with the first moved into the output layout.
void CheckAgainstNCHW(const BlockedCase& c, uint32_t seed) {
  SCOPED_TRACE(c.data_layout + " " + c.kernel_layout + " -> " + c.out_layout);
  NDArray x = RandomArray(c.data_shape, seed), w = RandomArray(c.weight_shape, seed + 1);
  NDArray want = RunOp("nn.conv2d", {x, w}, c.conv);
  Attrs attrs = c.conv.With("data_layout", c.data_layout).With("kernel_layout", c.kernel_layout);
  if (!c.out_layout.empty()) attrs = attrs.With("out_layout", c.out_layout);
  NDArray got =
      RunOp("nn.conv2d", {Move(x, "NCHW", c.data_layout), Move(w, "OIHW", c.kernel_layout)}, attrs);
  NDArray moved = Move(want, "NCHW", c.out_layout.empty() ? c.data_layout : c.out_layout);
  ExpectClose(got, moved.shape(), nn_test::Values(moved), 1e-5);
}

TEST(OpsNNConv2DBlocked, DenseMatchesNCHW) {
  Attrs pad1{{"padding", 1}};
  CheckAgainstNCHW({{2, 32, 9, 11}, {48, 32, 3, 3}, pad1, "NCHW16c", "OIHW16i16o", ""}, 1);
  CheckAgainstNCHW({{1, 16, 8, 8},
                    {32, 16, 3, 3},
                    {{"strides", 2}, {"padding", AttrValue::Ints({1, 0, 2, 1})}},
                    "NCHW8c",
                    "OIHW8i16o",
                    "NCHW16c"},
                   2);
  CheckAgainstNCHW({{1, 16, 7, 6}, {24, 16, 1, 1}, {}, "NCHW16c", "OIHW4i8o", "NCHW4c"}, 3);
  CheckAgainstNCHW({{1, 8, 9, 9},
                    {8, 8, 3, 3},
                    {{"dilation", 2}, {"padding", 2}},
                    "NCHW4c",
                    "OIHW2i4o",
                    "NCHW8c"},
                   4);
}

TEST(OpsNNConv2DBlocked, ConvertsBetweenNCHWAndBlocked) {
  // The first layer of a CNN: 3 channels in NCHW (or NCHW3c), 16-channel blocks out.
  Attrs stem{{"strides", 2}, {"padding", 3}};
  CheckAgainstNCHW({{1, 3, 20, 18}, {32, 3, 7, 7}, stem, "NCHW", "OIHW3i16o", "NCHW16c"}, 5);
  CheckAgainstNCHW({{1, 3, 20, 18}, {32, 3, 7, 7}, stem, "NCHW3c", "OIHW", "NCHW16c"}, 6);
  CheckAgainstNCHW({{1, 3, 20, 18}, {32, 3, 7, 7}, stem, "NCHW", "OIHW", "NCHW8c"}, 7);
  // Blocked in, NCHW out.
  CheckAgainstNCHW({{1, 16, 6, 7}, {5, 16, 3, 3}, {{"padding", 1}}, "NCHW8c", "OIHW", "NCHW"}, 8);
}

TEST(OpsNNConv2DBlocked, DepthwiseMatchesNCHW) {
  Attrs dw{{"groups", 32}, {"padding", 1}};
  CheckAgainstNCHW({{1, 32, 10, 9}, {32, 1, 3, 3}, dw, "NCHW16c", "OIHW1i16o", ""}, 11);
  Attrs dw2{{"groups", 16}, {"strides", 2}, {"padding", AttrValue::Ints({1, 2, 0, 1})}};
  CheckAgainstNCHW({{2, 16, 11, 12}, {16, 1, 5, 5}, dw2, "NCHW8c", "OIHW1i8o", "NCHW16c"}, 12);
  CheckAgainstNCHW(
      {{1, 16, 7, 7}, {16, 1, 3, 3}, {{"groups", 16}, {"padding", 1}}, "NCHW16c", "OIHW", "NCHW4c"},
      13);
}

TEST(OpsNNConv2DBlocked, TypeInference) {
  Type t =
      Infer("nn.conv2d", {MakeTensorType({1, 4, 56, 56, 16}), MakeTensorType({4, 4, 3, 3, 16, 16})},
            {{"padding", 1}, {"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW16i16o"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 4, 56, 56, 16}));
  t = Infer("nn.conv2d", {MakeTensorType({1, 4, 56, 56, 16}), MakeTensorType({4, 4, 1, 1, 16, 16})},
            {{"strides", 2},
             {"data_layout", "NCHW16c"},
             {"kernel_layout", "OIHW16i16o"},
             {"out_layout", "NCHW8c"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 8, 28, 28, 8}));
  t = Infer(
      "nn.conv2d", {MakeTensorType({1, 3, 224, 224}), MakeTensorType({4, 1, 7, 7, 3, 16})},
      {{"strides", 2}, {"padding", 3}, {"kernel_layout", "OIHW3i16o"}, {"out_layout", "NCHW16c"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 4, 112, 112, 16}));
  t = Infer(
      "nn.conv2d", {MakeTensorType({1, 6, 14, 14, 16}), MakeTensorType({6, 1, 3, 3, 1, 16})},
      {{"padding", 1}, {"groups", 96}, {"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW1i16o"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 6, 14, 14, 16}));
}

TEST(OpsNNConv2DBlocked, TypeErrors) {
  auto err = [](std::vector<int64_t> d, std::vector<int64_t> w, Attrs attrs) {
    return ErrorOf(
        [&] {
          Infer("nn.conv2d", {MakeTensorType(d), MakeTensorType(w)}, attrs);
        },
        ErrorKind::kType);
  };
  Attrs blocked{{"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW16i16o"}};
  EXPECT_NE(err({1, 4, 8, 8}, {4, 4, 3, 3, 16, 16}, blocked)
                .find("data must be 5-D (NCHW16c), got shape [1, 4, 8, 8]"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {4, 4, 3, 3}, blocked)
                .find("weight must be 6-D (OIHW16i16o), got shape [4, 4, 3, 3]"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 8}, {4, 4, 3, 3, 16, 16}, blocked)
                .find("data shape [1, 4, 8, 8, 8] has 8 lanes in its channel-block axis but "
                      "data_layout 'NCHW16c' has blocks of 16"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {4, 4, 3, 3, 16, 8}, blocked)
                .find("weight shape [4, 4, 3, 3, 16, 8] has blocks of 16 in-channels and 8 "
                      "out-channels but kernel_layout 'OIHW16i16o' has 16 and 16"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {4, 2, 3, 3, 16, 16}, blocked)
                .find("data channels 64 (data shape [1, 4, 8, 8, 16]) must equal weight "
                      "in-channels 32 x groups 1"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {3, 4, 3, 3, 16, 8}, blocked.With("kernel_layout", "OIHW16i8o"))
                .find("weight out-channels 24 (weight shape [3, 4, 3, 3, 16, 8]) is not divisible "
                      "by the channel block 16 of the output layout 'NCHW16c'"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {4, 2, 3, 3, 16, 16}, blocked.With("groups", 2))
                .find("grouped convolution (groups 2, 64 in-channels, 64 out-channels) with a "
                      "blocked layout is supported only depthwise"),
            std::string::npos);
  EXPECT_NE(err({1, 4, 8, 8, 16}, {8, 1, 3, 3, 1, 16},
                {{"groups", 64}, {"data_layout", "NCHW16c"}, {"kernel_layout", "OIHW1i16o"}})
                .find("with a blocked layout is supported only depthwise"),
            std::string::npos);
}

TEST(OpsNNConv2DBlocked, LayoutStringErrors) {
  Var x = MakeVar("x", MakeTensorType({1, 4, 8, 8, 16}));
  Var w = MakeVar("w", MakeTensorType({4, 4, 3, 3, 16, 16}));
  auto value_err = [&](Attrs attrs) {
    return ErrorOf([&] { MakeOpCall("nn.conv2d", {x, w}, attrs); }, ErrorKind::kValue);
  };
  for (const char* bad : {"NCHW16", "NCHW0c", "NCHW16c4c", "NHWC16c", "NCHW16C"})
    EXPECT_NE(value_err({{"data_layout", bad}})
                  .find("data_layout '" + std::string(bad) +
                        "' is not supported (expected a permutation of NCHW, or NCHW{x}c"),
              std::string::npos)
        << bad;
  for (const char* bad : {"OIHW16i", "OIHW16o16i", "OIHW0i16o", "HWIO16i16o", "OIHW16i16o2o"})
    EXPECT_NE(value_err({{"kernel_layout", bad}})
                  .find("kernel_layout '" + std::string(bad) +
                        "' is not supported (expected a permutation of OIHW, or OIHW{y}i{x}o"),
              std::string::npos)
        << bad;
  EXPECT_NE(value_err({{"data_layout", "NCHW16c"}, {"out_layout", "NHWC"}})
                .find("out_layout 'NHWC' differs from data_layout 'NCHW16c'; only NCHW and "
                      "NCHW{x}c layouts convert into each other inside the op"),
            std::string::npos);
  // Accepted: the NCHW family converts freely.
  EXPECT_NO_THROW(
      MakeOpCall("nn.conv2d", {x, w}, {{"data_layout", "NCHW16c"}, {"out_layout", "NCHW"}}));
}

}  // namespace
}  // namespace tessera
