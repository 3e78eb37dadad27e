// Private: pieces shared by the channel-blocked conv2d templates (direct and Winograd):
// row-major strides and constant-weight access.
#pragma once

#include <vector>

#include "schedule_conv2d.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// The NCHW{z}c output indices (n, block, oh, ow, lane) of lane l of run v of a tile whose
/// tc output channels start at block ocb * tc (a run: the tile's channels inside one
/// output block; one run when tc <= z, tc / z runs otherwise).
Indices BlockedOutIndex(const tir::PrimExpr& n, const tir::PrimExpr& ocb, int64_t tc, int64_t z,
                        int64_t v, const tir::PrimExpr& oh, const tir::PrimExpr& ow,
                        const tir::PrimExpr& l);

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
