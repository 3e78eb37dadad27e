/* Tessera's C API for targets and building: parse targets, compile a module into an
 * executable (Collage included), render Collage reports. */
#ifndef TESSERA_C_API_BUILD_H_
#define TESSERA_C_API_BUILD_H_

#include "tessera/c_api_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsTarget_* TsTarget; /**< a backend kind plus options */

/* ---- Targets and build -------------------------------------------------------------- */

/** Parses a target ("native", "native -num_threads=1", "interp"). An unknown kind or
 *  option fails with TS_ERROR_VALUE and a message listing the valid ones. */
TS_CAPI_EXPORT TsStatus TsTargetParse(const char* text, TsTarget* out);
/** Prints the target's canonical text (kind, then explicit options sorted by name). */
TS_CAPI_EXPORT TsStatus TsTargetPrint(TsTarget target, TsStringCallback callback, void* user_data);
/** The target's backend kind ("native"), borrowed from the target. */
TS_CAPI_EXPORT TsStatus TsTargetGetKind(TsTarget target, TsStringRef* out);
/** Option `name` of the target (NUL-terminated): the value given, else the kind's default
 *  (None when it has none), as a new attribute. An option the kind does not have fails with
 *  TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsTargetGetOption(TsTarget target, const char* name, TsAttribute* out);
/** Releases a target (NULL is ignored). */
TS_CAPI_EXPORT void TsTargetDestroy(TsTarget target);
/** JSON array of registered backends [{"name", "description", "options": [{"name",
  *  "type", "default" (a JSON value; null for none), "description"}]}], sorted by name. */
TS_CAPI_EXPORT TsStatus TsListTargets(TsStringCallback callback, void* user_data);

/** Compiles `module` for `targets` (the first runs the kernels; at least one) under
 *  `context` (NULL = the thread's current context). The executable's executor uses the
 *  first target's `num_threads` option. */
TS_CAPI_EXPORT TsStatus TsBuild(TsModule module, const TsTarget* targets, size_t num_targets,
                                TsPassContext context, TsExecutable* out);
/** The module the build compiles: @main calling PrimFuncs through call_tir, and library
 *  partitions as external functions (what TsBuild lowers `module` to before code
 *  generation). `*out` is new. */
TS_CAPI_EXPORT TsStatus TsModuleLowerForBuild(TsModule module, TsModule* out);
/** Renders a Collage report (from TsExecutableGetReport) as "text" or "html" (an SVG of
 *  the graph when Graphviz `dot` is installed). `measured_ms` >= 0 adds the measured
 *  latency and the additive error. A damaged report fails with TS_ERROR_PARSE. */
TS_CAPI_EXPORT TsStatus TsCollageReportRender(const char* report_json, const char* format,
                                              double measured_ms, TsStringCallback callback,
                                              void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_BUILD_H_ */
