// The default CPU schedule of a lowered PrimFunc: parallel outer loops, vectorized
// contiguous inner loops.
#pragma once

#include "tessera/ir/tir.h"

namespace tessera::lower {

/// Marks the outermost spatial loop of each top-level loop nest `parallel` when the nest
/// has enough work (fusing it with the next loop when it is short), and the innermost
/// loop of an elementwise nest that walks the last (contiguous) output dimension
/// `vectorized`, split by 8 with a tail loop when longer than 8 and not a multiple of 8.
/// Reduction loops are left serial. Numerics are unchanged.
tir::PrimFunc ScheduleDefault(const tir::PrimFunc& func);

}  // namespace tessera::lower
