// DeadCodeElimination: drops unused let bindings and functions unreachable from @main.
#include <set>
#include <unordered_map>
#include "builtin_passes.h"

#include "tessera/ir/visitor.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// How often each variable is referenced (binding positions excluded).
std::unordered_map<const VarNode*, int> CountUses(const Expr& body) {
  std::unordered_map<const VarNode*, int> uses;
  PostOrderVisit(body, [&](const Expr& e) {
    std::vector<Expr> children = ExprChildren(e);
    size_t skip_front = 0;
    if (auto* f = e.as<FunctionNode>()) skip_front = f->params.size();
    if (e.as<LetNode>()) skip_front = 1;
    for (size_t i = skip_front; i < children.size(); ++i)
      if (auto* v = children[i].as<VarNode>()) ++uses[v];
  });
  return uses;
}

class LetRemover : public ExprMutator {
 public:
  explicit LetRemover(std::unordered_map<const VarNode*, int> uses) : uses_(std::move(uses)) {}
  bool changed = false;

 protected:
  Expr Rewrite(const Expr&, const Expr& rebuilt) override {
    auto* let = rebuilt.as<LetNode>();
    if (!let || uses_[let->var.get()] > 0) return rebuilt;
    changed = true;
    return let->body;
  }

 private:
  std::unordered_map<const VarNode*, int> uses_;
};

Function RemoveDeadLets(Function func) {
  // Removing a binding can make the variables its value used dead too: iterate.
  while (true) {
    LetRemover remover(CountUses(func));
    Expr out = remover.Mutate(func);
    func = Function(static_cast<const FunctionNode*>(out.get()));
    if (!remover.changed) return func;
  }
}

}  // namespace

Pass DeadCodeElimination() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        IRModule result = mod;
        for (const auto& [name, base] : mod.functions()) {
          auto* f = base.as<FunctionNode>();
          if (!f) continue;
          Function updated = RemoveDeadLets(Function(f));
          if (updated.get() != f) result = result.WithFunction(name, updated);
        }
        if (!result.Contains("main")) return result;
        // Reachability over global references, from @main.
        std::set<std::string> reached{"main"};
        std::vector<std::string> work{"main"};
        while (!work.empty()) {
          BaseFunc f = result.Lookup(work.back());
          work.pop_back();
          PostOrderVisit(f, [&](const Expr& e) {
            if (auto* g = e.as<GlobalVarNode>();
                g && result.Contains(g->name) && reached.insert(g->name).second)
              work.push_back(g->name);
          });
        }
        for (const auto& [name, base] : mod.functions())
          if (!reached.count(name)) result = result.WithoutFunction(name);
        return result;
      },
      PassInfo{"DeadCodeElimination", 1, {}});
}

PassRegistration DeadCodeEliminationRegistration() {
  return {"DeadCodeElimination",
          "remove unused bindings and unreachable functions",
          {},
          [](const Attrs&) { return DeadCodeElimination(); }};
}

}  // namespace tessera
