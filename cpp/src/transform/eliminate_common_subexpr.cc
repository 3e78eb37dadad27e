// EliminateCommonSubexpr: merges identical op calls on identical arguments.
#include <map>
#include "builtin_passes.h"

#include "tessera/ir/visitor.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

class CommonSubexprEliminator : public ExprMutator {
 protected:
  bool SkipChildren(const Expr& e) override {
    // Merging across a nested function's boundary would capture outer values in it.
    return e.as<FunctionNode>() != nullptr && !root_.same_as(e);
  }
  Expr Rewrite(const Expr&, const Expr& rebuilt) override {
    auto* call = rebuilt.as<CallNode>();
    if (!call || !call->op()) return rebuilt;
    // Children are already canonical (memoised), so identity of arguments suffices.
    std::vector<const Object*> key{call->callee.get()};
    for (const Expr& a : call->args) key.push_back(a.get());
    auto& bucket = table_[key];
    for (const Expr& candidate : bucket) {
      auto* other = candidate.as<CallNode>();
      if (other->attrs == call->attrs && other->type_args.size() == call->type_args.size()) {
        bool same_types = true;
        for (size_t i = 0; i < call->type_args.size(); ++i)
          same_types &= TypeEqual(other->type_args[i], call->type_args[i]);
        if (same_types) return candidate;
      }
    }
    bucket.push_back(rebuilt);
    return rebuilt;
  }

 public:
  Expr Run(const Function& func) {
    root_ = func;
    return Mutate(func);
  }

 private:
  Expr root_;
  std::map<std::vector<const Object*>, std::vector<Expr>> table_;
};

}  // namespace

Pass EliminateCommonSubexpr() {
  return CreateFunctionPass(
      [](Function func, const IRModule&, const PassContext&) {
        Expr out = CommonSubexprEliminator().Run(func);
        return Function(static_cast<const FunctionNode*>(out.get()));
      },
      PassInfo{"EliminateCommonSubexpr", 3, {}});
}

PassRegistration EliminateCommonSubexprRegistration() {
  return {"EliminateCommonSubexpr", "merge identical op calls", {}, [](const Attrs&) {
            return EliminateCommonSubexpr();
          }};
}

}  // namespace tessera
