/* Tessera's flat C API: the compiler (IR, passes, build, Collage, ONNX) over the runtime's
 * C API (tensors, loading and running executables), which it includes. */
#ifndef TESSERA_C_API_H_
#define TESSERA_C_API_H_

#include "tessera/c_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles: a distinct struct type each, so handles cannot be mixed up. */
typedef struct TsModule_* TsModule;           /**< an IRModule */
typedef struct TsPass_* TsPass;               /**< a pass or pipeline */
typedef struct TsPassContext_* TsPassContext; /**< a pass context */
typedef struct TsTarget_* TsTarget;           /**< a backend kind plus options */

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

/* ---- Pass contexts, passes and pipelines ---------------------------------------------- */

/** Creates a pass context. `required`/`disabled` are arrays of NUL-terminated pass names
 *  (may be NULL when the count is 0). `config_json` is a JSON object of config keys to
 *  values, e.g. {"collage.enable": true}, or NULL. Unknown keys and wrong value types
 *  fail with the valid keys / expected type in the message. */
TS_CAPI_EXPORT TsStatus TsPassContextCreate(int opt_level, const char* const* required,
                                            size_t num_required, const char* const* disabled,
                                            size_t num_disabled, const char* config_json,
                                            TsPassContext* out);
/** Releases a pass context (NULL is ignored). */
TS_CAPI_EXPORT void TsPassContextDestroy(TsPassContext context);
/** JSON object {key: {"type": ..., "default": ..., "description": ...}} of every config key. */
TS_CAPI_EXPORT TsStatus TsListConfigs(TsStringCallback callback, void* user_data);
/** JSON array of registered passes [{"name", "description", "options": [...]}]. */
TS_CAPI_EXPORT TsStatus TsListPasses(TsStringCallback callback, void* user_data);
/** Parses a textual pipeline ("InferType,FoldConstant"). */
TS_CAPI_EXPORT TsStatus TsPipelineParse(const char* text, TsPass* out);
/** Prints a pass back in pipeline syntax. */
TS_CAPI_EXPORT TsStatus TsPassPrint(TsPass pass, TsStringCallback callback, void* user_data);
/** Runs a pass on a module under `context` (NULL = the thread's current context). */
TS_CAPI_EXPORT TsStatus TsPassRun(TsPass pass, TsModule module, TsPassContext context,
                                  TsModule* out);
/** Releases a pass (NULL is ignored). */
TS_CAPI_EXPORT void TsPassDestroy(TsPass pass);

/* ---- Running ------------------------------------------------------------------------ */

/** Evaluates @main with the reference interpreter. Inputs are given by parameter name.
 *  On success `outputs[0..*num_outputs)` receive new tensors (a tuple result is
 *  flattened) that the caller destroys; at most `max_outputs` are written, and a result
 *  with more fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsModuleRunMain(TsModule module, const char* const* input_names,
                                        const TsNDArray* inputs, size_t num_inputs,
                                        TsNDArray* outputs, size_t max_outputs, size_t* num_outputs);

/* ---- Targets and build -------------------------------------------------------------- */

/** Parses a target ("native", "native -num_threads=1", "interp"). An unknown kind or
 *  option fails with TS_ERROR_VALUE and a message listing the valid ones. */
TS_CAPI_EXPORT TsStatus TsTargetParse(const char* text, TsTarget* out);
/** Prints the target's canonical text (kind, then explicit options sorted by name). */
TS_CAPI_EXPORT TsStatus TsTargetPrint(TsTarget target, TsStringCallback callback, void* user_data);
/** Releases a target (NULL is ignored). */
TS_CAPI_EXPORT void TsTargetDestroy(TsTarget target);
/** JSON array of registered backends [{"name", "description", "options": [{"name",
 *  "type", "default", "description"}]}], sorted by name. */
TS_CAPI_EXPORT TsStatus TsListTargets(TsStringCallback callback, void* user_data);

/** Compiles `module` for `targets` (the first runs the kernels; at least one) under
 *  `context` (NULL = the thread's current context). The executable's executor uses the
 *  first target's `num_threads` option. */
TS_CAPI_EXPORT TsStatus TsBuild(TsModule module, const TsTarget* targets, size_t num_targets,
                                TsPassContext context, TsExecutable* out);
/** Renders a Collage report (from TsExecutableGetReport) as "text" or "html" (an SVG of
 *  the graph when Graphviz `dot` is installed). `measured_ms` >= 0 adds the measured
 *  latency and the additive error. A damaged report fails with TS_ERROR_PARSE. */
TS_CAPI_EXPORT TsStatus TsCollageReportRender(const char* report_json, const char* format,
                                              double measured_ms, TsStringCallback callback,
                                              void* user_data);

/* ---- ONNX import --------------------------------------------------------------------- */

/** Imports the ONNX model file at `path` (opsets 11-17). `num_shapes` static input shapes
 *  may be given (`shape_names[i]` gets `shapes[i]` of `ranks[i]` dims; required for inputs
 *  with symbolic dimensions; pass 0 and NULLs for none). With `params_as_inputs` nonzero
 *  the initializers become @main parameters instead of constants. An unreadable file fails
 *  with TS_ERROR_IO, a malformed one with TS_ERROR_PARSE, an op or attribute the importer
 *  does not cover with TS_ERROR_UNSUPPORTED (the message names op type, node and opset). */
TS_CAPI_EXPORT TsStatus TsModuleFromONNX(const char* path, const char* const* shape_names,
                                         const int64_t* const* shapes, const int32_t* ranks,
                                         size_t num_shapes, int params_as_inputs, TsModule* out);
/** Calls `callback` once per ONNX op type the importer converts, sorted (none when the
 *  library was built without ONNX support). */
TS_CAPI_EXPORT TsStatus TsONNXSupportedOps(TsStringCallback callback, void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_H_ */
