// Children access, post-order visits, the memoising mutator, substitution and free
// variables for graph expressions; every traversal keeps its stack on the heap.
#include "tessera/ir/visitor.h"

#include <cstdint>
#include <unordered_set>

#include "expr_kind.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"

namespace tessera {

namespace ir_detail {

const char* ExprKindName(const Object* e) {
  switch (e->type_index()) {
    case TypeIndex::kVar:
      return "variable";
    case TypeIndex::kGlobalVar:
      return "global";
    case TypeIndex::kConstant:
      return "constant";
    case TypeIndex::kOp:
      return "op";
    case TypeIndex::kCall:
      return "call";
    case TypeIndex::kTuple:
      return "tuple";
    case TypeIndex::kTupleGetItem:
      return "tuple projection";
    case TypeIndex::kLet:
      return "let";
    case TypeIndex::kFunction:
      return "function";
    case TypeIndex::kPrimFunc:
      return "primfunc";
    default:
      return "expression";
  }
}

}  // namespace ir_detail

namespace {

const char* KindName(const Expr& e) {
  return ir_detail::ExprKindName(e.get());
}

Var ExpectVar(const Expr& e, const char* where) {
  auto* v = e.as<VarNode>();
  if (!v) TS_THROW(kValue) << where << " must stay a variable, got a " << KindName(e);
  return Var(v);
}

bool SameNodes(const std::vector<Expr>& a, const Expr* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!a[i].same_as(b[i])) return false;
  return true;
}

/// One pending node of an iterative post-order walk: its children and the next one.
struct Frame {
  Expr node;
  std::vector<Expr> children;
  size_t next = 0;
};

}  // namespace

std::vector<Expr> ExprChildren(const Expr& expr) {
  TS_ICHECK(expr.defined()) << "children of a null expression";
  if (auto* c = expr.as<CallNode>()) {
    std::vector<Expr> out;
    out.reserve(c->args.size() + 1);
    out.push_back(c->callee);
    out.insert(out.end(), c->args.begin(), c->args.end());
    return out;
  }
  if (auto* t = expr.as<TupleNode>()) return t->fields;
  if (auto* g = expr.as<TupleGetItemNode>()) return {g->tuple};
  if (auto* l = expr.as<LetNode>()) return {l->var, l->value, l->body};
  if (auto* f = expr.as<FunctionNode>()) {
    std::vector<Expr> out(f->params.begin(), f->params.end());
    out.push_back(f->body);
    return out;
  }
  return {};
}

Expr WithChildren(const Expr& expr, const std::vector<Expr>& children) {
  TS_ICHECK(expr.defined()) << "rebuilding a null expression";
  size_t expected = 0;
  if (auto* c = expr.as<CallNode>())
    expected = c->args.size() + 1;
  else if (auto* t = expr.as<TupleNode>())
    expected = t->fields.size();
  else if (expr.as<TupleGetItemNode>())
    expected = 1;
  else if (expr.as<LetNode>())
    expected = 3;
  else if (auto* f = expr.as<FunctionNode>())
    expected = f->params.size() + 1;
  if (children.size() != expected)
    TS_THROW(kValue) << "cannot rebuild a " << KindName(expr) << " from " << children.size()
                     << " children; it has " << expected;
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i]) TS_THROW(kValue) << "child " << i << " of a " << KindName(expr) << " is null";
  if (expected == 0) return expr;

  if (auto* c = expr.as<CallNode>()) {
    if (children[0].same_as(c->callee) && SameNodes(c->args, children.data() + 1, c->args.size()))
      return expr;
    return MakeCall(children[0], std::vector<Expr>(children.begin() + 1, children.end()), c->attrs,
                    c->type_args);
  }
  if (auto* t = expr.as<TupleNode>()) {
    if (SameNodes(t->fields, children.data(), children.size())) return expr;
    return MakeTuple(children);
  }
  if (auto* g = expr.as<TupleGetItemNode>()) {
    if (children[0].same_as(g->tuple)) return expr;
    return MakeTupleGetItem(children[0], g->index);
  }
  if (auto* l = expr.as<LetNode>()) {
    if (children[0].same_as(l->var) && children[1].same_as(l->value) &&
        children[2].same_as(l->body))
      return expr;
    return MakeLet(ExpectVar(children[0], "a let's bound variable"), children[1], children[2]);
  }
  auto* f = expr.as<FunctionNode>();
  bool same = children.back().same_as(f->body);
  std::vector<Var> params;
  params.reserve(f->params.size());
  for (size_t i = 0; i < f->params.size(); ++i) {
    params.push_back(ExpectVar(children[i], "a function parameter"));
    same = same && children[i].same_as(f->params[i]);
  }
  if (same) return expr;
  return MakeFunction(std::move(params), children.back(), f->ret_type, f->attrs);
}

void PostOrderVisit(const Expr& expr, const std::function<void(const Expr&)>& fn) {
  if (!expr) return;
  std::unordered_set<const ExprNode*> seen{expr.get()};
  std::vector<Frame> stack;
  stack.push_back({expr, ExprChildren(expr)});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      // A DAG has no cycles, so marking on push never hides a node that is still needed.
      if (seen.insert(child.get()).second) {
        std::vector<Expr> grandchildren = ExprChildren(child);
        stack.push_back({std::move(child), std::move(grandchildren)});
      }
      continue;
    }
    Expr node = std::move(top.node);
    stack.pop_back();
    fn(node);
  }
}

Expr ExprMutator::Mutate(const Expr& expr) {
  if (!expr) return expr;
  if (auto it = memo_.find(expr.get()); it != memo_.end()) return it->second;
  auto finish = [&](const Expr& original, Expr result) {
    if (!result.same_as(original)) {
      // The memo is keyed by address: keep the original alive under a tagged key (an odd
      // address no node has) so a later Mutate never meets a recycled address.
      auto tag = reinterpret_cast<const ExprNode*>(reinterpret_cast<uintptr_t>(original.get()) | 1);
      memo_.emplace(tag, original);
    }
    memo_[original.get()] = std::move(result);
  };
  std::vector<Frame> stack;
  auto enter = [&](const Expr& node) {
    if (SkipChildren(node)) {
      finish(node, Rewrite(node, node));
      return;
    }
    stack.push_back({node, ExprChildren(node)});
  };
  enter(expr);
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      if (!memo_.count(child.get())) enter(child);
      continue;
    }
    std::vector<Expr> mutated;
    mutated.reserve(top.children.size());
    for (const Expr& c : top.children) mutated.push_back(memo_.at(c.get()));
    Expr node = std::move(top.node);
    stack.pop_back();
    Expr rebuilt = WithChildren(node, mutated);
    finish(node, Rewrite(node, rebuilt));
  }
  return memo_.at(expr.get());
}

Expr Substitute(const Expr& expr, const std::unordered_map<const VarNode*, Expr>& replacements) {
  if (!expr || replacements.empty()) return expr;
  // Not an ExprMutator: a binder (let variable, parameter) is replaced only by a variable,
  // while its uses take any replacement, and one Var node plays both roles.
  std::unordered_map<const ExprNode*, Expr> memo;
  auto leaf = [&](const Expr& node) {
    if (auto* v = node.as<VarNode>())
      if (auto it = replacements.find(v); it != replacements.end()) {
        if (!it->second) TS_THROW(kValue) << "substitution of %" << v->name_hint << " is null";
        return it->second;
      }
    return node;
  };
  auto binder = [&](const Expr& var) {
    Expr replaced = leaf(var);
    return replaced.as<VarNode>() ? replaced : var;
  };
  std::vector<Frame> stack;
  auto enter = [&](const Expr& node) {
    std::vector<Expr> children = ExprChildren(node);
    if (children.empty())
      memo[node.get()] = leaf(node);
    else
      stack.push_back({node, std::move(children)});
  };
  enter(expr);
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      if (!memo.count(child.get())) enter(child);
      continue;
    }
    std::vector<Expr> mutated;
    mutated.reserve(top.children.size());
    for (const Expr& c : top.children) mutated.push_back(memo.at(c.get()));
    if (top.node.as<LetNode>()) mutated[0] = binder(top.children[0]);
    if (auto* f = top.node.as<FunctionNode>())
      for (size_t i = 0; i < f->params.size(); ++i) mutated[i] = binder(top.children[i]);
    Expr node = std::move(top.node);
    stack.pop_back();
    memo[node.get()] = WithChildren(node, mutated);
  }
  return memo.at(expr.get());
}

std::vector<Var> FreeVars(const Expr& expr) {
  std::unordered_set<const VarNode*> bound;
  std::vector<const VarNode*> used;
  PostOrderVisit(expr, [&](const Expr& e) {
    if (auto* v = e.as<VarNode>()) used.push_back(v);
    if (auto* l = e.as<LetNode>()) bound.insert(l->var.get());
    if (auto* f = e.as<FunctionNode>())
      for (const Var& p : f->params) bound.insert(p.get());
  });
  // `used` is already in first-visit order and holds each variable once.
  std::vector<Var> free;
  for (const VarNode* v : used)
    if (!bound.count(v)) free.push_back(Var(v));
  return free;
}

}  // namespace tessera
