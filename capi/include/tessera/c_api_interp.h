/* Tessera's C API for the reference interpreter: values (a tensor or a tuple of values) and
 * evaluating any function of a module on them. */
#ifndef TESSERA_C_API_INTERP_H_
#define TESSERA_C_API_INTERP_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsValue_* TsValue; /**< an interpreter value: a tensor or a tuple of values */

/** What a value holds. */
typedef enum TsValueKind {
  TS_VALUE_TENSOR = 0,
  TS_VALUE_TUPLE = 1,
  TS_VALUE_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_VALUE_KIND_MAX_ENUM = 0x7FFFFFFF
} TsValueKind;

/** A value holding `tensor` (shared, not copied: the value keeps its memory alive). `*out` is
 *  new; destroy it with TsValueDestroy. */
TS_CAPI_EXPORT TsStatus TsValueFromNDArray(TsNDArray tensor, TsValue* out);
/** A tuple of `fields` (borrowed; none NULL). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsValueTupleCreate(const TsValue* fields, size_t num_fields, TsValue* out);
/** The kind of `value`. */
TS_CAPI_EXPORT TsStatus TsValueGetKind(TsValue value, TsValueKind* out);
/** A tensor value's tensor as a new TsNDArray sharing its memory; a tuple fails with
 *  TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsValueGetNDArray(TsValue value, TsNDArray* out);
/** The number of fields of a tuple value (TS_ERROR_TYPE for a tensor). */
TS_CAPI_EXPORT TsStatus TsValueGetNumFields(TsValue value, size_t* out);
/** Field `index` of a tuple value (new); out of range fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsValueGetField(TsValue value, size_t index, TsValue* out);
/** Releases a value (NULL is ignored). */
TS_CAPI_EXPORT void TsValueDestroy(TsValue value);

/** Evaluates the module's function `func_name` on `args` (borrowed, in parameter order) with
 *  the reference interpreter; `*out` is the new result value. An unknown function fails
 *  with TS_ERROR_NOT_FOUND, wrong argument count, shapes or dtypes with TS_ERROR_TYPE or
 *  TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsModuleEvaluate(TsModule module, TsStringRef func_name,
                                         const TsValue* args, size_t num_args, TsValue* out);
/** TsModuleRunMain keeping the result's structure: `*out` is the new result value (a tuple
 *  stays a tuple). Inputs are given by parameter name. */
TS_CAPI_EXPORT TsStatus TsModuleRunMainValue(TsModule module, const char* const* input_names,
                                             const TsNDArray* inputs, size_t num_inputs,
                                             TsValue* out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_INTERP_H_ */
