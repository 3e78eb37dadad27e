// Private: the per-kernel C emitter shared by the codegen source files.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/backend/native/codegen_c.h"
#include "tessera/ir/tir.h"

namespace tessera::native::detail {

/// Deepest expression/statement nesting the emitter accepts: statements recurse, and
/// deeper C would strain the C compiler that reads it.
constexpr int kMaxDepth = 2000;
/// Allocations up to this many bytes live on the stack; larger ones on the heap.
constexpr int64_t kStackAllocBytes = 8192;

/// The C prelude: includes, the kernel ABI typedefs and helper functions.
std::string Prelude(int vector_bytes);
/// `name` made into a C identifier that does not collide with reserved names.
std::string SanitizeIdentifier(const std::string& name, const char* reserved_prefix);
/// C type of one element of `dtype` in memory ("float", "uint16_t", ...).
const char* StorageCType(DType dtype);
/// C type of a scalar expression of `dtype` ("float" for float16/bfloat16).
const char* ValueCType(DType dtype);

/// Structural equality of index expressions (same variables by identity).
bool SameExpr(const tir::PrimExpr& a, const tir::PrimExpr& b);

/// How a buffer is visible in C.
struct BufferInfo {
  std::string name;  ///< C identifier of the element pointer
  bool is_input = false;
  bool is_restrict = false;
  bool on_stack = false;  ///< a small allocation: a C array the compiler may keep in registers
};

/// Emits one kernel (and the outlined bodies of its parallel loops).
class KernelEmitter {
 public:
  KernelEmitter(std::string cname, const tir::PrimFuncNode* func, int vector_bytes,
                int64_t min_parallel_work);
  /// The outlined parallel bodies followed by the kernel function.
  std::string Emit();

  // ---- expressions (codegen_expr.cc) ----
  /// A C expression of ValueCType(e->dtype) computing `e` like the interpreter.
  std::string Value(const tir::PrimExpr& e);
  /// An int64_t C expression for an integer index expression.
  std::string Index(const tir::PrimExpr& e);
  /// The row-major element offset of `indices` into `buffer`.
  std::string Offset(const tir::BufferNode* buffer, const std::vector<tir::PrimExpr>& indices);
  /// The C name of a bound variable; throws when it is not bound here.
  const std::string& VarName(const tir::VarNode* var);
  /// The C info of a buffer in scope; throws when it is neither a param nor allocated.
  const BufferInfo& Buf(const tir::BufferNode* buffer, const char* access);

 private:
  friend class VectorEmitter;
  /// Which C form of an expression is wanted.
  enum class ExprMode { kValue, kIndex };
  /// An operand whose C form an expression's own form is built from.
  struct ExprNeed {
    const tir::PrimExpr* e;
    ExprMode mode;
  };
  /// `e` in `mode`, emitted without native recursion (see codegen_expr.cc).
  std::string EmitExpr(const tir::PrimExpr& e, ExprMode mode);
  /// Appends the operands (in order) whose forms `e` in `mode` is built from.
  void ExprNeeds(const tir::PrimExpr& e, ExprMode mode, std::vector<ExprNeed>* needs);
  /// The form of `e` in `mode` given the forms of its ExprNeeds.
  std::string ExprCombine(const tir::PrimExpr& e, ExprMode mode, const std::vector<std::string>& r);
  std::string IndexCombine(const tir::PrimExpr& e, const std::vector<std::string>& r);
  std::string BinaryValue(const tir::BinaryNode* n, const std::string& a, const std::string& b);
  std::string IntrinsicValue(const tir::IntrinsicNode* n, const std::string& x,
                             const std::string& y);
  std::string CastValue(DType to, DType from, const std::string& x);
  /// Throws unless `indices` has one index per dimension of `buffer`.
  void CheckRank(const tir::BufferNode* buffer, const std::vector<tir::PrimExpr>& indices);
  /// The row-major offset from the index forms of the non-constant `indices`, in order.
  std::string JoinOffset(const tir::BufferNode* buffer, const std::vector<tir::PrimExpr>& indices,
                         const std::vector<std::string>& index_forms);
  [[noreturn]] void ThrowTooDeep() const;

  // ---- statements (codegen_stmt.cc) ----
  void EmitStmt(const tir::Stmt& s);
  void EmitFor(const tir::ForNode* n);
  void EmitParallel(const tir::ForNode* n);
  void EmitVectorized(const tir::ForNode* n);
  void EmitBlock(const tir::BlockNode* b);
  void EmitAllocate(const tir::AllocateNode* n);
  void EmitStore(const tir::BufferStoreNode* n);
  /// Opens `for (int64_t VAR = lo; VAR < hi; ++VAR) {` with hoisted bounds.
  void OpenLoop(const tir::ForNode* n, const std::string& pragma);

 public:
  // ---- output and scopes (codegen_stmt.cc) ----
  void Line(const std::string& text);
  void Open(const std::string& text);  ///< a line ending in "{", then indent
  void Close(const std::string& text = "}");
  std::string Temp(const char* purpose);
  void BindVar(const tir::VarNode* var);
  void UnbindVar(const tir::VarNode* var);
  bool IsBound(const tir::VarNode* var) const;
  void BindBuffer(const tir::BufferNode* buffer, BufferInfo info);
  void UnbindBuffer(const tir::BufferNode* buffer);
  bool HasBuffer(const tir::BufferNode* buffer) const;
  std::string ClaimName(const std::string& base);
  const std::string& ctx() const { return ctx_; }
  int vector_bytes() const { return vector_bytes_; }
  /// Whether statements are being emitted into an outlined parallel body (where `ts_rev`,
  /// the run's direction, is in scope).
  bool in_parallel() const { return in_parallel_; }

  /// Guards recursion depth; throws past kMaxDepth.
  class DepthGuard {
   public:
    explicit DepthGuard(KernelEmitter* e);
    ~DepthGuard() { --e_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    KernelEmitter* e_;
  };

 private:
  std::string cname_;
  std::string ctx_;
  const tir::PrimFuncNode* func_;
  int vector_bytes_;
  int64_t min_parallel_work_;
  std::string* out_ = nullptr;  ///< where Line() writes (kernel or outlined body)
  std::string outlined_;
  int indent_ = 0;
  int depth_ = 0;
  int temp_counter_ = 0;
  int parallel_counter_ = 0;
  bool in_parallel_ = false;
  std::unordered_set<std::string> used_names_;
  std::unordered_map<const tir::VarNode*, std::string> var_names_;
  std::unordered_map<const tir::VarNode*, int> var_bound_;
  std::unordered_map<const tir::BufferNode*, std::vector<BufferInfo>> buffers_;
  /// Sub-expressions of the value being stored that are bound to C variables.
  std::unordered_map<const tir::PrimExprNode*, std::string> bound_values_;
};

// ---- analysis (codegen_analysis.cc) ----

/// Affine-in-one-variable analysis of index expressions for a loop variable `v`.
class LinearAnalysis {
 public:
  explicit LinearAnalysis(const tir::VarNode* v) : v_(v) {}
  /// Records a variable bound inside the loop body (block iter var) to `binding`.
  void Bind(const tir::VarNode* var, const tir::PrimExpr& binding);
  /// Records a variable bound inside the body with no known relation to `v`.
  void BindUnknown(const tir::VarNode* var) { bound_[var] = std::nullopt; }
  /// Buffers written in the loop body: loads from them are never invariant.
  void SetStored(std::unordered_set<const tir::BufferNode*> stored) { stored_ = std::move(stored); }
  /// The coefficient of `v` in `e`, or nullopt when `e` is not affine in `v` with a
  /// constant coefficient.
  std::optional<int64_t> Coef(const tir::PrimExpr& e, int depth = 0) const;
  /// Coefficient of `v` in the row-major offset of `indices` into `buffer`.
  std::optional<int64_t> OffsetCoef(const tir::BufferNode* buffer,
                                    const std::vector<tir::PrimExpr>& indices) const;
  /// True when `e` has the same value in every iteration of the loop.
  bool Invariant(const tir::PrimExpr& e) const;

 private:
  const tir::VarNode* v_;
  std::unordered_map<const tir::VarNode*, std::optional<int64_t>> bound_;
  std::unordered_set<const tir::BufferNode*> stored_;
};

/// One access found in a loop body.
struct Access {
  const tir::BufferNode* buffer;
  const std::vector<tir::PrimExpr>* indices;
  bool is_store;
};

/// Every load and store in `body` in program order, plus whether the body is
/// straight-line (only SeqStmt, Block, IfThenElse and BufferStore; no loops or
/// allocations). Binds block iter vars into `lin`.
bool CollectAccesses(const tir::Stmt& body, LinearAnalysis* lin, std::vector<Access>* out);

/// True when iterations of the loop over `v` are independent: every store's offset has a
/// non-zero constant coefficient of `v`, and any two accesses of a stored buffer use the
/// same index tuple or differ by distinct constants in one dimension.
bool IterationsIndependent(const std::vector<Access>& accesses, const LinearAnalysis& lin);

/// True when `e` references a variable in `vars`.
bool UsesAnyVar(const tir::PrimExpr& e, const std::unordered_set<const tir::VarNode*>& vars);

/// Variables and buffers referenced in `s`, in first-use order.
void CollectUses(const tir::Stmt& s, std::vector<const tir::VarNode*>* vars,
                 std::vector<const tir::BufferNode*>* buffers);

/// The non-trivial value sub-expressions `root` uses more than once (the lowering shares
/// nodes: a fused relu or sigmoid uses its input in several places) and evaluates whatever
/// the data (not only on one side of a select `lazy` says evaluates one side, or of a
/// short-circuit `&&`/`||`), operands before their users: what the emitters bind to a C
/// variable once rather than compute at every use. Load indices are not looked into.
std::vector<const tir::PrimExprNode*> SharedSubexpressions(
    const tir::PrimExpr& root, const std::function<bool(const tir::SelectNode*)>& lazy);

/// Emits the SIMD (GCC vector extension) body of a vectorized loop when every access
/// is contiguous or invariant and the arithmetic is float; returns false (emitting
/// nothing) otherwise.
bool TryEmitVectorLoop(KernelEmitter* e, const tir::ForNode* loop);

/// Emits a serial loop whose body is one reduction step `acc[I] = acc[I] op f(v)` (op
/// +, *, min or max; I loop-invariant; f float and vectorizable) with several vector
/// accumulators, a horizontal reduction and a scalar tail; returns false (emitting
/// nothing) otherwise.
bool TryEmitVectorReduction(KernelEmitter* e, const tir::ForNode* loop);

}  // namespace tessera::native::detail
