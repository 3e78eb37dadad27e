// InlineComposites: replaces calls of local Composite functions outside library
// partitions by their bodies, so code generation sees plain ops.
#include <unordered_map>
#include "builtin_passes.h"

#include "tessera/ir/visitor.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// Composite labels only mean something to the library a Compiler partition goes to;
/// anywhere else (e.g. after a bare MergeComposite) the native build fuses the ops itself.
class CompositeInliner : public ExprMutator {
 public:
  bool changed = false;

 protected:
  Expr Rewrite(const Expr& /*original*/, const Expr& rebuilt) override {
    const auto* call = rebuilt.as<CallNode>();
    const auto* fn = call ? call->callee.as<FunctionNode>() : nullptr;
    if (!fn || !fn->attrs.Has(attr::kComposite) || fn->params.size() != call->args.size())
      return rebuilt;
    std::unordered_map<const VarNode*, Expr> bind;
    for (size_t i = 0; i < fn->params.size(); ++i) bind[fn->params[i].get()] = call->args[i];
    changed = true;
    return Substitute(fn->body, bind);
  }
};

}  // namespace

Pass InlineComposites() {
  return CreateFunctionPass(
      [](Function func, const IRModule&, const PassContext&) {
        CompositeInliner inliner;
        Expr body = inliner.Mutate(func->body);
        if (!inliner.changed) return func;
        return MakeFunction(func->params, body, func->ret_type, func->attrs);
      },
      PassInfo{"InlineComposites", 0, {}});
}

PassRegistration InlineCompositesRegistration() {
  return {"InlineComposites",
          "inline Composite functions outside library partitions",
          {},
          [](const Attrs&) { return InlineComposites(); }};
}

}  // namespace tessera
