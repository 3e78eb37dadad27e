// Pattern-driven rewriting: callbacks (TVM's rewrite) and partitioning matches into
// Composite functions (TVM's PatternPartitioner).
#include <unordered_map>
#include <unordered_set>

#include "tessera/ir/visitor.h"
#include "tessera/pattern/matcher.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

namespace {

bool IsComputation(const Expr& e) {
  return e.as<CallNode>() || e.as<TupleNode>() || e.as<TupleGetItemNode>();
}

/// A mutator that calls `fn(original, rebuilt)` and never enters nested functions.
class BodyRewriter : public ExprMutator {
 public:
  explicit BodyRewriter(std::function<Expr(BodyRewriter&, const Expr&, const Expr&)> fn)
      : fn_(std::move(fn)) {}

 protected:
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    return fn_(*this, original, rebuilt);
  }
  bool SkipChildren(const Expr& expr) override { return expr.as<FunctionNode>() != nullptr; }

 private:
  std::function<Expr(BodyRewriter&, const Expr&, const Expr&)> fn_;
};

Function WithBody(const Function& func, Expr body) {
  if (body.same_as(func->body)) return func;
  return MakeFunction(func->params, std::move(body), func->ret_type, func->attrs);
}

/// One composite: the local function and the expressions its call passes.
struct Group {
  Function func;
  std::vector<Expr> args;
};

/// Builds the composite function of a match rooted at `root`.
Group BuildGroup(const Expr& root, const DFPatternMatcher& m, const Attrs& attrs) {
  std::unordered_set<const ExprNode*> internal, embedded;
  for (const Expr& e : m.internal()) internal.insert(e.get());
  for (const Expr& e : m.embedded()) embedded.insert(e.get());
  std::unordered_map<const ExprNode*, Expr> built;
  Group group;
  std::vector<Var> params;
  // Recursion depth is bounded by the pattern's size (only matched nodes recurse).
  std::function<Expr(const Expr&)> build = [&](const Expr& x) -> Expr {
    if (auto it = built.find(x.get()); it != built.end()) return it->second;
    Expr out;
    if (internal.count(x.get())) {
      std::vector<Expr> children = ExprChildren(x);
      for (Expr& c : children)
        if (!c.as<OpNode>()) c = build(c);
      out = WithChildren(x, children);
    } else if (embedded.count(x.get())) {
      out = x;
    } else {
      Var p = MakeVar("p" + std::to_string(params.size()), x->checked_type_or_null());
      params.push_back(p);
      group.args.push_back(x);
      out = p;
    }
    built[x.get()] = out;
    return out;
  };
  Expr body = build(root);
  group.func = MakeFunction(std::move(params), body, nullptr, attrs);
  return group;
}

}  // namespace

Function PartitionPattern(const DFPattern& pattern, const std::string& label, const Function& func,
                          const PatternPredicate& predicate, const Attrs& extra_attrs) {
  if (!func.defined()) TS_THROW(kValue) << "PartitionPattern needs a function";
  if (label.empty()) TS_THROW(kValue) << "PartitionPattern needs a non-empty label";
  Attrs attrs{{attr::kComposite, label}};
  for (const auto& [k, v] : extra_attrs.items()) attrs.Set(k, v);

  IndexedGraph graph(func);
  DFPatternMatcher matcher(&graph);
  std::unordered_set<const ExprNode*> claimed;
  std::unordered_map<const ExprNode*, Group> groups;
  for (int i = static_cast<int>(graph.size()) - 1; i >= 0; --i) {
    const Expr& root = graph.nodes()[i].ref;
    if (!IsComputation(root) || claimed.count(root.get())) continue;
    if (!matcher.Match(pattern, root)) continue;
    std::unordered_set<const ExprNode*> covered;
    for (const Expr& e : matcher.internal()) covered.insert(e.get());
    if (!covered.count(root.get())) continue;  // the pattern's root is a bare input
    bool valid = true;
    for (const Expr& e : matcher.internal()) {
      if (claimed.count(e.get())) valid = false;
      if (e.same_as(root)) continue;
      int idx = graph.IndexOf(e.get());
      if (idx < 0) {
        valid = false;
        continue;
      }
      // An intermediate result used outside the match would be lost inside the composite.
      for (int out : graph.nodes()[idx].outputs)
        if (!covered.count(graph.nodes()[out].ref.get())) valid = false;
      if (graph.nodes()[idx].is_external) valid = false;
    }
    if (!valid || (predicate && !predicate(root))) continue;
    groups.emplace(root.get(), BuildGroup(root, matcher, attrs));
    claimed.insert(covered.begin(), covered.end());
  }
  if (groups.empty()) return func;
  BodyRewriter rewriter([&](BodyRewriter& self, const Expr& original, const Expr& rebuilt) -> Expr {
    auto it = groups.find(original.get());
    if (it == groups.end()) return rebuilt;
    std::vector<Expr> args;
    for (const Expr& a : it->second.args) args.push_back(self.Mutate(a));
    return MakeCall(it->second.func, std::move(args));
  });
  return WithBody(func, rewriter.Mutate(func->body));
}

Function RewritePatterns(const std::vector<DFPatternCallback>& callbacks, const Function& func,
                         const IRModule& mod) {
  if (!func.defined()) TS_THROW(kValue) << "RewritePatterns needs a function";
  for (const DFPatternCallback& cb : callbacks)
    if (!cb.pattern.defined() || !cb.callback)
      TS_THROW(kValue) << "a pattern callback needs a pattern and a callback";
  Function current = func;
  for (int round = 0; round < 100; ++round) {
    bool changed = false;
    for (const DFPatternCallback& cb : callbacks) {
      if (cb.require_type) InferExprType(current, mod);
      IndexedGraph graph(current);
      DFPatternMatcher matcher(&graph);
      BodyRewriter rewriter([&](BodyRewriter&, const Expr& original, const Expr& rebuilt) -> Expr {
        if (!IsComputation(original) || !matcher.Match(cb.pattern, original)) return rebuilt;
        Expr out = cb.callback(original, rebuilt, matcher.node_map());
        if (!out.defined()) TS_THROW(kValue) << "a pattern callback returned a null expression";
        return out;
      });
      Function next = WithBody(current, rewriter.Mutate(current->body));
      if (!next.same_as(current)) changed = true;
      current = next;
    }
    if (!changed) break;
  }
  return current;
}

}  // namespace tessera
