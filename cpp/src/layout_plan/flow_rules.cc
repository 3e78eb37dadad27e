// Backward flow of a layout through one op call, from the op's own PrimFunc.
#include "flow_rules.h"

#include <map>
#include <mutex>

#include "layout_ops.h"
#include "tessera/backend/lower/lower_primitive.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/module.h"
#include "tessera/ir/op.h"
#include "tessera/ir/type.h"
#include "tessera/layout/suggest_layout_transforms.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// out index -> operand index under NumPy broadcasting of `in` into `out`.
IndexMap BroadcastMap(const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  std::vector<tir::Var> vars;
  for (size_t d = 0; d < out.size(); ++d) vars.push_back(tir::MakeVar("o" + std::to_string(d)));
  std::vector<tir::PrimExpr> fin;
  const size_t lead = out.size() - in.size();
  for (size_t k = 0; k < in.size(); ++k) {
    size_t d = lead + k;
    if (in[k] == 1 && out[d] != 1) {
      fin.push_back(tir::IntImm(0));
    } else {
      fin.push_back(vars[d]);
    }
  }
  return IndexMap(vars, fin);
}

/// The map of a broadcast operand of `shape` placed in an output of rank `rank` (missing
/// leading axes at 0), then rewritten by the result's map: the operand takes the result's
/// rank and layout, with extent 1 wherever it broadcasts.
IndexMap ExpandedOperandMap(const IndexMap& map, const std::vector<int64_t>& shape, size_t rank) {
  std::vector<tir::Var> vars;
  std::vector<tir::PrimExpr> out;
  for (size_t d = 0; d < shape.size(); ++d) vars.push_back(tir::MakeVar("j" + std::to_string(d)));
  for (size_t d = 0; d < rank; ++d) {
    size_t lead = rank - shape.size();
    out.push_back(d < lead ? tir::IntImm(0) : tir::PrimExpr(vars[d - lead]));
  }
  return IndexMap(vars, out).ComposeWith(map);
}

/// Whether the op, given operands rewritten by `maps`, computes the result rewritten by
/// `map`: the same result shape, and each operand broadcast the way the rewritten access
/// pattern reads it (bcast' ∘ map = map_i ∘ bcast, proved on the result's domain).
bool KeepsMeaning(const CallNode* call, const IndexMap& map, const std::vector<IndexMap>& maps) {
  auto out_shape = *ShapeOf(Expr(call));
  std::vector<Expr> probes;
  for (size_t i = 0; i < call->args.size(); ++i) {
    if (!maps[i].defined()) {
      probes.push_back(call->args[i]);
      continue;
    }
    auto shape = *ShapeOf(call->args[i]);
    const auto* tt = call->args[i]->checked_type().as<TensorTypeNode>();
    probes.push_back(
        MakeVar("p" + std::to_string(i), MakeTensorType(maps[i].MapShape(shape), tt->dtype)));
  }
  std::vector<int64_t> new_out = map.MapShape(out_shape);
  try {
    Type t = InferExprType(MakeOpCall(call->op()->name, probes, call->attrs));
    const auto* tt = t.as<TensorTypeNode>();
    if (!tt || tt->shape != new_out) return false;
    for (size_t i = 0; i < call->args.size(); ++i) {
      if (!maps[i].defined()) continue;
      auto shape = *ShapeOf(call->args[i]);
      IndexMap old_b = BroadcastMap(out_shape, shape);
      IndexMap new_b = BroadcastMap(new_out, maps[i].MapShape(shape));
      if (!map.ComposeWith(new_b).EqualOn(old_b.ComposeWith(maps[i]), out_shape)) return false;
    }
  } catch (const Error&) {
    return false;
  }
  return true;
}

/// The flow through an elementwise or broadcast op that keeps the op. The operand maps are
/// SuggestLayoutTransforms' on the op's own PrimFunc; where the op cannot take those on the
/// new shapes (a broadcast operand whose axes the result's map permutes), each broadcast
/// operand instead takes the result's rank and map (ExpandedOperandMap).
std::optional<LayoutFlow> FlowElementwise(const CallNode* call, const IndexMap& map) {
  auto out_shape = ShapeOf(Expr(call));
  if (!out_shape) return std::nullopt;
  auto func = LowerCallAlone(call);
  if (!func) return std::nullopt;
  layout::LayoutSuggestion s = layout::SuggestLayoutTransforms(*func, {map});
  LayoutFlow flow{call->op()->name, call->attrs, call->args, {}};
  std::vector<IndexMap> expanded;
  bool suggested_ok = true;
  for (size_t i = 0; i < call->args.size(); ++i) {
    auto shape = ShapeOf(call->args[i]);
    if (!shape) return std::nullopt;
    if (shape->empty()) {
      flow.maps.emplace_back();
      expanded.emplace_back();
      continue;
    }
    const IndexMap& m = s.params[i];
    suggested_ok = suggested_ok && m.defined() && m.IsBijective(*shape);
    flow.maps.push_back(m);
    if (shape->size() > out_shape->size()) return std::nullopt;
    IndexMap e = ExpandedOperandMap(map, *shape, out_shape->size());
    if (!e.IsBijective(*shape)) return std::nullopt;
    expanded.push_back(e);
  }
  if (suggested_ok && KeepsMeaning(call, map, flow.maps)) return flow;
  if (KeepsMeaning(call, map, expanded)) {
    flow.maps = expanded;
    return flow;
  }
  return std::nullopt;
}

/// nn.bias_add(x, b, axis) as add(x, reshape(b)) with b's axis placed for broadcasting.
std::optional<LayoutFlow> FlowBiasAdd(const CallNode* call, const IndexMap& map) {
  auto x_shape = ShapeOf(call->args[0]);
  auto b_shape = ShapeOf(call->args[1]);
  if (!x_shape || !b_shape || b_shape->size() != 1) return std::nullopt;
  int64_t rank = static_cast<int64_t>(x_shape->size());
  int64_t axis = call->attrs.GetInt("axis");
  if (axis < 0) axis += rank;
  std::vector<int64_t> shape{(*b_shape)[0]};
  for (int64_t d = axis + 1; d < rank; ++d) shape.push_back(1);
  Expr bias;
  if (const auto* c = call->args[1].as<ConstantNode>()) {
    bias = MakeConstant(c->data.Reshaped(shape));
  } else {
    bias = MakeOpCall("reshape", {call->args[1]}, Attrs{{"newshape", AttrValue::Ints(shape)}});
  }
  Expr add = MakeOpCall("add", {call->args[0], bias});
  try {
    add->set_checked_type(InferExprType(add));
    bias->set_checked_type(InferExprType(bias));
  } catch (const Error&) {
    return std::nullopt;
  }
  return FlowElementwise(add.as<CallNode>(), map);
}

/// A pooling op whose `layout` attribute can take the layout `map` leads to (NHWC or
/// NCHW[b]c from NCHW): the op switches layout and its input takes the same map.
std::optional<LayoutFlow> FlowPool(const CallNode* call, const IndexMap& map) {
  auto out_shape = ShapeOf(Expr(call));
  auto in_shape = ShapeOf(call->args[0]);
  const AttrValue* layout = call->attrs.Find("layout");
  if (!out_shape || !in_shape || !layout || !layout->is_string()) return std::nullopt;
  const std::string& from = layout->AsString();
  const AttrValue* out_layout = call->attrs.Find("out_layout");
  if (out_layout && out_layout->is_string() && !out_layout->AsString().empty())
    return std::nullopt;
  std::vector<std::string> candidates{"NHWC", "NCHW"};
  for (int b = 2; b <= 64; b *= 2) candidates.push_back("NCHW" + std::to_string(b) + "c");
  for (const std::string& to : candidates) {
    if (to == from) continue;
    IndexMap want;
    try {
      want = IndexMap::FromLayouts(from, to);
    } catch (const Error&) {
      continue;
    }
    if (want.arity() != map.arity() || !want.EqualOn(map, *out_shape)) continue;
    if (!want.IsBijective(*in_shape) || !want.IsBijective(*out_shape)) return std::nullopt;
    LayoutFlow flow{call->op()->name, call->attrs.With("layout", to), call->args, {want}};
    try {
      const auto* tt = call->args[0]->checked_type().as<TensorTypeNode>();
      Expr probe = MakeVar("p", MakeTensorType(want.MapShape(*in_shape), tt->dtype));
      Type t = InferExprType(MakeOpCall(flow.op, {probe}, flow.attrs));
      const auto* rt = t.as<TensorTypeNode>();
      if (!rt || rt->shape != want.MapShape(*out_shape)) return std::nullopt;
    } catch (const Error&) {
      return std::nullopt;
    }
    return flow;
  }
  return std::nullopt;
}

/// `lambda i..: (i.. with `offset` added at `axis`)`, the place of a concatenated part.
IndexMap ShiftMap(size_t rank, size_t axis, int64_t offset) {
  std::vector<tir::Var> vars;
  std::vector<tir::PrimExpr> out;
  for (size_t d = 0; d < rank; ++d) {
    vars.push_back(tir::MakeVar("i" + std::to_string(d)));
    out.push_back(d == axis ? vars[d] + offset : tir::PrimExpr(vars[d]));
  }
  return IndexMap(vars, out);
}

/// concatenate of parts rewritten by the result's map, joined along the new axis.
std::optional<LayoutFlow> FlowConcatenate(const CallNode* call, const IndexMap& map) {
  auto out_shape = ShapeOf(Expr(call));
  const auto* tuple = call->args[0].as<TupleNode>();
  if (!out_shape || !tuple || tuple->fields.empty()) return std::nullopt;
  const size_t rank = out_shape->size();
  int64_t axis = call->attrs.GetInt("axis");
  if (axis < 0) axis += static_cast<int64_t>(rank);
  std::vector<std::vector<int64_t>> parts, new_parts;
  for (const Expr& f : tuple->fields) {
    auto shape = ShapeOf(f);
    if (!shape || shape->size() != rank || !map.IsBijective(*shape)) return std::nullopt;
    parts.push_back(*shape);
    new_parts.push_back(map.MapShape(*shape));
  }
  std::vector<int64_t> new_out = map.MapShape(*out_shape);
  // The new joined axis: the one where the rewritten parts differ from the result.
  std::optional<size_t> joined;
  for (size_t d = 0; d < new_out.size(); ++d) {
    int64_t sum = 0;
    bool others_equal = true;
    for (const auto& p : new_parts) {
      sum += p[d];
      others_equal = others_equal && p[d] == new_out[d];
    }
    if (sum == new_out[d] && !(others_equal && new_parts.size() == 1)) {
      if (joined) return std::nullopt;
      joined = d;
    } else if (!others_equal) {
      return std::nullopt;
    }
  }
  if (!joined) return std::nullopt;
  // Each part must land where the rewritten result holds it: shift ∘ map = map ∘ shift'.
  int64_t offset = 0, new_offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    IndexMap shift = ShiftMap(rank, static_cast<size_t>(axis), offset);
    IndexMap new_shift = ShiftMap(new_out.size(), *joined, new_offset);
    if (!shift.ComposeWith(map).EqualOn(map.ComposeWith(new_shift), parts[i]))
      return std::nullopt;
    offset += parts[i][static_cast<size_t>(axis)];
    new_offset += new_parts[i][*joined];
  }
  LayoutFlow flow{call->op()->name, call->attrs.With("axis", static_cast<int64_t>(*joined)),
                  tuple->fields, std::vector<IndexMap>(parts.size(), map), true};
  return flow;
}

}  // namespace

Expr BuildFlow(const LayoutFlow& flow, std::vector<Expr> operands) {
  if (flow.tuple_operands) return MakeOpCall(flow.op, {MakeTuple(std::move(operands))}, flow.attrs);
  return MakeOpCall(flow.op, std::move(operands), flow.attrs);
}

std::vector<Expr> FlowOperands(const CallNode* call) {
  if (call->args.size() == 1)
    if (const auto* tuple = call->args[0].as<TupleNode>()) return tuple->fields;
  return call->args;
}

namespace {

/// The registered LayoutFlowRules by op name.
struct RuleTable {
  std::mutex mutex;
  std::map<std::string, LayoutFlowRule> rules;
};

RuleTable& Rules() {
  static RuleTable* table = new RuleTable();
  return *table;
}

}  // namespace

namespace {

/// Throws unless a registered rule's answer for `call` under `map` type-checks and gives
/// the result `map` asks for (naming the rule: its mistakes would otherwise surface as
/// type errors at some later op).
void CheckRuleAnswer(const CallNode* call, const IndexMap& map, const LayoutFlow& flow) {
  const std::string where = "the layout flow rule of '" + call->op()->name + "'";
  if (flow.maps.size() != flow.operands.size())
    TS_THROW(kValue) << where << " gave " << flow.maps.size() << " map(s) for "
                     << flow.operands.size() << " operand(s)";
  std::vector<Type> types;
  for (size_t i = 0; i < flow.operands.size(); ++i) {
    Type t = flow.operands[i]->checked_type_or_null();
    const auto* tt = t.as<TensorTypeNode>();
    if (flow.maps[i].defined() && tt) {
      if (!flow.maps[i].IsInjective(tt->shape))
        TS_THROW(kValue) << where << " rewrites operand " << i << " by "
                         << flow.maps[i].ToString() << ", which is not injective on "
                         << ShapeToString(tt->shape);
      t = MakeTensorType(flow.maps[i].MapShape(tt->shape), tt->dtype);
    }
    types.push_back(t);
  }
  if (flow.tuple_operands) types = {MakeTupleType(types)};
  const OpDef* def = OpRegistry::Global().Find(flow.op);
  if (!def) TS_THROW(kNotFound) << where << " answered with unknown op '" << flow.op << "'";
  Type result;
  try {
    result = def->type_rel(types, flow.attrs, {});
  } catch (const Error& e) {
    ::tessera::detail::ErrorBuilder(e.kind()) << where << " answered " << flow.op << " on rewritten operands that do "
                       << "not type-check: " << e.what();
  }
  auto shape = ShapeOf(Expr(call));
  const auto* rt = result.as<TensorTypeNode>();
  if (shape && rt && rt->shape != map.MapShape(*shape))
    TS_THROW(kValue) << where << " answered " << flow.op << " with a result of shape "
                     << ShapeToString(rt->shape) << ", but the result under " << map.ToString()
                     << " is " << ShapeToString(map.MapShape(*shape));
}

}  // namespace

std::optional<LayoutFlow> FlowThrough(const CallNode* call, const IndexMap& map) {
  if (!call->op() || IsFrozen(call)) return std::nullopt;
  const std::string& name = call->op()->name;
  LayoutFlowRule rule;
  {
    std::lock_guard<std::mutex> lock(Rules().mutex);
    auto it = Rules().rules.find(name);
    if (it != Rules().rules.end()) rule = it->second;
  }
  if (rule) {
    std::optional<LayoutFlow> flow = rule(Call(call), map);
    if (flow) CheckRuleAnswer(call, map, *flow);
    return flow;
  }
  if (name == "nn.bias_add") return FlowBiasAdd(call, map);
  if (name == "concatenate") return FlowConcatenate(call, map);
  if (name == "nn.max_pool2d" || name == "nn.avg_pool2d" || name == "nn.global_avg_pool2d" ||
      name == "nn.global_max_pool2d")
    return FlowPool(call, map);
  const OpDef* def = OpRegistry::Global().Find(name);
  if (!def || def->pattern > OpPatternKind::kBroadcast) return std::nullopt;
  return FlowElementwise(call, map);
}

}  // namespace tessera::layout_plan

namespace tessera {

void RegisterLayoutFlowRule(const std::string& op_name, LayoutFlowRule rule) {
  if (!rule) TS_THROW(kValue) << "RegisterLayoutFlowRule: the rule for '" << op_name << "' is empty";
  std::lock_guard<std::mutex> lock(layout_plan::Rules().mutex);
  layout_plan::Rules().rules[op_name] = std::move(rule);
}

void UnregisterLayoutFlowRule(const std::string& op_name) {
  std::lock_guard<std::mutex> lock(layout_plan::Rules().mutex);
  layout_plan::Rules().rules.erase(op_name);
}

}  // namespace tessera
