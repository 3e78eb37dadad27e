// The DFPattern matcher: memoised recursive matching with rollback on failed branches.
#include "tessera/pattern/matcher.h"

#include <algorithm>

#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// The dataflow inputs the matcher follows (never the callee, never into functions).
std::vector<Expr> Inputs(const Expr& e) {
  if (auto* c = e.as<CallNode>()) return c->args;
  if (auto* t = e.as<TupleNode>()) return t->fields;
  if (auto* g = e.as<TupleGetItemNode>()) return {g->tuple};
  return {};
}

/// Pattern attribute value `want` equals the IR's `have`, numbers compared by value.
bool AttrMatches(const AttrValue& want, const AttrValue& have) {
  if (want == have) return true;
  bool want_num = want.is_int() || want.is_float(), have_num = have.is_int() || have.is_float();
  if (want_num && have_num) return want.AsFloat() == have.AsFloat();
  if (want.is_array() && have.is_array()) {
    const auto &a = want.AsArray(), &b = have.AsArray();
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!AttrMatches(a[i], b[i])) return false;
    return true;
  }
  return false;
}

bool AttrsMatch(const Attrs& want, const Expr& e) {
  const Attrs* have = nullptr;
  if (auto* c = e.as<CallNode>()) have = &c->attrs;
  if (auto* f = e.as<FunctionNode>()) have = &f->attrs;
  if (auto* op = e.as<OpNode>()) {
    for (const auto& [k, v] : want.items()) {
      if (k != "TOpPattern") return false;
      if (!AttrMatches(v, AttrValue(static_cast<int64_t>(op->def->pattern)))) return false;
    }
    return true;
  }
  if (!have) return false;
  for (const auto& [k, v] : want.items()) {
    const AttrValue* h = have->Find(k);
    if (!h || !AttrMatches(v, *h)) return false;
  }
  return true;
}

const TensorTypeNode* TensorTypeOf(const Expr& e) {
  const Type& t = e->checked_type_or_null();
  return t.defined() ? t.as<TensorTypeNode>() : nullptr;
}

bool IsCommutative(const CallNode* call) {
  const OpNode* op = call->op();
  return op && call->args.size() == 2 && (op->name == "add" || op->name == "multiply");
}

}  // namespace

bool DFPatternMatcher::Match(const DFPattern& pattern, const Expr& expr) {
  if (!pattern.defined()) TS_THROW(kValue) << "cannot match a null pattern";
  if (!expr.defined()) TS_THROW(kValue) << "cannot match against a null expression";
  memo_.clear();
  trail_.clear();
  internal_.clear();
  inputs_.clear();
  embedded_.clear();
  if (!Visit(pattern.get(), expr)) {
    memo_.clear();
    trail_.clear();
    return false;
  }
  // Classify what the match covered from the successful trail.
  std::unordered_set<const ExprNode*> seen_internal, seen_input, seen_embedded;
  for (const TrailEntry& t : trail_) {
    const Expr& e = t.expr;
    if (!t.memoised) {  // a dominator path node: computation
      if (seen_internal.insert(e.get()).second) internal_.push_back(e);
      continue;
    }
    switch (t.pattern->kind) {
      case DFPatternKind::kCall:
      case DFPatternKind::kTuple:
      case DFPatternKind::kTupleGetItem:
        if (seen_internal.insert(e.get()).second) internal_.push_back(e);
        break;
      case DFPatternKind::kConstant:
        if (seen_embedded.insert(e.get()).second) embedded_.push_back(e);
        break;
      case DFPatternKind::kExpr:
        if (e.as<OpNode>()) break;
        if (e.as<ConstantNode>()) {
          if (seen_embedded.insert(e.get()).second) embedded_.push_back(e);
          break;
        }
        [[fallthrough]];
      case DFPatternKind::kWildcard:
      case DFPatternKind::kVar:
        if (seen_input.insert(e.get()).second) inputs_.push_back(e);
        break;
      default:
        break;  // wrappers record their operand's match
    }
  }
  // Computation wins over input when one expression is both; an embedded constant
  // also matched by a wildcard is an input (TVM embeds only is_constant matches).
  std::erase_if(inputs_, [&](const Expr& e) { return seen_internal.count(e.get()) > 0; });
  std::erase_if(embedded_, [&](const Expr& e) {
    return seen_internal.count(e.get()) > 0 || seen_input.count(e.get()) > 0;
  });
  return true;
}

void DFPatternMatcher::Rollback(size_t mark) {
  while (trail_.size() > mark) {
    if (trail_.back().memoised) memo_.erase(trail_.back().pattern);
    trail_.pop_back();
  }
}

bool DFPatternMatcher::Visit(const DFPatternNode* p, const Expr& e) {
  if (auto it = memo_.find(p); it != memo_.end()) return it->second.same_as(e);
  size_t mark = trail_.size();
  if (!VisitInner(p, e)) {
    Rollback(mark);
    return false;
  }
  // Another branch may have bound p meanwhile (a pattern node used inside itself is
  // impossible, but a shared node under a dominator path is): keep the first binding.
  if (auto it = memo_.find(p); it != memo_.end()) {
    if (!it->second.same_as(e)) {
      Rollback(mark);
      return false;
    }
    return true;
  }
  memo_[p] = e;
  trail_.push_back({p, e, true});
  return true;
}

bool DFPatternMatcher::VisitInner(const DFPatternNode* p, const Expr& e) {
  switch (p->kind) {
    case DFPatternKind::kWildcard:
      return true;
    case DFPatternKind::kExpr:
      if (p->expr.as<OpNode>()) return e.same_as(p->expr);
      return e.same_as(p->expr) || StructuralEqual(p->expr, e);
    case DFPatternKind::kVar: {
      auto* v = e.as<VarNode>();
      return v && (p->name.empty() || v->name_hint == p->name);
    }
    case DFPatternKind::kConstant:
      return e.as<ConstantNode>() != nullptr;
    case DFPatternKind::kCall: {
      auto* call = e.as<CallNode>();
      if (!call || !Visit(p->callee.get(), call->callee)) return false;
      if (p->any_args) return true;
      if (p->operands.size() != call->args.size()) return false;
      size_t mark = trail_.size();
      bool ok = true;
      for (size_t i = 0; ok && i < call->args.size(); ++i)
        ok = Visit(p->operands[i].get(), call->args[i]);
      if (ok || !IsCommutative(call)) return ok;
      Rollback(mark);
      return Visit(p->operands[0].get(), call->args[1]) &&
             Visit(p->operands[1].get(), call->args[0]);
    }
    case DFPatternKind::kTuple: {
      auto* t = e.as<TupleNode>();
      if (!t || t->fields.size() != p->operands.size()) return false;
      for (size_t i = 0; i < t->fields.size(); ++i)
        if (!Visit(p->operands[i].get(), t->fields[i])) return false;
      return true;
    }
    case DFPatternKind::kTupleGetItem: {
      auto* g = e.as<TupleGetItemNode>();
      return g && (p->index < 0 || p->index == g->index) && Visit(p->operands[0].get(), g->tuple);
    }
    case DFPatternKind::kAlt: {
      size_t mark = trail_.size();
      if (Visit(p->operands[0].get(), e)) return true;
      Rollback(mark);
      return Visit(p->operands[1].get(), e);
    }
    case DFPatternKind::kAttr:
      return AttrsMatch(p->attrs, e) && Visit(p->operands[0].get(), e);
    case DFPatternKind::kType: {
      const Type& t = e->checked_type_or_null();
      return t.defined() && TypeEqual(t, p->type) && Visit(p->operands[0].get(), e);
    }
    case DFPatternKind::kShape: {
      auto* t = TensorTypeOf(e);
      return t && t->shape == p->shape && Visit(p->operands[0].get(), e);
    }
    case DFPatternKind::kDType: {
      auto* t = TensorTypeOf(e);
      return t && t->dtype == p->dtype && Visit(p->operands[0].get(), e);
    }
    case DFPatternKind::kDominator:
      return MatchDominator(p, e);
  }
  return false;
}

bool DFPatternMatcher::MatchDominator(const DFPatternNode* p, const Expr& e) {
  const DFPatternNode* parent = p->operands[0].get();
  const DFPatternNode* path = p->operands[1].get();
  const DFPatternNode* child = p->operands[2].get();
  if (!graph_)
    TS_THROW(kValue) << "a dominator pattern needs the dataflow graph of the matched function";
  int root = graph_->IndexOf(e.get());
  if (root < 0 || !Visit(child, e)) return false;
  // Walk upwards from the child's inputs: every chain must end at the (single) parent,
  // passing only nodes that match `path`. Path nodes are matched with a fresh matcher
  // each, since one path pattern covers many nodes.
  std::vector<Expr> stack = Inputs(e);
  std::unordered_set<const ExprNode*> visited;
  Expr parent_expr;
  std::vector<Expr> path_nodes;
  while (!stack.empty()) {
    Expr x = stack.back();
    stack.pop_back();
    if (!visited.insert(x.get()).second) continue;
    if (parent_expr.defined() ? x.same_as(parent_expr) : Visit(parent, x)) {
      parent_expr = x;
      continue;
    }
    DFPatternMatcher sub(graph_);
    if (!sub.Match(DFPattern(Ref<const DFPatternNode>(path)), x)) return false;
    path_nodes.push_back(x);
    for (const Expr& in : Inputs(x)) stack.push_back(in);
  }
  if (!parent_expr.defined()) return false;
  // The child must post-dominate the parent.
  int at = graph_->IndexOf(parent_expr.get());
  while (at >= 0 && at != root) at = graph_->nodes()[at].ipdom;
  if (at != root) return false;
  for (const Expr& x : path_nodes) trail_.push_back({path, x, false});  // computation
  return true;
}

bool MatchPattern(const DFPattern& pattern, const Expr& expr) {
  Function wrapper = MakeFunction(FreeVars(expr), expr);
  IndexedGraph graph(wrapper);
  DFPatternMatcher matcher(&graph);
  return matcher.Match(pattern, expr);
}

}  // namespace tessera
