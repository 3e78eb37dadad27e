// TransformBlockLayout: one block's iteration space remapped by a bijective index map,
// its loop nest rebuilt over the new domain.
#include "tessera/layout/transform_block_layout.h"

#include <unordered_map>

#include "tessera/ir/tir_mutator.h"
#include "tessera/support/error.h"
#include "tir_util.h"

namespace tessera::layout {

namespace {

using tir::BlockNode;
using tir::ForNode;
using tir::PrimExpr;
using tir::Stmt;

/// Every block under `stmt`, in program order.
void CollectBlocks(const Stmt& stmt, std::vector<const BlockNode*>& out) {
  if (!stmt) return;
  if (const auto* f = stmt.as<ForNode>()) return CollectBlocks(f->body, out);
  if (const auto* a = stmt.as<tir::AllocateNode>()) return CollectBlocks(a->body, out);
  if (const auto* s = stmt.as<tir::SeqStmtNode>()) {
    for (const Stmt& item : s->seq) CollectBlocks(item, out);
    return;
  }
  if (const auto* i = stmt.as<tir::IfThenElseNode>()) {
    CollectBlocks(i->then_case, out);
    return CollectBlocks(i->else_case, out);
  }
  if (const auto* b = stmt.as<BlockNode>()) {
    out.push_back(b);
    CollectBlocks(b->init, out);
    CollectBlocks(b->body, out);
  }
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

/// Substitutes variables, simplifying indices and region minimums on the new domain.
class IndexSubstituter : public tir::StmtExprMutator {
 public:
  IndexSubstituter(const tir::VarSubstitution& subst, const std::vector<tir::Var>& vars,
                   const std::vector<int64_t>& extents)
      : subst_(subst), vars_(vars), extents_(extents) {}

  /// An index with the substitution applied, simplified on the new domain.
  PrimExpr Index(const PrimExpr& e) {
    return detail::SimplifyIndexOn(VisitExpr(e), vars_, extents_);
  }
  /// A region with its minimums rewritten as indices (extents do not change).
  tir::BufferRegion VisitRegion(const tir::BufferRegion& region) override {
    tir::BufferRegion out{region.buffer, {}};
    for (const tir::Range& r : region.region) out.region.push_back({Index(r.min), r.extent});
    return out;
  }

 protected:
  PrimExpr VisitVar(const tir::Var& var) override {
    auto it = subst_.find(var.get());
    return it == subst_.end() ? PrimExpr(var) : it->second;
  }
  PrimExpr VisitLoad(const tir::BufferLoadNode* load) override {
    std::vector<PrimExpr> indices;
    for (const PrimExpr& i : load->indices) indices.push_back(Index(i));
    return tir::MakeLoad(load->buffer, indices);
  }
  Stmt VisitStore(const tir::BufferStoreNode* store) override {
    std::vector<PrimExpr> indices;
    for (const PrimExpr& i : store->indices) indices.push_back(Index(i));
    return tir::MakeStore(store->buffer, VisitExpr(store->value), indices);
  }
  Stmt VisitPrefetch(const tir::PrefetchNode* prefetch) override {
    std::vector<PrimExpr> indices;
    for (const PrimExpr& i : prefetch->indices) indices.push_back(Index(i));
    return tir::MakePrefetch(prefetch->buffer, indices);
  }

 private:
  const tir::VarSubstitution& subst_;
  const std::vector<tir::Var>& vars_;
  const std::vector<int64_t>& extents_;
};

/// Rebuilds the loop nest of one block over its remapped domain.
class BlockRelayout : public tir::StmtExprMutator {
 public:
  BlockRelayout(const BlockNode* target, const IndexMap& map) : target_(target), map_(map) {}

 protected:
  Stmt VisitFor(const ForNode* loop) override {
    std::vector<const ForNode*> chain{loop};
    Stmt inner = loop->body;
    while (const auto* f = inner.as<ForNode>()) {
      chain.push_back(f);
      inner = f->body;
    }
    if (inner.get() == target_ && chain.size() == target_->iter_vars.size()) return Rebuild(chain);
    return StmtExprMutator::VisitFor(loop);
  }

  Stmt VisitBlock(const BlockNode* block) override {
    if (block == target_)
      NotANest(target_->iter_vars.empty()
                   ? "it has no iteration variables"
                   : "fewer than " + std::to_string(target_->iter_vars.size()) +
                         " loops directly nest it with nothing else in them");
    return StmtExprMutator::VisitBlock(block);
  }

 private:
  [[noreturn]] void NotANest(const std::string& why) {
    throw Error(ErrorKind::kValue, "TransformBlockLayout: block '" + target_->name +
                                       "' is not the only statement of a perfect nest of its "
                                       "own loops: " +
                                       why);
  }

  Stmt Rebuild(const std::vector<const ForNode*>& chain);

  const BlockNode* target_;
  const IndexMap& map_;
};

Stmt BlockRelayout::Rebuild(const std::vector<const ForNode*>& chain) {
  const BlockNode* b = target_;
  const size_t n = b->iter_vars.size();
  // Each iteration variable is bound to its own loop of the chain, over the same range.
  std::unordered_map<const tir::VarNode*, const ForNode*> loops;
  for (const ForNode* f : chain) loops[f->loop_var.get()] = f;
  std::vector<int64_t> shape(n);
  std::vector<const ForNode*> loop_of(n);
  for (size_t i = 0; i < n; ++i) {
    const tir::IterVar& iv = b->iter_vars[i];
    const auto* bound = iv.binding.as<tir::VarNode>();
    auto it = bound ? loops.find(bound) : loops.end();
    if (it == loops.end() || !it->second)
      NotANest("iteration variable '" + iv.var->name +
               "' is not bound to a loop of its own around the block");
    if (iv.var->dtype != DType::kInt32)
      TS_THROW(kType) << "TransformBlockLayout: iteration variable '" << iv.var->name
                      << "' of block '" << b->name << "' is " << DTypeName(iv.var->dtype)
                      << "; index maps remap int32 iteration variables";
    const ForNode* f = it->second;
    it->second = nullptr;  // used
    const auto* dmin = iv.dom.min.as<tir::IntImmNode>();
    const auto* dext = iv.dom.extent.as<tir::IntImmNode>();
    const auto* lmin = f->min.as<tir::IntImmNode>();
    const auto* lext = f->extent.as<tir::IntImmNode>();
    if (!dmin || !dext || !lmin || !lext || dmin->value != 0 || lmin->value != 0 ||
        dext->value != lext->value)
      NotANest("iteration variable '" + iv.var->name + "' and its loop '" + f->loop_var->name +
               "' do not both run over [0, extent) with the same constant extent");
    shape[i] = dext->value;
    loop_of[i] = f;
  }
  if (map_.arity() != static_cast<int>(n))
    TS_THROW(kType) << "TransformBlockLayout: index map `" << map_.ToString() << "` takes "
                    << map_.arity() << " indices but block '" << b->name << "' has " << n
                    << " iteration variables";
  if (!map_.IsBijective(shape))
    TS_THROW(kValue) << "TransformBlockLayout: index map `" << map_.ToString()
                     << "` is not a bijection of block '" << b->name << "''s iteration space "
                     << ShapeText(shape) << " (it pads or folds indices; only bijections "
                     << "remap a block)";
  std::vector<int64_t> new_shape = map_.MapShape(shape);
  IndexMap inverse = map_.Inverse(shape);
  // Each output takes the kind of the variables it reads, which must agree.
  std::vector<tir::IterKind> kinds(new_shape.size(), tir::IterKind::kSpatial);
  for (size_t j = 0; j < new_shape.size(); ++j) {
    bool spatial = false, reduce = false;
    tir::VisitPrimExpr(map_.final_indices()[j], [&](const tir::PrimExprNode* e) {
      for (size_t i = 0; i < n; ++i)
        if (e == map_.initial_indices()[i].get())
          (b->iter_vars[i].kind == tir::IterKind::kSpatial ? spatial : reduce) = true;
      return true;
    });
    if (spatial && reduce)
      TS_THROW(kValue) << "TransformBlockLayout: output " << j << " `"
                       << IndexExprToString(map_.final_indices()[j]) << "` of index map `"
                       << map_.ToString() << "` mixes spatial and reduce variables of block '"
                       << b->name << "'";
    if (reduce) kinds[j] = tir::IterKind::kReduce;
  }
  if (b->init.defined()) {
    // The init runs where every reduce variable is 0, so the new ones must be 0 there too.
    // Bijections of boxes in IndexMap's form keep the origin (splits of 0 are 0).
    std::vector<int64_t> at = map_.MapIndices(std::vector<int64_t>(n, 0));
    for (size_t j = 0; j < at.size(); ++j)
      TS_ICHECK(kinds[j] != tir::IterKind::kReduce || at[j] == 0)
          << "index map `" << map_.ToString() << "` moves the start of block '" << b->name
          << "''s reduction";
  }
  // New loop and iteration variables; a plain permuted output keeps the old names.
  std::vector<tir::Var> new_loops, new_vars;
  for (size_t j = 0; j < new_shape.size(); ++j) {
    std::string loop_name = "ax" + std::to_string(j), var_name = "v_ax" + std::to_string(j);
    for (size_t i = 0; i < n; ++i)
      if (map_.final_indices()[j].get() == map_.initial_indices()[i].get()) {
        loop_name = loop_of[i]->loop_var->name;
        var_name = b->iter_vars[i].var->name;
      }
    new_loops.push_back(tir::MakeVar(loop_name));
    new_vars.push_back(tir::MakeVar(var_name));
  }
  tir::VarSubstitution to_new;
  for (size_t j = 0; j < new_vars.size(); ++j)
    to_new[inverse.initial_indices()[j].get()] = new_vars[j];
  tir::VarSubstitution subst;
  for (size_t i = 0; i < n; ++i) {
    PrimExpr old = detail::SimplifyIndexOn(tir::SubstituteVars(inverse.final_indices()[i], to_new),
                                           new_vars, new_shape);
    subst[b->iter_vars[i].var.get()] = old;
    subst[loop_of[i]->loop_var.get()] = old;
  }
  IndexSubstituter rewrite(subst, new_vars, new_shape);
  std::vector<tir::IterVar> iters;
  for (size_t j = 0; j < new_vars.size(); ++j)
    iters.push_back(
        {new_vars[j], {tir::IntImm(0), tir::IntImm(new_shape[j])}, kinds[j], new_loops[j]});
  std::vector<tir::BufferRegion> reads, writes;
  for (const tir::BufferRegion& r : b->reads) reads.push_back(rewrite.VisitRegion(r));
  for (const tir::BufferRegion& w : b->writes) writes.push_back(rewrite.VisitRegion(w));
  Stmt nest = tir::MakeBlock(b->name, iters, reads, writes, rewrite.VisitStmt(b->init),
                             rewrite.VisitStmt(b->body));
  for (size_t j = new_loops.size(); j-- > 0;)
    nest = tir::MakeFor(new_loops[j], tir::IntImm(0), tir::IntImm(new_shape[j]),
                        tir::ForKind::kSerial, nest);
  return nest;
}

}  // namespace

tir::PrimFunc TransformBlockLayout(const tir::PrimFunc& func, const std::string& block,
                                   const IndexMap& map) {
  if (!func.defined()) TS_THROW(kValue) << "TransformBlockLayout: the PrimFunc is null";
  std::vector<const BlockNode*> blocks;
  CollectBlocks(func->body, blocks);
  const BlockNode* target = nullptr;
  for (const BlockNode* b : blocks) {
    if (b->name != block) continue;
    if (target)
      TS_THROW(kValue) << "TransformBlockLayout: the PrimFunc has two blocks named '" << block
                       << "'";
    target = b;
  }
  if (!target) {
    std::string names;
    for (const BlockNode* b : blocks) names += (names.empty() ? "'" : ", '") + b->name + "'";
    TS_THROW(kNotFound) << "TransformBlockLayout: the PrimFunc has no block named '" << block
                        << "' (blocks: " << (names.empty() ? "none" : names) << ")";
  }
  Stmt body = BlockRelayout(target, map).VisitStmt(func->body);
  return tir::MakePrimFunc(func->params, func->num_outputs, body, func->attrs);
}

}  // namespace tessera::layout
