// Private: the Winograd F(2 x 2, 3 x 3) template of nn.conv2d for channel-blocked outputs
// (schedule_conv2d_winograd.cc).
#pragma once

#include "schedule_conv2d.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// The Winograd nest for a 3 x 3, stride-1, dilation-1, ungrouped float32 conv2d with
/// constant weights, an NCHW{x}c output and NCHW or NCHW{y}c data whose channels fill
/// whole vectors, or null when it does not qualify.
NestEmitter WinogradConv2DTemplate(const Conv2DShape& shape, const TensorExpr& data,
                                   const nn::DataLayout2D& data_layout, const TensorExpr& weight,
                                   const nn::KernelLayout2D& kernel_layout,
                                   const nn::DataLayout2D& out_layout);

}  // namespace tessera::lower
