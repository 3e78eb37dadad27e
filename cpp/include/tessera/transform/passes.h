// The standard optimisation passes, each also registered by name for pipelines.
#pragma once

#include "tessera/transform/pass.h"

namespace tessera {

/// Groups ops into `Primitive` functions (TVM's greedy FuseOps): using op pattern kinds
/// and post-dominators, conv2d/dense-like ops absorb elementwise epilogues,
/// elementwise/broadcast ops fuse into injective or reduction consumers, and injective
/// chains fuse together. Every op call ends up inside exactly one Primitive function;
/// a group holds at most `max_depth` ops. At PassContext opt_level 0 no two ops fuse.
Pass FuseOps(int max_depth = 256);

/// Evaluates op calls whose inputs are all constants with the ops' reference kernels and
/// replaces them by constants (also tuples of constants and their projections).
Pass FoldConstant();

/// Removes let bindings whose variable is unused, and global functions unreachable from
/// @main (when the module has a @main).
Pass DeadCodeElimination();

/// Merges structurally identical op calls on identical arguments within a function.
Pass EliminateCommonSubexpr();

/// Rewrites inference-time ops into arithmetic: nn.batch_norm into a per-channel scale
/// and shift, nn.layer_norm into mean/variance arithmetic, nn.dropout into identity.
Pass SimplifyInference();

/// Replaces calls of local `Composite` functions by their bodies in every function that is
/// not a library partition (Compiler functions are skipped), so the native build fuses
/// the ops itself; build() runs it first.
Pass InlineComposites();

/// Replaces calls of the module's own graph functions and of plain local functions (not
/// Compiler partitions, Composite or Primitive functions) by their bodies, renaming the
/// variables they bind, and removes the inlined global functions nothing calls any more
/// (never @main); recursion is an unsupported error. build() runs it first, since the
/// executor runs kernels, not graph calls.
Pass InlineFunctionCalls();

/// Folds a per-output-channel constant scale applied after nn.conv2d or nn.dense (as left
/// by a simplified batch norm) into the constant weights.
Pass FoldScaleAxis();

/// Algebraic simplification: x*1, x+0, x-0, x/1 (when shapes allow), reshape/transpose
/// chains, no-op reshapes, casts and transposes, double negation.
Pass SimplifyExpr();

}  // namespace tessera
