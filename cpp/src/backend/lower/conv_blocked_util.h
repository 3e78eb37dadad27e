// Private: pieces shared by the channel-blocked conv2d templates (direct and Winograd):
// row-major strides and constant-weight access.
#pragma once

#include <vector>

#include "schedule_conv2d.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// Row-major element strides of `shape`.
std::vector<int64_t> Strides(const std::vector<int64_t>& shape);

/// Logical weight element (o, i, kh, kw) of a constant float32 weight in layout `l`.
struct ConstantWeight {
  const float* data;             ///< the weight's elements
  std::vector<int64_t> strides;  ///< row-major strides of its (layout) shape
  nn::KernelLayout2D l;          ///< its layout
  /// The element of output channel o, input channel i, tap (kh, kw).
  float At(int64_t o, int64_t i, int64_t kh, int64_t kw) const;
};

}  // namespace tessera::lower
