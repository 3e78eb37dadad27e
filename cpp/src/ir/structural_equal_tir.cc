// Structural equality of tensor IR: scalar expressions, statements and PrimFuncs, with
// loop variables, block iteration variables and buffers matched by binding position.
#include <cstring>

#include "structural_internal.h"

namespace tessera::structural {

namespace {

const char* IterKindName(tir::IterKind kind) {
  return kind == tir::IterKind::kSpatial ? "spatial" : "reduce";
}

const char* StmtKindName(const tir::Stmt& s) {
  switch (s->type_index()) {
    case TypeIndex::kFor:
      return "for";
    case TypeIndex::kBlock:
      return "block";
    case TypeIndex::kBufferStore:
      return "store";
    case TypeIndex::kAllocate:
      return "allocate";
    case TypeIndex::kSeqStmt:
      return "sequence";
    case TypeIndex::kPrefetch:
      return "prefetch";
    default:
      return "if";
  }
}

std::string BufferDiff(const tir::BufferNode* a, const tir::BufferNode* b) {
  if (a->shape != b->shape)
    return "buffer " + a->name + " vs " + b->name + ": shape " + ShapeToString(a->shape) + " vs " +
           ShapeToString(b->shape);
  if (a->dtype != b->dtype)
    return "buffer " + a->name + " vs " + b->name + ": dtype " + DTypeName(a->dtype) + " vs " +
           DTypeName(b->dtype);
  return "";
}

/// Restores the statement context of reports when a nested comparison returns.
class StmtScope {
 public:
  StmtScope(tir::Stmt& slot_a, tir::Stmt& slot_b, const tir::Stmt& a, const tir::Stmt& b)
      : slot_a_(slot_a), slot_b_(slot_b), saved_a_(slot_a), saved_b_(slot_b) {
    slot_a_ = a;
    slot_b_ = b;
  }
  ~StmtScope() {
    slot_a_ = saved_a_;
    slot_b_ = saved_b_;
  }

 private:
  tir::Stmt &slot_a_, &slot_b_;
  tir::Stmt saved_a_, saved_b_;
};

}  // namespace

bool EqualChecker::FailTir(const std::string& reason) {
  return Fail(reason, stmt_lhs_ ? RenderStmt(stmt_lhs_) : "",
              stmt_rhs_ ? RenderStmt(stmt_rhs_) : "");
}

bool EqualChecker::BindTirVar(const tir::VarNode* a, const tir::VarNode* b) {
  if (a->dtype != b->dtype)
    return FailTir("variable " + a->name + " vs " + b->name + ": dtype " + DTypeName(a->dtype) +
                   " vs " + DTypeName(b->dtype));
  Bind(a, b);
  return true;
}

bool EqualChecker::UseTirVar(const tir::VarNode* a, const tir::VarNode* b) {
  auto it = lhs_to_rhs_.find(a);
  auto rit = rhs_to_lhs_.find(b);
  if (it != lhs_to_rhs_.end() || rit != rhs_to_lhs_.end())
    return it != lhs_to_rhs_.end() && it->second == b && rit != rhs_to_lhs_.end() &&
           rit->second == a;
  if (!map_free_vars_ && a != b) return false;
  if (a->dtype != b->dtype) return false;
  return Match(a, b);
}

bool EqualChecker::BindBuffer(const tir::Buffer& a, const tir::Buffer& b, const char* what) {
  std::string diff = BufferDiff(a.get(), b.get());
  if (!diff.empty()) return FailTir(std::string(what) + " " + diff);
  Bind(a.get(), b.get());
  return true;
}

bool EqualChecker::UseBuffer(const tir::Buffer& a, const tir::Buffer& b, const char* what) {
  auto it = lhs_to_rhs_.find(a.get());
  auto rit = rhs_to_lhs_.find(b.get());
  if (it != lhs_to_rhs_.end() || rit != rhs_to_lhs_.end()) {
    if (it != lhs_to_rhs_.end() && it->second == b.get() && rit != rhs_to_lhs_.end() &&
        rit->second == a.get())
      return true;
    return FailTir(std::string(what) + " buffer " + a->name + " vs " + b->name +
                   ": they correspond to different buffers elsewhere");
  }
  if (!map_free_vars_ && a.get() != b.get())
    return FailTir(std::string(what) + " free buffer " + a->name + " vs " + b->name +
                   " (different buffers; free buffers are not mapped)");
  return BindBuffer(a, b, what);  // a free buffer is matched at its first use
}

bool EqualChecker::AccessEq(const tir::Buffer& xb, const std::vector<tir::PrimExpr>& xi,
                            const tir::Buffer& yb, const std::vector<tir::PrimExpr>& yi,
                            const char* buffer_what, const char* what) {
  if (!UseBuffer(xb, yb, buffer_what)) return false;
  if (xi.size() != yi.size())
    return FailTir(std::string(what) + " rank " + std::to_string(xi.size()) + " vs " +
                   std::to_string(yi.size()));
  for (size_t i = 0; i < xi.size(); ++i)
    if (!EqualPrim(xi[i], yi[i], (std::string(what) + " index " + std::to_string(i)).c_str()))
      return false;
  return true;
}

bool EqualChecker::PrimEq(const tir::PrimExpr& a, const tir::PrimExpr& b) {
  using namespace tir;
  if (!a || !b) return !a && !b;
  if (a->type_index() != b->type_index() || a->dtype != b->dtype) return false;
  if (auto* x = a.as<IntImmNode>()) return x->value == b.as<IntImmNode>()->value;
  if (auto* x = a.as<FloatImmNode>()) {
    // Bitwise, as the hash sees it (so -0.0 and 0.0 differ, a NaN equals itself).
    double y = b.as<FloatImmNode>()->value;
    return std::memcmp(&x->value, &y, sizeof(double)) == 0;
  }
  if (auto* x = a.as<tir::VarNode>()) return UseTirVar(x, b.as<tir::VarNode>());
  // What a node holds besides its operands, then the operands in order.
  if (auto* x = a.as<BinaryNode>(); x && x->op != b.as<BinaryNode>()->op) return false;
  if (auto* x = a.as<BufferLoadNode>();
      x && !UseBuffer(x->buffer, b.as<BufferLoadNode>()->buffer, "loaded"))
    return false;
  if (auto* x = a.as<IntrinsicNode>(); x && x->name != b.as<IntrinsicNode>()->name) return false;
  std::vector<PrimExpr> p = PrimExprChildren(a), q = PrimExprChildren(b);
  if (p.size() != q.size()) return false;
  for (size_t i = 0; i < p.size(); ++i)
    if (!PrimEq(p[i], q[i])) return false;
  return true;
}

bool EqualChecker::EqualPrim(const tir::PrimExpr& a, const tir::PrimExpr& b, const char* what) {
  if (PrimEq(a, b)) return true;
  std::string reason = std::string(what) + ": " + RenderPrim(a) + " vs " + RenderPrim(b);
  if (stmt_lhs_) return FailTir(reason);
  return Fail(reason, RenderPrim(a), RenderPrim(b));
}

bool EqualChecker::RangeEq(const tir::Range& a, const tir::Range& b, const std::string& what) {
  return EqualPrim(a.min, b.min, (what + " min").c_str()) &&
         EqualPrim(a.extent, b.extent, (what + " extent").c_str());
}

bool EqualChecker::RegionsEq(const std::vector<tir::BufferRegion>& a,
                             const std::vector<tir::BufferRegion>& b, const std::string& what) {
  if (a.size() != b.size())
    return FailTir(what + " count " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    std::string item = what + " " + std::to_string(i);
    if (!UseBuffer(a[i].buffer, b[i].buffer, item.c_str())) return false;
    if (a[i].region.size() != b[i].region.size())
      return FailTir(item + " rank " + std::to_string(a[i].region.size()) + " vs " +
                     std::to_string(b[i].region.size()));
    for (size_t d = 0; d < a[i].region.size(); ++d)
      if (!RangeEq(a[i].region[d], b[i].region[d], item + " dimension " + std::to_string(d)))
        return false;
  }
  return true;
}

bool EqualChecker::BlockEq(const tir::BlockNode* a, const tir::BlockNode* b) {
  std::string where = "block '" + a->name + "'";
  if (a->name != b->name) return FailTir("block name '" + a->name + "' vs '" + b->name + "'");
  if (a->iter_vars.size() != b->iter_vars.size())
    return FailTir(where + " iteration variable count " + std::to_string(a->iter_vars.size()) +
                   " vs " + std::to_string(b->iter_vars.size()));
  // Domains and bindings are in the enclosing scope: compare them before binding.
  for (size_t i = 0; i < a->iter_vars.size(); ++i) {
    const tir::IterVar& x = a->iter_vars[i];
    const tir::IterVar& y = b->iter_vars[i];
    std::string iv = where + " iteration variable " + std::to_string(i);
    if (x.kind != y.kind)
      return FailTir(iv + " kind " + IterKindName(x.kind) + " vs " + IterKindName(y.kind));
    if (!RangeEq(x.dom, y.dom, iv + " domain")) return false;
    if (!EqualPrim(x.binding, y.binding, (iv + " binding").c_str())) return false;
  }
  for (size_t i = 0; i < a->iter_vars.size(); ++i)
    if (!BindTirVar(a->iter_vars[i].var.get(), b->iter_vars[i].var.get())) return false;
  if (!RegionsEq(a->reads, b->reads, where + " read")) return false;
  if (!RegionsEq(a->writes, b->writes, where + " write")) return false;
  if (!a->init != !b->init)
    return FailTir(where + " init present only in " + (a->init ? "lhs" : "rhs"));
  if (a->init && !EqualStmt(a->init, b->init)) return false;
  return EqualStmt(a->body, b->body);
}

bool EqualChecker::EqualStmt(const tir::Stmt& a, const tir::Stmt& b) {
  using namespace tir;
  if (!a || !b) {
    if (!a && !b) return true;
    return FailTir(std::string("statement present only in ") + (a ? "lhs" : "rhs"));
  }
  StmtScope scope(stmt_lhs_, stmt_rhs_, a, b);
  if (a->type_index() != b->type_index())
    return FailTir(std::string("statement kind ") + StmtKindName(a) + " vs " + StmtKindName(b));
  if (auto* x = a.as<ForNode>()) {
    auto* y = b.as<ForNode>();
    if (x->kind != y->kind)
      return FailTir(std::string("loop kind ") + ForKindName(x->kind) + " vs " +
                     ForKindName(y->kind));
    return EqualPrim(x->min, y->min, "loop min") &&
           EqualPrim(x->extent, y->extent, "loop extent") &&
           BindTirVar(x->loop_var.get(), y->loop_var.get()) && EqualStmt(x->body, y->body);
  }
  if (auto* x = a.as<BlockNode>()) return BlockEq(x, b.as<BlockNode>());
  if (auto* x = a.as<BufferStoreNode>()) {
    auto* y = b.as<BufferStoreNode>();
    return AccessEq(x->buffer, x->indices, y->buffer, y->indices, "stored", "store") &&
           EqualPrim(x->value, y->value, "stored value");
  }
  if (auto* x = a.as<PrefetchNode>()) {
    auto* y = b.as<PrefetchNode>();
    return AccessEq(x->buffer, x->indices, y->buffer, y->indices, "prefetched", "prefetch");
  }
  if (auto* x = a.as<AllocateNode>()) {
    auto* y = b.as<AllocateNode>();
    if (x->zero_fill != y->zero_fill)
      return FailTir(std::string("allocation zero-filled only in ") +
                     (x->zero_fill ? "lhs" : "rhs"));
    return BindBuffer(x->buffer, y->buffer, "allocated") && EqualStmt(x->body, y->body);
  }
  if (auto* x = a.as<SeqStmtNode>()) {
    auto* y = b.as<SeqStmtNode>();
    if (x->seq.size() != y->seq.size())
      return FailTir("statement sequence length " + std::to_string(x->seq.size()) + " vs " +
                     std::to_string(y->seq.size()));
    for (size_t i = 0; i < x->seq.size(); ++i)
      if (!EqualStmt(x->seq[i], y->seq[i])) return false;
    return true;
  }
  auto* x = a.as<IfThenElseNode>();
  auto* y = b.as<IfThenElseNode>();
  if (!x->else_case != !y->else_case)
    return FailTir(std::string("else branch present only in ") + (x->else_case ? "lhs" : "rhs"));
  return EqualPrim(x->cond, y->cond, "if condition") && EqualStmt(x->then_case, y->then_case) &&
         EqualStmt(x->else_case, y->else_case);
}

bool EqualChecker::EqualPrimFunc(const tir::PrimFuncNode* a, const tir::PrimFuncNode* b) {
  auto fail = [&](const std::string& reason) {
    return Fail(reason, RenderExpr(Expr(a)), RenderExpr(Expr(b)));
  };
  if (a->params.size() != b->params.size())
    return fail("primfunc parameter count " + std::to_string(a->params.size()) + " vs " +
                std::to_string(b->params.size()));
  if (a->num_outputs != b->num_outputs)
    return fail("primfunc output count " + std::to_string(a->num_outputs) + " vs " +
                std::to_string(b->num_outputs));
  for (size_t i = 0; i < a->params.size(); ++i) {
    std::string diff = BufferDiff(a->params[i].get(), b->params[i].get());
    if (!diff.empty()) return fail("primfunc parameter " + std::to_string(i) + ": " + diff);
    if (!BindBuffer(a->params[i], b->params[i], "primfunc parameter")) return false;
  }
  if (!(a->attrs == b->attrs)) return fail("primfunc " + DescribeAttrsDiff(a->attrs, b->attrs));
  return EqualStmt(a->body, b->body);
}

}  // namespace tessera::structural
