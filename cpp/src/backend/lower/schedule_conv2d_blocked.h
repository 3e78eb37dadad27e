// Private: the register-tiled NCHWc direct-convolution template of nn.conv2d for
// channel-blocked outputs (schedule_conv2d_blocked.cc).
#pragma once

#include "schedule_conv2d.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// The NCHWc nest for a conv2d whose output is NCHW{x}c and whose data is NCHW or
/// NCHW{y}c, or null when it does not qualify (float32 only, dilation 1, groups 1 or
/// depthwise). `shape` holds the logical extents (`ic` counts channels per group).
NestEmitter BlockedConv2DTemplate(const Conv2DShape& shape, const TensorExpr& data,
                                  const nn::DataLayout2D& data_layout, const TensorExpr& weight,
                                  const nn::KernelLayout2D& kernel_layout,
                                  const nn::DataLayout2D& out_layout);

}  // namespace tessera::lower
