/* Tessera's C API for layouts: index maps (affine maps of tensor indices with floordiv and
 * floormod by constants), their shapes, inverses with padding, composition, identity proofs
 * and applying them to tensors; and the PrimFunc layout primitives built on them. */
#ifndef TESSERA_C_API_LAYOUT_H_
#define TESSERA_C_API_LAYOUT_H_

#include "tessera/c_api_tir.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An index map `lambda i0, ..., i{n-1}: (e0, ..., e{m-1})`: n input indices to m output
 *  indices. A map is an immutable value owned by its handle: every TsIndexMap a function
 *  returns is new and released with TsIndexMapDestroy.
 *
 *  Conventions of this header follow c_api_ir.h: a NULL handle or out pointer fails with
 *  TS_ERROR_INVALID_ARGUMENT; text that does not parse with TS_ERROR_PARSE (naming the
 *  position); a shape whose rank differs from the map's arity with TS_ERROR_TYPE; a map
 *  outside the accepted form, a map that cannot be inverted on a shape, or an output
 *  array too small with TS_ERROR_VALUE. Shapes and index lists are a pointer and a count
 *  (the pointer may be NULL when the count is 0); results go to caller arrays of a given
 *  capacity, which must hold TsIndexMapGetNumOutputs (or GetArity) entries. */
typedef struct TsIndexMap_* TsIndexMap;

/* ---- Creating ------------------------------------------------------------------------ */

/** Parses `lambda n, c, h, w: (n, c // 4, h, w, c % 4)` (`//`, `%`, `*`, `+`, `-`,
 *  parentheses, `floordiv(a, b)`, `floormod(a, b)`). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapParse(TsStringRef text, TsIndexMap* out);
/** The map between two TVM layout strings ("NCHW" -> "NCHW16c"); input variables are
 *  named after the source axes. An unknown or repeated axis, a sub-axis without its primal
 *  axis or different primal axes fail with TS_ERROR_VALUE. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapFromLayouts(const char* src_layout, const char* dst_layout,
                                              TsIndexMap* out);
/** `lambda i0..i{n-1}: (i0..i{n-1})`. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapIdentity(int32_t ndim, TsIndexMap* out);
/** The map of a transpose: output k is input `axes[k]` (a permutation of 0..num_axes-1;
 *  else TS_ERROR_VALUE). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapPermutation(const int64_t* axes, size_t num_axes,
                                              TsIndexMap* out);
/** A map from TIR variables (`initial`, int32, borrowed) and expressions over them
 *  (`final_indices`, borrowed), simplified to the canonical form. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapCreate(const TsPrimExpr* initial, size_t num_initial,
                                         const TsPrimExpr* final_indices, size_t num_final,
                                         TsIndexMap* out);
/** A new handle holding the same map (for keeping a map lent to a callback). */
TS_CAPI_EXPORT TsStatus TsIndexMapCopy(TsIndexMap map, TsIndexMap* out);
/** Releases a map (NULL is ignored). */
TS_CAPI_EXPORT void TsIndexMapDestroy(TsIndexMap map);

/* ---- Reading ------------------------------------------------------------------------- */

/** The text form, which TsIndexMapParse reads back; equal maps print equally up to
 *  variable names. */
TS_CAPI_EXPORT TsStatus TsIndexMapPrint(TsIndexMap map, TsStringCallback callback, void* user_data);
/** The number of input indices. */
TS_CAPI_EXPORT TsStatus TsIndexMapGetArity(TsIndexMap map, size_t* out);
/** The number of output indices. */
TS_CAPI_EXPORT TsStatus TsIndexMapGetNumOutputs(TsIndexMap map, size_t* out);
/** Input variable `index` (new reference; out of range fails with TS_ERROR_VALUE). */
TS_CAPI_EXPORT TsStatus TsIndexMapGetInitialIndex(TsIndexMap map, size_t index, TsPrimExpr* out);
/** Output expression `index`, simplified (new reference). */
TS_CAPI_EXPORT TsStatus TsIndexMapGetFinalIndex(TsIndexMap map, size_t index, TsPrimExpr* out);

/* ---- Evaluating ---------------------------------------------------------------------- */

/** The outputs at concrete `indices` (num_indices must be the arity) into `out`
 *  (capacity `max_out`). */
TS_CAPI_EXPORT TsStatus TsIndexMapMapIndices(TsIndexMap map, const int64_t* indices,
                                             size_t num_indices, int64_t* out, size_t max_out);
/** The shape of the image of `shape`, padded as TVM pads (i -> (i // 4, i % 4) over [14]
 *  gives [4, 4]), into `out` (capacity `max_out`). An output that can be negative fails
 *  with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsIndexMapMapShape(TsIndexMap map, const int64_t* shape, size_t ndim,
                                           int64_t* out, size_t max_out);
/** A new tensor of the mapped shape with out[map(i)] = tensor[i] and `pad_value`
 *  (converted to the tensor's dtype) at padding positions; any dtype. The map must be
 *  injective on the tensor's shape. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapApply(TsIndexMap map, TsNDArray tensor, double pad_value,
                                        TsNDArray* out);

/* ---- Inverses ------------------------------------------------------------------------ */

/** The inverse of a map injective on `shape`, which may pad: `*inverse` (new) maps output
 *  indices back to input indices, and `predicate` (may be NULL) receives the text of a
 *  Python-style bool expression over the inverse's input variables that is true exactly at
 *  padding positions of the mapped shape ("False" for a bijection). A map that is not
 *  injective on `shape` fails with TS_ERROR_VALUE naming the map and the shape. */
TS_CAPI_EXPORT TsStatus TsIndexMapNonSurjectiveInverse(TsIndexMap map, const int64_t* shape,
                                                       size_t ndim, TsIndexMap* inverse,
                                                       TsStringCallback predicate, void* user_data);
/** The inverse of a bijection on `shape` (a map that pads fails with TS_ERROR_VALUE).
 *  `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapInverse(TsIndexMap map, const int64_t* shape, size_t ndim,
                                          TsIndexMap* out);
/** Whether the map is a bijection from `shape` onto its mapped shape (1) or not (0). */
TS_CAPI_EXPORT TsStatus TsIndexMapIsBijective(TsIndexMap map, const int64_t* shape, size_t ndim,
                                              int* out);
/** Whether the map is injective on `shape` (TsIndexMapNonSurjectiveInverse would succeed). */
TS_CAPI_EXPORT TsStatus TsIndexMapIsInjective(TsIndexMap map, const int64_t* shape, size_t ndim,
                                              int* out);

/* ---- Composing and comparing --------------------------------------------------------- */

/** `then` after `map`: first `map`, then `then` (whose arity must be map's number of
 *  outputs; else TS_ERROR_VALUE). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsIndexMapComposeWith(TsIndexMap map, TsIndexMap then, TsIndexMap* out);
/** Whether the map is provably the identity on every index of `shape` (exact). */
TS_CAPI_EXPORT TsStatus TsIndexMapIsIdentity(TsIndexMap map, const int64_t* shape, size_t ndim,
                                             int* out);
/** Whether `a` and `b` (same arity; else TS_ERROR_VALUE) give the same outputs on every
 *  index of `shape` (exact). */
TS_CAPI_EXPORT TsStatus TsIndexMapEqualOn(TsIndexMap a, TsIndexMap b, const int64_t* shape,
                                          size_t ndim, int* out);
/** Whether the map only permutes axes; if so and `axes` is not NULL, output k reads input
 *  axes[k] (capacity `max_axes`, at least the arity). */
TS_CAPI_EXPORT TsStatus TsIndexMapIsPermutation(TsIndexMap map, int64_t* axes, size_t max_axes,
                                                int* out);
/** Alpha-equivalence: same arity and the same outputs after renaming variables. */
TS_CAPI_EXPORT TsStatus TsIndexMapEqual(TsIndexMap a, TsIndexMap b, int* out);
/** A hash consistent with TsIndexMapEqual. */
TS_CAPI_EXPORT TsStatus TsIndexMapHash(TsIndexMap map, uint64_t* out);

/* ---- PrimFunc layout primitives ------------------------------------------------------- */

/* These take a PrimFunc (a TsExpr; anything else fails with TS_ERROR_TYPE) and return a new
 * PrimFunc expression reference; the one given is unchanged. */

/** `func` with one buffer rewritten by `map` (TVM's transform_layout): the buffer takes the
 *  mapped shape and every load, store and block region of it is rewritten through the map.
 *  The buffer is the one named `buffer` (a parameter, else one the function allocates) or,
 *  when `buffer` is NULL, parameter `param_index` (inputs, then outputs). When the map pads
 *  and the function writes the buffer, `*pad_value` is written at the padding positions;
 *  with `pad_value` NULL they are left alone. An unknown name fails with
 *  TS_ERROR_NOT_FOUND (listing the buffers), an index out of range or a map that is not
 *  injective on the buffer with TS_ERROR_VALUE, a map whose arity is not the buffer's rank
 *  with TS_ERROR_TYPE (naming the buffer and the map). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsPrimFuncTransformLayout(TsExpr func, const char* buffer,
                                                  int32_t param_index, TsIndexMap map,
                                                  const double* pad_value, TsExpr* out);
/** `func` with block `block` iterating the image of its domain under the bijection `map`
 *  (TVM's transform_block_layout): new iteration variables over the mapped shape, the old
 *  ones replaced by the inverse map, and the block's loops rebuilt as a serial nest over the
 *  new domain. The block must be the only statement of a perfect nest of its own loops. An
 *  unknown block fails with TS_ERROR_NOT_FOUND (listing the blocks); a block that is not
 *  such a nest, a map that is not a bijection of its domain, or an output mixing spatial
 *  and reduce variables with TS_ERROR_VALUE; an arity that is not the number of iteration
 *  variables with TS_ERROR_TYPE. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsPrimFuncTransformBlockLayout(TsExpr func, const char* block,
                                                       TsIndexMap map, TsExpr* out);
/** From the maps wanted for the last `num_maps` parameters of `func` (its outputs; an entry
 *  may be NULL for no wish), the map each parameter should be rewritten by, read from the
 *  blocks' access regions: `param_maps[i]` (capacity `max_params`, at least the number of
 *  parameters) receives a new map, or NULL where the flow stops. `conflicts` (may be NULL)
 *  is called once with the name of each buffer for which two consumers wanted different
 *  maps (the first is kept). More maps than outputs fail with TS_ERROR_VALUE, a map whose
 *  arity is not its output's rank with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsSuggestLayoutTransforms(TsExpr func, const TsIndexMap* write_maps,
                                                  size_t num_maps, TsIndexMap* param_maps,
                                                  size_t max_params, TsStringCallback conflicts,
                                                  void* user_data);

/* ---- Layout passes taking objects ------------------------------------------------------ */

/** AlterOpImpl (TVM Relax's pass; the registry's form names PrimFuncs of the module): each
 *  call of op `op_names[i]` becomes a frozen call_tir of `prim_funcs[i]` (borrowed; one
 *  buffer per operand, then the result), its operands layout_transformed into the maps the
 *  replacement was written for and its result back. `maps` holds, op after op,
 *  `num_maps[i]` entries (0: the op's own layouts; else one per parameter, NULL keeping a
 *  tensor's layout); `maps` and `num_maps` may both be NULL for none (`maps` without
 *  `num_maps` fails with TS_ERROR_VALUE). An unknown op fails with
 *  TS_ERROR_NOT_FOUND, a callee that is not a PrimFunc with TS_ERROR_TYPE; parameters that
 *  do not match the op's operands under the maps fail when the pass runs (TS_ERROR_TYPE or
 *  TS_ERROR_VALUE, naming the op, the parameter and the map); no op at all fails with
 *  TS_ERROR_VALUE. `*out` is new. */
TS_CAPI_EXPORT TsStatus TsAlterOpImplPassCreate(const char* const* op_names,
                                                const TsExpr* prim_funcs, size_t num_ops,
                                                const TsIndexMap* maps, const size_t* num_maps,
                                                TsPass* out);

/* ---- Layout flow rules ----------------------------------------------------------------- */

/** What a flow rule answers, lent to the rule for one call: set it with TsLayoutFlowSet, or
 *  leave it unset where the layout cannot flow through the call. */
typedef struct TsLayoutFlow_* TsLayoutFlow;
/** A rule for one op, which PlanLayouts uses instead of its own analysis of the op's
 *  tensor-level code: the result of `call` (a type-checked call of the op, lent) is wanted
 *  under the bijection `map` (lent); the rule says how to compute that result from
 *  rewritten operands through `flow`. An error status fails the pass with the rule's
 *  message (TsSetLastError). */
typedef TsStatus (*TsLayoutFlowRuleCallback)(TsExpr call, TsIndexMap map, TsLayoutFlow flow,
                                             void* user_data);
/** The answer: compute the wanted result as `new_call` (a call of an op, borrowed; its op
 *  and attributes are used, its arguments are the operands, usually the original call's),
 *  with operand i rewritten by `operand_maps[i]` first (borrowed; NULL leaves an operand,
 *  such as a scalar, as it is). A call whose only argument is a tuple takes the tuple's
 *  fields as its operands. `num_maps` must be the number of operands and each map's arity
 *  its operand's rank, else TS_ERROR_VALUE; a callee that is not an op TS_ERROR_TYPE. The
 *  planner checks the types of the rewritten call, not the rule's arithmetic. */
TS_CAPI_EXPORT TsStatus TsLayoutFlowSet(TsLayoutFlow flow, TsExpr new_call,
                                        const TsIndexMap* operand_maps, size_t num_maps);
/** Registers `callback` for calls of op `op_name` (an unknown op fails with
 *  TS_ERROR_NOT_FOUND), replacing an earlier rule for that op; `destroy_user_data` (may be
 *  NULL) runs on `user_data` when the rule is replaced or unregistered, also when this call
 *  fails. Rules are process-wide and may be called from any thread. */
TS_CAPI_EXPORT TsStatus TsLayoutFlowRuleRegister(const char* op_name,
                                                 TsLayoutFlowRuleCallback callback,
                                                 void* user_data,
                                                 TsUserDataDestroy destroy_user_data);
/** Removes the rule for `op_name` (none is no error). */
TS_CAPI_EXPORT TsStatus TsLayoutFlowRuleUnregister(const char* op_name);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_LAYOUT_H_ */
