// Private: the registration functions of the built-in op families, one per file.
#pragma once

#include "tessera/ir/op.h"

namespace tessera::op_defs {

/// Unary/binary elementwise and broadcast math, activations, clip, where, comparisons.
void RegisterElemwiseOps(OpRegistry& registry);
/// nn.*: conv2d, dense, matmul, batch_matmul, bias_add, norms, softmax, pooling, pad.
void RegisterNNOps(OpRegistry& registry);
/// Shape and data movement: reshape, transpose, concatenate, split, squeeze, expand_dims,
/// strided_slice, take, cast, layout_transform, crop, zeros/ones/full, copy.
void RegisterTransformOps(OpRegistry& registry);
/// Reductions: sum, mean, max, min.
void RegisterReduceOps(OpRegistry& registry);
/// call_tir, the destination-passing call into a PrimFunc.
void RegisterCallTir(OpRegistry& registry);
/// annotation.compiler_begin / compiler_end, the BYOC region markers.
void RegisterAnnotationOps(OpRegistry& registry);

}  // namespace tessera::op_defs
