// 2-D pooling in the channel-blocked NCHW{x}c layout: the reference kernels against NCHW
// pooling of the same data moved with layout_transform, and the type relation's errors.
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

/// `op` on NCHW data of `shape` and on the same data in `layout` agree.
void CheckAgainstNCHW(const std::string& op, const std::vector<int64_t>& shape, const Attrs& attrs,
                      const std::string& layout, uint32_t seed) {
  SCOPED_TRACE(op + " " + layout);
  NDArray x = RandomArray(shape, seed);
  NDArray want = Move(RunOp(op, {x}, attrs), "NCHW", layout);
  NDArray got = RunOp(op, {Move(x, "NCHW", layout)}, attrs.With("layout", layout));
  ExpectClose(got, want.shape(), nn_test::Values(want), 1e-6);
}

TEST(OpsNNPoolBlocked, WindowsMatchNCHW) {
  const std::vector<Attrs> windows = {
      {{"pool_size", 3}, {"strides", 2}, {"padding", 1}},
      {{"pool_size", 2}, {"strides", 2}},
      {{"pool_size", 3}, {"strides", 2}, {"ceil_mode", true}},
      {{"pool_size", AttrValue::Ints({3, 2})}, {"padding", AttrValue::Ints({1, 0, 2, 1})}},
      {{"pool_size", 2}, {"dilation", 2}, {"padding", 1}},
  };
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"})
    for (size_t k = 0; k < windows.size(); ++k) {
      CheckAgainstNCHW(op, {2, 32, 9, 11}, windows[k], "NCHW16c", 1 + k);
      CheckAgainstNCHW(op, {1, 12, 7, 8}, windows[k], "NCHW4c", 11 + k);
    }
  CheckAgainstNCHW("nn.avg_pool2d", {1, 16, 9, 9},
                   {{"pool_size", 3}, {"strides", 2}, {"padding", 1}, {"count_include_pad", true}},
                   "NCHW8c", 21);
}

TEST(OpsNNPoolBlocked, GlobalAndAdaptiveMatchNCHW) {
  CheckAgainstNCHW("nn.global_avg_pool2d", {2, 32, 7, 7}, {}, "NCHW16c", 31);
  CheckAgainstNCHW("nn.global_max_pool2d", {1, 32, 5, 6}, {}, "NCHW8c", 32);
  CheckAgainstNCHW("nn.adaptive_avg_pool2d", {1, 16, 9, 7},
                   {{"output_size", AttrValue::Ints({3, 2})}}, "NCHW16c", 33);
}

TEST(OpsNNPoolBlocked, TypeRelation) {
  Type t = Infer("nn.max_pool2d", {MakeTensorType({1, 4, 112, 112, 16})},
                 {{"pool_size", 3}, {"strides", 2}, {"padding", 1}, {"layout", "NCHW16c"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 4, 56, 56, 16}));
  t = Infer("nn.global_avg_pool2d", {MakeTensorType({1, 32, 7, 7, 16})}, {{"layout", "NCHW16c"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 32, 1, 1, 16}));
  t = Infer("nn.adaptive_avg_pool2d", {MakeTensorType({1, 2, 9, 9, 8})},
            {{"output_size", 3}, {"layout", "NCHW8c"}});
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{1, 2, 3, 3, 8}));

  auto err = [](const std::string& op, std::vector<int64_t> shape, Attrs attrs) {
    return ErrorOf([&] { Infer(op, {MakeTensorType(shape)}, attrs); }, ErrorKind::kType);
  };
  EXPECT_NE(err("nn.max_pool2d", {1, 4, 8, 8}, {{"layout", "NCHW16c"}})
                .find("data must be 5-D (NCHW16c), got shape [1, 4, 8, 8]"),
            std::string::npos);
  EXPECT_NE(err("nn.global_max_pool2d", {1, 4, 8, 8, 8}, {{"layout", "NCHW16c"}})
                .find("data shape [1, 4, 8, 8, 8] has 8 lanes in its channel-block axis but "
                      "layout 'NCHW16c' has blocks of 16"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [] {
                  MakeOpCall("nn.avg_pool2d", {MakeVar("x", MakeTensorType({1, 4, 8, 8, 16}))},
                             {{"layout", "NCHW16c"}, {"out_layout", "NCHW"}});
                },
                ErrorKind::kValue)
                .find("out_layout 'NCHW' differs from layout 'NCHW16c'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [] {
                  MakeOpCall("nn.max_pool2d", {MakeVar("x", MakeTensorType({1, 4, 8, 8, 16}))},
                             {{"layout", "NHWC16c"}});
                },
                ErrorKind::kValue)
                .find("layout 'NHWC16c' is not supported"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
