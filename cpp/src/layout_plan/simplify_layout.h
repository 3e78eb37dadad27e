// Private: the cancellation and folding rules of layout rewrites, shared by the passes.
#pragma once

#include "tessera/ir/expr.h"

namespace tessera::layout_plan {

/// Rewrites a type-checked expression bottom-up: layout_transform by an identity (on its
/// input's shape) is dropped; two adjacent layout_transforms compose into one (dropped
/// when the composition is the identity; not composed when both pad);
/// crop(nn.pad(x, w, v), w's befores, x's shape) is x; nn.pad(crop(x, b, s, c), widths
/// restoring x's shape, c) is x when the crop promised the cropped-away values equal the
/// pad value; layout_transform, nn.pad and crop of constants become constants. Sets
/// `changes` to the number of rewrites. New nodes carry their types.
Expr SimplifyLayoutRewrites(const Expr& expr, int* changes = nullptr);

}  // namespace tessera::layout_plan
