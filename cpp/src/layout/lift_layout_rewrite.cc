// LiftLayoutRewrites: detection of a PrimFunc's layout-rewrite prologue (pure copies of
// inputs into scratch buffers in another layout) and its split into PrimFuncs of its own.
#include "tessera/layout/lift_layout_rewrite.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "tessera/ir/tir_mutator.h"
#include "tessera/support/error.h"

namespace tessera::layout {

namespace {

using tir::Buffer;
using tir::Stmt;

/// A layout-rewrite nest: `dst[map(v)] = params[param][v]` over the whole source.
struct Copy {
  size_t param;
  Buffer src, dst;
  IndexMap map;
  Stmt nest;
};

/// `stmt` as a layout-rewrite nest into one of `allocated`, or nullopt.
std::optional<Copy> AsCopy(const Stmt& stmt, const tir::PrimFunc& func,
                           const std::unordered_set<const tir::BufferNode*>& allocated) {
  std::unordered_map<const tir::VarNode*, const tir::ForNode*> loops;
  Stmt cur = stmt;
  while (const auto* f = cur.as<tir::ForNode>()) {
    loops[f->loop_var.get()] = f;
    cur = f->body;
  }
  const auto* block = cur.as<tir::BlockNode>();
  const size_t n = block ? block->iter_vars.size() : 0;
  if (!block || block->init.defined() || n == 0 || loops.size() != n) return std::nullopt;
  const auto* store = block->body.as<tir::BufferStoreNode>();
  const auto* load = store ? store->value.as<tir::BufferLoadNode>() : nullptr;
  if (!load || load->indices.size() != n || !allocated.count(store->buffer.get()))
    return std::nullopt;
  // The source is an input, read whole and in order, each index its own loop.
  size_t num_inputs = func->params.size() - static_cast<size_t>(func->num_outputs);
  size_t param = num_inputs;
  for (size_t p = 0; p < num_inputs; ++p)
    if (func->params[p].same_as(load->buffer)) param = p;
  if (param == num_inputs || load->buffer->dtype != store->buffer->dtype) return std::nullopt;
  std::vector<tir::Var> vars;
  tir::VarSubstitution to_vars;
  for (size_t i = 0; i < n; ++i) {
    const tir::IterVar& iv = block->iter_vars[i];
    const auto* bound = iv.binding.as<tir::VarNode>();
    auto it = bound ? loops.find(bound) : loops.end();
    if (iv.kind != tir::IterKind::kSpatial || it == loops.end() || !it->second ||
        !load->indices[i].same_as(iv.var))
      return std::nullopt;
    const tir::ForNode* f = it->second;
    it->second = nullptr;
    const auto* dmin = iv.dom.min.as<tir::IntImmNode>();
    const auto* dext = iv.dom.extent.as<tir::IntImmNode>();
    const auto* lmin = f->min.as<tir::IntImmNode>();
    const auto* lext = f->extent.as<tir::IntImmNode>();
    if (!dmin || !dext || !lmin || !lext || dmin->value != 0 || lmin->value != 0 ||
        dext->value != lext->value || dext->value != load->buffer->shape[i])
      return std::nullopt;
    vars.push_back(tir::MakeVar("i" + std::to_string(i)));
    to_vars[iv.var.get()] = vars.back();
  }
  std::vector<tir::PrimExpr> outputs;
  for (const tir::PrimExpr& e : store->indices) outputs.push_back(tir::SubstituteVars(e, to_vars));
  try {
    IndexMap map(vars, outputs);
    const std::vector<int64_t>& shape = load->buffer->shape;
    if (!map.IsInjective(shape) || map.MapShape(shape) != store->buffer->shape) return std::nullopt;
    return Copy{param, load->buffer, store->buffer, map, stmt};
  } catch (const Error&) {
    return std::nullopt;  // not an affine copy: an ordinary statement
  }
}

/// Observes how a statement uses one buffer.
class BufferUses : public tir::StmtExprMutator {
 public:
  explicit BufferUses(const tir::BufferNode* buffer) : buffer_(buffer) {}
  bool used = false;
  bool written = false;

  tir::BufferRegion VisitRegion(const tir::BufferRegion& region) override {
    used = used || region.buffer.get() == buffer_;
    return StmtExprMutator::VisitRegion(region);
  }

 protected:
  tir::PrimExpr VisitLoad(const tir::BufferLoadNode* load) override {
    used = used || load->buffer.get() == buffer_;
    return StmtExprMutator::VisitLoad(load);
  }
  Stmt VisitStore(const tir::BufferStoreNode* store) override {
    if (store->buffer.get() == buffer_) used = written = true;
    return StmtExprMutator::VisitStore(store);
  }
  Stmt VisitPrefetch(const tir::PrefetchNode* prefetch) override {
    used = used || prefetch->buffer.get() == buffer_;
    return StmtExprMutator::VisitPrefetch(prefetch);
  }
  Stmt VisitAllocate(const tir::AllocateNode* alloc) override {
    used = used || alloc->buffer.get() == buffer_;
    return StmtExprMutator::VisitAllocate(alloc);
  }

 private:
  const tir::BufferNode* buffer_;
};

/// How the statements of `stmts` other than `skip` use `buffer`.
BufferUses UsesOutside(const std::vector<Stmt>& stmts, const Stmt& skip,
                       const tir::BufferNode* buffer) {
  BufferUses uses(buffer);
  for (const Stmt& s : stmts)
    if (!s.same_as(skip)) uses.VisitStmt(s);
  return uses;
}

/// The copy alone as `(source) -> (rewritten)` over fresh buffers.
tir::PrimFunc RewriteFunc(const Copy& copy) {
  Buffer src = tir::MakeBuffer(copy.src->name, copy.src->shape, copy.src->dtype);
  Buffer dst = tir::MakeBuffer(copy.dst->name, copy.dst->shape, copy.dst->dtype);
  Stmt body = tir::SubstituteBuffers(copy.nest, {{copy.src.get(), src}, {copy.dst.get(), dst}});
  return tir::MakePrimFunc({src, dst}, 1, body);
}

}  // namespace

LiftedLayoutRewrites LiftLayoutRewrites(const tir::PrimFunc& func) {
  if (!func.defined()) TS_THROW(kValue) << "LiftLayoutRewrites: the PrimFunc is null";
  LiftedLayoutRewrites out{func, {}};
  std::vector<const tir::AllocateNode*> allocs;
  std::unordered_set<const tir::BufferNode*> allocated;
  Stmt inner = func->body;
  while (const auto* a = inner.as<tir::AllocateNode>()) {
    allocs.push_back(a);
    allocated.insert(a->buffer.get());
    inner = a->body;
  }
  if (allocs.empty() || !inner.defined()) return out;
  std::vector<Stmt> items;
  if (const auto* seq = inner.as<tir::SeqStmtNode>())
    items = seq->seq;
  else
    items = {inner};
  // The leading copies, each of its own source into its own destination.
  std::vector<Copy> copies;
  std::unordered_set<size_t> params;
  std::unordered_set<const tir::BufferNode*> dsts;
  size_t k = 0;
  for (; k < items.size(); ++k) {
    auto copy = AsCopy(items[k], func, allocated);
    if (!copy || !params.insert(copy->param).second || !dsts.insert(copy->dst.get()).second) break;
    copies.push_back(*copy);
  }
  if (k == items.size()) return out;  // nothing but copies: nothing to hoist them out of
  std::vector<Stmt> rest;
  std::vector<Copy> lifted;
  for (const Copy& c : copies) {
    bool src_alone = !UsesOutside(items, c.nest, c.src.get()).used;
    bool dst_read_only = !UsesOutside(items, c.nest, c.dst.get()).written;
    if (src_alone && dst_read_only)
      lifted.push_back(c);
    else
      rest.push_back(c.nest);
  }
  if (lifted.empty()) return out;
  rest.insert(rest.end(), items.begin() + static_cast<std::ptrdiff_t>(k), items.end());
  std::vector<Buffer> new_params = func->params;
  std::unordered_set<const tir::BufferNode*> hoisted;
  for (const Copy& c : lifted) {
    new_params[c.param] = c.dst;
    hoisted.insert(c.dst.get());
    out.rewrites.push_back({static_cast<int>(c.param), RewriteFunc(c), c.map});
  }
  Stmt body = tir::MakeSeq(rest);
  for (size_t i = allocs.size(); i-- > 0;)
    if (!hoisted.count(allocs[i]->buffer.get()))
      body = tir::MakeAllocate(allocs[i]->buffer, body, allocs[i]->zero_fill);
  Attrs attrs = func->attrs;
  attrs.Erase(attr::kConcatAxis);  // its params changed: the promise was about the old ones
  out.func = tir::MakePrimFunc(new_params, func->num_outputs, body, attrs);
  return out;
}

}  // namespace tessera::layout
