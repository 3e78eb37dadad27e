/* Tessera's C API for the IR: types, attributes, expressions, functions and modules;
 * text and JSON, structural equality, type inference and the reference interpreter. */
#ifndef TESSERA_C_API_IR_H_
#define TESSERA_C_API_IR_H_

#include "tessera/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handles to IR nodes are references to reference-counted nodes whose structure never
 * changes (type inference only fills in their checked type, a cache shared by every module
 * holding the node). A handle a function returns is a new reference the caller owns and
 * releases with the matching Ts*Destroy; a handle passed in is borrowed for the call, and
 * a handle a callback hands back must be a new reference (Ts*Retain its argument to return
 * it unchanged). Two handles to the same node compare equal as pointers: that is identity (Python's
 * `same_as`, `is`), and the pointer is the identity hash.
 *
 * Conventions of this header: every function that can fail returns a TsStatus and writes
 * its results through out-parameters (last); a NULL handle or out pointer fails with
 * TS_ERROR_INVALID_ARGUMENT, a handle of the wrong kind (a tuple where a call is expected)
 * with TS_ERROR_TYPE, an index out of range with TS_ERROR_VALUE and an unknown name with
 * TS_ERROR_NOT_FOUND; TsGetLastError() says what and where. Strings in are TsStringRef
 * (copied; `data` may be NULL only when `length` is 0). Strings out are borrowed
 * TsStringRef when a node owns them (valid while the node lives) and TsStringCallback
 * calls for computed text. Arrays in are a pointer and a count (the pointer may be NULL
 * when the count is 0; a NULL entry, or a NULL pointer with a nonzero count, fails with
 * TS_ERROR_VALUE naming the entry); arrays out are a GetNum / Get(index) pair. */
typedef struct TsType_* TsType;           /**< a type: tensor, tuple or function */
typedef struct TsExpr_* TsExpr;           /**< a graph-level expression (functions included) */
typedef struct TsAttribute_* TsAttribute; /**< an attribute value (none, bool, int, ...) */
typedef struct TsModule_* TsModule;       /**< an IRModule */

/** One entry of an attribute dictionary (call, function and module attributes): a name and
 *  a value. Given to the library, both are borrowed; received from it, `name` is borrowed
 *  from the node and `value` is a new TsAttribute the caller destroys. */
typedef struct TsNamedAttribute {
  TsStringRef name;
  TsAttribute value;
} TsNamedAttribute;

/* ---- Element types ------------------------------------------------------------------ */

/** The dtype named `name` ("float32", "int64", "bool", ...); an unknown name fails with
 *  TS_ERROR_VALUE listing the known ones. */
TS_CAPI_EXPORT TsStatus TsDTypeFromName(TsStringRef name, TsDType* out);
/** The canonical name of `dtype` ("float32"; static storage). A dtype Tessera does not
 *  have fails with TS_ERROR_UNSUPPORTED. */
TS_CAPI_EXPORT TsStatus TsDTypeGetName(TsDType dtype, const char** out);

/* ---- Types -------------------------------------------------------------------------- */

/** What a type is. */
typedef enum TsTypeKind {
  TS_TYPE_TENSOR = 0, /**< a tensor of static shape and dtype */
  TS_TYPE_TUPLE = 1,  /**< a tuple of types */
  TS_TYPE_FUNC = 2, /**< a function type */
  TS_TYPE_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_TYPE_KIND_MAX_ENUM = 0x7FFFFFFF
} TsTypeKind;

/** A tensor type `Tensor[shape, dtype]` (`ndim` 0 is a scalar; `shape` is copied). A
 *  negative dimension fails with TS_ERROR_VALUE. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsTypeTensorCreate(const int64_t* shape, size_t ndim, TsDType dtype,
                                           TsType* out);
/** A tuple type of `fields` (borrowed; none may be NULL). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsTypeTupleCreate(const TsType* fields, size_t num_fields, TsType* out);
/** A function type from `arg_types` to `ret_type` (borrowed; none may be NULL). `*out` is
 *  new. */
TS_CAPI_EXPORT TsStatus TsTypeFuncCreate(const TsType* arg_types, size_t num_args, TsType ret_type,
                                         TsType* out);
/** The kind of `type`. */
TS_CAPI_EXPORT TsStatus TsTypeGetKind(TsType type, TsTypeKind* out);
/** A tensor type's shape (borrowed from the type, valid while it lives) and rank. */
TS_CAPI_EXPORT TsStatus TsTensorTypeGetShape(TsType type, const int64_t** shape, size_t* ndim);
/** A tensor type's dtype. */
TS_CAPI_EXPORT TsStatus TsTensorTypeGetDType(TsType type, TsDType* out);
/** The number of fields of a tuple type. */
TS_CAPI_EXPORT TsStatus TsTupleTypeGetNumFields(TsType type, size_t* out);
/** Field `index` of a tuple type (new). */
TS_CAPI_EXPORT TsStatus TsTupleTypeGetField(TsType type, size_t index, TsType* out);
/** The number of parameter types of a function type. */
TS_CAPI_EXPORT TsStatus TsFuncTypeGetNumArgs(TsType type, size_t* out);
/** Parameter type `index` of a function type (new). */
TS_CAPI_EXPORT TsStatus TsFuncTypeGetArg(TsType type, size_t index, TsType* out);
/** The result type of a function type (new). */
TS_CAPI_EXPORT TsStatus TsFuncTypeGetRetType(TsType type, TsType* out);
/** Prints `type` in the text format (`Tensor[(1, 3), float32]`) through `callback`. */
TS_CAPI_EXPORT TsStatus TsTypePrint(TsType type, TsStringCallback callback, void* user_data);
/** `*out` is 1 when `a` and `b` are structurally equal types, else 0. */
TS_CAPI_EXPORT TsStatus TsTypeEqual(TsType a, TsType b, int* out);
/** A hash of `type` consistent with TsTypeEqual. */
TS_CAPI_EXPORT TsStatus TsTypeHash(TsType type, uint64_t* out);
/** A new reference to the same node as `type` (the same handle value; destroy it too). */
TS_CAPI_EXPORT TsType TsTypeRetain(TsType type);
/** Releases a type (NULL is ignored). */
TS_CAPI_EXPORT void TsTypeDestroy(TsType type);

/* ---- Attribute values --------------------------------------------------------------- */

/** What an attribute value holds. */
typedef enum TsAttributeKind {
  TS_ATTRIBUTE_NONE = 0,
  TS_ATTRIBUTE_BOOL = 1,
  TS_ATTRIBUTE_INT = 2,   /**< a 64-bit signed integer */
  TS_ATTRIBUTE_FLOAT = 3, /**< a double */
  TS_ATTRIBUTE_STRING = 4,
  TS_ATTRIBUTE_ARRAY = 5, /**< an array of attribute values (arrays nest) */
  TS_ATTRIBUTE_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_ATTRIBUTE_KIND_MAX_ENUM = 0x7FFFFFFF
} TsAttributeKind;

/* Attribute values are small owned values, not nodes: each Create gives a new
 * TsAttribute the caller releases with TsAttributeDestroy. */

/** The None value (an optional attribute left unset). */
TS_CAPI_EXPORT TsStatus TsAttributeNoneCreate(TsAttribute* out);
/** A bool (any nonzero `value` is true). */
TS_CAPI_EXPORT TsStatus TsAttributeBoolCreate(int value, TsAttribute* out);
/** An integer. */
TS_CAPI_EXPORT TsStatus TsAttributeIntCreate(int64_t value, TsAttribute* out);
/** A float. */
TS_CAPI_EXPORT TsStatus TsAttributeFloatCreate(double value, TsAttribute* out);
/** A string (copied). */
TS_CAPI_EXPORT TsStatus TsAttributeStringCreate(TsStringRef value, TsAttribute* out);
/** An array of copies of `items` (borrowed; none may be NULL). */
TS_CAPI_EXPORT TsStatus TsAttributeArrayCreate(const TsAttribute* items, size_t num_items,
                                               TsAttribute* out);
/** An array of integers (strides=[2, 2]): the common case without building each item. */
TS_CAPI_EXPORT TsStatus TsAttributeIntArrayCreate(const int64_t* values, size_t num_values,
                                                  TsAttribute* out);
/** The kind of `attribute`. */
TS_CAPI_EXPORT TsStatus TsAttributeGetKind(TsAttribute attribute, TsAttributeKind* out);
/** A bool's value (0 or 1); another kind fails with TS_ERROR_TYPE (as do the getters
 *  below for kinds other than theirs). */
TS_CAPI_EXPORT TsStatus TsAttributeGetBool(TsAttribute attribute, int* out);
/** An integer's value. */
TS_CAPI_EXPORT TsStatus TsAttributeGetInt(TsAttribute attribute, int64_t* out);
/** A float's value (a float only: ints are not converted, so the kind round-trips). */
TS_CAPI_EXPORT TsStatus TsAttributeGetFloat(TsAttribute attribute, double* out);
/** A string's value, borrowed from the attribute (valid while it lives). */
TS_CAPI_EXPORT TsStatus TsAttributeGetString(TsAttribute attribute, TsStringRef* out);
/** The number of items of an array. */
TS_CAPI_EXPORT TsStatus TsAttributeGetNumItems(TsAttribute attribute, size_t* out);
/** Item `index` of an array, as a new attribute. */
TS_CAPI_EXPORT TsStatus TsAttributeGetItem(TsAttribute attribute, size_t index, TsAttribute* out);
/** `*out` is 1 when the two values are equal (floats by bit pattern, arrays item-wise). */
TS_CAPI_EXPORT TsStatus TsAttributeEqual(TsAttribute a, TsAttribute b, int* out);
/** Prints the value as the text format does (1, 1.5f, "NCHW", True, None, [1, 2]). */
TS_CAPI_EXPORT TsStatus TsAttributePrint(TsAttribute attribute, TsStringCallback callback,
                                         void* user_data);
/** Releases an attribute value (NULL is ignored). */
TS_CAPI_EXPORT void TsAttributeDestroy(TsAttribute attribute);

/* ---- Expressions: common ------------------------------------------------------------ */

/** What an expression is. */
typedef enum TsExprKind {
  TS_EXPR_VAR = 0,            /**< a local variable (parameter or let-bound) */
  TS_EXPR_GLOBAL_VAR = 1,     /**< a reference to a module function by name */
  TS_EXPR_CONSTANT = 2,       /**< a constant tensor */
  TS_EXPR_OP = 3,             /**< a primitive operator */
  TS_EXPR_CALL = 4,           /**< a call of an op or a function */
  TS_EXPR_TUPLE = 5,          /**< a tuple of values */
  TS_EXPR_TUPLE_GET_ITEM = 6, /**< a projection out of a tuple */
  TS_EXPR_LET = 7,            /**< let var = value; body */
  TS_EXPR_FUNCTION = 8,       /**< a graph-level function */
  TS_EXPR_PRIM_FUNC = 9, /**< a tensor-level function (see c_api_tir.h) */
  TS_EXPR_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_EXPR_KIND_MAX_ENUM = 0x7FFFFFFF
} TsExprKind;

/** The kind of `expr`. */
TS_CAPI_EXPORT TsStatus TsExprGetKind(TsExpr expr, TsExprKind* out);
/** The type inferred for `expr` (new), or NULL when type inference has not typed it
 *  (run TsModuleInferTypes and take expressions from the result). */
TS_CAPI_EXPORT TsStatus TsExprGetCheckedType(TsExpr expr, TsType* out);
/** Prints `expr` in the text format (ending with a newline); `show_types` nonzero adds
 *  `/ * ty=... * /` comments where types are inferred. */
TS_CAPI_EXPORT TsStatus TsExprPrint(TsExpr expr, int show_types, TsStringCallback callback,
                                    void* user_data);
/** Parses one graph expression (free variables must be declared as function parameters
 *  in `text`); errors name `source_name`, line and column. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsExprParse(TsStringRef text, TsStringRef source_name, TsExpr* out);
/** `*out` is 1 when `a` and `b` have the same structure: bound variables compare by
 *  binding position; free variables must be the same node unless `map_free_vars` is
 *  nonzero (then they match by first occurrence); checked types are ignored. */
TS_CAPI_EXPORT TsStatus TsExprStructuralEqual(TsExpr a, TsExpr b, int map_free_vars, int* out);
/** A hash of `expr` consistent with TsExprStructuralEqual. */
TS_CAPI_EXPORT TsStatus TsExprStructuralHash(TsExpr expr, uint64_t* out);
/** Describes the first structural difference between `a` and `b` through `callback`;
 *  when they are equal the callback is not called. */
TS_CAPI_EXPORT TsStatus TsExprStructuralDiff(TsExpr a, TsExpr b, int map_free_vars,
                                             TsStringCallback callback, void* user_data);
/** A new reference to `expr` (the same pointer; NULL gives NULL), so a callback can keep or
 *  return an expression it was lent (a function pass returning its function unchanged).
 *  The caller releases it with TsExprDestroy. Never fails. */
TS_CAPI_EXPORT TsExpr TsExprRetain(TsExpr expr);
/** Releases an expression (NULL is ignored). */
TS_CAPI_EXPORT void TsExprDestroy(TsExpr expr);

/* ---- Variables, globals, constants -------------------------------------------------- */

/** A fresh local variable. `type_annotation` may be NULL (let-bound variables, types left
 *  to inference). Every call makes a distinct variable, even with the same name. */
TS_CAPI_EXPORT TsStatus TsExprVarCreate(TsStringRef name_hint, TsType type_annotation, TsExpr* out);
/** A variable's name hint (borrowed from the node). */
TS_CAPI_EXPORT TsStatus TsVarGetName(TsExpr var, TsStringRef* out);
/** A variable's type annotation (new), or NULL when it has none. */
TS_CAPI_EXPORT TsStatus TsVarGetTypeAnnotation(TsExpr var, TsType* out);
/** A reference to the module function `name`. */
TS_CAPI_EXPORT TsStatus TsExprGlobalVarCreate(TsStringRef name, TsExpr* out);
/** A global variable's function name (borrowed from the node). */
TS_CAPI_EXPORT TsStatus TsGlobalVarGetName(TsExpr global_var, TsStringRef* out);
/** A constant holding a copy of `data`'s elements (the constant never aliases caller
 *  memory, so `data` may be changed or destroyed afterwards). */
TS_CAPI_EXPORT TsStatus TsExprConstantCreate(TsNDArray data, TsExpr* out);
/** A constant's data as a new tensor that SHARES the constant's memory (no copy; it keeps
 *  the memory alive after the constant is destroyed). The caller must not write to it:
 *  constants are immutable, and equal modules may share them. Its dtype and shape are
 *  the constant's (TsNDArrayGetInfo). */
TS_CAPI_EXPORT TsStatus TsConstantGetData(TsExpr constant, TsNDArray* out);

/* ---- Ops and the op registry -------------------------------------------------------- */

/** How an op composes under fusion (the values are TVM's OpPatternKind). */
typedef enum TsOpPatternKind {
  TS_OP_PATTERN_ELEMWISE = 0,
  TS_OP_PATTERN_BROADCAST = 1,
  TS_OP_PATTERN_INJECTIVE = 2,
  TS_OP_PATTERN_COMM_REDUCE = 3,
  TS_OP_PATTERN_OUT_ELEMWISE_FUSABLE = 4,
  TS_OP_PATTERN_TUPLE = 7,
  TS_OP_PATTERN_OPAQUE = 8,
  TS_OP_PATTERN_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_OP_PATTERN_KIND_MAX_ENUM = 0x7FFFFFFF
} TsOpPatternKind;

/** The value kinds an op attribute accepts. */
typedef enum TsOpAttrType {
  TS_OP_ATTR_INT = 0,
  TS_OP_ATTR_FLOAT = 1,
  TS_OP_ATTR_BOOL = 2,
  TS_OP_ATTR_STRING = 3,
  TS_OP_ATTR_INT_ARRAY = 4,          /**< [1, 2] */
  TS_OP_ATTR_NESTED_INT_ARRAY = 5,   /**< [[0, 0], [1, 1]] */
  TS_OP_ATTR_OPTIONAL_INT = 6,       /**< int or None */
  TS_OP_ATTR_OPTIONAL_INT_ARRAY = 7, /**< int array or None */
  TS_OP_ATTR_INT_OR_INT_ARRAY = 8,   /**< an int or an int array, kept as given */
  TS_OP_ATTR_OPTIONAL_FLOAT = 9, /**< number or None */
  TS_OP_ATTR_TYPE_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_OP_ATTR_TYPE_MAX_ENUM = 0x7FFFFFFF
} TsOpAttrType;

/** One attribute of an op's schema. Strings are borrowed from the registry (valid for the
 *  life of the process); `default_value` is a new attribute the caller destroys. */
typedef struct TsOpAttrSchema {
  TsStringRef name;
  TsOpAttrType type;
  TsAttribute default_value; /**< None for a required attribute or an unset optional one */
  int required;              /**< 1 when a call must give it */
  TsStringRef description;
} TsOpAttrSchema;

/** Calls `callback` once per registered op name, sorted. */
TS_CAPI_EXPORT TsStatus TsOpListNames(TsStringCallback callback, void* user_data);
/** The op named `name` (ops are interned: the same name gives the same node). An unknown
 *  name fails with TS_ERROR_NOT_FOUND. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsOpGet(TsStringRef name, TsExpr* out);
/** An op's name (borrowed from the registry). */
TS_CAPI_EXPORT TsStatus TsOpGetName(TsExpr op, TsStringRef* out);
/** An op's one-line description (borrowed from the registry). */
TS_CAPI_EXPORT TsStatus TsOpGetDescription(TsExpr op, TsStringRef* out);
/** The number of named inputs of an op (its arity unless variadic). */
TS_CAPI_EXPORT TsStatus TsOpGetNumInputs(TsExpr op, size_t* out);
/** The name of input `index` (borrowed from the registry). */
TS_CAPI_EXPORT TsStatus TsOpGetInputName(TsExpr op, size_t index, TsStringRef* out);
/** `*out` is 1 when the op accepts any number (at least its named inputs) of inputs. */
TS_CAPI_EXPORT TsStatus TsOpIsVariadic(TsExpr op, int* out);
/** The op's fusion pattern kind. */
TS_CAPI_EXPORT TsStatus TsOpGetPattern(TsExpr op, TsOpPatternKind* out);
/** The name of a pattern kind ("elemwise", "out_elemwise_fusable", ...; static storage;
 *  "unknown" for a value outside the enum). Never fails. */
TS_CAPI_EXPORT const char* TsOpPatternKindGetName(TsOpPatternKind kind);
/** The number of attributes in the op's schema. */
TS_CAPI_EXPORT TsStatus TsOpGetNumAttrs(TsExpr op, size_t* out);
/** Attribute `index` of the op's schema (in the order calls print them). */
TS_CAPI_EXPORT TsStatus TsOpGetAttrSchema(TsExpr op, size_t index, TsOpAttrSchema* out);
/** The key of an attribute type ("int", "int_array", "optional_float", ...; static
 *  storage; "unknown" outside the enum). Never fails. */
TS_CAPI_EXPORT const char* TsOpAttrTypeGetName(TsOpAttrType type);

/* ---- Calls -------------------------------------------------------------------------- */

/** A call of `callee` on `args` with attributes and extra type arguments (call_tir's
 *  output type); all borrowed. When `callee` is an op the call is checked and normalised
 *  as every op call is (arity; attribute names and kinds against the op's schema,
 *  defaults filled in, canonical forms such as 4-element padding): a wrong number of
 *  arguments fails with TS_ERROR_TYPE, a bad attribute with TS_ERROR_VALUE, each naming
 *  the op (and attribute). Other callees (global variables,
 *  functions, variables) are taken as they are. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsExprCallCreate(TsExpr callee, const TsExpr* args, size_t num_args,
                                         const TsNamedAttribute* attrs, size_t num_attrs,
                                         const TsType* type_args, size_t num_type_args,
                                         TsExpr* out);
/** The same for the op named `op_name` (TS_ERROR_NOT_FOUND for an unknown op). */
TS_CAPI_EXPORT TsStatus TsExprOpCallCreate(TsStringRef op_name, const TsExpr* args, size_t num_args,
                                           const TsNamedAttribute* attrs, size_t num_attrs,
                                           const TsType* type_args, size_t num_type_args,
                                           TsExpr* out);
/** The callee of a call (new): an op, a global variable or another expression. */
TS_CAPI_EXPORT TsStatus TsCallGetCallee(TsExpr call, TsExpr* out);
/** The number of arguments of a call. */
TS_CAPI_EXPORT TsStatus TsCallGetNumArgs(TsExpr call, size_t* out);
/** Argument `index` of a call (new). */
TS_CAPI_EXPORT TsStatus TsCallGetArg(TsExpr call, size_t index, TsExpr* out);
/** The number of attributes of a call (an op call has every schema attribute). */
TS_CAPI_EXPORT TsStatus TsCallGetNumAttrs(TsExpr call, size_t* out);
/** Attribute `index` of a call: the name is borrowed from the call, the value is new. */
TS_CAPI_EXPORT TsStatus TsCallGetAttr(TsExpr call, size_t index, TsNamedAttribute* out);
/** The value of the call's attribute `name` (new); TS_ERROR_NOT_FOUND when absent. */
TS_CAPI_EXPORT TsStatus TsCallLookupAttr(TsExpr call, TsStringRef name, TsAttribute* out);
/** The number of type arguments of a call. */
TS_CAPI_EXPORT TsStatus TsCallGetNumTypeArgs(TsExpr call, size_t* out);
/** Type argument `index` of a call (new). */
TS_CAPI_EXPORT TsStatus TsCallGetTypeArg(TsExpr call, size_t index, TsType* out);

/* ---- Tuples and lets ---------------------------------------------------------------- */

/** A tuple of `fields` (borrowed; none may be NULL). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsExprTupleCreate(const TsExpr* fields, size_t num_fields, TsExpr* out);
/** The number of fields of a tuple. */
TS_CAPI_EXPORT TsStatus TsTupleGetNumFields(TsExpr tuple, size_t* out);
/** Field `index` of a tuple (new). */
TS_CAPI_EXPORT TsStatus TsTupleGetField(TsExpr tuple, size_t index, TsExpr* out);
/** Field `index` of the tuple-valued `tuple` (a negative index fails with TS_ERROR_VALUE;
 *  one past the tuple's size is found by type inference). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsExprTupleGetItemCreate(TsExpr tuple, int index, TsExpr* out);
/** The tuple a projection reads (new). */
TS_CAPI_EXPORT TsStatus TsTupleGetItemGetTuple(TsExpr item, TsExpr* out);
/** The field index a projection reads. */
TS_CAPI_EXPORT TsStatus TsTupleGetItemGetIndex(TsExpr item, int* out);
/** `let var = value; body` (all borrowed, none NULL; `var` must be a variable). */
TS_CAPI_EXPORT TsStatus TsExprLetCreate(TsExpr var, TsExpr value, TsExpr body, TsExpr* out);
/** The variable a let binds (new). */
TS_CAPI_EXPORT TsStatus TsLetGetVar(TsExpr let, TsExpr* out);
/** The value a let binds (new). */
TS_CAPI_EXPORT TsStatus TsLetGetValue(TsExpr let, TsExpr* out);
/** The body of a let (new). */
TS_CAPI_EXPORT TsStatus TsLetGetBody(TsExpr let, TsExpr* out);

/* ---- Functions ---------------------------------------------------------------------- */

/** A graph function of `params` (variables) computing `body`. `ret_type` may be NULL
 *  (type inference fills it). `attrs` are its attributes (Primitive, Composite,
 *  Compiler, global_symbol, ...). All borrowed; `*out` is new. */
TS_CAPI_EXPORT TsStatus TsExprFunctionCreate(const TsExpr* params, size_t num_params, TsExpr body,
                                             TsType ret_type, const TsNamedAttribute* attrs,
                                             size_t num_attrs, TsExpr* out);
/** The number of parameters of a function. */
TS_CAPI_EXPORT TsStatus TsFunctionGetNumParams(TsExpr function, size_t* out);
/** Parameter `index` of a function (a variable; new). */
TS_CAPI_EXPORT TsStatus TsFunctionGetParam(TsExpr function, size_t index, TsExpr* out);
/** The body of a function (new). */
TS_CAPI_EXPORT TsStatus TsFunctionGetBody(TsExpr function, TsExpr* out);
/** The declared result type of a function (new), or NULL when not declared or inferred. */
TS_CAPI_EXPORT TsStatus TsFunctionGetRetType(TsExpr function, TsType* out);
/** A copy of `function` with attribute `key` set to `value` (borrowed; NULL is None).
 *  `*out` is new; `function` is unchanged. */
TS_CAPI_EXPORT TsStatus TsFunctionWithAttr(TsExpr function, TsStringRef key, TsAttribute value,
                                           TsExpr* out);
/** The number of attributes of a function or PrimFunc (TS_EXPR_FUNCTION or
 *  TS_EXPR_PRIM_FUNC; other kinds fail with TS_ERROR_TYPE). */
TS_CAPI_EXPORT TsStatus TsBaseFuncGetNumAttrs(TsExpr func, size_t* out);
/** Attribute `index` of a function or PrimFunc, in insertion order: the name is borrowed
 *  from the function, the value is new. */
TS_CAPI_EXPORT TsStatus TsBaseFuncGetAttr(TsExpr func, size_t index, TsNamedAttribute* out);
/** The value of a function's or PrimFunc's attribute `name` (new); TS_ERROR_NOT_FOUND when
 *  absent. */
TS_CAPI_EXPORT TsStatus TsBaseFuncLookupAttr(TsExpr func, TsStringRef name, TsAttribute* out);

/* ---- Modules ------------------------------------------------------------------------ */

/* Modules are immutable: every With... function returns a new module (sharing the
 * unchanged functions) and leaves its argument as it was. */

/** Parses text IR (`length` bytes; pass (size_t)-1 for a NUL-terminated string). */
TS_CAPI_EXPORT TsStatus TsModuleParse(const char* text, size_t length, TsModule* out);
/** Parses text IR; errors name `source_name` ("model.ts:3:7: expected ..."). */
TS_CAPI_EXPORT TsStatus TsModuleParseWithSourceName(TsStringRef text, TsStringRef source_name,
                                                    TsModule* out);
/** Parses JSON IR. */
TS_CAPI_EXPORT TsStatus TsModuleFromJSON(const char* json, size_t length, TsModule* out);
/** Prints the module as text IR through `callback`. */
TS_CAPI_EXPORT TsStatus TsModulePrint(TsModule module, TsStringCallback callback, void* user_data);
/** Prints the module as text IR: `show_meta_data` nonzero writes constants' data in the
 *  #[metadata] section (needed to parse the text back); `show_types` nonzero adds the
 *  inferred types as comments. TsModulePrint is (1, 0). */
TS_CAPI_EXPORT TsStatus TsModulePrintWithOptions(TsModule module, int show_meta_data,
                                                 int show_types, TsStringCallback callback,
                                                 void* user_data);
/** Writes the module as JSON through `callback`. */
TS_CAPI_EXPORT TsStatus TsModuleToJSON(TsModule module, TsStringCallback callback, void* user_data);
/** Writes the module as JSON indented by `indent` spaces per level (-1: one line).
 *  TsModuleToJSON uses 1. */
TS_CAPI_EXPORT TsStatus TsModuleToJSONWithIndent(TsModule module, int indent,
                                                 TsStringCallback callback, void* user_data);
/** Infers types; `*out` is a new module. */
TS_CAPI_EXPORT TsStatus TsModuleInferTypes(TsModule module, TsModule* out);
/** Checks the module is well formed (Python's verify_module): every variable used is
 *  bound and PrimFuncs access only their buffers (else TS_ERROR_VALUE naming the function
 *  and the problem), and types infer (else type inference's error). */
TS_CAPI_EXPORT TsStatus TsModuleVerify(TsModule module);
/** 1 when structurally equal, 0 when not (and on error, with the error set). */
TS_CAPI_EXPORT int TsModuleStructuralEqual(TsModule a, TsModule b);
/** A hash of `module` consistent with TsModuleStructuralEqual. */
TS_CAPI_EXPORT TsStatus TsModuleStructuralHash(TsModule module, uint64_t* out);
/** Describes the first structural difference between two modules (the function, the two
 *  differing sub-expressions, what differs) through `callback`; not called when equal. */
TS_CAPI_EXPORT TsStatus TsModuleStructuralDiff(TsModule a, TsModule b, TsStringCallback callback,
                                               void* user_data);
/** A new empty module. */
TS_CAPI_EXPORT TsStatus TsModuleCreate(TsModule* out);
/** A new module whose only function is `main` (a graph function) as @main. */
TS_CAPI_EXPORT TsStatus TsModuleFromExpr(TsExpr main, TsModule* out);
/** The number of functions of a module. */
TS_CAPI_EXPORT TsStatus TsModuleGetNumFunctions(TsModule module, size_t* out);
/** The name of function `index` in the module's order (borrowed from the module). */
TS_CAPI_EXPORT TsStatus TsModuleGetFunctionName(TsModule module, size_t index, TsStringRef* out);
/** Function `index` in the module's order: a Function or PrimFunc (new). */
TS_CAPI_EXPORT TsStatus TsModuleGetFunction(TsModule module, size_t index, TsExpr* out);
/** The function `name` (new); TS_ERROR_NOT_FOUND (listing the module's functions) when
 *  absent. */
TS_CAPI_EXPORT TsStatus TsModuleLookupFunction(TsModule module, TsStringRef name, TsExpr* out);
/** The function `name` (new), or NULL when the module has none of that name (no error). */
TS_CAPI_EXPORT TsStatus TsModuleFindFunction(TsModule module, TsStringRef name, TsExpr* out);
/** A new module with `function` (a Function or PrimFunc) stored as `name`: added at the end,
 *  or replacing the function of that name in its position. */
TS_CAPI_EXPORT TsStatus TsModuleWithFunction(TsModule module, TsStringRef name, TsExpr function,
                                             TsModule* out);
/** A new module without function `name` (absent: an equal copy, no error). */
TS_CAPI_EXPORT TsStatus TsModuleWithoutFunction(TsModule module, TsStringRef name, TsModule* out);
/** The number of module attributes. */
TS_CAPI_EXPORT TsStatus TsModuleGetNumAttrs(TsModule module, size_t* out);
/** Module attribute `index`: the name is borrowed from the module, the value is new. */
TS_CAPI_EXPORT TsStatus TsModuleGetAttr(TsModule module, size_t index, TsNamedAttribute* out);
/** A new module with attribute `key` set to `value` (borrowed; NULL is None). */
TS_CAPI_EXPORT TsStatus TsModuleWithAttr(TsModule module, TsStringRef key, TsAttribute value,
                                         TsModule* out);
/** A new reference to `module` (the same pointer; NULL gives NULL), so a callback can keep
 *  or return a module it was lent. The caller releases it with TsModuleDestroy. Never
 *  fails. */
TS_CAPI_EXPORT TsModule TsModuleRetain(TsModule module);
/** Releases a module (NULL is ignored). */
TS_CAPI_EXPORT void TsModuleDestroy(TsModule module);

/* ---- Running ------------------------------------------------------------------------ */

/** Evaluates @main with the reference interpreter. Inputs are given by parameter name.
 *  On success `outputs[0..*num_outputs)` receive new tensors (a tuple result is
 *  flattened) that the caller destroys; at most `max_outputs` are written, and a result
 *  with more fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsModuleRunMain(TsModule module, const char* const* input_names,
                                        const TsNDArray* inputs, size_t num_inputs,
                                        TsNDArray* outputs, size_t max_outputs,
                                        size_t* num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_IR_H_ */
