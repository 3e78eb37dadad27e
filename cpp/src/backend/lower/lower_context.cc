// LowerContext (statements and scratch buffers of the PrimFunc being built), the compute
// registry and the scalar helpers the compute rules share.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "compute_rules.h"
#include "lower_util.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

// ---- expression walks ------------------------------------------------------------

void ForEachLoad(const PrimExpr& expr, const std::function<void(const BufferLoadNode*)>& fn) {
  VisitPrimExpr(expr, [&](const PrimExprNode* e) {
    if (IsInstance<BufferLoadNode>(e)) fn(static_cast<const BufferLoadNode*>(e));
    return true;
  });
}

PrimExpr And(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kAnd, a, b);
}

PrimExpr InRange(const PrimExpr& v, int64_t n) {
  return And(MakeBinary(BinaryOp::kGE, v, IntImm(0)), MakeBinary(BinaryOp::kLT, v, IntImm(n)));
}

PrimExpr Div(const PrimExpr& a, int64_t b) {
  return b == 1 ? a : MakeBinary(BinaryOp::kDiv, a, IntImm(b));
}

PrimExpr Mod(const PrimExpr& a, int64_t b) {
  return b == 1 ? IntImm(0) : Simplify(a - Div(a, b) * IntImm(b));
}

PrimExpr Clamp(const PrimExpr& v, int64_t n) {
  return MakeBinary(BinaryOp::kMin, MakeBinary(BinaryOp::kMax, v, IntImm(0)), IntImm(n - 1));
}

std::unordered_set<const BufferNode*> ReadBuffers(const Stmt& stmt) {
  std::unordered_set<const BufferNode*> read;
  auto expr = [&](const PrimExpr& e) {
    if (e.defined())
      ForEachLoad(e, [&](const BufferLoadNode* load) { read.insert(load->buffer.get()); });
  };
  std::vector<Stmt> stack{stmt};
  while (!stack.empty()) {
    Stmt s = stack.back();
    stack.pop_back();
    if (!s.defined()) continue;
    if (auto* f = s.as<ForNode>()) {
      expr(f->min);
      expr(f->extent);
      stack.push_back(f->body);
    } else if (auto* b = s.as<BlockNode>()) {
      for (const IterVar& iv : b->iter_vars) expr(iv.binding);
      for (const BufferRegion& r : b->reads) read.insert(r.buffer.get());
      stack.push_back(b->init);
      stack.push_back(b->body);
    } else if (auto* st = s.as<BufferStoreNode>()) {
      expr(st->value);
      for (const PrimExpr& i : st->indices) expr(i);
    } else if (auto* pf = s.as<tir::PrefetchNode>()) {
      read.insert(pf->buffer.get());
      for (const PrimExpr& i : pf->indices) expr(i);
    } else if (auto* a = s.as<AllocateNode>()) {
      stack.push_back(a->body);
    } else if (auto* q = s.as<SeqStmtNode>()) {
      for (const Stmt& c : q->seq) stack.push_back(c);
    } else if (auto* c = s.as<IfThenElseNode>()) {
      expr(c->cond);
      stack.push_back(c->then_case);
      stack.push_back(c->else_case);
    }
  }
  return read;
}

size_t ExprSize(const PrimExpr& expr, size_t limit) {
  size_t count = 0;
  VisitPrimExpr(expr, [&](const PrimExprNode*) { return ++count <= limit; });
  return count;
}

BufferRegion PointRegion(const Buffer& buffer, const Indices& indices) {
  BufferRegion r{buffer, {}};
  for (const PrimExpr& i : indices) r.region.push_back({i, IntImm(1)});
  return r;
}

std::vector<BufferRegion> ReadRegions(const std::vector<PrimExpr>& exprs, const BufferNode* skip) {
  std::vector<BufferRegion> regions;
  std::vector<const BufferLoadNode*> seen;
  for (const PrimExpr& e : exprs) {
    if (!e.defined()) continue;
    ForEachLoad(e, [&](const BufferLoadNode* load) {
      if (load->buffer.get() == skip) return;
      for (const BufferLoadNode* s : seen) {
        if (s->buffer.get() != load->buffer.get()) continue;
        bool same = true;
        for (size_t d = 0; same && d < s->indices.size(); ++d)
          same = StructuralEqual(s->indices[d], load->indices[d]);
        if (same) return;
      }
      seen.push_back(load);
      regions.push_back(PointRegion(load->buffer, load->indices));
    });
  }
  return regions;
}

Indices AsIndices(const std::vector<tir::Var>& vars) {
  return Indices(vars.begin(), vars.end());
}

Stmt WrapLoops(const std::vector<tir::Var>& loop_vars, const std::vector<int64_t>& extents,
               Stmt body) {
  for (size_t d = loop_vars.size(); d-- > 0;)
    body = MakeFor(loop_vars[d], IntImm(0), IntImm(extents[d]), ForKind::kSerial, body);
  return body;
}

// ---- helpers -----------------------------------------------------------------------

TensorExpr FromBuffer(const Buffer& buffer) {
  return {buffer->shape, buffer->dtype, [buffer](const Indices& i) { return MakeLoad(buffer, i); }};
}

TensorExpr Broadcast(PrimExpr value, std::vector<int64_t> shape) {
  DType dt = value->dtype;
  return {std::move(shape), dt, [value](const Indices&) { return value; }};
}

PrimExpr Const(double value, DType dtype) {
  if (IsFloat(dtype)) return FloatImm(value, dtype);
  if (dtype == DType::kBool) return IntImm(value != 0 ? 1 : 0, DType::kBool);
  return IntImm(static_cast<int64_t>(value), dtype);
}

std::vector<tir::Var> MakeVars(const std::string& prefix, size_t n) {
  std::vector<tir::Var> vars;
  for (size_t i = 0; i < n; ++i) vars.push_back(tir::MakeVar(prefix + std::to_string(i)));
  return vars;
}

Indices BroadcastIndices(const std::vector<int64_t>& shape, const Indices& out) {
  size_t off = out.size() - shape.size();
  Indices idx;
  for (size_t d = 0; d < shape.size(); ++d) idx.push_back(shape[d] == 1 ? IntImm(0) : out[d + off]);
  return idx;
}

PrimExpr NanMax(const PrimExpr& a, const PrimExpr& b) {
  if (!IsFloat(a->dtype)) return MakeBinary(BinaryOp::kMax, a, b);
  return MakeSelect(
      MakeBinary(BinaryOp::kNE, a, a), a,
      MakeSelect(MakeBinary(BinaryOp::kNE, b, b), b, MakeBinary(BinaryOp::kMax, a, b)));
}

PrimExpr NanMin(const PrimExpr& a, const PrimExpr& b) {
  if (!IsFloat(a->dtype)) return MakeBinary(BinaryOp::kMin, a, b);
  return MakeSelect(
      MakeBinary(BinaryOp::kNE, a, a), a,
      MakeSelect(MakeBinary(BinaryOp::kNE, b, b), b, MakeBinary(BinaryOp::kMin, a, b)));
}

// ---- LowerContext ------------------------------------------------------------------

struct LowerContext::Pending {
  ReduceSpec spec;
  std::string name;
  Buffer stand_in;
  // While null, the stand-in tensor loads the stand-in buffer (so fusion checks can
  // find its accesses); while an epilogue is emitted it yields finalize(dest[i]).
  Buffer dest;
  bool done = false;  // emitted: the stand-in tensor must not be read any more
};

LowerContext::LowerContext() = default;
LowerContext::~LowerContext() = default;

std::string LowerContext::FreshName(const std::string& base) {
  std::string name = base;
  for (int k = 1; std::find(names_.begin(), names_.end(), name) != names_.end(); ++k)
    name = base + "_" + std::to_string(k);
  names_.push_back(name);
  return name;
}

std::string LowerContext::FreshBlockName(const std::string& base) {
  std::string name = base;
  for (int k = 1; std::find(block_names_.begin(), block_names_.end(), name) != block_names_.end();
       ++k)
    name = base + "_" + std::to_string(k);
  block_names_.push_back(name);
  return name;
}

Buffer LowerContext::AllocScratch(const std::string& name, std::vector<int64_t> shape,
                                  DType dtype, bool zero_fill) {
  Buffer b = MakeBuffer(FreshName(name), std::move(shape), dtype);
  scratch_.emplace_back(b, zero_fill);
  return b;
}

Buffer LowerContext::AddConstant(const std::string& name, NDArray data) {
  Buffer b = MakeBuffer(FreshName(name), data.shape(), data.dtype());
  constants_.emplace_back(b, std::move(data));
  return b;
}

std::vector<std::pair<Buffer, NDArray>> LowerContext::TakeConstants() {
  return std::exchange(constants_, {});
}

void LowerContext::Emit(Stmt stmt) {
  stmts_.push_back(std::move(stmt));
}

void LowerContext::StoreInto(const TensorExpr& value, const Buffer& buffer,
                             const std::string& name) {
  TS_ICHECK(value.shape == buffer->shape) << "StoreInto: shape mismatch for " << name;
  size_t rank = buffer->shape.size();
  std::vector<tir::Var> loops = MakeVars("i", rank), iters = MakeVars("v", rank);
  Indices vi = AsIndices(iters);
  PrimExpr v = value.at(vi);
  if (v->dtype != buffer->dtype) v = MakeCast(buffer->dtype, v);
  std::vector<IterVar> ivs;
  for (size_t d = 0; d < rank; ++d)
    ivs.push_back({iters[d], {IntImm(0), IntImm(buffer->shape[d])}, IterKind::kSpatial, loops[d]});
  Stmt block = MakeBlock(FreshBlockName(name), ivs, ReadRegions({v}), {PointRegion(buffer, vi)},
                         nullptr, MakeStore(buffer, v, vi));
  Emit(WrapLoops(loops, buffer->shape, block));
}

TensorExpr LowerContext::Materialize(const TensorExpr& value, const std::string& name) {
  // StoreInto writes every element: no zero fill (a softmax's 64 KiB of exponentials were
  // cleared on every call).
  Buffer b = AllocScratch(name, value.shape, value.dtype, false);
  StoreInto(value, b, name);
  return FromBuffer(b);
}

namespace {

/// The reduction nest for `spec` writing `dest`; with `epilogue`, a second block in the
/// same spatial loops rewrites each element once its reduction is complete.
Stmt ReductionNest(LowerContext& ctx, const ReduceSpec& spec, const std::string& name,
                   const Buffer& dest, const std::function<PrimExpr(const Indices&)>& epilogue,
                   const BufferNode* stand_in) {
  if (spec.emit_nest && !spec.finalize) return spec.emit_nest(ctx, dest, epilogue);
  size_t rank = spec.shape.size(), nred = spec.reduce_extents.size();
  std::vector<tir::Var> loops = MakeVars("i", rank), iters = MakeVars("v", rank);
  std::vector<tir::Var> rloops = MakeVars("k", nred), riters = MakeVars("r", nred);
  Indices vi = AsIndices(iters), vr = AsIndices(riters);
  PrimExpr acc = MakeLoad(dest, vi);
  PrimExpr upd = spec.update(acc, vi, vr);
  PrimExpr pred = spec.predicate ? spec.predicate(vi, vr) : PrimExpr();
  Stmt body = MakeStore(dest, upd, vi);
  if (pred.defined()) body = MakeIfThenElse(pred, body);
  bool empty_domain = false;
  std::vector<IterVar> ivs;
  for (size_t d = 0; d < rank; ++d)
    ivs.push_back({iters[d], {IntImm(0), IntImm(spec.shape[d])}, IterKind::kSpatial, loops[d]});
  for (size_t d = 0; d < nred; ++d) {
    empty_domain = empty_domain || spec.reduce_extents[d] == 0;
    ivs.push_back(
        {riters[d], {IntImm(0), IntImm(spec.reduce_extents[d])}, IterKind::kReduce, rloops[d]});
  }
  std::vector<PrimExpr> read_exprs{upd};
  if (pred.defined()) read_exprs.push_back(pred);
  std::vector<BufferRegion> reads = ReadRegions(read_exprs);
  std::vector<Stmt> seq;
  Stmt init = MakeStore(dest, spec.init, vi);
  if (empty_domain) {
    // The reduce block never runs, so the identity is stored by a block of its own.
    std::vector<IterVar> sivs(ivs.begin(), ivs.begin() + rank);
    seq.push_back(MakeBlock(ctx.FreshBlockName(name + "_init"), sivs, {}, {PointRegion(dest, vi)},
                            nullptr, init));
  } else {
    Stmt block =
        MakeBlock(ctx.FreshBlockName(name), ivs, reads, {PointRegion(dest, vi)}, init, body);
    seq.push_back(WrapLoops(rloops, spec.reduce_extents, block));
  }
  if (epilogue) {
    std::vector<tir::Var> eiters = MakeVars("v", rank);
    Indices ei = AsIndices(eiters);
    std::vector<IterVar> eivs;
    for (size_t d = 0; d < rank; ++d)
      eivs.push_back({eiters[d], {IntImm(0), IntImm(spec.shape[d])}, IterKind::kSpatial, loops[d]});
    PrimExpr v = epilogue(ei);
    if (v->dtype != dest->dtype) v = MakeCast(dest->dtype, v);
    std::vector<BufferRegion> ereads = ReadRegions({v}, stand_in);
    seq.push_back(MakeBlock(ctx.FreshBlockName(name + "_epilogue"), eivs, ereads,
                            {PointRegion(dest, ei)}, nullptr, MakeStore(dest, v, ei)));
  }
  return WrapLoops(loops, spec.shape, MakeSeq(seq));
}

}  // namespace

TensorExpr LowerContext::ReduceNow(const ReduceSpec& spec, const std::string& name) {
  // Every element gets its identity (the init) before the reduction reads it.
  Buffer b = AllocScratch(name, spec.shape, spec.dtype, false);
  std::function<PrimExpr(const Indices&)> epi;
  if (spec.finalize) epi = [&](const Indices& i) { return spec.finalize(MakeLoad(b, i), i); };
  Emit(ReductionNest(*this, spec, name, b, epi, nullptr));
  return FromBuffer(b);
}

TensorExpr LowerContext::Reduce(ReduceSpec spec, const std::string& name) {
  auto p = std::make_shared<Pending>();
  p->name = name;
  p->stand_in = MakeBuffer(name + "_stand_in", spec.shape, spec.dtype);
  p->spec = std::move(spec);
  pending_.push_back(p);
  std::weak_ptr<Pending> weak = p;
  TensorExpr t;
  t.shape = p->spec.shape;
  t.dtype = p->spec.dtype;
  t.at = [weak](const Indices& i) -> PrimExpr {
    auto self = weak.lock();
    TS_ICHECK(self && !self->done) << "pending reduction read after it was emitted";
    if (!self->dest.defined()) return MakeLoad(self->stand_in, i);
    PrimExpr acc = MakeLoad(self->dest, i);
    return self->spec.finalize ? self->spec.finalize(acc, i) : acc;
  };
  return t;
}

std::vector<std::shared_ptr<LowerContext::Pending>> LowerContext::TakePending() {
  std::vector<std::shared_ptr<Pending>> out;
  out.swap(pending_);
  return out;
}

Buffer LowerContext::StandInOf(const std::shared_ptr<Pending>& p) {
  return p->stand_in;
}

void LowerContext::EmitPending(const std::shared_ptr<Pending>& p, const TensorExpr& epilogue,
                               const Buffer& dest) {
  TS_ICHECK(dest->dtype == p->spec.dtype) << "reduction " << p->name << ": accumulator dtype";
  p->dest = dest;
  // Without finalize and with the stand-in itself as the epilogue, no second block.
  PrimExpr probe = epilogue.at(Indices(p->spec.shape.size(), IntImm(0)));
  bool trivial = !p->spec.finalize && probe->type_index() == TypeIndex::kBufferLoad &&
                 static_cast<const BufferLoadNode*>(probe.get())->buffer.same_as(dest);
  std::function<PrimExpr(const Indices&)> epi;
  if (!trivial) epi = epilogue.at;
  Emit(ReductionNest(*this, p->spec, p->name, dest, epi, p->stand_in.get()));
  p->done = true;
}

Stmt LowerContext::Finish() {
  Stmt body = MakeSeq(stmts_);
  if (!body.defined() || stmts_.empty()) body = MakeSeq({});
  for (size_t i = scratch_.size(); i-- > 0;)
    body = MakeAllocate(scratch_[i].first, body, scratch_[i].second);
  return body;
}

// ---- ComputeRegistry ---------------------------------------------------------------

ComputeRegistry& ComputeRegistry::Global() {
  static ComputeRegistry* registry = [] {
    auto* r = new ComputeRegistry();
    RegisterElemwiseRules(*r);
    RegisterTransformRules(*r);
    RegisterReduceRules(*r);
    RegisterNNRules(*r);
    RegisterNNConvRules(*r);
    RegisterNNPoolRules(*r);
    return r;
  }();
  return *registry;
}

void ComputeRegistry::Register(const std::string& op_name, ComputeRule rule) {
  TS_ICHECK(!Find(op_name)) << "compute rule for '" << op_name << "' registered twice";
  rules_.emplace_back(op_name, std::move(rule));
}

const ComputeRule* ComputeRegistry::Find(const std::string& op_name) const {
  for (const auto& [name, rule] : rules_)
    if (name == op_name) return &rule;
  return nullptr;
}

std::vector<std::string> ComputeRegistry::ListOps() const {
  std::vector<std::string> names;
  for (const auto& entry : rules_) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tessera::lower
