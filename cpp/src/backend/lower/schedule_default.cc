// ScheduleDefault: loop annotations and the loop transformations it needs (hoisting
// reduction inits, fusing the two outermost loops, splitting the innermost by 8) on the
// nests LowerPrimitive emits.
#include "tessera/backend/lower/schedule_default.h"

#include <functional>
#include <unordered_map>

#include "lower_util.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"

namespace tessera::lower {

using namespace tir;

namespace {

// Iterations below which a default-scheduled nest is not marked parallel at all; the native
// code generator then also runs marked loops (templates' too) serially below the target's
// -min_parallel_work element stores, a threshold measured per machine.
constexpr int64_t kMinParallelWork = 1024;
constexpr int64_t kMinParallelExtent = 8;   // shorter outer loops get fused with the next

/// Iterations of one vectorized loop: one SIMD register of float32 lanes on this CPU (a
/// narrower split leaves the C emitter only its scalar tail, e.g. scalar expf on AVX-512).
int64_t VectorWidth() {
  return HostSimdBytes() / 4;
}

using VarMap = std::unordered_map<const tir::VarNode*, PrimExpr>;

PrimExpr SubstExpr(const PrimExpr& e, const VarMap& map) {
  if (!e.defined()) return e;
  if (auto* var = e.as<tir::VarNode>()) {
    auto it = map.find(var);
    return it == map.end() ? e : it->second;
  }
  std::vector<PrimExpr> children = PrimExprChildren(e);
  for (PrimExpr& c : children) c = SubstExpr(c, map);
  return WithChildren(e, children);
}

/// Substitutes loop variables in loop bounds, block bindings, conditions and stores
/// outside blocks (block bodies use the block's own iteration variables).
Stmt SubstStmt(const Stmt& s, const VarMap& map) {
  if (!s.defined()) return s;
  switch (s->type_index()) {
    case TypeIndex::kFor: {
      auto* n = static_cast<const ForNode*>(s.get());
      return MakeFor(n->loop_var, SubstExpr(n->min, map), SubstExpr(n->extent, map), n->kind,
                     SubstStmt(n->body, map));
    }
    case TypeIndex::kBlock: {
      auto* n = static_cast<const BlockNode*>(s.get());
      std::vector<IterVar> ivs = n->iter_vars;
      for (IterVar& iv : ivs) iv.binding = Simplify(SubstExpr(iv.binding, map));
      return MakeBlock(n->name, ivs, n->reads, n->writes, n->init, n->body);
    }
    case TypeIndex::kSeqStmt: {
      std::vector<Stmt> seq;
      for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->seq)
        seq.push_back(SubstStmt(c, map));
      return MakeSeq(seq);
    }
    case TypeIndex::kIfThenElse: {
      auto* n = static_cast<const IfThenElseNode*>(s.get());
      return MakeIfThenElse(SubstExpr(n->cond, map), SubstStmt(n->then_case, map),
                            SubstStmt(n->else_case, map));
    }
    case TypeIndex::kAllocate: {
      auto* n = static_cast<const AllocateNode*>(s.get());
      return MakeAllocate(n->buffer, SubstStmt(n->body, map), n->zero_fill);
    }
    case TypeIndex::kBufferStore: {
      // Templates (the conv padding copy) store with loop variables directly.
      auto* n = static_cast<const BufferStoreNode*>(s.get());
      std::vector<PrimExpr> idx;
      for (const PrimExpr& i : n->indices) idx.push_back(Simplify(SubstExpr(i, map)));
      return MakeStore(n->buffer, SubstExpr(n->value, map), idx);
    }
    case TypeIndex::kPrefetch: {
      auto* n = static_cast<const tir::PrefetchNode*>(s.get());
      std::vector<PrimExpr> idx;
      for (const PrimExpr& i : n->indices) idx.push_back(Simplify(SubstExpr(i, map)));
      return tir::MakePrefetch(n->buffer, idx);
    }
    default:
      return s;
  }
}

bool Mentions(const PrimExpr& e, const tir::VarNode* v) {
  // A variable mentioned anywhere changes the result of substituting it.
  VarMap probe;
  probe[v] = tir::MakeVar("probe");
  return !StructuralEqual(SubstExpr(e, probe), e);
}

/// True when no block under `s` binds a reduce iteration variable to `v`.
bool OnlySpatial(const Stmt& s, const tir::VarNode* v) {
  bool ok = true;
  std::vector<const StmtNode*> stack{s.get()};
  while (!stack.empty() && ok) {
    const StmtNode* n = stack.back();
    stack.pop_back();
    if (!n) continue;
    if (auto* f = (IsInstance<ForNode>(n) ? static_cast<const ForNode*>(n) : nullptr)) {
      stack.push_back(f->body.get());
    } else if (auto* b = (IsInstance<BlockNode>(n) ? static_cast<const BlockNode*>(n) : nullptr)) {
      for (const IterVar& iv : b->iter_vars)
        if (iv.kind == IterKind::kReduce && Mentions(iv.binding, v)) ok = false;
    } else if (auto* q =
                   (IsInstance<SeqStmtNode>(n) ? static_cast<const SeqStmtNode*>(n) : nullptr)) {
      for (const Stmt& c : q->seq) stack.push_back(c.get());
    } else if (auto* i = (IsInstance<IfThenElseNode>(n) ? static_cast<const IfThenElseNode*>(n)
                                                        : nullptr)) {
      stack.push_back(i->then_case.get());
      stack.push_back(i->else_case.get());
    } else if (auto* a =
                   (IsInstance<AllocateNode>(n) ? static_cast<const AllocateNode*>(n) : nullptr)) {
      stack.push_back(a->body.get());
    }
  }
  return ok;
}

int64_t ConstExtent(const ForNode* f) {
  auto* imm = f->extent.as<IntImmNode>();
  return imm ? imm->value : -1;
}

/// Iterations of the loop nest `s` along its first path.
int64_t Work(const Stmt& s) {
  int64_t work = 1;
  const StmtNode* n = s.get();
  while (auto* f = (IsInstance<ForNode>(n) ? static_cast<const ForNode*>(n) : nullptr)) {
    work *= std::max<int64_t>(ConstExtent(f), 1);
    n = f->body.get();
    if (auto* q = (IsInstance<SeqStmtNode>(n) ? static_cast<const SeqStmtNode*>(n) : nullptr)) {
      // A hoisted init or an epilogue sits beside the loop that does the work: follow
      // the heaviest member (nests are a few loops deep, so recursion stays shallow).
      int64_t most = 1;
      for (const Stmt& c : q->seq) most = std::max(most, Work(c));
      return work * most;
    }
  }
  return work;
}

/// Vectorizes the innermost loop of an elementwise nest: a loop whose body is one block
/// with only spatial iteration variables whose last write index is bound to the loop.
Stmt Vectorize(const Stmt& s) {
  if (auto* q = s.as<SeqStmtNode>()) {
    // An interchanged outer-axis reduction: the init nest and the reduction chain.
    std::vector<Stmt> seq;
    for (const Stmt& c : q->seq) seq.push_back(Vectorize(c));
    return MakeSeq(seq);
  }
  auto* f = s.as<ForNode>();
  if (!f) return s;
  if (f->body->type_index() == TypeIndex::kFor || f->body->type_index() == TypeIndex::kSeqStmt) {
    if (f->body->type_index() == TypeIndex::kSeqStmt && f->kind != ForKind::kSerial) return s;
    Stmt inner = Vectorize(f->body);
    return inner.same_as(f->body) ? s : MakeFor(f->loop_var, f->min, f->extent, f->kind, inner);
  }
  auto* b = f->body.as<BlockNode>();
  if (!b || b->init.defined() || b->writes.size() != 1 || !b->body.as<BufferStoreNode>()) return s;
  // Reduce variables are fine when this loop does not drive them (an interchanged
  // outer-axis reduction: each iteration updates its own accumulator).
  for (const IterVar& iv : b->iter_vars)
    if (iv.kind != IterKind::kSpatial && Mentions(iv.binding, f->loop_var.get())) return s;
  const auto& region = b->writes[0].region;
  if (region.empty()) return s;
  const IterVar* last = nullptr;
  for (const IterVar& iv : b->iter_vars)
    if (region.back().min.same_as(iv.var)) last = &iv;
  if (!last || !last->binding.same_as(f->loop_var)) return s;
  int64_t extent = ConstExtent(f);
  if (extent <= 1) return s;
  const int64_t width = VectorWidth();
  if (extent <= width)
    return MakeFor(f->loop_var, f->min, f->extent, ForKind::kVectorized, f->body);
  tir::Var outer = tir::MakeVar(f->loop_var->name + "_o"),
           inner = tir::MakeVar(f->loop_var->name + "_v");
  int64_t main = extent / width * width;
  VarMap m;
  m[f->loop_var.get()] = Simplify(outer * width + inner + f->min);
  Stmt vec = MakeFor(
      outer, IntImm(0), IntImm(extent / width), ForKind::kSerial,
      MakeFor(inner, IntImm(0), IntImm(width), ForKind::kVectorized, SubstStmt(f->body, m)));
  if (main == extent) return vec;
  tir::Var tail = tir::MakeVar(f->loop_var->name + "_t");
  VarMap tm;
  tm[f->loop_var.get()] = Simplify(tail + f->min);
  return MakeSeq({vec, MakeFor(tail, IntImm(main), IntImm(extent - main), ForKind::kSerial,
                               SubstStmt(f->body, tm))});
}

/// Whether `e` is the constant 0.
bool StartsAtZeroExpr(const PrimExpr& e) {
  auto* imm = e.as<IntImmNode>();
  return imm && imm->value == 0;
}

/// Whether loop `f` starts at 0.
bool StartsAtZero(const ForNode* f) {
  auto* imm = f->min.as<IntImmNode>();
  return imm && imm->value == 0;
}

/// Parallelizes the outermost loop of a top-level nest, first fusing it with the loops
/// below it while it is too short to feed the threads.
Stmt Parallelize(const Stmt& s) {
  auto* f = s.as<ForNode>();
  if (!f || f->kind != ForKind::kSerial || Work(s) < kMinParallelWork) return s;
  if (!OnlySpatial(s, f->loop_var.get())) return s;
  Stmt nest = s;
  while (true) {
    auto* outer = nest.as<ForNode>();
    auto* inner = outer->body.as<ForNode>();
    int64_t e0 = ConstExtent(outer);
    if (e0 < 0 || e0 >= kMinParallelExtent || !inner || inner->kind != ForKind::kSerial ||
        ConstExtent(inner) <= 0 || !StartsAtZero(outer) || !StartsAtZero(inner) ||
        !OnlySpatial(outer->body, inner->loop_var.get()))
      break;
    int64_t e1 = ConstExtent(inner);
    tir::Var fused = tir::MakeVar(outer->loop_var->name + "_" + inner->loop_var->name + "_f");
    VarMap m;
    m[outer->loop_var.get()] = FloorDiv(fused, IntImm(e1));
    m[inner->loop_var.get()] = FloorMod(fused, IntImm(e1));
    nest = MakeFor(fused, IntImm(0), IntImm(e0 * e1), ForKind::kSerial, SubstStmt(inner->body, m));
  }
  auto* top = nest.as<ForNode>();
  if (ConstExtent(top) < 2) return s;
  return MakeFor(top->loop_var, top->min, top->extent, ForKind::kParallel, top->body);
}

/// A block's init, rebuilt over fresh spatial iteration variables: only stores whose
/// values and indices mention no reduce variable qualify (else null).
Stmt InitOverFreshVars(const Stmt& init, const VarMap& fresh) {
  std::vector<Stmt> stores;
  if (auto* q = init.as<SeqStmtNode>())
    stores = q->seq;
  else
    stores = {init};
  std::vector<Stmt> out;
  for (const Stmt& st : stores) {
    auto* store = st.as<BufferStoreNode>();
    if (!store) return Stmt();
    std::vector<PrimExpr> idx;
    for (const PrimExpr& i : store->indices) idx.push_back(SubstExpr(i, fresh));
    out.push_back(MakeStore(store->buffer, SubstExpr(store->value, fresh), idx));
  }
  return MakeSeq(out);
}

/// TVM's decompose_reduction for one loop chain: when `s` is a chain of loops that only
/// bind reduce iteration variables and ends in a block with an init, the init becomes a
/// block of its own before the chain. Returns null when `s` is not such a chain. Without
/// the conditional init inside the innermost loop, the C compiler keeps the accumulator
/// in a register instead of loading and storing it every step.
Stmt HoistInit(const Stmt& s) {
  std::vector<const ForNode*> chain;
  const StmtNode* n = s.get();
  while (auto* f = (IsInstance<ForNode>(n) ? static_cast<const ForNode*>(n) : nullptr)) {
    chain.push_back(f);
    n = f->body.get();
  }
  auto* b = (n && IsInstance<BlockNode>(n)) ? static_cast<const BlockNode*>(n) : nullptr;
  if (chain.empty() || !b || !b->init.defined() || b->writes.size() != 1) return Stmt();
  VarMap fresh;
  std::vector<IterVar> spatial;
  for (const IterVar& iv : b->iter_vars) {
    bool uses_chain = false;
    for (const ForNode* f : chain)
      uses_chain = uses_chain || Mentions(iv.binding, f->loop_var.get());
    if (iv.kind == IterKind::kReduce) {
      // The reduce domain must start where its loops start: then "all reduce variables at
      // their minimum" is exactly "before the chain".
      if (!uses_chain) return Stmt();
      continue;
    }
    if (uses_chain) return Stmt();
    IterVar copy = iv;
    copy.var = tir::MakeVar(iv.var->name + "_i", iv.var->dtype);
    fresh[iv.var.get()] = copy.var;
    spatial.push_back(copy);
  }
  for (const ForNode* f : chain)
    if (!StartsAtZeroExpr(f->min)) return Stmt();
  for (const IterVar& iv : b->iter_vars)
    if (iv.kind == IterKind::kReduce) {
      auto* min = iv.dom.min.as<IntImmNode>();
      if (!min || min->value != 0 || !iv.binding.as<tir::VarNode>()) return Stmt();
    }
  Stmt init = InitOverFreshVars(b->init, fresh);
  if (!init.defined()) return Stmt();
  BufferRegion write = b->writes[0];
  for (Range& r : write.region) {
    r.min = SubstExpr(r.min, fresh);
    r.extent = SubstExpr(r.extent, fresh);
  }
  Stmt init_block = MakeBlock(b->name + "_init", spatial, {}, {write}, nullptr, init);
  Stmt body = MakeBlock(b->name, b->iter_vars, b->reads, b->writes, nullptr, b->body);
  for (size_t i = chain.size(); i-- > 0;)
    body = MakeFor(chain[i]->loop_var, chain[i]->min, chain[i]->extent, chain[i]->kind, body);
  return MakeSeq({init_block, body});
}

/// Applies HoistInit wherever a reduction chain sits in `s`.
Stmt DecomposeReductions(const Stmt& s) {
  if (!s.defined()) return s;
  if (Stmt hoisted = HoistInit(s); hoisted.defined()) return hoisted;
  if (auto* f = s.as<ForNode>()) {
    Stmt body = DecomposeReductions(f->body);
    return body.same_as(f->body) ? s : MakeFor(f->loop_var, f->min, f->extent, f->kind, body);
  }
  if (auto* q = s.as<SeqStmtNode>()) {
    std::vector<Stmt> seq;
    for (const Stmt& c : q->seq) seq.push_back(DecomposeReductions(c));
    return MakeSeq(seq);
  }
  if (auto* a = s.as<AllocateNode>())
    return MakeAllocate(a->buffer, DecomposeReductions(a->body), a->zero_fill);
  if (auto* i = s.as<IfThenElseNode>())
    return MakeIfThenElse(i->cond, DecomposeReductions(i->then_case),
                          i->else_case.defined() ? DecomposeReductions(i->else_case) : Stmt());
  return s;
}

/// Reduction over an outer axis: `for s { init; for r.. { acc[.., s] op= x[.., r, .., s] } }`
/// where `s` is the innermost output axis and no input is contiguous in a reduce
/// variable becomes `for s { init }; for r.. { for s { ... } }`, so the loop over `s`
/// vectorizes (one vector accumulator per lane group, loaded and stored in L1) instead of
/// striding through memory one reduction at a time. Returns null when `s` does not match.
Stmt InterchangeOuterReduction(const Stmt& s) {
  auto* f = s.as<ForNode>();
  if (!f || f->kind != ForKind::kSerial || ConstExtent(f) <= 1) return Stmt();
  auto* q = f->body.as<SeqStmtNode>();
  if (!q || q->seq.size() != 2 || !q->seq[0].as<BlockNode>()) return Stmt();
  std::vector<const ForNode*> chain;
  const StmtNode* n = q->seq[1].get();
  while (auto* r = (IsInstance<ForNode>(n) ? static_cast<const ForNode*>(n) : nullptr)) {
    if (r->kind != ForKind::kSerial || Mentions(r->min, f->loop_var.get()) ||
        Mentions(r->extent, f->loop_var.get()))
      return Stmt();
    chain.push_back(r);
    n = r->body.get();
  }
  auto* b = (n && IsInstance<BlockNode>(n)) ? static_cast<const BlockNode*>(n) : nullptr;
  if (chain.empty() || !b || b->init.defined() || b->writes.size() != 1) return Stmt();
  auto* store = b->body.as<BufferStoreNode>();
  if (!store || store->indices.empty()) return Stmt();
  // The output's innermost index is a spatial variable bound to exactly this loop.
  const IterVar* last = nullptr;
  std::vector<const tir::VarNode*> reduce;
  for (const IterVar& iv : b->iter_vars) {
    if (store->indices.back().same_as(iv.var)) last = &iv;
    if (iv.kind == IterKind::kReduce) reduce.push_back(iv.var.get());
  }
  if (!last || last->kind != IterKind::kSpatial || !last->binding.same_as(f->loop_var) ||
      reduce.empty())
    return Stmt();
  bool inner_contiguous = false;
  ForEachLoad(store->value, [&](const BufferLoadNode* ld) {
    if (ld->indices.empty() || ld->buffer.same_as(store->buffer)) return;
    for (const tir::VarNode* r : reduce)
      inner_contiguous = inner_contiguous || Mentions(ld->indices.back(), r);
  });
  if (inner_contiguous) return Stmt();  // the reduction itself runs along memory
  tir::Var inner = tir::MakeVar(f->loop_var->name + "_r", f->loop_var->dtype);
  VarMap m;
  m[f->loop_var.get()] = inner;
  Stmt body = MakeFor(inner, f->min, f->extent, ForKind::kSerial, SubstStmt(chain.back()->body, m));
  for (size_t i = chain.size(); i-- > 0;)
    body = MakeFor(chain[i]->loop_var, chain[i]->min, chain[i]->extent, chain[i]->kind, body);
  return MakeSeq({MakeFor(f->loop_var, f->min, f->extent, ForKind::kSerial, q->seq[0]), body});
}

/// Applies InterchangeOuterReduction to the innermost loops of the nest `s`.
Stmt InterchangeReductions(const Stmt& s) {
  if (Stmt done = InterchangeOuterReduction(s); done.defined()) return done;
  if (auto* f = s.as<ForNode>()) {
    Stmt body = InterchangeReductions(f->body);
    return body.same_as(f->body) ? s : MakeFor(f->loop_var, f->min, f->extent, f->kind, body);
  }
  return s;
}

Stmt ScheduleTop(const Stmt& s) {
  if (auto* a = s.as<AllocateNode>())
    return MakeAllocate(a->buffer, ScheduleTop(a->body), a->zero_fill);
  if (auto* q = s.as<SeqStmtNode>()) {
    std::vector<Stmt> seq;
    for (const Stmt& c : q->seq) seq.push_back(ScheduleTop(c));
    return MakeSeq(seq);
  }
  if (!s.as<ForNode>()) return s;
  Stmt v = Vectorize(InterchangeReductions(DecomposeReductions(s)));
  if (auto* q = v.as<SeqStmtNode>()) {
    std::vector<Stmt> seq;
    for (const Stmt& c : q->seq) seq.push_back(Parallelize(c));
    return MakeSeq(seq);
  }
  return Parallelize(v);
}

}  // namespace

PrimFunc ScheduleDefault(const PrimFunc& func) {
  if (!func.defined()) TS_THROW(kValue) << "ScheduleDefault: null PrimFunc";
  if (!func->body.defined()) return func;
  return MakePrimFunc(func->params, func->num_outputs, ScheduleTop(func->body), func->attrs);
}

}  // namespace tessera::lower
