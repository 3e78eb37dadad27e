// Private: tensor-IR indices of logical (n, c, h, w) and (o, i, kh, kw) elements in the nn
// ops' 2-D layouts, plain (NCHW, NHWC, OIHW, HWIO, ...) or channel-blocked (NCHW16c,
// OIHW16i16o), shared by the conv2d and pooling rules.
#pragma once

#include "tessera/backend/lower/compute.h"
#include "tessera/op/layout_2d.h"

namespace tessera::lower {

/// The indices of logical element (n, c, h, w) of a tensor in layout `l`.
Indices DataIndices(const nn::DataLayout2D& l, const tir::PrimExpr& n, const tir::PrimExpr& c,
                    const tir::PrimExpr& h, const tir::PrimExpr& w);
/// The indices of logical weight element (o, i, kh, kw) in layout `l`.
Indices KernelIndices(const nn::KernelLayout2D& l, const tir::PrimExpr& o, const tir::PrimExpr& i,
                      const tir::PrimExpr& kh, const tir::PrimExpr& kw);
/// The logical channel of the element at indices `i` of a tensor in layout `l`.
tir::PrimExpr LogicalChannel(const nn::DataLayout2D& l, const Indices& i);

}  // namespace tessera::lower
