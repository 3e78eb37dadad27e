// 2-D pooling in NCHW{x}c lowered and built natively against the graph interpreter:
// windows with padding, strides, dilation and ceil_mode, global and adaptive pools, and
// pools fused after a blocked convolution.
#include <gtest/gtest.h>

#include "lower_test_util.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;
using testing_lower::Main;
using testing_lower::T;

TEST(LowerPoolBlocked, Windows) {
  const std::string x = "%x: " + T("2, 2, 13, 12, 16");
  for (std::string op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    const std::string l = ", layout=\"NCHW16c\")";
    CheckLowering(Main(x, op + "(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]" + l));
    CheckLowering(Main(x, op + "(%x, pool_size=[2, 2], strides=[2, 2]" + l));
    CheckLowering(Main(x, op + "(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True" + l));
    CheckLowering(Main(x, op + "(%x, pool_size=[2, 3], dilation=[2, 1], padding=[1, 0, 0, 1]" + l));
  }
  CheckLowering(Main("%x: " + T("1, 3, 9, 9, 8"),
                     "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], "
                     "count_include_pad=True, layout=\"NCHW8c\")"));
  // A large window, and one too wide to spell out its columns (the guarded reduction).
  CheckLowering(Main("%x: " + T("1, 1, 12, 12, 4"),
                     "nn.max_pool2d(%x, pool_size=[9, 9], padding=[2, 2], layout=\"NCHW4c\")"));
  CheckLowering(Main("%x: " + T("1, 1, 6, 20, 4"),
                     "nn.avg_pool2d(%x, pool_size=[2, 17], padding=[1, 1], layout=\"NCHW4c\")"));
}

TEST(LowerPoolBlocked, GlobalAndAdaptive) {
  const std::string x = "%x: " + T("2, 3, 7, 9, 16");
  CheckLowering(Main(x, "nn.global_avg_pool2d(%x, layout=\"NCHW16c\")"));
  CheckLowering(Main(x, "nn.global_max_pool2d(%x, layout=\"NCHW16c\")"));
  CheckLowering(Main(x, "nn.adaptive_avg_pool2d(%x, output_size=[3, 2], layout=\"NCHW16c\")"));
}

TEST(LowerPoolBlocked, AfterABlockedConvolution) {
  CheckLowering(R"(
def @main(%x: Tensor[(1, 2, 16, 16, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32],
          %b: Tensor[(1, 2, 1, 1, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o");
  %1 = nn.relu(add(%0, %b));
  %2 = nn.max_pool2d(%1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NCHW16c");
  nn.global_avg_pool2d(%2, layout="NCHW16c")
})",
                7, 0, 1e-4);
}

}  // namespace
}  // namespace tessera
