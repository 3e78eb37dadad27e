// HoistLayoutRewrite: moves the layout-rewrite prologue of called PrimFuncs out into the
// graph, where a rewrite of a constant folds away and others run once as their own kernel.
#include <unordered_map>
#include <unordered_set>

#include "layout_ops.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/type.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout/lift_layout_rewrite.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/transform/optimizable.h"

namespace tessera {

namespace {

using layout::LiftedLayoutRewrites;

/// The PrimFunc a call_tir calls with a literal argument tuple, by name, or nullptr.
const GlobalVarNode* CallTirTarget(const CallNode* call) {
  if (!call->op() || call->op()->name != kCallTirOp || call->args.size() != 2) return nullptr;
  if (!call->args[1].as<TupleNode>()) return nullptr;
  return call->args[0].as<GlobalVarNode>();
}

/// Names of the PrimFuncs every reference to which is the callee of a call_tir with a
/// literal argument tuple (only their callers can be rewritten along with them).
std::unordered_set<std::string> RewritableCallees(const IRModule& mod) {
  std::unordered_set<std::string> called, blocked;
  for (const auto& [name, base] : mod.functions()) {
    if (!base.as<FunctionNode>()) continue;
    PostOrderVisit(Function(static_cast<const FunctionNode*>(base.get())), [&](const Expr& e) {
      // The pass does not rewrite kernels and skipped functions, nested or not: the
      // globals they use keep their signatures.
      if (e.as<FunctionNode>() && IsKernelOrSkipped(e))
        PostOrderVisit(e, [&](const Expr& inner) {
          if (const auto* gv = inner.as<GlobalVarNode>()) blocked.insert(gv->name);
        });
      const auto* call = e.as<CallNode>();
      const GlobalVarNode* target = call ? CallTirTarget(call) : nullptr;
      if (target) called.insert(target->name);
      std::vector<Expr> children = ExprChildren(e);
      for (size_t i = 0; i < children.size(); ++i) {
        const auto* gv = children[i].as<GlobalVarNode>();
        // A call's children are its callee, then its args: args[0] is child 1.
        if (gv && !(target && i == 1)) blocked.insert(gv->name);
      }
    });
  }
  std::unordered_set<std::string> out;
  for (const std::string& name : called)
    if (!blocked.count(name) && mod.Find(name).as<tir::PrimFuncNode>()) out.insert(name);
  return out;
}


/// Rewrites call_tir of hoisted PrimFuncs: each lifted argument goes through its rewrite
/// first (a layout_transform of a constant, which folds; a call of the lifted PrimFunc
/// otherwise).
class CallRewriter : public ExprMutator {
 public:
  CallRewriter(const std::unordered_map<std::string, LiftedLayoutRewrites>& lifted,
               const std::unordered_map<std::string, std::vector<std::string>>& names,
               std::unordered_set<std::string>& used)
      : lifted_(lifted), names_(names), used_(used) {}

 protected:
  bool SkipChildren(const Expr& expr) override {
    return expr.as<FunctionNode>() && IsKernelOrSkipped(expr);
  }

  Expr Rewrite(const Expr&, const Expr& rebuilt) override {
    const auto* call = rebuilt.as<CallNode>();
    const GlobalVarNode* gv = call ? CallTirTarget(call) : nullptr;
    auto it = gv ? lifted_.find(gv->name) : lifted_.end();
    if (it == lifted_.end()) return rebuilt;
    std::vector<Expr> args = call->args[1].as<TupleNode>()->fields;
    const std::vector<std::string>& names = names_.at(gv->name);
    for (size_t k = 0; k < it->second.rewrites.size(); ++k) {
      const layout::LiftedLayoutRewrite& r = it->second.rewrites[k];
      Expr& arg = args.at(static_cast<size_t>(r.param_index));
      if (arg.as<ConstantNode>()) {
        // The map recovered from the copy: SimplifyLayoutTransforms folds it into the
        // constant, and PlanLayouts may move it.
        arg = layout_plan::MakeLayoutTransform(arg, r.map);
        continue;
      }
      const tir::Buffer& dst = r.rewrite->params[1];
      used_.insert(names[k]);
      arg = MakeOpCall(kCallTirOp, {MakeGlobalVar(names[k]), MakeTuple({arg})}, {},
                       {MakeTensorType(dst->shape, dst->dtype)});
    }
    // The kernel now reads its operands in the layouts it was written for: its layouts
    // are decided (the seed's frozen layout of a hoisted kernel).
    return MakeOpCall(kCallTirOp, {call->args[0], MakeTuple(args)},
                      call->attrs.With(attr::kFrozenLayout, true), call->type_args);
  }

 private:
  const std::unordered_map<std::string, LiftedLayoutRewrites>& lifted_;
  const std::unordered_map<std::string, std::vector<std::string>>& names_;
  std::unordered_set<std::string>& used_;
};

}  // namespace

Pass HoistLayoutRewrite() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        std::unordered_map<std::string, LiftedLayoutRewrites> lifted;
        std::unordered_map<std::string, std::vector<std::string>> names;
        std::unordered_set<std::string> taken;
        std::unordered_set<std::string> callees = RewritableCallees(mod);
        for (const auto& [name, base] : mod.functions()) {
          if (!callees.count(name)) continue;
          tir::PrimFunc f(static_cast<const tir::PrimFuncNode*>(base.get()));
          LiftedLayoutRewrites result = layout::LiftLayoutRewrites(f);
          if (result.rewrites.empty()) continue;
          for (size_t k = 0; k < result.rewrites.size(); ++k)
            names[name].push_back(layout_plan::FreshName(mod, name + "_layout_rewrite", taken));
          lifted.emplace(name, std::move(result));
        }
        if (lifted.empty()) return mod;
        std::unordered_set<std::string> used;
        CallRewriter rewriter(lifted, names, used);
        IRModule out =
            MapOptimizableFunctions(mod, [&](const Function& f) { return rewriter.Mutate(f); });
        // The kernels in their new signatures, each followed by the rewrites it needs.
        for (const auto& [name, base] : mod.functions()) {
          auto it = lifted.find(name);
          if (it == lifted.end()) continue;
          out = out.WithFunction(name, it->second.func);
          const AttrValue* symbol = it->second.func->attrs.Find(attr::kGlobalSymbol);
          for (size_t k = 0; k < it->second.rewrites.size(); ++k) {
            const std::string& lifted_name = names[name][k];
            if (!used.count(lifted_name)) continue;
            tir::PrimFunc r = it->second.rewrites[k].rewrite;
            if (symbol)
              r = tir::MakePrimFunc(r->params, r->num_outputs, r->body,
                                    Attrs{{attr::kGlobalSymbol, lifted_name}});
            out = out.WithFunction(lifted_name, r);
          }
        }
        return InferTypes(out);
      },
      PassInfo{"HoistLayoutRewrite", 0, {}});
}

}  // namespace tessera
