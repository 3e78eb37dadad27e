// Tensor-level IR: scalar expressions, buffers, statements (loops, blocks, stores) and
// PrimFunc, the tensor-level function a graph function calls through call_tir.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera::tir {

// ---- Scalar expressions ------------------------------------------------------------

/// Base of scalar expressions; every one has a scalar dtype.
class PrimExprNode : public Object {
 public:
  DType dtype;
  static constexpr TypeIndex kFirst = TypeIndex::kIntImm;
  static constexpr TypeIndex kLast = TypeIndex::kIntrinsic;

 protected:
  PrimExprNode(TypeIndex index, DType dtype) : Object(index), dtype(dtype) {}
};
/// Handle to a scalar expression.
using PrimExpr = Ref<const PrimExprNode>;

/// An integer (or bool) literal.
class IntImmNode : public PrimExprNode {
 public:
  IntImmNode(DType dtype, int64_t value) : PrimExprNode(TypeIndex::kIntImm, dtype), value(value) {}
  int64_t value;
  static constexpr TypeIndex kFirst = TypeIndex::kIntImm;
  static constexpr TypeIndex kLast = TypeIndex::kIntImm;
};

/// A floating-point literal.
class FloatImmNode : public PrimExprNode {
 public:
  FloatImmNode(DType dtype, double value)
      : PrimExprNode(TypeIndex::kFloatImm, dtype), value(value) {}
  double value;
  static constexpr TypeIndex kFirst = TypeIndex::kFloatImm;
  static constexpr TypeIndex kLast = TypeIndex::kFloatImm;
};

/// A scalar variable: a loop variable or a block iteration variable. Identity is the
/// node; the name is only for printing.
class VarNode : public PrimExprNode {
 public:
  VarNode(std::string name, DType dtype)
      : PrimExprNode(TypeIndex::kTirVar, dtype), name(std::move(name)) {}
  std::string name;
  static constexpr TypeIndex kFirst = TypeIndex::kTirVar;
  static constexpr TypeIndex kLast = TypeIndex::kTirVar;
};
using Var = Ref<const VarNode>;

/// Binary operators. Div truncates for integers; FloorDiv/FloorMod round toward -inf.
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kFloorMod,
  kMin,
  kMax,
  kEQ,
  kNE,
  kLT,
  kLE,
  kGT,
  kGE,
  kAnd,
  kOr,
};
/// Printed name: "+", "floordiv", "==", ...
const char* BinaryOpName(BinaryOp op);
/// True for comparisons and logical and/or (result dtype bool).
bool IsComparison(BinaryOp op);

/// `a op b`.
class BinaryNode : public PrimExprNode {
 public:
  BinaryNode(DType dtype, BinaryOp op, PrimExpr a, PrimExpr b)
      : PrimExprNode(TypeIndex::kBinary, dtype), op(op), a(std::move(a)), b(std::move(b)) {}
  BinaryOp op;
  PrimExpr a, b;
  static constexpr TypeIndex kFirst = TypeIndex::kBinary;
  static constexpr TypeIndex kLast = TypeIndex::kBinary;
};

/// Logical not.
class NotNode : public PrimExprNode {
 public:
  explicit NotNode(PrimExpr a) : PrimExprNode(TypeIndex::kNot, DType::kBool), a(std::move(a)) {}
  PrimExpr a;
  static constexpr TypeIndex kFirst = TypeIndex::kNot;
  static constexpr TypeIndex kLast = TypeIndex::kNot;
};

/// `cond ? t : f` (both sides may be evaluated).
class SelectNode : public PrimExprNode {
 public:
  SelectNode(PrimExpr cond, PrimExpr t, PrimExpr f)
      : PrimExprNode(TypeIndex::kSelect, t->dtype),
        cond(std::move(cond)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  PrimExpr cond, true_value, false_value;
  static constexpr TypeIndex kFirst = TypeIndex::kSelect;
  static constexpr TypeIndex kLast = TypeIndex::kSelect;
};

/// Conversion of `value` to `dtype`.
class CastNode : public PrimExprNode {
 public:
  CastNode(DType dtype, PrimExpr value)
      : PrimExprNode(TypeIndex::kCast, dtype), value(std::move(value)) {}
  PrimExpr value;
  static constexpr TypeIndex kFirst = TypeIndex::kCast;
  static constexpr TypeIndex kLast = TypeIndex::kCast;
};

class BufferNode;
/// Handle to a buffer.
using Buffer = Ref<const BufferNode>;

/// `buffer[indices...]`.
class BufferLoadNode : public PrimExprNode {
 public:
  BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices);
  Buffer buffer;
  std::vector<PrimExpr> indices;
  static constexpr TypeIndex kFirst = TypeIndex::kBufferLoad;
  static constexpr TypeIndex kLast = TypeIndex::kBufferLoad;
};

/// A call of a math intrinsic by name: exp, log, sqrt, rsqrt, tanh, erf, sigmoid, abs,
/// pow, floor, ceil, round, ... (see IntrinsicNames()).
class IntrinsicNode : public PrimExprNode {
 public:
  IntrinsicNode(DType dtype, std::string name, std::vector<PrimExpr> args)
      : PrimExprNode(TypeIndex::kIntrinsic, dtype), name(std::move(name)), args(std::move(args)) {}
  std::string name;
  std::vector<PrimExpr> args;
  static constexpr TypeIndex kFirst = TypeIndex::kIntrinsic;
  static constexpr TypeIndex kLast = TypeIndex::kIntrinsic;
};
/// The intrinsic names the IR accepts, each with its arity.
const std::vector<std::pair<std::string, int>>& IntrinsicNames();

// ---- Buffers -----------------------------------------------------------------------

/// A dense row-major buffer of static shape. Identity is the node; a PrimFunc
/// parameter or an Allocate introduces it.
class BufferNode : public Object {
 public:
  BufferNode(std::string name, std::vector<int64_t> shape, DType dtype)
      : Object(TypeIndex::kBuffer), name(std::move(name)), shape(std::move(shape)), dtype(dtype) {}
  std::string name;
  std::vector<int64_t> shape;
  DType dtype;
  static constexpr TypeIndex kFirst = TypeIndex::kBuffer;
  static constexpr TypeIndex kLast = TypeIndex::kBuffer;
};

/// A half-open interval [min, min + extent).
struct Range {
  PrimExpr min;
  PrimExpr extent;
};

/// The part of a buffer a block reads or writes: one Range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

// ---- Statements --------------------------------------------------------------------

/// Base of statements.
class StmtNode : public Object {
 public:
  static constexpr TypeIndex kFirst = TypeIndex::kFor;
  static constexpr TypeIndex kLast = TypeIndex::kPrefetch;

 protected:
  using Object::Object;
};
/// Handle to a statement.
using Stmt = Ref<const StmtNode>;

/// How a loop's iterations are executed.
enum class ForKind { kSerial, kParallel, kVectorized, kUnrolled };
/// "serial", "parallel", "vectorized", "unrolled".
const char* ForKindName(ForKind kind);

/// `for loop_var in [min, min + extent): body`.
class ForNode : public StmtNode {
 public:
  ForNode(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body)
      : StmtNode(TypeIndex::kFor),
        loop_var(std::move(loop_var)),
        min(std::move(min)),
        extent(std::move(extent)),
        kind(kind),
        body(std::move(body)) {}
  Var loop_var;
  PrimExpr min, extent;
  ForKind kind;
  Stmt body;
  static constexpr TypeIndex kFirst = TypeIndex::kFor;
  static constexpr TypeIndex kLast = TypeIndex::kFor;
};

/// Whether a block iteration variable is data-parallel or a reduction axis.
enum class IterKind { kSpatial, kReduce };

/// A block iteration variable with its domain and the value it is bound to.
struct IterVar {
  Var var;
  Range dom;
  IterKind kind;
  PrimExpr binding;  ///< value of `var` in terms of the enclosing loop variables
};

/// A named unit of computation with explicit iteration variables and access regions
/// (what layout planning reads). If `init` is set it runs before `body` when every
/// reduce iteration variable is at its domain's minimum.
class BlockNode : public StmtNode {
 public:
  BlockNode(std::string name, std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
            std::vector<BufferRegion> writes, Stmt init, Stmt body)
      : StmtNode(TypeIndex::kBlock),
        name(std::move(name)),
        iter_vars(std::move(iter_vars)),
        reads(std::move(reads)),
        writes(std::move(writes)),
        init(std::move(init)),
        body(std::move(body)) {}
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads, writes;
  Stmt init;  ///< may be null
  Stmt body;
  static constexpr TypeIndex kFirst = TypeIndex::kBlock;
  static constexpr TypeIndex kLast = TypeIndex::kBlock;
};

/// `buffer[indices...] = value`.
class BufferStoreNode : public StmtNode {
 public:
  BufferStoreNode(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices)
      : StmtNode(TypeIndex::kBufferStore),
        buffer(std::move(buffer)),
        value(std::move(value)),
        indices(std::move(indices)) {}
  Buffer buffer;
  PrimExpr value;
  std::vector<PrimExpr> indices;
  static constexpr TypeIndex kFirst = TypeIndex::kBufferStore;
  static constexpr TypeIndex kLast = TypeIndex::kBufferStore;
};

/// Allocates a scratch `buffer` live during `body`, zero-filled unless `zero_fill` is
/// false (the body then writes every element before reading it).
class AllocateNode : public StmtNode {
 public:
  AllocateNode(Buffer buffer, Stmt body, bool zero_fill)
      : StmtNode(TypeIndex::kAllocate),
        buffer(std::move(buffer)),
        body(std::move(body)),
        zero_fill(zero_fill) {}
  Buffer buffer;
  Stmt body;
  bool zero_fill;
  static constexpr TypeIndex kFirst = TypeIndex::kAllocate;
  static constexpr TypeIndex kLast = TypeIndex::kAllocate;
};

/// Statements in order. Never nested directly and never of length one (MakeSeq
/// flattens), so equal programs have one form.
class SeqStmtNode : public StmtNode {
 public:
  explicit SeqStmtNode(std::vector<Stmt> seq)
      : StmtNode(TypeIndex::kSeqStmt), seq(std::move(seq)) {}
  std::vector<Stmt> seq;
  static constexpr TypeIndex kFirst = TypeIndex::kSeqStmt;
  static constexpr TypeIndex kLast = TypeIndex::kSeqStmt;
};

/// `if (cond) then_case else else_case` (else may be null).
class IfThenElseNode : public StmtNode {
 public:
  IfThenElseNode(PrimExpr cond, Stmt then_case, Stmt else_case)
      : StmtNode(TypeIndex::kIfThenElse),
        cond(std::move(cond)),
        then_case(std::move(then_case)),
        else_case(std::move(else_case)) {}
  PrimExpr cond;
  Stmt then_case, else_case;
  static constexpr TypeIndex kFirst = TypeIndex::kIfThenElse;
  static constexpr TypeIndex kLast = TypeIndex::kIfThenElse;
};

/// A hint that `buffer[indices]` will be read soon (a software prefetch of its cache
/// line); it computes and changes nothing. The indices are not bounds-checked: the
/// address is the row-major offset a load would use, and may lie outside the buffer
/// (an index past its dimension steps on into the next rows).
class PrefetchNode : public StmtNode {
 public:
  PrefetchNode(Buffer buffer, std::vector<PrimExpr> indices)
      : StmtNode(TypeIndex::kPrefetch), buffer(std::move(buffer)), indices(std::move(indices)) {}
  Buffer buffer;
  std::vector<PrimExpr> indices;
  static constexpr TypeIndex kFirst = TypeIndex::kPrefetch;
  static constexpr TypeIndex kLast = TypeIndex::kPrefetch;
};

// ---- PrimFunc ----------------------------------------------------------------------

/// A tensor-level function with destination passing: `params` are the input buffers
/// followed by the output buffers; the body writes the outputs. `num_outputs` says how
/// many trailing params are outputs.
class PrimFuncNode : public BaseFuncNode {
 public:
  PrimFuncNode(std::vector<Buffer> params, int num_outputs, Stmt body, Attrs attrs)
      : BaseFuncNode(TypeIndex::kPrimFunc, std::move(attrs)),
        params(std::move(params)),
        num_outputs(num_outputs),
        body(std::move(body)) {}
  std::vector<Buffer> params;
  int num_outputs;
  Stmt body;
  static constexpr TypeIndex kFirst = TypeIndex::kPrimFunc;
  static constexpr TypeIndex kLast = TypeIndex::kPrimFunc;
};
using PrimFunc = Ref<const PrimFuncNode>;

// ---- Builders ----------------------------------------------------------------------

PrimExpr IntImm(int64_t value, DType dtype = DType::kInt32);
PrimExpr FloatImm(double value, DType dtype = DType::kFloat32);
Var MakeVar(std::string name, DType dtype = DType::kInt32);
/// `a op b`, with the result dtype derived (bool for comparisons). Operand dtypes must
/// match; throws a type error naming both otherwise.
PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b);
PrimExpr MakeNot(PrimExpr a);
PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f);
PrimExpr MakeCast(DType dtype, PrimExpr value);
PrimExpr MakeLoad(Buffer buffer, std::vector<PrimExpr> indices);
/// An intrinsic call; the name and arity are checked against IntrinsicNames().
PrimExpr MakeIntrinsic(std::string name, std::vector<PrimExpr> args);
Buffer MakeBuffer(std::string name, std::vector<int64_t> shape, DType dtype = DType::kFloat32);
Stmt MakeFor(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body);
Stmt MakeBlock(std::string name, std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
               std::vector<BufferRegion> writes, Stmt init, Stmt body);
Stmt MakeStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices);
/// An allocation; `zero_fill` false leaves its contents undefined until written.
Stmt MakeAllocate(Buffer buffer, Stmt body, bool zero_fill = true);
/// A sequence, flattened; a single statement is returned as itself.
Stmt MakeSeq(std::vector<Stmt> seq);
Stmt MakeIfThenElse(PrimExpr cond, Stmt then_case, Stmt else_case = nullptr);
/// A prefetch hint of buffer[indices] (one index per dimension, integer).
Stmt MakePrefetch(Buffer buffer, std::vector<PrimExpr> indices);
PrimFunc MakePrimFunc(std::vector<Buffer> params, int num_outputs, Stmt body, Attrs attrs = {});

/// Operator sugar for building index expressions.
PrimExpr operator+(const PrimExpr& a, const PrimExpr& b);
PrimExpr operator-(const PrimExpr& a, const PrimExpr& b);
PrimExpr operator*(const PrimExpr& a, const PrimExpr& b);
PrimExpr operator+(const PrimExpr& a, int64_t b);
PrimExpr operator*(const PrimExpr& a, int64_t b);
PrimExpr FloorDiv(const PrimExpr& a, const PrimExpr& b);
PrimExpr FloorMod(const PrimExpr& a, const PrimExpr& b);

// ---- Operands ----------------------------------------------------------------------

/// The operands of `expr` in evaluation order: a binary's a, b; a not's a; a select's
/// cond, true_value, false_value; a cast's value; a load's indices; an intrinsic's args.
/// Literals and variables have none. The one place that lists each kind's operands;
/// analyses and rewrites reach children through it (or VisitPrimExpr) instead of a switch.
std::vector<PrimExpr> PrimExprChildren(const PrimExpr& expr);

/// A copy of `expr` over new operands (in PrimExprChildren order), rebuilt with the
/// builders above, so the result dtype is derived and checked as on construction; the
/// operator, cast dtype, buffer and intrinsic name are kept. Returns `expr` itself when
/// every operand is the same node. Throws a value error on a wrong operand count or a
/// null operand.
PrimExpr WithChildren(const PrimExpr& expr, const std::vector<PrimExpr>& children);

/// Calls `fn` on every node of `root` in evaluation order (pre-order: a node, then its
/// operands left to right; a shared node once per use). Iterative, so deep expressions
/// cannot overflow the native stack. `fn` returns whether to go on: the walk stops at the
/// first false, and VisitPrimExpr then returns false (true when every node was visited).
/// A null root visits nothing.
bool VisitPrimExpr(const PrimExpr& root, const std::function<bool(const PrimExprNode*)>& fn);

/// Simplifies a scalar expression: constant folding, identities (x+0, x*1, x*0),
/// affine normal form (sum of coefficient*variable plus constant, variables in
/// first-appearance order), floordiv/floormod of affine forms by constants that divide
/// every coefficient, min/max/select of constants.
PrimExpr Simplify(const PrimExpr& expr);
/// Simplifies every expression in a statement; there, a floordiv / floormod (or a
/// truncating division of a non-negative operand) whose operand stays within one multiple
/// of the divisor over the ranges of the enclosing loops and block variables (constant
/// bounds; a block variable is taken to stay in its domain) becomes a constant / a
/// subtraction.
Stmt Simplify(const Stmt& stmt);

}  // namespace tessera::tir
