// PlanLayouts: flows layout rewrites backward by bytes moved, then cancels and folds them.
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "flow_rules.h"
#include "layout_ops.h"
#include "simplify_layout.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/transform/optimizable.h"
#include "tessera/support/error.h"
#include "tessera/transform/passes.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// Deeper flows than this materialise (keeps the recursion bounded on long chains).
constexpr int kMaxFlowDepth = 200;

/// Where a wanted layout of a value comes from.
enum class Choice { kIdentity, kMaterialize, kConstant, kCompose, kFlow };

/// The cheapest way to get one value under one map, and what it costs in bytes moved.
struct Plan {
  Choice choice = Choice::kMaterialize;
  double cost = 0;
  IndexMap composed;                ///< kCompose: the map for the transform's input
  std::optional<LayoutFlow> flow;  ///< kFlow
};

/// Chooses, per (value, map) demand, between materialising a transform and pushing the
/// demand into the value's producer, by the bytes the transforms would move.
class Planner {
 public:
  explicit Planner(const Expr& body) {
    PostOrderVisit(body, [&](const Expr& e) {
      for (const Expr& child : ExprChildren(e)) ++uses_[child.get()];
    });
  }

  /// The bytes moved to produce `v` under bijection `m` by the cheapest plan.
  double Cost(const Expr& v, const IndexMap& m, int depth = 0) { return Decide(v, m, depth).cost; }

  /// `v` under `m`, built by the chosen plan (memoised, so shared demands share nodes).
  Expr Apply(const Expr& v, const IndexMap& m) {
    auto key = std::make_pair(v.get(), m.ToString());
    auto it = built_.find(key);
    if (it != built_.end()) return it->second;
    const Plan& plan = Decide(v, m, 0);
    Expr out;
    switch (plan.choice) {
      case Choice::kIdentity:
        out = v;
        break;
      case Choice::kMaterialize:
        out = MakeLayoutTransform(v, m);
        break;
      case Choice::kConstant:
        out = MakeConstant(m.Apply(v.as<ConstantNode>()->data));
        break;
      case Choice::kCompose:
        out = Apply(v.as<CallNode>()->args[0], plan.composed);
        break;
      case Choice::kFlow: {
        std::vector<Expr> args;
        for (size_t i = 0; i < plan.flow->operands.size(); ++i) {
          const IndexMap& om = plan.flow->maps[i];
          args.push_back(om.defined() ? Apply(plan.flow->operands[i], om)
                                      : plan.flow->operands[i]);
        }
        out = BuildFlow(*plan.flow, args);
        break;
      }
    }
    built_.emplace(key, out);
    return out;
  }

  /// `e` (an op call) with the layout_transforms on its operands moved past it: when some
  /// operands are transforms by one bijection N of tensors of the result's rank, the
  /// call runs in N's input layout (every operand flowing through N's inverse: those
  /// transforms cancel, constants fold) and N transforms its result. Taken when the bytes
  /// moved do not grow; ties move transforms toward the outputs, where they meet the
  /// transforms into the next frozen op and cancel. nullopt otherwise.
  std::optional<Expr> Sink(const Expr& e) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op() || call->op()->name == "layout_transform" || IsFrozen(call))
      return std::nullopt;
    if (auto reduced = SinkReduction(call)) return reduced;
    auto out_shape = ShapeOf(e);
    if (!out_shape) return std::nullopt;
    IndexMap n;
    std::vector<int64_t> in_shape;
    double removed = 0;
    for (const Expr& arg : FlowOperands(call)) {
      const auto* lt = AsOpCall(arg, "layout_transform");
      if (lt && IsFrozen(lt)) continue;
      auto shape = lt ? ShapeOf(arg) : std::nullopt;
      auto u_shape = lt ? ShapeOf(lt->args[0]) : std::nullopt;
      // Same rank as the result: elementwise operands, or a pool's input (whose layout map
      // is the result's too; FlowThrough checks it on both shapes).
      if (!shape || !u_shape || shape->size() != out_shape->size()) continue;
      IndexMap m = TransformMap(lt);
      if (!m.IsBijective(*u_shape)) continue;
      if (!n.defined()) {
        n = m;
        in_shape = *u_shape;
      } else if (!(m == n) && (*u_shape != in_shape || !m.EqualOn(n, in_shape))) {
        continue;
      }
      if (uses_[arg.get()] == 1) removed += BytesOf(*shape, arg);
    }
    if (!n.defined() || removed == 0) return std::nullopt;
    // An inverse is computed on one shape and may use it (an axis of extent 1 becomes the
    // constant 0), so it must be checked to be the inverse on the result's shape too.
    IndexMap inverse = n.Inverse(in_shape);
    if (!inverse.IsBijective(*out_shape) ||
        !inverse.ComposeWith(n).IsIdentity(*out_shape))
      return std::nullopt;
    auto flow = FlowThrough(call, inverse);
    if (!flow) return std::nullopt;
    double cost = BytesOf(*out_shape, e);
    for (size_t i = 0; i < flow->operands.size(); ++i)
      if (flow->maps[i].defined()) cost += Cost(flow->operands[i], flow->maps[i]);
    if (cost > removed) return std::nullopt;
    std::vector<Expr> args;
    for (size_t i = 0; i < flow->operands.size(); ++i)
      args.push_back(flow->maps[i].defined() ? Apply(flow->operands[i], flow->maps[i])
                                             : flow->operands[i]);
    return MakeLayoutTransform(BuildFlow(*flow, args), n);
  }

 private:
  /// A reduction (sum, mean, max, min without keepdims) of a transformed tensor, reduced
  /// in the transform's input layout instead: the axes reduced are the input axes the
  /// reduced outputs of the map come from, and what is left of the map transforms the
  /// (smaller) result. The seed's example: sum(axis=[2]) of NHWC data viewed as NCHW is
  /// sum(axis=[1]) in NHWC, then NWC -> NCW. Only when the map's outputs split cleanly into
  /// those of reduced and of kept axes.
  std::optional<Expr> SinkReduction(const CallNode* call) {
    const std::string& name = call->op()->name;
    if (name != "sum" && name != "mean" && name != "max" && name != "min") return std::nullopt;
    const auto* lt = AsOpCall(call->args[0], "layout_transform");
    const AttrValue& axis = call->attrs.Get("axis");
    if (!lt || uses_[call->args[0].get()] != 1 || axis.is_none() ||
        call->attrs.GetBool("keepdims") || call->attrs.GetBool("exclude"))
      return std::nullopt;
    auto x_shape = ShapeOf(call->args[0]);
    auto u_shape = ShapeOf(lt->args[0]);
    IndexMap n = TransformMap(lt);
    if (!x_shape || !u_shape || !n.IsBijective(*u_shape)) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(x_shape->size());
    std::vector<bool> reduced_out(x_shape->size(), false);
    for (int64_t a : axis.AsInts()) reduced_out[static_cast<size_t>(a < 0 ? a + rank : a)] = true;
    std::unordered_set<const tir::VarNode*> reduced_vars;
    for (size_t k = 0; k < reduced_out.size(); ++k)
      if (reduced_out[k])
        for (const auto* v : layout::VarsOf(n.final_indices()[k])) reduced_vars.insert(v);
    std::vector<tir::PrimExpr> kept_outputs;
    for (size_t k = 0; k < reduced_out.size(); ++k) {
      if (reduced_out[k]) continue;
      for (const auto* v : layout::VarsOf(n.final_indices()[k]))
        if (reduced_vars.count(v)) return std::nullopt;
      kept_outputs.push_back(n.final_indices()[k]);
    }
    std::vector<int64_t> new_axes;
    std::vector<tir::Var> kept_vars;
    std::vector<int64_t> new_shape;
    for (size_t i = 0; i < n.initial_indices().size(); ++i) {
      if (reduced_vars.count(n.initial_indices()[i].get())) {
        new_axes.push_back(static_cast<int64_t>(i));
      } else {
        kept_vars.push_back(n.initial_indices()[i]);
        new_shape.push_back((*u_shape)[i]);
      }
    }
    if (new_axes.empty()) return std::nullopt;
    IndexMap rest;
    try {
      rest = IndexMap(kept_vars, kept_outputs);
    } catch (const Error&) {
      return std::nullopt;
    }
    if (!rest.IsBijective(new_shape)) return std::nullopt;
    Expr reduced = MakeOpCall(name, {lt->args[0]},
                              call->attrs.With("axis", AttrValue::Ints(new_axes)));
    return MakeLayoutTransform(reduced, rest);
  }

  const Plan& Decide(const Expr& v, const IndexMap& m, int depth) {
    auto key = std::make_pair(v.get(), m.ToString());
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    // Memo keys are node addresses: keep the node alive so no later node reuses its address
    // (flows make operands of their own, e.g. a reshaped bias).
    alive_.push_back(v);
    Plan plan;
    auto shape = ShapeOf(v);
    if (!shape) {
      plan.cost = std::numeric_limits<double>::infinity();
      return plans_.emplace(key, plan).first->second;
    }
    if (m.IsIdentity(*shape)) {
      plan.choice = Choice::kIdentity;
      return plans_.emplace(key, plan).first->second;
    }
    plan.cost = BytesOf(m.MapShape(*shape), v);
    if (v.as<ConstantNode>()) {
      plan.choice = Choice::kConstant;
      plan.cost = 0;
    } else if (depth < kMaxFlowDepth) {
      if (const auto* lt = AsOpCall(v, "layout_transform"); lt && !IsFrozen(lt)) {
        auto u_shape = ShapeOf(lt->args[0]);
        IndexMap n = TransformMap(lt);
        // (The composition must also give the shape the two transforms give.)
        if (u_shape && n.IsBijective(*u_shape) &&
            n.ComposeWith(m).MapShape(*u_shape) == m.MapShape(*shape)) {
          IndexMap composed = n.ComposeWith(m);
          double c = Cost(lt->args[0], composed, depth + 1);
          if (c < plan.cost) {
            plan.choice = Choice::kCompose;
            plan.cost = c;
            plan.composed = composed;
          }
        }
      } else if (const auto* call = v.as<CallNode>(); call && uses_[v.get()] <= 1) {
        if (auto flow = FlowThrough(call, m)) {
          double c = 0;
          for (size_t i = 0; i < flow->operands.size(); ++i)
            if (flow->maps[i].defined()) c += Cost(flow->operands[i], flow->maps[i], depth + 1);
          if (c < plan.cost) {
            plan.choice = Choice::kFlow;
            plan.cost = c;
            plan.flow = std::move(flow);
          }
        }
      }
    }
    return plans_.emplace(key, std::move(plan)).first->second;
  }

  std::unordered_map<const ExprNode*, int> uses_;
  std::map<std::pair<const ExprNode*, std::string>, Plan> plans_;
  std::map<std::pair<const ExprNode*, std::string>, Expr> built_;
  std::vector<Expr> alive_;
};

/// Replaces chosen nodes of the original graph by their plans' results.
class Replacer : public ExprMutator {
 public:
  explicit Replacer(std::unordered_map<const ExprNode*, Expr> replacements)
      : replacements_(std::move(replacements)) {}

 protected:
  bool SkipChildren(const Expr& e) override { return IsKernelOrSkipped(e); }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    auto it = replacements_.find(original.get());
    if (it == replacements_.end()) return rebuilt;
    // A replacement is built over original nodes (its plan's operands); those may have
    // replacements of their own (a weight's transform folded, a producer moved), which must
    // apply inside it too, or the graph would hold both versions of what they compute.
    // Its original nodes are descendants of `original`, so they are already rewritten.
    return Mutate(it->second);
  }

 private:
  std::unordered_map<const ExprNode*, Expr> replacements_;
};

}  // namespace

/// Types every function of `mod`, then applies `fn` to each optimisable one.
IRModule RewriteTyped(const IRModule& mod, const std::function<Expr(const Function&)>& fn) {
  return InferTypes(MapOptimizableFunctions(InferTypes(mod), fn));
}

/// The nodes of `body` outside kernels and backend-owned functions (whose insides the
/// layout passes leave alone), children before parents.
std::vector<Expr> PlannableNodes(const Expr& body) {
  std::unordered_set<const ExprNode*> inside;
  std::vector<Expr> order;
  PostOrderVisit(body, [&](const Expr& e) {
    order.push_back(e);
    if (IsKernelOrSkipped(e))
      PostOrderVisit(e, [&](const Expr& inner) {
        if (!inner.same_as(e)) inside.insert(inner.get());
      });
  });
  std::vector<Expr> out;
  for (const Expr& e : order)
    if (!inside.count(e.get())) out.push_back(e);
  return out;
}

/// One round of flow over a typed function; `changed` says whether a transform moved.
Expr FlowRound(const Function& func, bool* changed) {
  Planner planner(func);
  const std::vector<Expr> nodes = PlannableNodes(func->body);
  std::unordered_map<const ExprNode*, Expr> replacements;
  for (const Expr& e : nodes) {
    const auto* lt = AsOpCall(e, "layout_transform");
    if (!lt || IsFrozen(lt)) continue;
    auto shape = ShapeOf(lt->args[0]);
    if (!shape) continue;
    IndexMap m = TransformMap(lt);
    if (!m.IsBijective(*shape)) continue;
    double before = BytesOf(m.MapShape(*shape), lt->args[0]);
    if (planner.Cost(lt->args[0], m) < before)
      replacements.emplace(e.get(), planner.Apply(lt->args[0], m));
  }
  if (replacements.empty()) {
    // Nothing flows backward: move transforms forward past ops instead.
    for (const Expr& e : nodes)
      if (auto sunk = planner.Sink(e)) replacements.emplace(e.get(), *sunk);
  }
  *changed = !replacements.empty();
  if (!*changed) return func;
  return Replacer(std::move(replacements)).Mutate(func);
}

}  // namespace tessera::layout_plan

namespace tessera {

Pass SimplifyLayoutTransforms() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        return layout_plan::RewriteTyped(mod, [](const Function& f) {
          return layout_plan::SimplifyLayoutRewrites(f);
        });
      },
      PassInfo{"SimplifyLayoutTransforms", 0, {}});
}

Pass PlanLayouts() {
  return CreateModulePass(
      [](IRModule mod, const PassContext& ctx) {
        mod = EliminateCommonSubexpr()(mod, ctx);
        for (int round = 0; round < 64; ++round) {
          bool moved = false;
          int simplified = 0;
          mod = layout_plan::RewriteTyped(mod, [&](const Function& f) {
            bool changed = false;
            Expr out = layout_plan::FlowRound(f, &changed);
            moved = moved || changed;
            return out;
          });
          mod = layout_plan::RewriteTyped(mod, [&](const Function& f) {
            int n = 0;
            Expr out = layout_plan::SimplifyLayoutRewrites(f, &n);
            simplified += n;
            return out;
          });
          if (!moved && simplified == 0) break;
        }
        return EliminateCommonSubexpr()(mod, ctx);
      },
      PassInfo{"PlanLayouts", 3, {}});
}

}  // namespace tessera
