/* Tessera's C API for passes: pass contexts and their configuration, pipelines, the
 * pass registry, passes written in C and pass instruments. */
#ifndef TESSERA_C_API_PASS_H_
#define TESSERA_C_API_PASS_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsPass_* TsPass;               /**< a pass or pipeline */
typedef struct TsPassContext_* TsPassContext; /**< a pass context */

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

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_PASS_H_ */
