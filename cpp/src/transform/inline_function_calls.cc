// InlineFunctionCalls: replaces calls of the module's own graph functions by their bodies, so
// that the build's @main is one dataflow graph (the executor runs kernels, not calls).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "builtin_passes.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// A function the pass inlines: a graph function that is neither a library partition
/// (Compiler) nor a fused kernel (Primitive); those are called, not inlined.
const FunctionNode* Inlinable(const IRModule& mod, const std::string& name) {
  const auto* fn = mod.Find(name).as<FunctionNode>();
  if (!fn || fn->attrs.Has(attr::kCompiler) || GetIntAttr(fn, attr::kPrimitive)) return nullptr;
  return fn;
}

/// `callee`'s body with its parameters bound to `args` and every variable it binds
/// renamed, so that two inlined copies never bind the same variable.
Expr InlineBody(const FunctionNode* callee, const std::vector<Expr>& args) {
  std::unordered_map<const VarNode*, Expr> bind;
  for (size_t i = 0; i < callee->params.size(); ++i) bind[callee->params[i].get()] = args[i];
  PostOrderVisit(callee->body, [&](const Expr& e) {
    if (const auto* let = e.as<LetNode>())
      bind[let->var.get()] = MakeVar(let->var->name_hint, let->var->type_annotation);
    if (const auto* fn = e.as<FunctionNode>())
      for (const Var& p : fn->params) bind[p.get()] = MakeVar(p->name_hint, p->type_annotation);
  });
  return Substitute(callee->body, bind);
}

/// A local function the pass inlines: one without Primitive, Composite or Compiler (fused
/// kernels and library partitions stay calls).
const FunctionNode* PlainLocal(const FunctionNode* fn) {
  if (!fn || GetIntAttr(fn, attr::kPrimitive) || fn->attrs.Has(attr::kComposite) ||
      fn->attrs.Has(attr::kCompiler))
    return nullptr;
  return fn;
}

/// Records each let variable bound to a plain local function in `body`.
void CollectLetFunctions(const Expr& body,
                         std::unordered_map<const VarNode*, const FunctionNode*>& out) {
  PostOrderVisit(body, [&](const Expr& e) {
    if (const auto* let = e.as<LetNode>())
      if (const auto* fn = PlainLocal(let->value.as<FunctionNode>())) out[let->var.get()] = fn;
  });
}

class CallInliner : public ExprMutator {
 public:
  CallInliner(const IRModule& mod, std::vector<std::string>& calling,
                    std::set<std::string>& inlined,
                    std::unordered_map<const VarNode*, const FunctionNode*>& let_functions)
      : mod_(mod), calling_(calling), inlined_(inlined), let_functions_(let_functions) {}

 protected:
  Expr Rewrite(const Expr& /*original*/, const Expr& rebuilt) override {
    const auto* let = rebuilt.as<LetNode>();
    if (let && PlainLocal(let->value.as<FunctionNode>())) {
      // Calls of the let-bound function were inlined below; an unused binding goes.
      bool used = false;
      PostOrderVisit(let->body, [&](const Expr& e) { used |= e.get() == let->var.get(); });
      if (!used) return let->body;
    }
    const auto* call = rebuilt.as<CallNode>();
    if (call) {
      const FunctionNode* local = PlainLocal(call->callee.as<FunctionNode>());
      if (const auto* v = call->callee.as<VarNode>()) {
        auto it = let_functions_.find(v);
        if (it != let_functions_.end()) local = it->second;
      }
      if (local && local->params.size() == call->args.size()) {
        Expr body = CallInliner(mod_, calling_, inlined_, let_functions_)
                        .Mutate(InlineBody(local, call->args));
        return body;
      }
    }
    const auto* gv = call ? call->callee.as<GlobalVarNode>() : nullptr;
    const FunctionNode* callee = gv ? Inlinable(mod_, gv->name) : nullptr;
    if (!callee) return rebuilt;
    if (callee->params.size() != call->args.size())
      TS_THROW(kType) << "@" << gv->name << " takes " << callee->params.size()
                      << " argument(s) but is called with " << call->args.size();
    if (std::find(calling_.begin(), calling_.end(), gv->name) != calling_.end())
      TS_THROW(kUnsupported) << "@" << gv->name << " calls itself (through @" << calling_.back()
                             << "): a recursive function cannot be compiled";
    calling_.push_back(gv->name);
    // Calls inside the inlined body are inlined too, with this call on the stack.
    Expr inlined_body = InlineBody(callee, call->args);
    CollectLetFunctions(inlined_body, let_functions_);
    Expr body =
        CallInliner(mod_, calling_, inlined_, let_functions_).Mutate(inlined_body);
    calling_.pop_back();
    inlined_.insert(gv->name);
    return body;
  }

 private:
  const IRModule& mod_;
  std::vector<std::string>& calling_;
  std::set<std::string>& inlined_;
  std::unordered_map<const VarNode*, const FunctionNode*>& let_functions_;
};

/// The global functions `mod`'s functions call or reference.
std::set<std::string> Referenced(const IRModule& mod) {
  std::set<std::string> out;
  for (const auto& [name, func] : mod.functions())
    if (const auto* fn = func.as<FunctionNode>())
      PostOrderVisit(fn->body, [&](const Expr& e) {
        if (const auto* gv = e.as<GlobalVarNode>()) out.insert(gv->name);
      });
  return out;
}

}  // namespace

Pass InlineFunctionCalls() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        IRModule out = mod;
        std::set<std::string> inlined;
        for (const auto& [name, func] : mod.functions()) {
          const auto* fn = func.as<FunctionNode>();
          if (!fn || fn->attrs.Has(attr::kCompiler) || GetIntAttr(fn, attr::kPrimitive)) continue;
          std::vector<std::string> calling{name};
          std::unordered_map<const VarNode*, const FunctionNode*> let_functions;
          CollectLetFunctions(fn->body, let_functions);
          Expr body = CallInliner(mod, calling, inlined, let_functions).Mutate(fn->body);
          if (!body.same_as(fn->body))
            out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
        }
        // Inlined functions nothing calls any more go; @main and the rest stay.
        std::set<std::string> used = Referenced(out);
        for (const std::string& name : inlined)
          if (name != "main" && !used.count(name)) out = out.WithoutFunction(name);
        return out;
      },
      PassInfo{"InlineFunctionCalls", 0, {}});
}

PassRegistration InlineFunctionCallsRegistration() {
  return {"InlineFunctionCalls",
          "inline calls of the module's graph functions and plain local functions (not "
          "partitions or kernels)",
          {},
          [](const Attrs&) { return InlineFunctionCalls(); }};
}

}  // namespace tessera
