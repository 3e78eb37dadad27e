// Private: the zero- (or fill-) padded input copies the conv2d templates and the pooling
// rules read their windows from: stride-de-interleaved rows, or blocks of channels.
#pragma once

#include <functional>

#include "schedule_conv2d.h"
#include "tessera/backend/lower/compute.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// The input a padded copy reads: an N, C, H, W tensor (dimension positions given).
struct PadCopyShape {
  int64_t n = 0, channels = 0, ih = 0, iw = 0;
  int64_t pad_top = 0, pad_left = 0, stride_w = 1;
  int layout_n = 0, layout_c = 1, layout_h = 2, layout_w = 3;
};

/// Where pad element (n, ch, h, phase, q) is stored.
using PadIndex =
    std::function<Indices(const tir::PrimExpr& n, const tir::PrimExpr& ch, const tir::PrimExpr& h,
                          int64_t phase, const tir::PrimExpr& q)>;
/// pad[n, ch, h, phase, q]: rows de-interleaved by the column stride.
PadIndex PhasedPadIndex();
/// pad[n, ch, h * wq + q]: one flat plane per channel (stride 1).
PadIndex FlatPadIndex(int64_t wq);

/// pad[at(n, ch, h, phase, q)] = data[n, ch, h - pad_top, q * stride_w + phase - pad_left],
/// or `fill` outside the input, for `rows` rows and `wq` columns per phase: per row and
/// phase, fill left, the row's columns of that phase (contiguous for stride 1, so a vector
/// copy), fill right. Unlike a select-and-clamp nest, no index needs a bounds check.
tir::Stmt PaddedRowsCopy(const PadCopyShape& shape, const TensorExpr& data, const tir::Buffer& pad,
                         int64_t rows, int64_t wq, const PadIndex& at, const tir::PrimExpr& fill);

/// pad[n, cb, h, w, l] = data(n, cb * py + l, h - pad_top, w - pad_left), or 0 outside the
/// input, over the whole of `pad` (rows and columns past the input are zeros): per row,
/// zero left, copy the row (a vector per pixel, or the whole row when py = 1), zero right.
tir::Stmt PaddedCopy(const Conv2DShape& c, const TensorExpr& data, const nn::DataLayout2D& dl,
                     const tir::Buffer& pad, int64_t py);

}  // namespace tessera::lower
