/* Tessera's C API for the IR: types, attributes, expressions, functions and modules;
 * text and JSON, structural equality, type inference and the reference interpreter. */
#ifndef TESSERA_C_API_IR_H_
#define TESSERA_C_API_IR_H_

#include "tessera/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Handles to IR nodes are references to immutable, reference-counted nodes. A handle a
 * function returns is a new reference the caller owns and releases with the matching
 * Ts*Destroy; a handle passed in is borrowed for the call. Functions whose name contains
 * "Borrowed" return a handle valid only while the object it came from lives (do not destroy
 * it). Two handles to the same node compare equal as pointers. */
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

/* ---- Modules ------------------------------------------------------------------------ */

/** Parses text IR (`length` bytes; pass (size_t)-1 for a NUL-terminated string). */
TS_CAPI_EXPORT TsStatus TsModuleParse(const char* text, size_t length, TsModule* out);
/** Parses JSON IR. */
TS_CAPI_EXPORT TsStatus TsModuleFromJSON(const char* json, size_t length, TsModule* out);
/** Prints the module as text IR through `callback`. */
TS_CAPI_EXPORT TsStatus TsModulePrint(TsModule module, TsStringCallback callback, void* user_data);
/** Writes the module as JSON through `callback`. */
TS_CAPI_EXPORT TsStatus TsModuleToJSON(TsModule module, TsStringCallback callback, void* user_data);
/** Infers types; `*out` is a new module. */
TS_CAPI_EXPORT TsStatus TsModuleInferTypes(TsModule module, TsModule* out);
/** 1 when structurally equal, 0 when not (and on error, with the error set). */
TS_CAPI_EXPORT int TsModuleStructuralEqual(TsModule a, TsModule b);
/** Releases a module (NULL is ignored). */
TS_CAPI_EXPORT void TsModuleDestroy(TsModule module);

/* ---- Running ------------------------------------------------------------------------ */

/** Evaluates @main with the reference interpreter. Inputs are given by parameter name.
 *  On success `outputs[0..*num_outputs)` receive new tensors (a tuple result is
 *  flattened) that the caller destroys; at most `max_outputs` are written, and a result
 *  with more fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsModuleRunMain(TsModule module, const char* const* input_names,
                                        const TsNDArray* inputs, size_t num_inputs,
                                        TsNDArray* outputs, size_t max_outputs, size_t* num_outputs);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_IR_H_ */
