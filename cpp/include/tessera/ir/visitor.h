// Traversal and rewriting of graph expressions: post-order visits and a memoising
// mutator. All traversals are iterative, so a 20,000-deep chain does not overflow.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera {

/// The direct sub-expressions of `expr`, in evaluation order: a call's callee then its
/// args; a tuple's fields; a projection's tuple; a let's var, value, body; a function's
/// params then body. Leaves (Var, GlobalVar, Constant, Op, PrimFunc) have none.
std::vector<Expr> ExprChildren(const Expr& expr);

/// A copy of `expr` with its children replaced (same order as ExprChildren); returns
/// `expr` itself when every child is the same node.
Expr WithChildren(const Expr& expr, const std::vector<Expr>& children);

/// Calls `fn` once on every node reachable from `expr`, children before parents,
/// including nested function bodies. Deterministic order.
void PostOrderVisit(const Expr& expr, const std::function<void(const Expr&)>& fn);

/// Rewrites an expression bottom-up. Each node is visited once (shared nodes stay
/// shared): its children are rewritten first, then `Rewrite` sees the original node and
/// the node rebuilt over the rewritten children.
class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  /// The rewritten `expr`.
  Expr Mutate(const Expr& expr);

 protected:
  /// Override to rewrite; the default keeps `rebuilt`.
  virtual Expr Rewrite(const Expr& original, const Expr& rebuilt) { return rebuilt; }
  /// Override to stop descending into a node (it is then passed to Rewrite as is).
  virtual bool SkipChildren(const Expr& expr) { return false; }

 private:
  std::unordered_map<const ExprNode*, Expr> memo_;
};

/// Replaces variables by expressions throughout `expr`.
Expr Substitute(const Expr& expr, const std::unordered_map<const VarNode*, Expr>& replacements);

/// Variables used in `expr` but not bound in it, in first-use order.
std::vector<Var> FreeVars(const Expr& expr);

}  // namespace tessera
