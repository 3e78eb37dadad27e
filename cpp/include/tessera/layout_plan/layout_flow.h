// How a layout flows through an op call: the description PlanLayouts builds per call, and
// the registry of user rules that replace its analysis for an op (the seed's fallback for
// ops whose tensor-level code it cannot read).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/layout/index_map.h"

namespace tessera {

/// The op to compute in the new layout: the call `op(operands'..., attrs)`, where operand
/// i is to be rewritten by `maps[i]` (an undefined map leaves a scalar operand as is).
struct LayoutFlow {
  std::string op;
  Attrs attrs;
  std::vector<Expr> operands;
  std::vector<layout::IndexMap> maps;
  /// The op takes its operands as one tuple (concatenate).
  bool tuple_operands = false;
};

/// A rule for one op: given a type-checked call and the bijection its result is wanted
/// under, how to compute that result from rewritten operands, or nullopt where the
/// layout cannot flow. The planner checks the answer's types (the rewritten call must
/// type-check and give the wanted result shape; its maps must be injective), not its
/// arithmetic: a rule computing something else gives wrong numbers.
using LayoutFlowRule =
    std::function<std::optional<LayoutFlow>(const Call& call, const layout::IndexMap& map)>;

/// Registers `rule` for calls of `op_name`, used by PlanLayouts instead of its own
/// analysis (replacing an earlier rule for that op). Thread-safe.
void RegisterLayoutFlowRule(const std::string& op_name, LayoutFlowRule rule);
/// Removes the rule for `op_name`, if any.
void UnregisterLayoutFlowRule(const std::string& op_name);

}  // namespace tessera
