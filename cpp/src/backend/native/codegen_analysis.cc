// Loop analyses for the C generator: affine coefficients of index expressions in a loop
// variable, iteration independence, and the variables/buffers a loop body uses.
#include <algorithm>
#include <unordered_set>

#include "codegen_internal.h"
#include "tessera/support/error.h"

namespace tessera::native::detail {

using tir::BinaryNode;
using tir::BinaryOp;
using tir::PrimExpr;

bool SameExpr(const PrimExpr& a, const PrimExpr& b) {
  if (a.get() == b.get()) return true;
  if (!a.defined() || !b.defined()) return false;
  if (a->type_index() != b->type_index() || a->dtype != b->dtype) return false;
  switch (a->type_index()) {
    case TypeIndex::kIntImm:
      return a.as<tir::IntImmNode>()->value == b.as<tir::IntImmNode>()->value;
    case TypeIndex::kBinary: {
      auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
      return x->op == y->op && SameExpr(x->a, y->a) && SameExpr(x->b, y->b);
    }
    case TypeIndex::kCast:
      return SameExpr(a.as<tir::CastNode>()->value, b.as<tir::CastNode>()->value);
    default:
      return false;  // variables compare by identity (above); anything else: unknown
  }
}

void LinearAnalysis::Bind(const tir::VarNode* var, const PrimExpr& binding) {
  bound_[var] = Coef(binding);
}

std::optional<int64_t> LinearAnalysis::Coef(const PrimExpr& e, int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  if (const auto* var = e.as<tir::VarNode>()) {
    if (var == v_) return 1;
    auto it = bound_.find(var);
    return it == bound_.end() ? std::optional<int64_t>(0) : it->second;
  }
  if (e.as<tir::IntImmNode>()) return 0;
  if (const auto* cast = e.as<tir::CastNode>()) {
    if (IsInteger(cast->dtype) && IsInteger(cast->value->dtype))
      return Coef(cast->value, depth + 1);
    return Invariant(e) ? std::optional<int64_t>(0) : std::nullopt;
  }
  if (const auto* n = e.as<BinaryNode>(); n && IsInteger(n->dtype)) {
    std::optional<int64_t> a = Coef(n->a, depth + 1), b = Coef(n->b, depth + 1);
    if (!a || !b) return std::nullopt;
    switch (n->op) {
      case BinaryOp::kAdd:
        return *a + *b;
      case BinaryOp::kSub:
        return *a - *b;
      case BinaryOp::kMul: {
        const auto* ia = n->a.as<tir::IntImmNode>();
        const auto* ib = n->b.as<tir::IntImmNode>();
        if (*a == 0 && *b == 0) return 0;
        if (ib) return *a * ib->value;
        if (ia) return *b * ia->value;
        return std::nullopt;  // a stride only known at run time
      }
      default:
        if (*a == 0 && *b == 0) return 0;
        return std::nullopt;
    }
  }
  return Invariant(e) ? std::optional<int64_t>(0) : std::nullopt;
}

std::optional<int64_t> LinearAnalysis::OffsetCoef(const tir::BufferNode* buffer,
                                                  const std::vector<PrimExpr>& indices) const {
  int64_t total = 0, stride = 1;
  for (size_t d = indices.size(); d-- > 0;) {
    std::optional<int64_t> c = Coef(indices[d]);
    if (!c) return std::nullopt;
    total += *c * stride;
    stride *= buffer->shape[d];
  }
  return total;
}

bool LinearAnalysis::Invariant(const PrimExpr& root) const {
  // VisitPrimExpr is iterative: expression trees can be deep.
  return tir::VisitPrimExpr(root, [&](const tir::PrimExprNode* e) {
    if (IsInstance<tir::VarNode>(e)) {
      const auto* var = static_cast<const tir::VarNode*>(e);
      if (var == v_) return false;
      auto it = bound_.find(var);
      return it == bound_.end() || (it->second && *it->second == 0);
    }
    if (IsInstance<tir::BufferLoadNode>(e))
      return !stored_.count(static_cast<const tir::BufferLoadNode*>(e)->buffer.get());
    return true;
  });
}

namespace {

/// Calls `fn(load)` for every BufferLoad in `root`, in evaluation order.
template <typename Fn>
void ForEachLoad(const PrimExpr& root, Fn&& fn) {
  tir::VisitPrimExpr(root, [&](const tir::PrimExprNode* e) {
    if (IsInstance<tir::BufferLoadNode>(e)) fn(static_cast<const tir::BufferLoadNode*>(e));
    return true;
  });
}

/// Calls `fn(var)` for every variable in `root`.
template <typename Fn>
void ForEachVar(const PrimExpr& root, Fn&& fn) {
  tir::VisitPrimExpr(root, [&](const tir::PrimExprNode* e) {
    if (IsInstance<tir::VarNode>(e)) fn(static_cast<const tir::VarNode*>(e));
    return true;
  });
}

}  // namespace

bool CollectAccesses(const tir::Stmt& body, LinearAnalysis* lin, std::vector<Access>* out) {
  bool straight = true;
  std::vector<const tir::StmtNode*> stack{body.get()};
  auto loads = [&](const PrimExpr& e) {
    ForEachLoad(e, [&](const tir::BufferLoadNode* n) {
      out->push_back(Access{n->buffer.get(), &n->indices, false});
    });
  };
  while (!stack.empty()) {
    const tir::StmtNode* s = stack.back();
    stack.pop_back();
    switch (s->type_index()) {
      case TypeIndex::kSeqStmt: {
        const auto& seq = static_cast<const tir::SeqStmtNode*>(s)->seq;
        for (size_t i = seq.size(); i-- > 0;) stack.push_back(seq[i].get());
        break;
      }
      case TypeIndex::kBlock: {
        const auto* b = static_cast<const tir::BlockNode*>(s);
        for (const tir::IterVar& iv : b->iter_vars) {
          loads(iv.binding);
          lin->Bind(iv.var.get(), iv.binding);
        }
        stack.push_back(b->body.get());
        if (b->init.defined()) stack.push_back(b->init.get());
        break;
      }
      case TypeIndex::kIfThenElse: {
        const auto* n = static_cast<const tir::IfThenElseNode*>(s);
        loads(n->cond);
        if (n->else_case.defined()) stack.push_back(n->else_case.get());
        stack.push_back(n->then_case.get());
        break;
      }
      case TypeIndex::kBufferStore: {
        const auto* n = static_cast<const tir::BufferStoreNode*>(s);
        loads(n->value);
        for (const PrimExpr& i : n->indices) loads(i);
        out->push_back(Access{n->buffer.get(), &n->indices, true});
        break;
      }
      case TypeIndex::kFor: {
        straight = false;
        const auto* n = static_cast<const tir::ForNode*>(s);
        loads(n->min);
        loads(n->extent);
        lin->BindUnknown(n->loop_var.get());
        stack.push_back(n->body.get());
        break;
      }
      case TypeIndex::kAllocate:
        straight = false;
        stack.push_back(static_cast<const tir::AllocateNode*>(s)->body.get());
        break;
      default:
        straight = false;
        break;
    }
  }
  return straight;
}

bool IterationsIndependent(const std::vector<Access>& accesses, const LinearAnalysis& lin) {
  // The index tuples each stored buffer is stored at. Two tuples of one buffer are
  // compatible when they are the same expressions (each iteration touches its own
  // element) or differ by distinct constants in one dimension (in-bounds indices then
  // never meet, whatever the iterations): a Winograd transform's stores of one vector per
  // frequency.
  std::vector<std::pair<const tir::BufferNode*, const std::vector<PrimExpr>*>> stores;
  auto same_indices = [](const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!SameExpr(a[i], b[i])) return false;
    return true;
  };
  auto disjoint = [](const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      const auto* x = a[i].as<tir::IntImmNode>();
      const auto* y = b[i].as<tir::IntImmNode>();
      if (x && y && x->value != y->value) return true;
    }
    return false;
  };
  // Whether `idx` is compatible with every tuple `b` is stored at.
  auto compatible = [&](const tir::BufferNode* b, const std::vector<PrimExpr>& idx) {
    for (const auto& [buf, other] : stores)
      if (buf == b && !same_indices(*other, idx) && !disjoint(*other, idx)) return false;
    return true;
  };
  for (const Access& a : accesses) {
    if (!a.is_store) continue;
    std::optional<int64_t> c = lin.OffsetCoef(a.buffer, *a.indices);
    if (!c || *c == 0 || !compatible(a.buffer, *a.indices)) return false;
    stores.emplace_back(a.buffer, a.indices);
  }
  for (const Access& a : accesses)
    if (!a.is_store && !compatible(a.buffer, *a.indices)) return false;
  return true;
}

bool UsesAnyVar(const PrimExpr& e, const std::unordered_set<const tir::VarNode*>& vars) {
  bool found = false;
  ForEachVar(e, [&](const tir::VarNode* v) { found = found || vars.count(v) > 0; });
  return found;
}

void CollectUses(const tir::Stmt& s, std::vector<const tir::VarNode*>* vars,
                 std::vector<const tir::BufferNode*>* buffers) {
  std::unordered_set<const tir::VarNode*> seen_vars;
  std::unordered_set<const tir::BufferNode*> seen_buffers;
  auto var = [&](const tir::VarNode* v) {
    if (seen_vars.insert(v).second) vars->push_back(v);
  };
  auto buffer = [&](const tir::BufferNode* b) {
    if (seen_buffers.insert(b).second) buffers->push_back(b);
  };
  auto expr = [&](const PrimExpr& e) {
    if (!e.defined()) return;
    ForEachVar(e, var);
    ForEachLoad(e, [&](const tir::BufferLoadNode* n) { buffer(n->buffer.get()); });
  };
  std::vector<const tir::StmtNode*> stack{s.get()};
  while (!stack.empty()) {
    const tir::StmtNode* st = stack.back();
    stack.pop_back();
    switch (st->type_index()) {
      case TypeIndex::kSeqStmt: {
        const auto& seq = static_cast<const tir::SeqStmtNode*>(st)->seq;
        for (size_t i = seq.size(); i-- > 0;) stack.push_back(seq[i].get());
        break;
      }
      case TypeIndex::kFor: {
        const auto* n = static_cast<const tir::ForNode*>(st);
        expr(n->min);
        expr(n->extent);
        stack.push_back(n->body.get());
        break;
      }
      case TypeIndex::kBlock: {
        const auto* b = static_cast<const tir::BlockNode*>(st);
        for (const tir::IterVar& iv : b->iter_vars) {
          expr(iv.binding);
          expr(iv.dom.min);
          expr(iv.dom.extent);
        }
        stack.push_back(b->body.get());
        if (b->init.defined()) stack.push_back(b->init.get());
        break;
      }
      case TypeIndex::kBufferStore: {
        const auto* n = static_cast<const tir::BufferStoreNode*>(st);
        expr(n->value);
        for (const PrimExpr& i : n->indices) expr(i);
        buffer(n->buffer.get());
        break;
      }
      case TypeIndex::kPrefetch: {
        const auto* n = static_cast<const tir::PrefetchNode*>(st);
        for (const PrimExpr& i : n->indices) expr(i);
        buffer(n->buffer.get());
        break;
      }
      case TypeIndex::kAllocate:
        stack.push_back(static_cast<const tir::AllocateNode*>(st)->body.get());
        break;
      case TypeIndex::kIfThenElse: {
        const auto* n = static_cast<const tir::IfThenElseNode*>(st);
        expr(n->cond);
        if (n->else_case.defined()) stack.push_back(n->else_case.get());
        stack.push_back(n->then_case.get());
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace tessera::native::detail

namespace tessera::native::detail {

std::vector<const tir::PrimExprNode*> SharedSubexpressions(
    const PrimExpr& root, const std::function<bool(const tir::SelectNode*)>& lazy) {
  // Value operands of a node, each flagged whether it is evaluated whenever the node is.
  auto operands = [&](const tir::PrimExprNode* e, auto&& visit) {
    switch (e->type_index()) {
      case TypeIndex::kBinary: {
        const auto* n = static_cast<const BinaryNode*>(e);
        bool short_circuit = n->op == BinaryOp::kAnd || n->op == BinaryOp::kOr;
        visit(n->a.get(), true);
        visit(n->b.get(), !short_circuit);
        return;
      }
      case TypeIndex::kNot:
        return visit(static_cast<const tir::NotNode*>(e)->a.get(), true);
      case TypeIndex::kSelect: {
        const auto* n = static_cast<const tir::SelectNode*>(e);
        bool both = !lazy(n);
        visit(n->cond.get(), true);
        visit(n->true_value.get(), both);
        return visit(n->false_value.get(), both);
      }
      case TypeIndex::kCast:
        return visit(static_cast<const tir::CastNode*>(e)->value.get(), true);
      case TypeIndex::kIntrinsic:
        for (const PrimExpr& a : static_cast<const tir::IntrinsicNode*>(e)->args) visit(a.get(), true);
        return;
      default:
        return;  // leaves; a load's indices are index expressions, not looked into
    }
  };
  std::unordered_map<const tir::PrimExprNode*, int> uses;
  std::unordered_set<const tir::PrimExprNode*> always, visited;
  std::vector<const tir::PrimExprNode*> order;  // post-order
  // Iterative DFS: an expression may be deeper than the native stack likes.
  struct Frame {
    const tir::PrimExprNode* e;
    bool expanded;
  };
  // A node is expanded (its uses counted) once, when first popped, and output after its
  // operands: a true post-order, even where a shared operand was pushed by one user before
  // another user that also reads it was expanded.
  std::vector<Frame> stack{{root.get(), false}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    if (f.expanded) {
      order.push_back(f.e);
      continue;
    }
    if (!visited.insert(f.e).second) continue;
    stack.push_back({f.e, true});
    operands(f.e, [&](const tir::PrimExprNode* c, bool) {
      ++uses[c];
      if (!visited.count(c)) stack.push_back({c, false});
    });
  }
  // Reverse post-order puts every user before its operands: one pass marks what is
  // evaluated whatever the data.
  always.insert(root.get());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!always.count(*it)) continue;
    operands(*it, [&](const tir::PrimExprNode* c, bool unconditional) {
      if (unconditional) always.insert(c);
    });
  }
  std::vector<const tir::PrimExprNode*> out;
  for (const tir::PrimExprNode* e : order) {
    auto t = e->type_index();
    if (t == TypeIndex::kIntImm || t == TypeIndex::kFloatImm || t == TypeIndex::kTirVar) continue;
    if (uses[e] >= 2 && always.count(e)) out.push_back(e);
  }
  return out;
}

}  // namespace tessera::native::detail
