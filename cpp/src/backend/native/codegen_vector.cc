// SIMD emission of vectorized loops with GCC vector extensions: when every access is
// contiguous in the loop variable or loop-invariant and the arithmetic is float32 or
// float64, the loop runs a register of lanes at a time, then the rest as one masked step
// (AVX-512) or a scalar tail.
#include <string>
#include <unordered_set>

#include "codegen_internal.h"
#include "tessera/runtime/dtype.h"
#include "tessera/support/error.h"

namespace tessera::native::detail {

using tir::BinaryNode;
using tir::BinaryOp;
using tir::PrimExpr;
using tir::Stmt;

namespace {

bool IsCompare(BinaryOp op) {
  return op == BinaryOp::kEQ || op == BinaryOp::kNE || op == BinaryOp::kLT || op == BinaryOp::kLE ||
         op == BinaryOp::kGT || op == BinaryOp::kGE;
}

const char* CompareOp(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEQ:
      return " == ";
    case BinaryOp::kNE:
      return " != ";
    case BinaryOp::kLT:
      return " < ";
    case BinaryOp::kLE:
      return " <= ";
    case BinaryOp::kGT:
      return " > ";
    default:
      return " >= ";
  }
}

}  // namespace

/// Checks and emits the SIMD body of one vectorized loop.
class VectorEmitter {
 public:
  VectorEmitter(KernelEmitter* e, const tir::ForNode* loop, DType elem)
      : e_(e), elem_(elem), lin_(loop->loop_var.get()) {
    sfx_ = elem == DType::kFloat32 ? "f32" : "f64";
  }

  LinearAnalysis& lin() { return lin_; }

  bool OkStmt(const Stmt& s, int depth) {
    if (depth > kMaxDepth) return false;
    switch (s->type_index()) {
      case TypeIndex::kSeqStmt:
        for (const Stmt& c : static_cast<const tir::SeqStmtNode*>(s.get())->seq)
          if (!OkStmt(c, depth + 1)) return false;
        return true;
      case TypeIndex::kBufferStore: {
        const auto* n = static_cast<const tir::BufferStoreNode*>(s.get());
        std::optional<int64_t> c = lin_.OffsetCoef(n->buffer.get(), n->indices);
        return n->buffer->dtype == elem_ && c && *c == 1 && Ok(n->value, depth + 1);
      }
      case TypeIndex::kBlock: {
        const auto* b = static_cast<const tir::BlockNode*>(s.get());
        if (b->init.defined()) {
          for (const tir::IterVar& iv : b->iter_vars) {
            std::optional<int64_t> c = lin_.Coef(iv.binding);
            if (iv.kind == tir::IterKind::kReduce && (!c || *c != 0)) return false;
            if (iv.kind == tir::IterKind::kReduce && !lin_.Invariant(iv.dom.min)) return false;
          }
          if (!OkStmt(b->init, depth + 1)) return false;
        }
        return OkStmt(b->body, depth + 1);
      }
      case TypeIndex::kIfThenElse: {
        const auto* n = static_cast<const tir::IfThenElseNode*>(s.get());
        return lin_.Invariant(n->cond) && OkStmt(n->then_case, depth + 1) &&
               (!n->else_case.defined() || OkStmt(n->else_case, depth + 1));
      }
      default:
        return false;
    }
  }

  /// `e` (of the element dtype) can be computed a register at a time.
  bool Ok(const PrimExpr& e, int depth) {
    if (depth > kMaxDepth || e->dtype != elem_) return false;
    if (lin_.Invariant(e)) return true;
    switch (e->type_index()) {
      case TypeIndex::kBufferLoad: {
        const auto* n = static_cast<const tir::BufferLoadNode*>(e.get());
        std::optional<int64_t> c = lin_.OffsetCoef(n->buffer.get(), n->indices);
        return c && *c == 1;
      }
      case TypeIndex::kBinary: {
        const auto* n = static_cast<const BinaryNode*>(e.get());
        switch (n->op) {
          case BinaryOp::kAdd:
          case BinaryOp::kSub:
          case BinaryOp::kMul:
          case BinaryOp::kDiv:
          case BinaryOp::kMin:
          case BinaryOp::kMax:
            return Ok(n->a, depth + 1) && Ok(n->b, depth + 1);
          default:
            return false;
        }
      }
      case TypeIndex::kSelect: {
        const auto* n = static_cast<const tir::SelectNode*>(e.get());
        // With a lane-varying (data-dependent) condition both sides run for every lane;
        // their accesses are contiguous or invariant, so they stay within the loop's
        // iterations. An invariant condition picks one side as the interpreter does.
        if (!OkMask(n->cond, depth + 1)) return false;
        return Ok(n->true_value, depth + 1) && Ok(n->false_value, depth + 1);
      }
      case TypeIndex::kIntrinsic: {
        const auto* n = static_cast<const tir::IntrinsicNode*>(e.get());
        if (n->args.size() != 1) return false;
        // The prelude has float32 vector forms of these (float64 stays scalar libm).
        bool vector_math = elem_ == DType::kFloat32 && (n->name == "exp" || n->name == "sigmoid" ||
                                                        n->name == "tanh" || n->name == "erf");
        return (n->name == "abs" || vector_math) && Ok(n->args[0], depth + 1);
      }
      case TypeIndex::kCast:
        return Ok(static_cast<const tir::CastNode*>(e.get())->value, depth + 1);
      default:
        return false;
    }
  }

  bool OkMask(const PrimExpr& e, int depth) {
    if (depth > kMaxDepth || e->dtype != DType::kBool) return false;
    if (lin_.Invariant(e)) return true;
    if (const auto* n = e.as<tir::NotNode>()) return OkMask(n->a, depth + 1);
    const auto* n = e.as<BinaryNode>();
    if (!n) return false;
    if (n->op == BinaryOp::kAnd || n->op == BinaryOp::kOr)
      return OkMask(n->a, depth + 1) && OkMask(n->b, depth + 1);
    return IsCompare(n->op) && Ok(n->a, depth + 1) && Ok(n->b, depth + 1);
  }

  std::string Vec(const PrimExpr& e) {
    if (auto it = bound_.find(e.get()); it != bound_.end()) return it->second;
    KernelEmitter::DepthGuard guard(e_);
    if (lin_.Invariant(e)) return "ts_vbcast_" + sfx_ + "(" + e_->Value(e) + ")";
    switch (e->type_index()) {
      case TypeIndex::kBufferLoad: {
        const auto* n = static_cast<const tir::BufferLoadNode*>(e.get());
        std::string at = "&" + e_->Buf(n->buffer.get(), "load").name + "[" +
                         e_->Offset(n->buffer.get(), n->indices) + "]";
        if (!lanes_.empty()) return "ts_vloadm_" + sfx_ + "(" + at + ", " + lanes_ + ")";
        Prefetch(n->buffer.get(), at, false);
        return "ts_vload_" + sfx_ + "(" + at + ")";
      }
      case TypeIndex::kBinary: {
        const auto* n = static_cast<const BinaryNode*>(e.get());
        std::string a = Vec(n->a), b = Vec(n->b);
        switch (n->op) {
          case BinaryOp::kAdd:
            return "(" + a + " + " + b + ")";
          case BinaryOp::kSub:
            return "(" + a + " - " + b + ")";
          case BinaryOp::kMul:
            return "(" + a + " * " + b + ")";
          case BinaryOp::kDiv:
            return "(" + a + " / " + b + ")";
          case BinaryOp::kMin:
            return "ts_vmin_" + sfx_ + "(" + a + ", " + b + ")";
          default:
            return "ts_vmax_" + sfx_ + "(" + a + ", " + b + ")";
        }
      }
      case TypeIndex::kSelect: {
        const auto* n = static_cast<const tir::SelectNode*>(e.get());
        std::string t = Vec(n->true_value), f = Vec(n->false_value);
        if (lin_.Invariant(n->cond)) return "(" + e_->Value(n->cond) + " ? " + t + " : " + f + ")";
        return "ts_vsel_" + sfx_ + "(" + Mask(n->cond) + ", " + t + ", " + f + ")";
      }
      case TypeIndex::kIntrinsic: {
        const auto* n = static_cast<const tir::IntrinsicNode*>(e.get());
        return "ts_v" + n->name + "_" + sfx_ + "(" + Vec(n->args[0]) + ")";
      }
      default:  // a cast to the same dtype
        return Vec(static_cast<const tir::CastNode*>(e.get())->value);
    }
  }

  std::string Mask(const PrimExpr& e) {
    KernelEmitter::DepthGuard guard(e_);
    if (lin_.Invariant(e)) return "ts_vmask_" + sfx_ + "(" + e_->Value(e) + ")";
    if (const auto* n = e.as<tir::NotNode>()) return "(~" + Mask(n->a) + ")";
    const auto* n = e.as<BinaryNode>();
    if (n->op == BinaryOp::kAnd) return "(" + Mask(n->a) + " & " + Mask(n->b) + ")";
    if (n->op == BinaryOp::kOr) return "(" + Mask(n->a) + " | " + Mask(n->b) + ")";
    return "(" + Vec(n->a) + CompareOp(n->op) + Vec(n->b) + ")";
  }

  void EmitVec(const Stmt& s) {
    KernelEmitter::DepthGuard guard(e_);
    switch (s->type_index()) {
      case TypeIndex::kSeqStmt:
        for (const Stmt& c : static_cast<const tir::SeqStmtNode*>(s.get())->seq) EmitVec(c);
        return;
      case TypeIndex::kBufferStore: {
        const auto* n = static_cast<const tir::BufferStoreNode*>(s.get());
        const BufferInfo& info = e_->Buf(n->buffer.get(), "store");
        if (info.is_input)
          TS_THROW(kValue) << e_->ctx() << "store into input buffer '" << n->buffer->name
                           << "'; PrimFuncs may only write their outputs and allocations";
        // Shared sub-expressions are computed once, as in scalar stores (a select with
        // a lane-varying condition computes both sides anyway).
        for (const tir::PrimExprNode* x : SharedSubexpressions(
                 n->value, [&](const tir::SelectNode* s) { return lin_.Invariant(s->cond); })) {
          tir::PrimExpr shared(x);
          if (x->dtype != elem_ || lin_.Invariant(shared)) continue;
          std::string name = e_->Temp("cse");
          std::string value = Vec(shared);
          e_->Line("const ts_v" + sfx_ + " " + name + " = " + value + ";");
          bound_[x] = name;
        }
        std::string value = Vec(n->value);
        bound_.clear();
        std::string at = "&" + info.name + "[" + e_->Offset(n->buffer.get(), n->indices) + "]";
        if (!lanes_.empty()) {
          e_->Line("ts_vstorem_" + sfx_ + "(" + at + ", " + value + ", " + lanes_ + ");");
        } else {
          Prefetch(n->buffer.get(), at, true);
          e_->Line("ts_vstore_" + sfx_ + "(" + at + ", " + value + ");");
        }
        prefetched_.clear();
        return;
      }
      case TypeIndex::kBlock: {
        const auto* b = static_cast<const tir::BlockNode*>(s.get());
        e_->Open("{");
        std::vector<std::string> values;
        for (const tir::IterVar& iv : b->iter_vars) values.push_back(e_->Index(iv.binding));
        std::vector<std::string> mins;
        for (const tir::IterVar& iv : b->iter_vars)
          mins.push_back(
              iv.kind == tir::IterKind::kReduce && b->init.defined() ? e_->Index(iv.dom.min) : "");
        std::string at_start;
        for (size_t i = 0; i < b->iter_vars.size(); ++i) {
          const tir::VarNode* var = b->iter_vars[i].var.get();
          e_->BindVar(var);
          e_->Line("const int64_t " + e_->VarName(var) + " = " + values[i] + ";");
          if (!mins[i].empty())
            at_start += (at_start.empty() ? "" : " && ") + e_->VarName(var) + " == " + mins[i];
        }
        if (b->init.defined()) {
          e_->Open("if (" + (at_start.empty() ? std::string("1") : at_start) + ") {");
          EmitVec(b->init);
          e_->Close();
        }
        EmitVec(b->body);
        for (const tir::IterVar& iv : b->iter_vars) e_->UnbindVar(iv.var.get());
        e_->Close();
        return;
      }
      default: {  // IfThenElse with a loop-invariant condition
        const auto* n = static_cast<const tir::IfThenElseNode*>(s.get());
        e_->Open("if (" + e_->Value(n->cond) + ") {");
        EmitVec(n->then_case);
        if (n->else_case.defined()) {
          e_->Close();
          e_->Open("else {");
          EmitVec(n->else_case);
        }
        e_->Close();
        return;
      }
    }
  }

  /// The scalar form of `s` (the loop's tail).
  void EmitScalar(const Stmt& s) { e_->EmitStmt(s); }

  /// Declares the block's iteration variables (bound to their bindings) in the current
  /// C scope; UnbindBlockVars undoes it.
  void BindBlockVars(const tir::BlockNode* b) {
    std::vector<std::string> values;
    for (const tir::IterVar& iv : b->iter_vars) values.push_back(e_->Index(iv.binding));
    for (size_t i = 0; i < b->iter_vars.size(); ++i) {
      const tir::VarNode* var = b->iter_vars[i].var.get();
      e_->BindVar(var);
      e_->Line("const int64_t " + e_->VarName(var) + " = " + values[i] + ";");
    }
  }
  void UnbindBlockVars(const tir::BlockNode* b) {
    for (const tir::IterVar& iv : b->iter_vars) e_->UnbindVar(iv.var.get());
  }

  KernelEmitter* emitter() { return e_; }
  const std::string& sfx() const { return sfx_; }
  /// Emits the body with loads and stores of the first `count` lanes only (a C
  /// expression; "" for whole vectors).
  void SetMaskedLanes(std::string count) { lanes_ = std::move(count); }
  /// Whether contiguous accesses to buffers of at least kPrefetchMinBytes prefetch ahead.
  /// `run_bytes` (-1: unknown) is how far one run of the loop reads: shorter than the
  /// prefetch distance, the loops around it carry the stream, and on reversed runs ahead
  /// is behind.
  void SetPrefetch(bool on, int64_t run_bytes) {
    prefetch_ = on;
    outer_direction_ = run_bytes >= 0 && run_bytes < kPrefetchAheadBytes;
  }

 private:
  /// A buffer this large does not stay in a core's L2 cache: the core's own prefetchers did
  /// not keep a compute-heavy loop fed from the L3 (exact GELU on 4M floats: 0.60 ns per
  /// element, 0.47 with the software prefetches; exp 0.31 -> 0.29).
  static constexpr int64_t kPrefetchMinBytes = int64_t{1} << 20;
  /// How far ahead: 64 iterations of a 16-lane loop (1-16 KiB measured alike).
  static constexpr int kPrefetchAheadBytes = 4096;

  /// Emits a prefetch of the line kPrefetchAheadBytes after `at` when `buffer` is large and
  /// the statement has not prefetched it yet (a stencil's neighbouring loads share lines);
  /// `write` fetches it for writing.
  void Prefetch(const tir::BufferNode* buffer, const std::string& at, bool write) {
    if (!prefetch_) return;
    int64_t bytes = DTypeBytes(buffer->dtype);
    for (int64_t d : buffer->shape) {
      if (d <= 0 || bytes > (int64_t{1} << 40) / d) return;
      bytes *= d;
    }
    if (bytes < kPrefetchMinBytes || !prefetched_.insert(buffer).second) return;
    // A parallel body whose outer loop walks the buffer runs backward on reversed runs
    // (TsKernelEnv::reverse): the prefetch then goes the other way.
    std::string ahead = std::to_string(kPrefetchAheadBytes);
    if (outer_direction_ && e_->in_parallel()) ahead = "(ts_rev ? -" + ahead + " : " + ahead + ")";
    e_->Line("__builtin_prefetch((const char*)" + at + " + " + ahead + ", " + (write ? "1" : "0") +
             ", 3);");
  }

  bool prefetch_ = false;
  bool outer_direction_ = false;
  /// Buffers prefetched for the statement being emitted.
  std::unordered_set<const tir::BufferNode*> prefetched_;
  KernelEmitter* e_;
  DType elem_;
  /// The lanes a masked tail loads and stores ("": whole vectors).
  std::string lanes_;
  /// Shared sub-expressions of the value being stored, bound to C variables.
  std::unordered_map<const tir::PrimExprNode*, std::string> bound_;
  LinearAnalysis lin_;
  std::string sfx_;
};

bool TryEmitVectorLoop(KernelEmitter* e, const tir::ForNode* loop) {
  // Which buffers are stored, and in which element type.
  LinearAnalysis probe(loop->loop_var.get());
  std::vector<Access> accesses;
  if (!CollectAccesses(loop->body, &probe, &accesses)) return false;
  std::unordered_set<const tir::BufferNode*> stored;
  DType elem = DType::kBool;
  for (const Access& a : accesses) {
    if (!a.is_store) continue;
    if (a.buffer->dtype != DType::kFloat32 && a.buffer->dtype != DType::kFloat64) return false;
    if (!stored.empty() && a.buffer->dtype != elem) return false;
    elem = a.buffer->dtype;
    stored.insert(a.buffer);
  }
  if (stored.empty()) return false;
  VectorEmitter v(e, loop, elem);
  v.lin().SetStored(stored);
  accesses.clear();
  CollectAccesses(loop->body, &v.lin(), &accesses);
  if (!IterationsIndependent(accesses, v.lin()) || !v.OkStmt(loop->body, 0)) return false;
  // Streaming loops prefetch, not accumulations (a buffer both read and written: a GEMM's or
  // convolution's inner loop, whose operands the schedule keeps in cache, would spend load
  // slots on it) nor register tiles.
  bool streaming = true;
  for (const Access& a : accesses)
    streaming = streaming && !e->Buf(a.buffer, "access").on_stack &&
                (a.is_store || !stored.count(a.buffer));
  const auto* run = loop->extent.as<tir::IntImmNode>();
  v.SetPrefetch(streaming, run ? run->value * DTypeBytes(elem) : -1);

  int lanes = e->vector_bytes() / (elem == DType::kFloat32 ? 4 : 8);
  std::string lo = e->Temp("lo"), hi = e->Temp("hi"), it = e->Temp("v");
  e->Line("/* vectorized: " + std::to_string(lanes) + " lanes of " + DTypeName(elem) + " */");
  e->Line("const int64_t " + lo + " = " + e->Index(loop->min) + ";");
  e->Line("const int64_t " + hi + " = " + lo + " + " + e->Index(loop->extent) + ";");
  e->Line("int64_t " + it + " = " + lo + ";");
  const tir::VarNode* var = loop->loop_var.get();
  e->BindVar(var);
  const std::string name = e->VarName(var);
  // A short loop of constant extent (a register tile's row of two vectors) is unrolled
  // fully and has no scalar tail, so the C compiler can keep an accumulator tile
  // indexed by it in registers instead of in memory.
  const auto* extent_imm = loop->extent.as<tir::IntImmNode>();
  const bool constant = extent_imm != nullptr;
  const int64_t extent = constant ? extent_imm->value : 0;
  int64_t vectors = constant ? extent / lanes : 0;
  if (constant && extent % lanes == 0 && vectors >= 1 && vectors <= 2) {
    // One or two registers (a tile's vectors of channels): straight-line code, so kernels
    // made of many such statements leave the C compiler no loops to analyse.
    for (int64_t k = 0; k < vectors; ++k) {
      e->Open("{");
      e->Line("const int64_t " + name + " = " + lo + " + " + std::to_string(k * lanes) + ";");
      v.EmitVec(loop->body);
      e->Close();
    }
  } else {
    if (vectors > 1 && vectors <= 8) e->Line("#pragma GCC unroll " + std::to_string(vectors));
    e->Open("for (; " + it + " + " + std::to_string(lanes) + " <= " + hi + "; " + it +
            " += " + std::to_string(lanes) + ") {");
    e->Line("const int64_t " + name + " = " + it + ";");
    v.EmitVec(loop->body);
    e->Close();
  }
  // AVX-512: the rest (fewer than a register of lanes) as one masked vector step. Not
  // for a loop shorter than a register (the C compiler vectorizes its constant count with
  // narrower registers) nor one touching a stack array: a masked access keeps the array in
  // memory where the compiler would keep a register tile (the MNIST CNN's 8-channel conv
  // tiles ran 25% slower).
  bool masked = e->vector_bytes() == 64 && (!constant || extent > lanes);
  for (const Access& a : accesses) masked = masked && !e->Buf(a.buffer, "access").on_stack;
  if ((!constant || extent % lanes != 0) && masked) {
    e->Open("if (" + it + " < " + hi + ") {");
    e->Line("const int64_t " + name + " = " + it + ";");
    v.SetMaskedLanes("(" + hi + " - " + it + ")");
    v.EmitVec(loop->body);
    v.SetMaskedLanes("");
    e->Close();
  } else if (!constant || extent % lanes != 0) {
    e->Open("for (; " + it + " < " + hi + "; ++" + it + ") {");
    e->Line("const int64_t " + name + " = " + it + ";");
    v.EmitScalar(loop->body);
    e->Close();
  }
  e->UnbindVar(var);
  return true;
}

namespace {

/// A reduction step `acc[I] = acc[I] op value` (or `value op acc[I]`) in a loop.
struct ReductionStep {
  const tir::BlockNode* block = nullptr;
  const tir::BufferStoreNode* store = nullptr;
  BinaryOp op = BinaryOp::kAdd;
  PrimExpr value;
};

/// Matches a loop body that is one block (without init) whose body is one reduction step.
bool MatchReduction(const tir::ForNode* loop, ReductionStep* out) {
  const auto* b = loop->body.as<tir::BlockNode>();
  if (!b || b->init.defined()) return false;
  const auto* st = b->body.as<tir::BufferStoreNode>();
  if (!st) return false;
  const auto* bin = st->value.as<BinaryNode>();
  if (!bin || (bin->op != BinaryOp::kAdd && bin->op != BinaryOp::kMul &&
               bin->op != BinaryOp::kMax && bin->op != BinaryOp::kMin))
    return false;
  auto is_acc = [&](const PrimExpr& e) {
    const auto* ld = e.as<tir::BufferLoadNode>();
    if (!ld || ld->buffer.get() != st->buffer.get() || ld->indices.size() != st->indices.size())
      return false;
    for (size_t i = 0; i < ld->indices.size(); ++i)
      if (!SameExpr(ld->indices[i], st->indices[i])) return false;
    return true;
  };
  out->block = b;
  out->store = st;
  out->op = bin->op;
  if (is_acc(bin->a))
    out->value = bin->b;
  else if (is_acc(bin->b))
    out->value = bin->a;
  else
    return false;
  return true;
}

/// The identity of `op` as a C literal of the element type.
std::string Identity(BinaryOp op, bool f64) {
  std::string inf = f64 ? "__builtin_inf()" : "__builtin_inff()";
  switch (op) {
    case BinaryOp::kAdd:
      return f64 ? "0.0" : "0.0f";
    case BinaryOp::kMul:
      return f64 ? "1.0" : "1.0f";
    case BinaryOp::kMax:
      return "(-" + inf + ")";
    default:
      return inf;
  }
}

/// `a op b` in C for vectors or scalars of the element type.
std::string Combine(BinaryOp op, const std::string& fn_prefix, const std::string& sfx,
                    const std::string& a, const std::string& b) {
  switch (op) {
    case BinaryOp::kAdd:
      return "(" + a + " + " + b + ")";
    case BinaryOp::kMul:
      return "(" + a + " * " + b + ")";
    case BinaryOp::kMax:
      return fn_prefix + "max_" + sfx + "(" + a + ", " + b + ")";
    default:
      return fn_prefix + "min_" + sfx + "(" + a + ", " + b + ")";
  }
}

}  // namespace

bool TryEmitVectorReduction(KernelEmitter* e, const tir::ForNode* loop) {
  ReductionStep step;
  if (!MatchReduction(loop, &step)) return false;
  DType elem = step.store->buffer->dtype;
  if (elem != DType::kFloat32 && elem != DType::kFloat64) return false;
  VectorEmitter v(e, loop, elem);
  v.lin().SetStored({step.store->buffer.get()});
  std::vector<Access> accesses;
  if (!CollectAccesses(loop->body, &v.lin(), &accesses)) return false;
  // The accumulator stays at one place during the loop and is touched only by the step;
  // the value is computed a register of consecutive iterations at a time.
  for (const PrimExpr& i : step.store->indices)
    if (!v.lin().Invariant(i)) return false;
  int acc_uses = 0;
  for (const Access& a : accesses) acc_uses += a.buffer == step.store->buffer.get();
  if (acc_uses != 2 || !v.Ok(step.value, 0)) return false;
  for (const tir::IterVar& iv : step.block->iter_vars)
    if (!v.lin().Coef(iv.binding)) return false;

  // Several independent accumulators hide the latency of the vector add / FMA; the
  // reduction is reassociated (lanes, then accumulators, then the running value).
  constexpr int kAccumulators = 4;
  bool f64 = elem == DType::kFloat64;
  const std::string& sfx = v.sfx();
  const std::string vt = "ts_v" + sfx, st = f64 ? "double" : "float";
  int lanes = e->vector_bytes() / (f64 ? 8 : 4);
  std::string lo = e->Temp("lo"), hi = e->Temp("hi"), it = e->Temp("v");
  std::vector<std::string> acc;
  for (int a = 0; a < kAccumulators; ++a) acc.push_back(e->Temp("acc"));
  e->Line("/* vectorized reduction: " + std::to_string(kAccumulators) + " x " +
          std::to_string(lanes) + " lanes of " + DTypeName(elem) + " */");
  e->Line("const int64_t " + lo + " = " + e->Index(loop->min) + ";");
  e->Line("const int64_t " + hi + " = " + lo + " + " + e->Index(loop->extent) + ";");
  e->Line("int64_t " + it + " = " + lo + ";");
  const tir::VarNode* var = loop->loop_var.get();
  e->BindVar(var);
  const std::string name = e->VarName(var);
  e->Open("if (" + hi + " - " + lo + " >= " + std::to_string(lanes) + ") {");
  for (const std::string& a : acc)
    e->Line(vt + " " + a + " = ts_vbcast_" + sfx + "(" + Identity(step.op, f64) + ");");
  auto step_at = [&](const std::string& acc_name, const std::string& at) {
    e->Open("{");
    e->Line("const int64_t " + name + " = " + at + ";");
    v.BindBlockVars(step.block);
    std::string value = v.Vec(step.value);
    e->Line(acc_name + " = " + Combine(step.op, "ts_v", sfx, acc_name, value) + ";");
    v.UnbindBlockVars(step.block);
    e->Close();
  };
  int wide = kAccumulators * lanes;
  e->Open("for (; " + it + " + " + std::to_string(wide) + " <= " + hi + "; " + it +
          " += " + std::to_string(wide) + ") {");
  for (int a = 0; a < kAccumulators; ++a)
    step_at(acc[a], it + (a ? " + " + std::to_string(a * lanes) : std::string()));
  e->Close();
  e->Open("for (; " + it + " + " + std::to_string(lanes) + " <= " + hi + "; " + it +
          " += " + std::to_string(lanes) + ") {");
  step_at(acc[0], it);
  e->Close();
  e->Line(acc[0] + " = " +
          Combine(step.op, "ts_v", sfx, Combine(step.op, "ts_v", sfx, acc[0], acc[1]),
                  Combine(step.op, "ts_v", sfx, acc[2], acc[3])) +
          ";");
  // Lanes folded as a butterfly (lane i with lane i ^ s, s = lanes/2 .. 1): log2(lanes)
  // dependent steps instead of lanes - 1, which dominated short rows (a softmax over 64).
  for (int s = lanes / 2; s >= 1; s /= 2) {
    std::string perm;
    for (int l = 0; l < lanes; ++l) perm += ", " + std::to_string(l ^ s);
    e->Line(acc[0] + " = " +
            Combine(step.op, "ts_v", sfx, acc[0],
                    "TS_SWAP_LANES(" + acc[0] + ", ts_m" + sfx + perm + ")") +
            ";");
  }
  std::string total = e->Temp("sum");
  e->Line(st + " " + total + " = " + acc[0] + "[0];");
  // Fold into the running value with the block's (loop-invariant) indices.
  e->Open("{");
  e->Line("const int64_t " + name + " = " + lo + ";");
  v.BindBlockVars(step.block);
  const BufferInfo& info = e->Buf(step.store->buffer.get(), "store");
  std::string at = info.name + "[" + e->Offset(step.store->buffer.get(), step.store->indices) + "]";
  e->Line(at + " = " + Combine(step.op, "ts_", sfx, at, total) + ";");
  v.UnbindBlockVars(step.block);
  e->Close();
  e->Close();
  e->Open("for (; " + it + " < " + hi + "; ++" + it + ") {");
  e->Line("const int64_t " + name + " = " + it + ";");
  v.EmitScalar(loop->body);
  e->Close();
  e->UnbindVar(var);
  return true;
}

}  // namespace tessera::native::detail
