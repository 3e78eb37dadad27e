// The layout-planning passes: user-chosen and backend-preferred layouts for
// layout-critical ops, and the planner that flows, cancels and folds layout rewrites.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {

/// Per op name, the wanted layouts: [data layout, kernel layout] for nn.conv2d ("default"
/// keeps the current one), [layout] for pooling ops.
using DesiredLayouts = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// Gives each call of a listed op the wanted layouts (TVM layout strings: NHWC, HWIO,
/// NCHW16c, OIHW16i16o, ...): operands get layout_transforms into them, the result one
/// back (with a crop when the layout padded it), and the call is marked frozen_layout.
/// Calls already frozen are left alone. Run PlanLayouts after it to cancel the rewrites
/// between neighbouring ops.
Pass ConvertLayout(DesiredLayouts desired);

/// Per op name, index maps for the op's operands then its result (an undefined map keeps
/// that tensor's layout).
using FrozenLayouts = std::vector<std::pair<std::string, std::vector<layout::IndexMap>>>;

/// The index-map form of ConvertLayout, for layouts no attribute of the op can express:
/// each call of a listed op becomes call_tir of its own PrimFunc with TransformLayout
/// applied to the mapped buffers, marked frozen_layout, its operands layout_transformed into
/// the maps (zero in padded lanes) and its result back (result maps must be bijections).
/// Unknown ops and a wrong number of maps are value errors; an op that cannot be lowered
/// alone is an unsupported error. Run PlanLayouts after it.
Pass FreezeLayouts(FrozenLayouts layouts);

/// A replacement implementation of an op: a PrimFunc (one buffer per operand, then the
/// result) written for the layouts `maps` give, one per parameter (an undefined map keeps
/// that tensor's layout; no maps at all: the replacement takes the op's own layouts).
struct OpImpl {
  tir::PrimFunc func;
  std::vector<layout::IndexMap> maps;
  /// When not empty, a PrimFunc of the module to call instead of adding `func` (the pass's
  /// text form names replacements the module holds); `func` is then ignored.
  std::string global;
};
/// Per op name, its replacement.
using OpImpls = std::vector<std::pair<std::string, OpImpl>>;

/// AlterOpImpl (TVM Relax's pass): each call of a listed op becomes a frozen call_tir of
/// the op's replacement (added to the module once, as `<op>_replacement`), its operands
/// layout_transformed into the maps (zero in padded lanes) and its result back by the
/// inverse map (with a crop where the map padded it). The replacement is trusted to
/// compute the op; its parameters must have the mapped shapes and the operands' dtypes
/// (else a type error naming the op, the parameter and the map). Unknown ops are not-found
/// errors, a wrong number of parameters or maps a value error. Run PlanLayouts after it.
Pass AlterOpImpl(OpImpls impls);

/// ConvertLayout with the layouts `target`'s kernels prefer, chosen per call. For
/// "native": each ungrouped or depthwise nn.conv2d in NCHW/OIHW gets channel-blocked
/// layouts (NCHW[b]c data, OIHW[b]i[b']o weights, NCHW[b']c result) with blocks the
/// largest powers of two up to the SIMD width (16 floats with AVX-512) dividing its input
/// and output channels; a conv whose output channels are not a multiple of the SIMD width
/// keeps its layouts (the blocked kernels want whole vectors of output channels). Other targets are a value error until their kernels declare preferences.
/// opt_level 3: part of build's default pipeline from PassContext(opt_level=3).
Pass AlterOpLayout(std::string target = "native");

/// PlanLayouts: flows every layout_transform backward through the ops producing its input
/// (elementwise and broadcast ops, bias_add), as far as that lowers the bytes the
/// transforms move; composes and cancels adjacent transforms, folds crop/pad pairs, and
/// folds transforms of constants into the constants; to a fixpoint. Frozen ops, graph
/// inputs and outputs keep their layouts. opt_level 3 (in build's pipeline after
/// AlterOpLayout; disable with PassContext's disabled_pass).
Pass PlanLayouts();

/// Only the cancellation and folding rules of PlanLayouts (no flow).
Pass SimplifyLayoutTransforms();

/// HoistLayoutRewrite: for each PrimFunc called through call_tir whose body begins with
/// layout-rewrite blocks (pure copies of an input into a scratch buffer in another layout;
/// layout::LiftLayoutRewrites), makes the kernel take the rewritten buffer instead and
/// rewrites the argument in the graph: a constant gets `layout_transform` by the map
/// recovered from the copy (SimplifyLayoutTransforms or PlanLayouts fold it into the
/// constant), any other argument a call_tir of the copy lifted into `@<f>_layout_rewrite`
/// (params: the source, then the rewritten buffer). A PrimFunc referenced other than as
/// the callee of call_tir with an argument tuple is left alone.
Pass HoistLayoutRewrite();

/// Appends the layout passes to the built-in pass table.
void AppendLayoutPasses(std::vector<PassRegistration>& passes);

}  // namespace tessera
