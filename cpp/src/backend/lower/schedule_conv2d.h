// Private: the blocked direct-convolution template of nn.conv2d (schedule_conv2d.cc).
#pragma once

#include "tessera/backend/lower/compute.h"

namespace tessera::lower {

/// The static shape of one conv2d (`ic` counts input channels per group), with the
/// positions of N, C, H, W in the data layout.
struct Conv2DShape {
  int64_t n = 0, ic = 0, ih = 0, iw = 0, oc = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1, groups = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int layout_n = 0, layout_c = 1, layout_h = 2, layout_w = 3;
  DType dtype = DType::kFloat32;  ///< accumulator and output dtype
};

/// The blocked nest for a conv2d whose output is NCHW, or null when the shape does not
/// qualify (dilation, non-float32). `kernel_perm` gives the positions of
/// O, I, H, W in the kernel layout.
NestEmitter Conv2DTemplate(const Conv2DShape& shape, const TensorExpr& data,
                           const TensorExpr& weight, const std::vector<int>& kernel_perm);

}  // namespace tessera::lower
