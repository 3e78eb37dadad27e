// C emission of tensor-IR statements: loops (serial, unrolled, vectorized, parallel
// through the kernel ABI's thread pool), blocks with init, allocations, stores.
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>

#include "codegen_internal.h"
#include "tessera/support/error.h"

namespace tessera::native::detail {

using tir::PrimExpr;
using tir::Stmt;

KernelEmitter::KernelEmitter(std::string cname, const tir::PrimFuncNode* func, int vector_bytes,
                             int64_t min_parallel_work)
    : cname_(std::move(cname)),
      func_(func),
      vector_bytes_(vector_bytes),
      min_parallel_work_(min_parallel_work) {
  ctx_ = "native codegen of kernel '" + cname_ + "': ";
}

// ---- output and scopes ------------------------------------------------------------

void KernelEmitter::Line(const std::string& text) {
  out_->append(static_cast<size_t>(indent_) * 2, ' ');
  *out_ += text;
  *out_ += '\n';
}

void KernelEmitter::Open(const std::string& text) {
  Line(text);
  ++indent_;
}

void KernelEmitter::Close(const std::string& text) {
  --indent_;
  Line(text);
}

std::string KernelEmitter::Temp(const char* purpose) {
  return std::string("ts_") + purpose + std::to_string(temp_counter_++);
}

std::string KernelEmitter::ClaimName(const std::string& base) {
  std::string name = base;
  for (int n = 1; used_names_.count(name); ++n) name = base + "_" + std::to_string(n);
  used_names_.insert(name);
  return name;
}

void KernelEmitter::BindVar(const tir::VarNode* var) {
  if (!var_names_.count(var)) var_names_[var] = ClaimName(SanitizeIdentifier(var->name, "v_"));
  ++var_bound_[var];
}

void KernelEmitter::UnbindVar(const tir::VarNode* var) {
  --var_bound_[var];
}

bool KernelEmitter::IsBound(const tir::VarNode* var) const {
  auto it = var_bound_.find(var);
  return it != var_bound_.end() && it->second > 0;
}

const std::string& KernelEmitter::VarName(const tir::VarNode* var) {
  if (!IsBound(var))
    TS_THROW(kValue) << ctx_ << "variable '" << var->name
                     << "' is used outside the loop or block that binds it";
  return var_names_.at(var);
}

void KernelEmitter::BindBuffer(const tir::BufferNode* buffer, BufferInfo info) {
  buffers_[buffer].push_back(std::move(info));
}

void KernelEmitter::UnbindBuffer(const tir::BufferNode* buffer) {
  auto it = buffers_.find(buffer);
  it->second.pop_back();
  if (it->second.empty()) buffers_.erase(it);
}

bool KernelEmitter::HasBuffer(const tir::BufferNode* buffer) const {
  return buffers_.count(buffer) > 0;
}

const BufferInfo& KernelEmitter::Buf(const tir::BufferNode* buffer, const char* access) {
  auto it = buffers_.find(buffer);
  if (it == buffers_.end())
    TS_THROW(kValue) << ctx_ << access << " of buffer '" << buffer->name
                     << "', which is neither a parameter nor allocated here";
  return it->second.back();
}

namespace {

std::string PointerType(const tir::BufferNode* b, const BufferInfo& info) {
  return std::string(info.is_input ? "const " : "") + StorageCType(b->dtype) + "*";
}

std::string Qualifiers(const BufferInfo& info) {
  return info.is_restrict ? " restrict const " : " const ";
}

/// Text safe inside a C comment.
std::string CommentText(const std::string& s) {
  std::string r;
  for (char c : s)
    r +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') ? c : '_';
  return r;
}

int64_t ConstInt(const PrimExpr& e, bool* ok) {
  const auto* imm = e.as<tir::IntImmNode>();
  *ok = imm != nullptr;
  return imm ? imm->value : 0;
}

}  // namespace

// ---- the kernel ---------------------------------------------------------------------

std::string KernelEmitter::Emit() {
  std::string kernel;
  out_ = &kernel;
  bool noalias = false;
  if (const AttrValue* a = func_->attrs.Find("tir.noalias"); a && a->is_bool())
    noalias = a->AsBool();
  Open("int32_t " + cname_ + "(void* const* buffers, const TsKernelEnv* env) {");
  size_t num_inputs = func_->params.size() - static_cast<size_t>(func_->num_outputs);
  for (size_t i = 0; i < func_->params.size(); ++i) {
    const tir::BufferNode* b = func_->params[i].get();
    if (HasBuffer(b)) TS_THROW(kValue) << ctx_ << "buffer '" << b->name << "' is a parameter twice";
    BufferInfo info{ClaimName(SanitizeIdentifier(b->name, "b_")), i < num_inputs, noalias};
    Line(PointerType(b, info) + Qualifiers(info) + info.name + " = (" + PointerType(b, info) +
         ")buffers[" + std::to_string(i) + "];");
    BindBuffer(b, info);
  }
  Line("int32_t ts_status = 0;");
  Line("(void)buffers;");
  Line("(void)env;");
  if (func_->body.defined()) EmitStmt(func_->body);
  Line("return ts_status;");
  Close();
  return outlined_ + kernel;
}

void KernelEmitter::EmitStmt(const Stmt& s) {
  DepthGuard guard(this);
  switch (s->type_index()) {
    case TypeIndex::kSeqStmt:
      for (const Stmt& c : static_cast<const tir::SeqStmtNode*>(s.get())->seq) EmitStmt(c);
      return;
    case TypeIndex::kFor:
      EmitFor(static_cast<const tir::ForNode*>(s.get()));
      return;
    case TypeIndex::kBlock:
      EmitBlock(static_cast<const tir::BlockNode*>(s.get()));
      return;
    case TypeIndex::kBufferStore:
      EmitStore(static_cast<const tir::BufferStoreNode*>(s.get()));
      return;
    case TypeIndex::kAllocate:
      EmitAllocate(static_cast<const tir::AllocateNode*>(s.get()));
      return;
    case TypeIndex::kPrefetch: {
      // Read access, kept in all cache levels; an address past the buffer only hints.
      const auto* n = static_cast<const tir::PrefetchNode*>(s.get());
      Line("__builtin_prefetch(&" + Buf(n->buffer.get(), "prefetch").name + "[" +
           Offset(n->buffer.get(), n->indices) + "], 0, 3);");
      return;
    }
    case TypeIndex::kIfThenElse: {
      const auto* n = static_cast<const tir::IfThenElseNode*>(s.get());
      Open("if (" + Value(n->cond) + ") {");
      EmitStmt(n->then_case);
      if (n->else_case.defined()) {
        Close("} else {");
        ++indent_;
        EmitStmt(n->else_case);
      }
      Close();
      return;
    }
    default:
      TS_THROW(kInternal) << ctx_ << "unknown statement";
  }
}

void KernelEmitter::EmitStore(const tir::BufferStoreNode* n) {
  const BufferInfo& info = Buf(n->buffer.get(), "store");
  if (info.is_input)
    TS_THROW(kValue) << ctx_ << "store into input buffer '" << n->buffer->name
                     << "'; PrimFuncs may only write their outputs and allocations";
  // Sub-expressions the value uses more than once (a fused op reading its input twice,
  // as relu's select does) are computed once, into C variables. Non-float selects are
  // C's lazy `?:`, so only what is evaluated anyway is hoisted out of them.
  for (const tir::PrimExprNode* e : SharedSubexpressions(
           n->value, [](const tir::SelectNode* s) { return !IsFloat(s->dtype); })) {
    std::string name = Temp("cse");
    std::string value = Value(tir::PrimExpr(e));
    Line(std::string("const ") + ValueCType(e->dtype) + " " + name + " = " + value + ";");
    bound_values_[e] = name;
  }
  std::string v = Value(n->value);
  bound_values_.clear();
  switch (n->buffer->dtype) {
    case DType::kFloat16:
      v = "ts_f2h(" + v + ")";
      break;
    case DType::kBFloat16:
      v = "ts_f2bf(" + v + ")";
      break;
    case DType::kBool:
      v = "(uint8_t)((" + v + ") != 0)";
      break;
    default:
      break;
  }
  Line(info.name + "[" + Offset(n->buffer.get(), n->indices) + "] = " + v + ";");
}

void KernelEmitter::OpenLoop(const tir::ForNode* n, const std::string& pragma) {
  bool const_min, const_ext;
  int64_t lo = ConstInt(n->min, &const_min), ext = ConstInt(n->extent, &const_ext);
  std::string lo_s, hi_s;
  if (const_min && const_ext) {
    lo_s = std::to_string(lo);
    hi_s = std::to_string(lo + ext);
  } else {
    // Bounds are evaluated before the loop variable is bound, as the interpreter does.
    std::string l = Temp("lo"), h = Temp("hi");
    Line("const int64_t " + l + " = " + Index(n->min) + ";");
    Line("const int64_t " + h + " = " + l + " + " + Index(n->extent) + ";");
    lo_s = l;
    hi_s = h;
  }
  BindVar(n->loop_var.get());
  const std::string& v = VarName(n->loop_var.get());
  if (!pragma.empty()) Line(pragma);
  Open("for (int64_t " + v + " = " + lo_s + "; " + v + " < " + hi_s + "; ++" + v + ") {");
}

void KernelEmitter::EmitFor(const tir::ForNode* n) {
  if (n->kind == tir::ForKind::kParallel && !in_parallel_) return EmitParallel(n);
  if (n->kind == tir::ForKind::kVectorized) return EmitVectorized(n);
  std::string pragma;
  if (n->kind == tir::ForKind::kUnrolled) {
    bool is_const;
    int64_t ext = ConstInt(n->extent, &is_const);
    int64_t factor = is_const && ext > 0 && ext <= 64 ? ext : 8;
    pragma = "#pragma GCC unroll " + std::to_string(factor);
  }
  Open("{");
  if (n->kind == tir::ForKind::kSerial && TryEmitVectorReduction(this, n)) {
    Close();
    return;
  }
  OpenLoop(n, pragma);
  EmitStmt(n->body);
  Close();
  UnbindVar(n->loop_var.get());
  Close();
}

void KernelEmitter::EmitVectorized(const tir::ForNode* n) {
  Open("{");
  if (!TryEmitVectorLoop(this, n)) {
    // The C compiler vectorizes this loop itself; tell it iterations are independent
    // when the accesses prove it.
    LinearAnalysis probe(n->loop_var.get());
    std::vector<Access> accesses;
    CollectAccesses(n->body, &probe, &accesses);
    std::unordered_set<const tir::BufferNode*> stored;
    for (const Access& a : accesses)
      if (a.is_store) stored.insert(a.buffer);
    LinearAnalysis lin(n->loop_var.get());
    lin.SetStored(stored);
    accesses.clear();
    bool straight = CollectAccesses(n->body, &lin, &accesses);
    bool independent = straight && IterationsIndependent(accesses, lin);
    OpenLoop(n, independent ? "#pragma GCC ivdep" : "");
    EmitStmt(n->body);
    Close();
    UnbindVar(n->loop_var.get());
  }
  Close();
}

namespace {

/// Element stores (and reduction updates) a statement runs, counting every loop's
/// constant extent; a loop of unknown extent counts as large. Saturates.
int64_t StaticWork(const tir::Stmt& s) {
  constexpr int64_t kLarge = int64_t{1} << 40;
  if (!s.defined()) return 0;
  auto mul = [](int64_t a, int64_t b) { return a != 0 && b > kLarge / a ? kLarge : a * b; };
  if (const auto* f = s.as<tir::ForNode>()) {
    const auto* e = f->extent.as<tir::IntImmNode>();
    return mul(e ? std::max<int64_t>(e->value, 0) : kLarge, StaticWork(f->body));
  }
  if (const auto* q = s.as<tir::SeqStmtNode>()) {
    int64_t w = 0;
    for (const tir::Stmt& c : q->seq) w = std::min(kLarge, w + StaticWork(c));
    return w;
  }
  if (const auto* i = s.as<tir::IfThenElseNode>())
    return std::max(StaticWork(i->then_case), StaticWork(i->else_case));
  if (const auto* b = s.as<tir::BlockNode>())
    return std::min(kLarge, StaticWork(b->init) + StaticWork(b->body));
  if (const auto* a = s.as<tir::AllocateNode>()) return StaticWork(a->body);
  if (s.as<tir::BufferStoreNode>()) return 1;
  return 0;
}

}  // namespace

void KernelEmitter::EmitParallel(const tir::ForNode* n) {
  std::string fn = "ts_par" + std::to_string(parallel_counter_++) + "_" + cname_;
  std::string closure = fn + "_closure";
  // What the body uses from the enclosing scope travels in the closure.
  std::vector<const tir::VarNode*> used_vars;
  std::vector<const tir::BufferNode*> used_buffers;
  CollectUses(n->body, &used_vars, &used_buffers);
  std::vector<const tir::VarNode*> vars;
  std::vector<const tir::BufferNode*> bufs;
  for (const auto* v : used_vars)
    if (IsBound(v)) vars.push_back(v);
  for (const auto* b : used_buffers)
    if (HasBuffer(b)) bufs.push_back(b);

  // The call site.
  Open("{");
  std::string cl = Temp("closure"), count = Temp("n");
  Line(closure + " " + cl + ";");
  for (const auto* b : bufs) Line(cl + "." + Buf(b, "use").name + " = " + Buf(b, "use").name + ";");
  for (const auto* v : vars) Line(cl + "." + VarName(v) + " = " + VarName(v) + ";");
  Line(cl + ".ts_lo = " + Index(n->min) + ";");
  Line(cl + ".ts_reverse = env != NULL && env->reverse;");
  Line(cl + ".ts_status = &ts_status;");
  Line("const int64_t " + count + " = " + Index(n->extent) + ";");
  Open("if (" + count + " > 0) {");
  // Below the threshold the outlined body runs here, over the whole range.
  tir::Stmt whole = tir::MakeFor(n->loop_var, n->min, n->extent, tir::ForKind::kSerial, n->body);
  if (StaticWork(whole) >= min_parallel_work_) {
    Open("if (env != NULL && env->parallel_for != NULL) {");
    Line("env->parallel_for(env->pool, " + count + ", " + fn + ", &" + cl + ");");
    Close("} else {");
    ++indent_;
    Line(fn + "(&" + cl + ", 0, " + count + ");");
    Close();
  } else {
    Line(fn + "(&" + cl + ", 0, " + count + ");");
  }
  Close();
  Close();

  // The outlined body, written to its own text.
  std::string body;
  std::string* saved_out = out_;
  int saved_indent = indent_;
  out_ = &body;
  indent_ = 0;
  in_parallel_ = true;
  Open("typedef struct " + closure + " {");
  for (const auto* b : bufs) Line(PointerType(b, Buf(b, "use")) + " " + Buf(b, "use").name + ";");
  for (const auto* v : vars) Line("int64_t " + VarName(v) + ";");
  Line("int64_t ts_lo;");
  Line("int32_t ts_reverse;");
  Line("int32_t* ts_status;");
  Close("} " + closure + ";");
  Open("static void " + fn + "(void* ts_closure, int64_t ts_begin, int64_t ts_end) {");
  Line("const " + closure + "* ts_c = (const " + closure + "*)ts_closure;");
  for (const auto* b : bufs) {
    const BufferInfo& info = Buf(b, "use");
    Line(PointerType(b, info) + Qualifiers(info) + info.name + " = ts_c->" + info.name + ";");
  }
  for (const auto* v : vars) Line("const int64_t " + VarName(v) + " = ts_c->" + VarName(v) + ";");
  Line("int32_t ts_status = 0;");
  BindVar(n->loop_var.get());
  const std::string& lv = VarName(n->loop_var.get());
  // Iterations run first to last, or last to first when the run asks (TsKernelEnv.reverse).
  // The flag is read once: stores through the body's pointers could alias the closure.
  Line("const int64_t ts_first = ts_c->ts_lo + ts_begin, ts_last = ts_c->ts_lo + ts_end - 1;");
  Line("const int32_t ts_rev = ts_c->ts_reverse;");
  Open("for (int64_t ts_i = ts_first; ts_i <= ts_last; ++ts_i) {");
  Line("const int64_t " + lv + " = ts_rev ? ts_first + ts_last - ts_i : ts_i;");
  // The pool only hands out chunks of [0, extent), but the compiler cannot see that through
  // the closure: told the range, it drops the sign fix-ups of floordiv/floormod of the loop
  // variable (a fused parallel loop's bindings) and keeps the inner loops vectorised.
  const auto* lo = n->min.as<tir::IntImmNode>();
  const auto* extent = n->extent.as<tir::IntImmNode>();
  if (lo && extent)
    Line("if (" + lv + " < " + std::to_string(lo->value) + " || " + lv +
         " >= " + std::to_string(lo->value + extent->value) + ") __builtin_unreachable();");
  EmitStmt(n->body);
  Close();
  UnbindVar(n->loop_var.get());
  Line("if (ts_status != 0) __atomic_store_n(ts_c->ts_status, ts_status, __ATOMIC_RELAXED);");
  Close();
  Line("");
  in_parallel_ = false;
  out_ = saved_out;
  indent_ = saved_indent;
  outlined_ += body;
}

void KernelEmitter::EmitBlock(const tir::BlockNode* b) {
  Open("{ /* block " + CommentText(b->name) + " */");
  std::unordered_set<const tir::VarNode*> own;
  for (const tir::IterVar& iv : b->iter_vars) own.insert(iv.var.get());
  bool self_ref = false;
  for (const tir::IterVar& iv : b->iter_vars)
    self_ref = self_ref || UsesAnyVar(iv.binding, own) || UsesAnyVar(iv.dom.min, own);
  // Bindings and reduce-domain minima read the enclosing scope: evaluate them first.
  std::vector<std::string> values, mins;
  for (const tir::IterVar& iv : b->iter_vars) {
    std::string value = Index(iv.binding);
    std::string min =
        iv.kind == tir::IterKind::kReduce && b->init.defined() ? Index(iv.dom.min) : "";
    if (self_ref) {
      std::string t = Temp("bind");
      Line("const int64_t " + t + " = " + value + ";");
      value = t;
      if (!min.empty()) {
        std::string m = Temp("min");
        Line("const int64_t " + m + " = " + min + ";");
        min = m;
      }
    }
    values.push_back(value);
    mins.push_back(min);
  }
  std::string at_start;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const tir::VarNode* var = b->iter_vars[i].var.get();
    BindVar(var);
    Line("const int64_t " + VarName(var) + " = " + values[i] + ";");
    if (!mins[i].empty())
      at_start += (at_start.empty() ? "" : " && ") + VarName(var) + " == " + mins[i];
  }
  if (b->init.defined()) {
    if (at_start.empty()) {
      EmitStmt(b->init);
    } else {
      Open("if (" + at_start + ") {");
      EmitStmt(b->init);
      Close();
    }
  }
  EmitStmt(b->body);
  for (const tir::IterVar& iv : b->iter_vars) UnbindVar(iv.var.get());
  Close();
}

void KernelEmitter::EmitAllocate(const tir::AllocateNode* n) {
  const tir::BufferNode* b = n->buffer.get();
  int64_t count = 1;
  for (int64_t d : b->shape) count *= d;
  int64_t bytes = count * DTypeBytes(b->dtype);
  std::string name = ClaimName(SanitizeIdentifier(b->name, "b_"));
  const char* type = StorageCType(b->dtype);
  Open("{ /* allocate " + CommentText(b->name) + " */");
  BindBuffer(b, BufferInfo{name, false, false, bytes <= kStackAllocBytes});
  if (bytes <= kStackAllocBytes) {
    // Zero-filled like the interpreter's scratch buffers. A memset rather than an `= {0}`
    // initializer: with the initializer GCC keeps the array in memory, so a register
    // tile accumulated in it (the GEMM micro-kernel) ran at half speed.
    Line(std::string(type) + " " + name + "[" + std::to_string(std::max<int64_t>(count, 1)) +
         "] __attribute__((aligned(64)));");
    if (n->zero_fill) Line("__builtin_memset(" + name + ", 0, sizeof " + name + ");");
    EmitStmt(n->body);
  } else {
    std::string p = Temp("mem"), size = std::to_string(bytes);
    Line(std::string(type) + "* " + name + " = NULL;");
    Line("void* " + p + " = NULL;");
    Open("if (posix_memalign(&" + p + ", 64, " + size + ") == 0) {");
    if (n->zero_fill) Line("__builtin_memset(" + p + ", 0, " + size + ");");
    Line(name + " = (" + type + "*)" + p + ";");
    Close();
    Open("if (" + name + " == NULL) {");
    Line("ts_status = 1;");
    Close("} else {");
    ++indent_;
    EmitStmt(n->body);
    Line("free(" + name + ");");
    Close();
  }
  UnbindBuffer(b);
  Close();
}

}  // namespace tessera::native::detail
