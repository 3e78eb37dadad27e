// Private: how a layout flows backward through one op call (result map -> operand maps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/layout/index_map.h"
#include "tessera/layout_plan/layout_flow.h"

namespace tessera::layout_plan {

/// The call a flow describes, over the rewritten operands.
Expr BuildFlow(const LayoutFlow& flow, std::vector<Expr> operands);

/// The tensors a call reads: a tuple argument's fields (concatenate), else its arguments.
std::vector<Expr> FlowOperands(const CallNode* call);

/// How `call`'s result, wanted under the bijection `map`, can be computed from rewritten
/// operands instead (a registered LayoutFlowRule decides for its op); nullopt where the layout does not flow (frozen, opaque or
/// index-sensitive ops the analysis does not understand, maps that would pad).
/// Elementwise and broadcast ops keep their op: the operand maps come from
/// SuggestLayoutTransforms on the op's own PrimFunc and are checked to agree with the
/// op's broadcasting on the new shapes. nn.bias_add becomes an add of a reshaped bias.
/// Pooling ops switch their `layout` attribute (NHWC, NCHW[b]c) when the map is one.
/// concatenate joins the rewritten parts along the axis its joined axis maps to, when the
/// map rewrites each part as it rewrites that part's place in the result (a channel block
/// that divides every part's channels).
std::optional<LayoutFlow> FlowThrough(const CallNode* call, const layout::IndexMap& map);

}  // namespace tessera::layout_plan
