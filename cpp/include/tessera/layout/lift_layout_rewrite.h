// LiftLayoutRewrites: finds the layout-rewrite prologue of a PrimFunc (blocks copying an
// input into a scratch buffer in another layout) and splits it off into PrimFuncs of its
// own, with the index map each copy applies, so a graph pass can hoist it out of the kernel.
#pragma once

#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout {

/// One lifted layout rewrite.
struct LiftedLayoutRewrite {
  /// The parameter of the original PrimFunc the copy read (an input); the new PrimFunc
  /// takes the rewritten buffer at this position instead.
  int param_index = -1;
  /// `(source) -> (rewritten)`: the copy alone, over fresh buffers.
  tir::PrimFunc rewrite;
  /// The map the copy applies: rewritten[map(i)] = source[i] (injective on the source's
  /// shape; MapShape of it is the rewritten buffer's shape).
  IndexMap map;
};

/// What LiftLayoutRewrites found.
struct LiftedLayoutRewrites {
  /// The PrimFunc taking each rewritten buffer in place of its source (the input itself
  /// when nothing was lifted).
  tir::PrimFunc func;
  /// The lifted copies, in program order (empty when there were none).
  std::vector<LiftedLayoutRewrite> rewrites;
};

/// Lifts the layout-rewrite blocks that begin `func`. The body may open with allocations;
/// the statements that follow them start with layout-rewrite nests, each a perfect loop
/// nest of its block's own loops around a block whose body is the pure copy
/// `D[g(v)] = S[v]`: every iteration variable spatial over the whole of S (v in order),
/// S an input parameter, D one of those allocations with MapShape(S's shape) by the map g
/// (affine, injective on S) and S's dtype. A copy is lifted only when S is used nowhere
/// else, D is written nowhere else and not every statement is a copy; lifting stops at
/// the first statement that is not such a copy. The rest of the body keeps its
/// allocations, except the lifted Ds, which become parameters.
LiftedLayoutRewrites LiftLayoutRewrites(const tir::PrimFunc& func);

}  // namespace tessera::layout
