/* Tessera's C API for tensor-level IR: PrimFunc expressions, buffers, statements and PrimFunc
 * builders. */
#ifndef TESSERA_C_API_TIR_H_
#define TESSERA_C_API_TIR_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsPrimExpr_* TsPrimExpr; /**< a tensor-level (TIR) scalar expression */
typedef struct TsBuffer_* TsBuffer;     /**< a TIR buffer */
typedef struct TsStmt_* TsStmt;         /**< a TIR statement */

/* Conventions of this header. Handles follow c_api_ir.h: every handle a function returns
 * (through an out-parameter) is a new reference the caller releases with TsPrimExprDestroy,
 * TsBufferDestroy, TsStmtDestroy or (PrimFuncs are graph-level expressions) TsExprDestroy;
 * handles passed in are borrowed. Nodes are immutable: builders make new nodes, and a
 * node's identity is its pointer (a variable or buffer is the same one where the handles
 * are equal). Names are given as TsStringRef (copied); names read back are TsStringRef
 * views owned by the node (valid while it lives). Dtypes are TsDType, as for tensors.
 *
 * Errors: a NULL handle or out pointer where one is required fails with
 * TS_ERROR_INVALID_ARGUMENT, a NULL entry of an array given in (or a NULL array with a
 * nonzero count) with TS_ERROR_VALUE, as in c_api_ir.h; a handle of the wrong kind (a getter of a
 * loop given a store, a loop variable that is not a variable) or mismatched dtypes fail with
 * TS_ERROR_TYPE; an index out of range or an enumerator out of range with TS_ERROR_VALUE; a dtype
 * Tessera does not have with TS_ERROR_UNSUPPORTED; an unknown intrinsic (like an unknown op) with
 * TS_ERROR_NOT_FOUND, while an unknown loop kind name is a bad option value
 * (TS_ERROR_VALUE). The message names the function and the argument. Getters of a kind's
 * fields are named TsPrimExpr<Kind>Get... / TsStmt<Kind>Get... so they cannot clash with
 * the graph-level IR's (a TIR variable is not a graph variable). */

/* ---- Enumerations ------------------------------------------------------------------- */

/** The kinds of scalar expression. */
typedef enum TsPrimExprKind {
  TS_PRIM_EXPR_INT_IMM = 0,     /**< an integer or bool literal */
  TS_PRIM_EXPR_FLOAT_IMM = 1,   /**< a floating-point literal */
  TS_PRIM_EXPR_VAR = 2,         /**< a scalar variable (loop or block iteration variable) */
  TS_PRIM_EXPR_BINARY = 3,      /**< `a op b` */
  TS_PRIM_EXPR_NOT = 4,         /**< logical not */
  TS_PRIM_EXPR_SELECT = 5,      /**< `cond ? t : f` */
  TS_PRIM_EXPR_CAST = 6,        /**< a dtype conversion */
  TS_PRIM_EXPR_BUFFER_LOAD = 7, /**< `buffer[indices...]` */
  TS_PRIM_EXPR_INTRINSIC = 8, /**< a math intrinsic call (exp, sqrt, pow, ...) */
  TS_PRIM_EXPR_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_PRIM_EXPR_KIND_MAX_ENUM = 0x7FFFFFFF
} TsPrimExprKind;

/** Binary operators. DIV truncates for integers; FLOOR_DIV/FLOOR_MOD round toward -inf.
 *  Comparisons and AND/OR give bool. */
typedef enum TsBinaryOp {
  TS_BINARY_ADD = 0,
  TS_BINARY_SUB = 1,
  TS_BINARY_MUL = 2,
  TS_BINARY_DIV = 3,
  TS_BINARY_FLOOR_DIV = 4,
  TS_BINARY_FLOOR_MOD = 5,
  TS_BINARY_MIN = 6,
  TS_BINARY_MAX = 7,
  TS_BINARY_EQ = 8,
  TS_BINARY_NE = 9,
  TS_BINARY_LT = 10,
  TS_BINARY_LE = 11,
  TS_BINARY_GT = 12,
  TS_BINARY_GE = 13,
  TS_BINARY_AND = 14,
  TS_BINARY_OR = 15,
  TS_BINARY_OP_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_BINARY_OP_MAX_ENUM = 0x7FFFFFFF
} TsBinaryOp;

/** The kinds of statement. */
typedef enum TsStmtKind {
  TS_STMT_FOR = 0,          /**< a loop */
  TS_STMT_BLOCK = 1,        /**< a named block with iteration variables and access regions */
  TS_STMT_BUFFER_STORE = 2, /**< `buffer[indices...] = value` */
  TS_STMT_ALLOCATE = 3,     /**< a scratch buffer live during a body */
  TS_STMT_SEQ = 4,          /**< statements in order */
  TS_STMT_IF_THEN_ELSE = 5, /**< a branch */
  TS_STMT_PREFETCH = 6,     /**< a cache hint: `buffer[indices...]` is read soon */
  TS_STMT_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_STMT_KIND_MAX_ENUM = 0x7FFFFFFF
} TsStmtKind;

/** How a loop's iterations are executed. */
typedef enum TsForKind {
  TS_FOR_SERIAL = 0,
  TS_FOR_PARALLEL = 1,
  TS_FOR_VECTORIZED = 2,
  TS_FOR_UNROLLED = 3,
  TS_FOR_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_FOR_KIND_MAX_ENUM = 0x7FFFFFFF
} TsForKind;

/** Whether a block iteration variable is data-parallel or a reduction axis. */
typedef enum TsIterKind {
  TS_ITER_SPATIAL = 0,
  TS_ITER_REDUCE = 1,
  TS_ITER_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_ITER_KIND_MAX_ENUM = 0x7FFFFFFF
} TsIterKind;

/** The printed name of `op` ("+", "floordiv", "==", ...; static storage), or NULL when `op`
 *  is not a TsBinaryOp. */
TS_CAPI_EXPORT const char* TsBinaryOpGetName(TsBinaryOp op);
/** The name of `kind` ("serial", "parallel", "vectorized", "unrolled"; static storage), or
 *  NULL when `kind` is not a TsForKind. */
TS_CAPI_EXPORT const char* TsForKindGetName(TsForKind kind);
/** The loop kind named `name`; an unknown name fails with TS_ERROR_VALUE and a message
 *  listing the valid ones. */
TS_CAPI_EXPORT TsStatus TsForKindFromName(TsStringRef name, TsForKind* out);

/* ---- Scalar expressions: builders ----------------------------------------------------- */

/** An integer (or bool) literal of `dtype`; a float dtype fails with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsPrimExprIntImmCreate(int64_t value, TsDType dtype, TsPrimExpr* out);
/** A floating-point literal of `dtype`; a non-float dtype fails with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsPrimExprFloatImmCreate(double value, TsDType dtype, TsPrimExpr* out);
/** A new scalar variable (a loop or block iteration variable): each call makes a distinct
 *  variable, even with the same name (the name is only for printing). */
TS_CAPI_EXPORT TsStatus TsPrimExprVarCreate(TsStringRef name, TsDType dtype, TsPrimExpr* out);
/** `a op b`, its dtype derived (bool for comparisons). Operands of different dtypes, or
 *  AND/OR of non-bool operands, fail with TS_ERROR_TYPE naming both dtypes. */
TS_CAPI_EXPORT TsStatus TsPrimExprBinaryCreate(TsBinaryOp op, TsPrimExpr a, TsPrimExpr b,
                                               TsPrimExpr* out);
/** Logical not of a bool expression (TS_ERROR_TYPE otherwise). */
TS_CAPI_EXPORT TsStatus TsPrimExprNotCreate(TsPrimExpr a, TsPrimExpr* out);
/** `cond ? true_value : false_value` (both sides may be evaluated). `cond` must be bool and
 *  the values of one dtype (TS_ERROR_TYPE otherwise). */
TS_CAPI_EXPORT TsStatus TsPrimExprSelectCreate(TsPrimExpr cond, TsPrimExpr true_value,
                                               TsPrimExpr false_value, TsPrimExpr* out);
/** Conversion of `value` to `dtype`. */
TS_CAPI_EXPORT TsStatus TsPrimExprCastCreate(TsDType dtype, TsPrimExpr value, TsPrimExpr* out);
/** `buffer[indices...]`, of the buffer's dtype. One integer index per dimension
 *  (TS_ERROR_TYPE otherwise); `indices` may be NULL when `num_indices` is 0. */
TS_CAPI_EXPORT TsStatus TsPrimExprBufferLoadCreate(TsBuffer buffer, const TsPrimExpr* indices,
                                                   size_t num_indices, TsPrimExpr* out);
/** A call of the math intrinsic `name` (exp, log, sqrt, rsqrt, tanh, erf, sigmoid, abs,
 *  floor, ceil, round, sin, cos, pow, isnan, fmod) of the arguments' dtype (bool for
 *  isnan). An unknown name fails with TS_ERROR_NOT_FOUND listing the valid ones, a wrong
 *  argument count with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsPrimExprIntrinsicCreate(TsStringRef name, const TsPrimExpr* args,
                                                  size_t num_args, TsPrimExpr* out);

/* ---- Scalar expressions: inspection --------------------------------------------------- */

/** The kind of `expr`. */
TS_CAPI_EXPORT TsStatus TsPrimExprGetKind(TsPrimExpr expr, TsPrimExprKind* out);
/** The scalar dtype of `expr`. */
TS_CAPI_EXPORT TsStatus TsPrimExprGetDType(TsPrimExpr expr, TsDType* out);
/** Prints `expr` in the text format ("%i * 4 + %j") through `callback`. */
TS_CAPI_EXPORT TsStatus TsPrimExprPrint(TsPrimExpr expr, TsStringCallback callback,
                                        void* user_data);
/** A new reference to the same node as `expr` (the same handle value; destroy it too). */
TS_CAPI_EXPORT TsPrimExpr TsPrimExprRetain(TsPrimExpr expr);
/** Releases an expression (NULL is ignored). */
TS_CAPI_EXPORT void TsPrimExprDestroy(TsPrimExpr expr);

/** The value of an integer literal (TS_ERROR_TYPE for another kind). */
TS_CAPI_EXPORT TsStatus TsPrimExprIntImmGetValue(TsPrimExpr expr, int64_t* out);
/** The value of a float literal (TS_ERROR_TYPE for another kind). */
TS_CAPI_EXPORT TsStatus TsPrimExprFloatImmGetValue(TsPrimExpr expr, double* out);
/** The name of a variable (borrowed from it). */
TS_CAPI_EXPORT TsStatus TsPrimExprVarGetName(TsPrimExpr expr, TsStringRef* out);
/** The operator of a binary expression. */
TS_CAPI_EXPORT TsStatus TsPrimExprBinaryGetOp(TsPrimExpr expr, TsBinaryOp* out);
/** The left operand of a binary expression (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprBinaryGetA(TsPrimExpr expr, TsPrimExpr* out);
/** The right operand of a binary expression (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprBinaryGetB(TsPrimExpr expr, TsPrimExpr* out);
/** The operand of a logical not (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprNotGetA(TsPrimExpr expr, TsPrimExpr* out);
/** The condition of a select (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprSelectGetCondition(TsPrimExpr expr, TsPrimExpr* out);
/** The value a select takes when its condition holds (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprSelectGetTrueValue(TsPrimExpr expr, TsPrimExpr* out);
/** The value a select takes otherwise (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprSelectGetFalseValue(TsPrimExpr expr, TsPrimExpr* out);
/** The converted value of a cast (a new reference; the target dtype is the cast's dtype). */
TS_CAPI_EXPORT TsStatus TsPrimExprCastGetValue(TsPrimExpr expr, TsPrimExpr* out);
/** The buffer a load reads (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimExprBufferLoadGetBuffer(TsPrimExpr expr, TsBuffer* out);
/** The number of indices of a load. */
TS_CAPI_EXPORT TsStatus TsPrimExprBufferLoadGetNumIndices(TsPrimExpr expr, size_t* out);
/** Index `index` of a load (a new reference; TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsPrimExprBufferLoadGetIndex(TsPrimExpr expr, size_t index,
                                                     TsPrimExpr* out);
/** The name of an intrinsic call (borrowed from it). */
TS_CAPI_EXPORT TsStatus TsPrimExprIntrinsicGetName(TsPrimExpr expr, TsStringRef* out);
/** The number of arguments of an intrinsic call. */
TS_CAPI_EXPORT TsStatus TsPrimExprIntrinsicGetNumArgs(TsPrimExpr expr, size_t* out);
/** Argument `index` of an intrinsic call (a new reference; TS_ERROR_VALUE when out of
 *  range). */
TS_CAPI_EXPORT TsStatus TsPrimExprIntrinsicGetArg(TsPrimExpr expr, size_t index, TsPrimExpr* out);

/* ---- Buffers ------------------------------------------------------------------------ */

/** A new dense row-major buffer of static `shape` (`ndim` dimensions; `shape` may be NULL
 *  when `ndim` is 0). Each call makes a distinct buffer. A negative dimension fails with
 *  TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsBufferCreate(TsStringRef name, const int64_t* shape, size_t ndim,
                                       TsDType dtype, TsBuffer* out);
/** The name of a buffer (borrowed from it). */
TS_CAPI_EXPORT TsStatus TsBufferGetName(TsBuffer buffer, TsStringRef* out);
/** The shape of a buffer: `*shape` is borrowed from it (valid while it lives; NULL when
 *  `*ndim` is 0 is allowed). Either out pointer may be NULL. */
TS_CAPI_EXPORT TsStatus TsBufferGetShape(TsBuffer buffer, const int64_t** shape, size_t* ndim);
/** The element dtype of a buffer. */
TS_CAPI_EXPORT TsStatus TsBufferGetDType(TsBuffer buffer, TsDType* out);
/** A new reference to the same node as `buffer` (the same handle value; destroy it too). */
TS_CAPI_EXPORT TsBuffer TsBufferRetain(TsBuffer buffer);
/** Releases a buffer (NULL is ignored). */
TS_CAPI_EXPORT void TsBufferDestroy(TsBuffer buffer);

/* ---- Statements: builders -------------------------------------------------------------- */

/** `for loop_var in [min, min + extent): body`; `loop_var` must be a variable
 *  (TS_ERROR_TYPE otherwise) and `kind` a TsForKind (TS_ERROR_VALUE otherwise). */
TS_CAPI_EXPORT TsStatus TsStmtForCreate(TsPrimExpr loop_var, TsPrimExpr min, TsPrimExpr extent,
                                        TsForKind kind, TsStmt body, TsStmt* out);
/** `buffer[indices...] = value`: one index per dimension and a value of the buffer's dtype
 *  (TS_ERROR_TYPE otherwise). */
TS_CAPI_EXPORT TsStatus TsStmtBufferStoreCreate(TsBuffer buffer, TsPrimExpr value,
                                                const TsPrimExpr* indices, size_t num_indices,
                                                TsStmt* out);
/** A prefetch hint of `buffer[indices...]`: one integer index per dimension
 *  (TS_ERROR_TYPE otherwise), not bounds-checked (the address may lie outside the buffer). */
TS_CAPI_EXPORT TsStatus TsStmtPrefetchCreate(TsBuffer buffer, const TsPrimExpr* indices,
                                             size_t num_indices, TsStmt* out);
/** The statements in order, flattened: a sequence among them contributes its statements,
 *  and a single statement is returned as itself (so equal programs have one form).
 *  `stmts` may be NULL when `num_stmts` is 0 (an empty sequence). */
TS_CAPI_EXPORT TsStatus TsStmtSeqCreate(const TsStmt* stmts, size_t num_stmts, TsStmt* out);
/** Allocates the scratch `buffer`, live during `body`, zero-filled. */
TS_CAPI_EXPORT TsStatus TsStmtAllocateCreate(TsBuffer buffer, TsStmt body, TsStmt* out);
/** As TsStmtAllocateCreate; `zero_fill` 0 leaves the contents undefined until `body`
 *  writes them (no fill at run time). */
TS_CAPI_EXPORT TsStatus TsStmtAllocateCreateWithFill(TsBuffer buffer, TsStmt body, int zero_fill,
                                                     TsStmt* out);
/** `if (cond) then_case else else_case`; `cond` must be bool (TS_ERROR_TYPE otherwise);
 *  `else_case` may be NULL (no else). */
TS_CAPI_EXPORT TsStatus TsStmtIfThenElseCreate(TsPrimExpr cond, TsStmt then_case, TsStmt else_case,
                                               TsStmt* out);

/** A half-open interval [min, min + extent). Given to the library, both are borrowed. */
typedef struct TsRange {
  TsPrimExpr min;
  TsPrimExpr extent;
} TsRange;

/** The part of `buffer` a block reads or writes: one range per dimension (`ranges` and the
 *  handles in it are borrowed). */
typedef struct TsBufferRegion {
  TsBuffer buffer;
  const TsRange* ranges;
  size_t num_ranges;
} TsBufferRegion;

/** A block iteration variable: the variable `var` ranges over `dom`, is a spatial or a
 *  reduction axis, and is bound to `binding` (in terms of the enclosing loop variables).
 *  Given to the library the handles are borrowed; filled by TsStmtBlockGetIterVar they are
 *  new references the caller destroys (var, dom.min, dom.extent, binding). */
typedef struct TsIterVar {
  TsPrimExpr var;
  TsRange dom;
  TsIterKind kind;
  TsPrimExpr binding;
} TsIterVar;

/** A named block: its iteration variables, the regions it reads and writes (what layout
 *  planning reads), an optional `init` (NULL for none) run before `body` when every reduce
 *  iteration variable is at its domain's minimum, and `body`. Arrays may be NULL when
 *  their count is 0; every handle in them is required (TS_ERROR_VALUE naming the
 *  entry), an iteration variable's `var` must be a variable (TS_ERROR_TYPE). */
TS_CAPI_EXPORT TsStatus TsStmtBlockCreate(TsStringRef name, const TsIterVar* iter_vars,
                                          size_t num_iter_vars, const TsBufferRegion* reads,
                                          size_t num_reads, const TsBufferRegion* writes,
                                          size_t num_writes, TsStmt init, TsStmt body, TsStmt* out);

/* ---- Statements: inspection ------------------------------------------------------------ */

/** The kind of `stmt`. */
TS_CAPI_EXPORT TsStatus TsStmtGetKind(TsStmt stmt, TsStmtKind* out);
/** Prints `stmt` in the text format (indented lines) through `callback`. */
TS_CAPI_EXPORT TsStatus TsStmtPrint(TsStmt stmt, TsStringCallback callback, void* user_data);
/** A new reference to the same node as `stmt` (the same handle value; destroy it too). */
TS_CAPI_EXPORT TsStmt TsStmtRetain(TsStmt stmt);
/** Releases a statement (NULL is ignored). */
TS_CAPI_EXPORT void TsStmtDestroy(TsStmt stmt);

/** A loop's variable (a new reference; TS_ERROR_TYPE when `stmt` is not a loop). */
TS_CAPI_EXPORT TsStatus TsStmtForGetLoopVar(TsStmt stmt, TsPrimExpr* out);
/** A loop's first value (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtForGetMin(TsStmt stmt, TsPrimExpr* out);
/** A loop's iteration count (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtForGetExtent(TsStmt stmt, TsPrimExpr* out);
/** A loop's kind. */
TS_CAPI_EXPORT TsStatus TsStmtForGetKind(TsStmt stmt, TsForKind* out);
/** A loop's body (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtForGetBody(TsStmt stmt, TsStmt* out);

/** The buffer a store writes (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtBufferStoreGetBuffer(TsStmt stmt, TsBuffer* out);
/** The value a store writes (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtBufferStoreGetValue(TsStmt stmt, TsPrimExpr* out);
/** The number of indices of a store. */
TS_CAPI_EXPORT TsStatus TsStmtBufferStoreGetNumIndices(TsStmt stmt, size_t* out);
/** Index `index` of a store (a new reference; TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsStmtBufferStoreGetIndex(TsStmt stmt, size_t index, TsPrimExpr* out);

/** The buffer a prefetch names (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtPrefetchGetBuffer(TsStmt stmt, TsBuffer* out);
/** The number of indices of a prefetch. */
TS_CAPI_EXPORT TsStatus TsStmtPrefetchGetNumIndices(TsStmt stmt, size_t* out);
/** Index `index` of a prefetch (a new reference; TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsStmtPrefetchGetIndex(TsStmt stmt, size_t index, TsPrimExpr* out);

/** The number of statements of a sequence. */
TS_CAPI_EXPORT TsStatus TsStmtSeqGetNumStmts(TsStmt stmt, size_t* out);
/** Statement `index` of a sequence (a new reference; TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsStmtSeqGetStmt(TsStmt stmt, size_t index, TsStmt* out);

/** The scratch buffer an allocation introduces (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtAllocateGetBuffer(TsStmt stmt, TsBuffer* out);
/** The body during which an allocation's buffer lives (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtAllocateGetBody(TsStmt stmt, TsStmt* out);
/** Whether an allocation is zero-filled (1) or left undefined until written (0). */
TS_CAPI_EXPORT TsStatus TsStmtAllocateGetZeroFill(TsStmt stmt, int* out);

/** A branch's condition (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtIfThenElseGetCondition(TsStmt stmt, TsPrimExpr* out);
/** The statement a branch runs when its condition holds (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtIfThenElseGetThen(TsStmt stmt, TsStmt* out);
/** The statement a branch runs otherwise (a new reference; NULL, with TS_OK, for a branch
 *  without else). */
TS_CAPI_EXPORT TsStatus TsStmtIfThenElseGetElse(TsStmt stmt, TsStmt* out);

/** A block's name (borrowed from it). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetName(TsStmt stmt, TsStringRef* out);
/** A block's init (a new reference; NULL, with TS_OK, when it has none). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetInit(TsStmt stmt, TsStmt* out);
/** A block's body (a new reference). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetBody(TsStmt stmt, TsStmt* out);
/** The number of iteration variables of a block. */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetNumIterVars(TsStmt stmt, size_t* out);
/** Iteration variable `index` of a block; the four handles in `*out` are new references
 *  (TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetIterVar(TsStmt stmt, size_t index, TsIterVar* out);
/** The number of regions a block reads. */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetNumReads(TsStmt stmt, size_t* out);
/** The number of regions a block writes. */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetNumWrites(TsStmt stmt, size_t* out);
/** Read region `index` of a block: its buffer (a new reference) and number of ranges;
 *  either out pointer may be NULL (TS_ERROR_VALUE when `index` is out of range). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetRead(TsStmt stmt, size_t index, TsBuffer* buffer,
                                           size_t* num_ranges);
/** Write region `index` of a block, as TsStmtBlockGetRead. */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetWrite(TsStmt stmt, size_t index, TsBuffer* buffer,
                                            size_t* num_ranges);
/** Range `dim` of read region `index` of a block: new references to its minimum and extent
 *  in `*out`, which the caller destroys (TS_ERROR_VALUE when either index is out of
 *  range). */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetReadRange(TsStmt stmt, size_t index, size_t dim,
                                                TsRange* out);
/** Range `dim` of write region `index` of a block, as TsStmtBlockGetReadRange. */
TS_CAPI_EXPORT TsStatus TsStmtBlockGetWriteRange(TsStmt stmt, size_t index, size_t dim,
                                                 TsRange* out);

/* ---- PrimFuncs ---------------------------------------------------------------------- */

/* A PrimFunc is a graph-level expression (a TsExpr, like a graph function): a module holds
 * it beside graph functions, which call it with call_tir. The functions below fail with
 * TS_ERROR_TYPE when given an expression that is not a PrimFunc. */

/** A PrimFunc with destination passing: `params` are the input buffers followed by the
 *  `num_outputs` output buffers the body writes (1 <= num_outputs <= num_params, otherwise
 *  TS_ERROR_VALUE). `attrs` (may be NULL when `num_attrs` is 0) become the function's
 *  attributes. `*out` is a new expression reference. */
TS_CAPI_EXPORT TsStatus TsPrimFuncCreate(const TsBuffer* params, size_t num_params, TsStmt body,
                                         int num_outputs, const TsNamedAttribute* attrs,
                                         size_t num_attrs, TsExpr* out);
/** How many trailing parameters are outputs. */
TS_CAPI_EXPORT TsStatus TsPrimFuncGetNumOutputs(TsExpr func, int* out);
/** The number of parameters (inputs, then outputs). */
TS_CAPI_EXPORT TsStatus TsPrimFuncGetNumParams(TsExpr func, size_t* out);
/** Parameter buffer `index` (a new reference; TS_ERROR_VALUE when out of range). */
TS_CAPI_EXPORT TsStatus TsPrimFuncGetParam(TsExpr func, size_t index, TsBuffer* out);
/** The body (a new reference). */
TS_CAPI_EXPORT TsStatus TsPrimFuncGetBody(TsExpr func, TsStmt* out);
/** A copy of `func` with another body (same buffers, outputs and attributes); `*out` is a
 *  new expression reference. */
TS_CAPI_EXPORT TsStatus TsPrimFuncWithBody(TsExpr func, TsStmt body, TsExpr* out);
/** Prints `func` as module text holding it alone as @`name` (an empty name prints it as
 *  @func): text the module parser reads back, to which graph functions calling it can be
 *  appended. */
TS_CAPI_EXPORT TsStatus TsPrimFuncPrint(TsExpr func, TsStringRef name, TsStringCallback callback,
                                        void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_TIR_H_ */
