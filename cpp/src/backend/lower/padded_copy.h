// Private: the zero- (or fill-) padded, stride-de-interleaved input copy that the conv2d
// template and the pooling rules read their windows from.
#pragma once

#include <functional>

#include "tessera/backend/lower/compute.h"

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

}  // namespace tessera::lower
