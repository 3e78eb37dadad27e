// Structural equality and difference reports for graph expressions and modules.
#include "tessera/ir/structural_equal.h"

#include <unordered_map>

#include "expr_kind.h"
#include "structural_internal.h"
#include "tessera/support/error.h"

namespace tessera {

namespace structural {

namespace {

using ir_detail::ExprKindName;

/// Leaves compare by value; sharing is not part of their identity (the parser, for one,
/// gives every `1f` literal its own node).
bool IsValueLeaf(const Object* e) {
  TypeIndex k = e->type_index();
  return k == TypeIndex::kConstant || k == TypeIndex::kOp || k == TypeIndex::kGlobalVar ||
         k == TypeIndex::kPrimFunc;
}

}  // namespace

bool EqualChecker::Fail(std::string reason, std::string lhs_text, std::string rhs_text) {
  if (reason_.empty()) {
    reason_ = std::move(reason);
    lhs_text_ = std::move(lhs_text);
    rhs_text_ = std::move(rhs_text);
  }
  return false;
}

bool EqualChecker::FailExpr(const std::string& reason, const Work& w) {
  std::string lhs = RenderExpr(w.lhs), rhs = RenderExpr(w.rhs);
  // A differing node says little alone: show the node that uses it as well.
  if (w.lhs_parent && w.rhs_parent) {
    lhs += " in " + RenderExpr(Expr(w.lhs_parent));
    rhs += " in " + RenderExpr(Expr(w.rhs_parent));
  }
  return Fail(reason, lhs, rhs);
}

bool EqualChecker::Match(const Object* a, const Object* b) {
  auto [it, fresh] = lhs_to_rhs_.emplace(a, b);
  if (!fresh && it->second != b) return false;
  auto [rit, rfresh] = rhs_to_lhs_.emplace(b, a);
  if (!rfresh && rit->second != a) {
    if (fresh) lhs_to_rhs_.erase(it);
    return false;
  }
  return true;
}

bool EqualChecker::BindGraphVar(const VarNode* a, const VarNode* b, const Work& w) {
  if (!TypeEqual(a->type_annotation, b->type_annotation))
    return FailExpr("type annotation of %" + a->name_hint + " vs %" + b->name_hint + ": " +
                        DescribeTypeDiff(a->type_annotation, b->type_annotation),
                    w);
  Bind(a, b);
  return true;
}

bool EqualChecker::UseGraphVar(const VarNode* a, const VarNode* b, const Work& w) {
  auto it = lhs_to_rhs_.find(a);
  auto rit = rhs_to_lhs_.find(b);
  if (it != lhs_to_rhs_.end() || rit != rhs_to_lhs_.end()) {
    // Both directions must agree: after shadowing, one of them may be stale.
    if (it != lhs_to_rhs_.end() && it->second == b && rit != rhs_to_lhs_.end() && rit->second == a)
      return true;
    return FailExpr("variable %" + a->name_hint + " vs %" + b->name_hint +
                        ": they correspond to different variables elsewhere",
                    w);
  }
  // Neither side is bound so far: both are free.
  if (!map_free_vars_ && a != b)
    return FailExpr("free variable %" + a->name_hint + " vs %" + b->name_hint +
                        " (different variables; free variables are not mapped)",
                    w);
  if (!TypeEqual(a->type_annotation, b->type_annotation))
    return FailExpr("type annotation of free variable %" + a->name_hint + ": " +
                        DescribeTypeDiff(a->type_annotation, b->type_annotation),
                    w);
  Match(a, b);
  return true;
}

bool EqualChecker::CompareNode(const Work& w, std::vector<Work>& stack) {
  const Expr& l = w.lhs;
  const Expr& r = w.rhs;
  // Only leaves may short-cut on identity: an interior node must still record its
  // correspondence, or a later mismatch in sharing would go unseen.
  if (l.same_as(r) && IsValueLeaf(l.get())) return true;
  if (l->type_index() != r->type_index())
    return FailExpr(
        std::string("expression kind ") + ExprKindName(l.get()) + " vs " + ExprKindName(r.get()),
        w);
  if (auto* a = l.as<VarNode>()) return UseGraphVar(a, r.as<VarNode>(), w);
  if (IsValueLeaf(l.get())) {
    auto key = std::make_pair<const Object*, const Object*>(l.get(), r.get());
    if (leaf_equal_.count(key)) return true;
    if (auto* a = l.as<OpNode>()) {
      if (a != r.get()) return FailExpr("op " + a->name + " vs " + r.as<OpNode>()->name, w);
    } else if (auto* a = l.as<GlobalVarNode>()) {
      auto* b = r.as<GlobalVarNode>();
      if (a->name != b->name) return FailExpr("global @" + a->name + " vs @" + b->name, w);
    } else if (auto* a = l.as<ConstantNode>()) {
      const NDArray& x = a->data;
      const NDArray& y = r.as<ConstantNode>()->data;
      if (x.dtype() != y.dtype())
        return FailExpr(
            std::string("constant dtype ") + DTypeName(x.dtype()) + " vs " + DTypeName(y.dtype()),
            w);
      if (x.shape() != y.shape())
        return FailExpr(
            "constant shape " + ShapeToString(x.shape()) + " vs " + ShapeToString(y.shape()), w);
      if (!x.BitwiseEqual(y)) return FailExpr(DescribeDataDiff(x, y), w);
    } else {
      if (!EqualPrimFunc(l.as<tir::PrimFuncNode>(), r.as<tir::PrimFuncNode>())) return false;
    }
    leaf_equal_.insert(key);
    return true;
  }

  // Interior nodes: sharing must correspond, which also visits each pair once.
  auto it = lhs_to_rhs_.find(l.get());
  if (it != lhs_to_rhs_.end() && it->second == r.get()) return true;
  if (!Match(l.get(), r.get()))
    return FailExpr(std::string("sharing differs: a ") + ExprKindName(l.get()) +
                        " used more than once on one side corresponds to distinct nodes on the "
                        "other",
                    w);
  auto push = [&](const Expr& a, const Expr& b) {
    stack.push_back({a, b, l.get(), r.get(), false});
  };
  if (auto* a = l.as<CallNode>()) {
    auto* b = r.as<CallNode>();
    if (a->args.size() != b->args.size())
      return FailExpr("argument count " + std::to_string(a->args.size()) + " vs " +
                          std::to_string(b->args.size()),
                      w);
    if (!(a->attrs == b->attrs)) return FailExpr(DescribeAttrsDiff(a->attrs, b->attrs), w);
    if (a->type_args.size() != b->type_args.size())
      return FailExpr("type argument count " + std::to_string(a->type_args.size()) + " vs " +
                          std::to_string(b->type_args.size()),
                      w);
    for (size_t i = 0; i < a->type_args.size(); ++i)
      if (!TypeEqual(a->type_args[i], b->type_args[i]))
        return FailExpr("type argument " + std::to_string(i) + ": " +
                            DescribeTypeDiff(a->type_args[i], b->type_args[i]),
                        w);
    for (size_t i = a->args.size(); i-- > 0;) push(a->args[i], b->args[i]);
    push(a->callee, b->callee);
    return true;
  }
  if (auto* a = l.as<TupleNode>()) {
    auto* b = r.as<TupleNode>();
    if (a->fields.size() != b->fields.size())
      return FailExpr("tuple size " + std::to_string(a->fields.size()) + " vs " +
                          std::to_string(b->fields.size()),
                      w);
    for (size_t i = a->fields.size(); i-- > 0;) push(a->fields[i], b->fields[i]);
    return true;
  }
  if (auto* a = l.as<TupleGetItemNode>()) {
    auto* b = r.as<TupleGetItemNode>();
    if (a->index != b->index)
      return FailExpr("tuple index " + std::to_string(a->index) + " vs " + std::to_string(b->index),
                      w);
    push(a->tuple, b->tuple);
    return true;
  }
  if (auto* a = l.as<LetNode>()) {
    auto* b = r.as<LetNode>();
    // The variable's scope is the body only: bind it between value and body.
    push(a->body, b->body);
    stack.push_back({a->var, b->var, l.get(), r.get(), /*bind=*/true});
    push(a->value, b->value);
    return true;
  }
  auto* a = l.as<FunctionNode>();
  auto* b = r.as<FunctionNode>();
  if (a->params.size() != b->params.size())
    return FailExpr("function parameter count " + std::to_string(a->params.size()) + " vs " +
                        std::to_string(b->params.size()),
                    w);
  for (size_t i = 0; i < a->params.size(); ++i)
    if (!BindGraphVar(a->params[i].get(), b->params[i].get(), w)) return false;
  if (!TypeEqual(a->ret_type, b->ret_type))
    return FailExpr("function return type: " + DescribeTypeDiff(a->ret_type, b->ret_type), w);
  if (!(a->attrs == b->attrs))
    return FailExpr("function " + DescribeAttrsDiff(a->attrs, b->attrs), w);
  push(a->body, b->body);
  return true;
}

bool EqualChecker::EqualExpr(const Expr& a, const Expr& b) {
  if (!a || !b) {
    if (!a && !b) return true;
    return Fail("null vs non-null expression", RenderExpr(a), RenderExpr(b));
  }
  std::vector<Work> stack{{a, b, nullptr, nullptr, false}};
  while (!stack.empty()) {
    Work w = std::move(stack.back());
    stack.pop_back();
    if (w.bind) {
      if (!BindGraphVar(w.lhs.as<VarNode>(), w.rhs.as<VarNode>(), w)) return false;
    } else if (!CompareNode(w, stack)) {
      return false;
    }
  }
  return true;
}

}  // namespace structural

namespace {

using structural::EqualChecker;

std::string Report(const EqualChecker& c) {
  return c.reason() + "\n  lhs: " + c.lhs_text() + "\n  rhs: " + c.rhs_text();
}

/// The first difference between two modules, in the lhs's function order.
std::optional<std::string> ModuleDiff(const IRModule& a, const IRModule& b) {
  // Name-keyed lookup only; iteration follows the modules' own function order.
  std::unordered_map<std::string, const BaseFunc*> in_a, in_b;
  for (const auto& [name, f] : a.functions()) in_a.emplace(name, &f);
  for (const auto& [name, f] : b.functions()) in_b.emplace(name, &f);
  for (const auto& [name, f] : a.functions())
    if (!in_b.count(name)) return "function @" + name + " only in lhs";
  for (const auto& [name, f] : b.functions())
    if (!in_a.count(name)) return "function @" + name + " only in rhs";
  for (const auto& [name, f] : a.functions()) {
    // Each function on its own: free variables are matched afresh per function.
    EqualChecker checker(/*map_free_vars=*/true);
    if (!checker.EqualExpr(f, *in_b.at(name))) return "in @" + name + ": " + Report(checker);
  }
  if (!(a.attrs() == b.attrs()))
    return "module " + structural::DescribeAttrsDiff(a.attrs(), b.attrs());
  return std::nullopt;
}

}  // namespace

bool StructuralEqual(const Expr& a, const Expr& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).EqualExpr(a, b);
}

bool StructuralEqual(const IRModule& a, const IRModule& b) {
  if (a.same_as(b)) return true;
  return !ModuleDiff(a, b).has_value();
}

bool StructuralEqual(const tir::PrimExpr& a, const tir::PrimExpr& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).EqualPrim(a, b, "expression");
}

bool StructuralEqual(const tir::Stmt& a, const tir::Stmt& b, bool map_free_vars) {
  return EqualChecker(map_free_vars).EqualStmt(a, b);
}

std::optional<std::string> StructuralDiff(const IRModule& a, const IRModule& b) {
  if (a.same_as(b)) return std::nullopt;
  return ModuleDiff(a, b);
}

std::optional<std::string> StructuralDiff(const Expr& a, const Expr& b, bool map_free_vars) {
  EqualChecker checker(map_free_vars);
  if (checker.EqualExpr(a, b)) return std::nullopt;
  return Report(checker);
}

void AssertStructuralEqual(const IRModule& a, const IRModule& b) {
  if (auto diff = StructuralDiff(a, b))
    TS_THROW(kValue) << "modules are not structurally equal: " << *diff;
}

void AssertStructuralEqual(const Expr& a, const Expr& b, bool map_free_vars) {
  if (auto diff = StructuralDiff(a, b, map_free_vars))
    TS_THROW(kValue) << "expressions are not structurally equal: " << *diff;
}

}  // namespace tessera
