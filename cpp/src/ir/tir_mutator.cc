// StmtExprMutator: bottom-up rewriting of TIR that rebuilds only changed nodes, and
// variable substitution.
#include "tessera/ir/tir_mutator.h"

namespace tessera::tir {

PrimExpr StmtExprMutator::VisitExpr(const PrimExpr& expr) {
  if (!expr.defined()) return expr;
  if (const auto* v = expr.as<VarNode>()) return VisitVar(Var(v));
  if (const auto* load = expr.as<BufferLoadNode>()) return VisitLoad(load);
  std::vector<PrimExpr> children = PrimExprChildren(expr);
  if (children.empty()) return expr;
  bool changed = false;
  for (PrimExpr& c : children) {
    PrimExpr next = VisitExpr(c);
    changed = changed || !next.same_as(c);
    c = std::move(next);
  }
  return changed ? WithChildren(expr, children) : expr;
}

std::vector<PrimExpr> StmtExprMutator::VisitIndices(const std::vector<PrimExpr>& indices,
                                                    bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(indices.size());
  for (const PrimExpr& i : indices) {
    out.push_back(VisitExpr(i));
    *changed = *changed || !out.back().same_as(i);
  }
  return out;
}

PrimExpr StmtExprMutator::VisitLoad(const BufferLoadNode* load) {
  bool changed = false;
  std::vector<PrimExpr> indices = VisitIndices(load->indices, &changed);
  return changed ? MakeLoad(load->buffer, std::move(indices)) : PrimExpr(load);
}

Stmt StmtExprMutator::VisitStmt(const Stmt& stmt) {
  if (!stmt.defined()) return stmt;
  switch (stmt->type_index()) {
    case TypeIndex::kFor:
      return VisitFor(static_cast<const ForNode*>(stmt.get()));
    case TypeIndex::kBlock:
      return VisitBlock(static_cast<const BlockNode*>(stmt.get()));
    case TypeIndex::kBufferStore:
      return VisitStore(static_cast<const BufferStoreNode*>(stmt.get()));
    case TypeIndex::kAllocate:
      return VisitAllocate(static_cast<const AllocateNode*>(stmt.get()));
    case TypeIndex::kSeqStmt:
      return VisitSeq(static_cast<const SeqStmtNode*>(stmt.get()));
    case TypeIndex::kIfThenElse:
      return VisitIfThenElse(static_cast<const IfThenElseNode*>(stmt.get()));
    case TypeIndex::kPrefetch:
      return VisitPrefetch(static_cast<const PrefetchNode*>(stmt.get()));
    default:
      return stmt;
  }
}

Stmt StmtExprMutator::VisitStore(const BufferStoreNode* store) {
  bool changed = false;
  PrimExpr value = VisitExpr(store->value);
  changed = !value.same_as(store->value);
  std::vector<PrimExpr> indices = VisitIndices(store->indices, &changed);
  return changed ? MakeStore(store->buffer, std::move(value), std::move(indices)) : Stmt(store);
}

Stmt StmtExprMutator::VisitPrefetch(const PrefetchNode* prefetch) {
  bool changed = false;
  std::vector<PrimExpr> indices = VisitIndices(prefetch->indices, &changed);
  return changed ? MakePrefetch(prefetch->buffer, std::move(indices)) : Stmt(prefetch);
}

Stmt StmtExprMutator::VisitFor(const ForNode* loop) {
  PrimExpr min = VisitExpr(loop->min), extent = VisitExpr(loop->extent);
  Stmt body = VisitStmt(loop->body);
  if (min.same_as(loop->min) && extent.same_as(loop->extent) && body.same_as(loop->body))
    return Stmt(loop);
  return MakeFor(loop->loop_var, std::move(min), std::move(extent), loop->kind, std::move(body));
}

BufferRegion StmtExprMutator::VisitRegion(const BufferRegion& region) {
  BufferRegion out{region.buffer, {}};
  for (const Range& r : region.region)
    out.region.push_back({VisitExpr(r.min), VisitExpr(r.extent)});
  return out;
}

namespace {

bool SameRegions(const std::vector<BufferRegion>& a, const std::vector<BufferRegion>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].buffer.same_as(b[i].buffer) || a[i].region.size() != b[i].region.size()) return false;
    for (size_t d = 0; d < a[i].region.size(); ++d)
      if (!a[i].region[d].min.same_as(b[i].region[d].min) ||
          !a[i].region[d].extent.same_as(b[i].region[d].extent))
        return false;
  }
  return true;
}

}  // namespace

Stmt StmtExprMutator::VisitBlock(const BlockNode* block) {
  bool changed = false;
  std::vector<IterVar> iters = block->iter_vars;
  for (IterVar& iv : iters) {
    IterVar next{
        iv.var, {VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)}, iv.kind, VisitExpr(iv.binding)};
    changed = changed || !next.dom.min.same_as(iv.dom.min) ||
              !next.dom.extent.same_as(iv.dom.extent) || !next.binding.same_as(iv.binding);
    iv = std::move(next);
  }
  std::vector<BufferRegion> reads, writes;
  for (const BufferRegion& r : block->reads) reads.push_back(VisitRegion(r));
  for (const BufferRegion& w : block->writes) writes.push_back(VisitRegion(w));
  changed = changed || !SameRegions(reads, block->reads) || !SameRegions(writes, block->writes);
  Stmt init = VisitStmt(block->init), body = VisitStmt(block->body);
  changed = changed || !init.same_as(block->init) || !body.same_as(block->body);
  if (!changed) return Stmt(block);
  return MakeBlock(block->name, std::move(iters), std::move(reads), std::move(writes),
                   std::move(init), std::move(body));
}

Stmt StmtExprMutator::VisitAllocate(const AllocateNode* alloc) {
  Stmt body = VisitStmt(alloc->body);
  return body.same_as(alloc->body) ? Stmt(alloc)
                                   : MakeAllocate(alloc->buffer, std::move(body), alloc->zero_fill);
}

Stmt StmtExprMutator::VisitSeq(const SeqStmtNode* seq) {
  bool changed = false;
  std::vector<Stmt> items;
  for (const Stmt& s : seq->seq) {
    items.push_back(VisitStmt(s));
    changed = changed || !items.back().same_as(s);
  }
  return changed ? MakeSeq(std::move(items)) : Stmt(seq);
}

Stmt StmtExprMutator::VisitIfThenElse(const IfThenElseNode* branch) {
  PrimExpr cond = VisitExpr(branch->cond);
  Stmt then_case = VisitStmt(branch->then_case), else_case = VisitStmt(branch->else_case);
  if (cond.same_as(branch->cond) && then_case.same_as(branch->then_case) &&
      else_case.same_as(branch->else_case))
    return Stmt(branch);
  return MakeIfThenElse(std::move(cond), std::move(then_case), std::move(else_case));
}

namespace {

class Substituter : public StmtExprMutator {
 public:
  explicit Substituter(const VarSubstitution& subst) : subst_(subst) {}

 protected:
  PrimExpr VisitVar(const Var& var) override {
    auto it = subst_.find(var.get());
    return it == subst_.end() ? PrimExpr(var) : it->second;
  }

 private:
  const VarSubstitution& subst_;
};

class BufferSubstituter : public StmtExprMutator {
 public:
  explicit BufferSubstituter(const BufferSubstitution& subst) : subst_(subst) {}

  BufferRegion VisitRegion(const BufferRegion& region) override {
    BufferRegion out = StmtExprMutator::VisitRegion(region);
    out.buffer = Replace(region.buffer);
    return out;
  }

 protected:
  PrimExpr VisitLoad(const BufferLoadNode* load) override {
    bool changed = false;
    std::vector<PrimExpr> indices = VisitIndices(load->indices, &changed);
    Buffer b = Replace(load->buffer);
    if (!changed && b.same_as(load->buffer)) return PrimExpr(load);
    return MakeLoad(b, std::move(indices));
  }
  Stmt VisitStore(const BufferStoreNode* store) override {
    PrimExpr value = VisitExpr(store->value);
    bool changed = !value.same_as(store->value);
    std::vector<PrimExpr> indices = VisitIndices(store->indices, &changed);
    Buffer b = Replace(store->buffer);
    if (!changed && b.same_as(store->buffer)) return Stmt(store);
    return MakeStore(b, std::move(value), std::move(indices));
  }
  Stmt VisitPrefetch(const PrefetchNode* prefetch) override {
    bool changed = false;
    std::vector<PrimExpr> indices = VisitIndices(prefetch->indices, &changed);
    Buffer b = Replace(prefetch->buffer);
    if (!changed && b.same_as(prefetch->buffer)) return Stmt(prefetch);
    return MakePrefetch(b, std::move(indices));
  }
  Stmt VisitAllocate(const AllocateNode* alloc) override {
    Stmt body = VisitStmt(alloc->body);
    Buffer b = Replace(alloc->buffer);
    if (body.same_as(alloc->body) && b.same_as(alloc->buffer)) return Stmt(alloc);
    return MakeAllocate(b, std::move(body), alloc->zero_fill);
  }

 private:
  Buffer Replace(const Buffer& b) const {
    auto it = subst_.find(b.get());
    return it == subst_.end() ? b : it->second;
  }

  const BufferSubstitution& subst_;
};

}  // namespace

Stmt SubstituteBuffers(const Stmt& stmt, const BufferSubstitution& subst) {
  if (subst.empty()) return stmt;
  return BufferSubstituter(subst).VisitStmt(stmt);
}

PrimExpr SubstituteVars(const PrimExpr& expr, const VarSubstitution& subst) {
  if (subst.empty()) return expr;
  return Substituter(subst).VisitExpr(expr);
}

Stmt SubstituteVars(const Stmt& stmt, const VarSubstitution& subst) {
  if (subst.empty()) return stmt;
  return Substituter(subst).VisitStmt(stmt);
}

}  // namespace tessera::tir
