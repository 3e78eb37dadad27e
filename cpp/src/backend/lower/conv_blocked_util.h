// Private: pieces shared by the channel-blocked conv2d templates (direct and Winograd):
// index arithmetic, constant-weight access, the zero-padded blocked input copy.
#pragma once

#include <vector>

#include "schedule_conv2d.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// `a / b` of non-negative indices as plain C division (the floor forms carry a sign
/// branch); `a` itself when b is 1.
tir::PrimExpr Div(const tir::PrimExpr& a, int64_t b);
/// `a % b` of non-negative indices, spelled `a - a / b * b`; 0 when b is 1.
tir::PrimExpr Mod(const tir::PrimExpr& a, int64_t b);

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

/// pad[n, cb, h, w, l] = data(n, cb * py + l, h - pad_top, w - pad_left), or 0 outside the
/// input, over the whole of `pad` (rows and columns past the input are zeros): per row,
/// zero left, copy the row (a vector per pixel, or the whole row when py = 1), zero right.
tir::Stmt PaddedCopy(const Conv2DShape& c, const TensorExpr& data, const nn::DataLayout2D& dl,
                     const tir::Buffer& pad, int64_t py);

}  // namespace tessera::lower
