/* Tessera's C API for passes: pass contexts and their configuration, pipelines, the
 * pass registry, passes written in C and pass instruments. */
#ifndef TESSERA_C_API_PASS_H_
#define TESSERA_C_API_PASS_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Passes, contexts, pass infos and instruments are not IR nodes: each handle is a small
 * object of its own that the caller destroys with the matching Ts*Destroy. The objects
 * behind them are immutable (a context's config and instruments excepted), so
 * Ts*Retain returns a new handle to the same object, possibly at another address:
 * compare contexts and instruments with TsPassContextEqual / TsPassInstrumentEqual.
 * Names are NUL-terminated strings in and borrowed TsStringRefs out. Config values and
 * pass options are given and returned as JSON text (true, 3, 2.5, "dp", ["a", "b"]). */
typedef struct TsPass_* TsPass;                     /**< a pass or pipeline */
typedef struct TsPassContext_* TsPassContext;       /**< a pass context */
typedef struct TsPassInfo_* TsPassInfo;             /**< a pass's name, opt level, requirements */
typedef struct TsPassInstrument_* TsPassInstrument; /**< hooks around contexts and passes */

/** What a pass transforms (Python's Pass.kind: "module", "function", "prim_func",
 *  "sequential"). */
typedef enum TsPassKind {
  TS_PASS_MODULE = 0,
  TS_PASS_FUNCTION = 1,
  TS_PASS_PRIM_FUNC = 2,
  TS_PASS_SEQUENTIAL = 3,
  TS_PASS_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_PASS_KIND_MAX_ENUM = 0x7FFFFFFF
} TsPassKind;

/* ---- Pass infos ------------------------------------------------------------------- */

/** A pass info (Python's PassInfo): `name`, `opt_level` and the names of the passes a
 *  Sequential runs before it (`required`, `num_required` entries; NULL when 0). `*out` is
 *  the caller's (TsPassInfoDestroy). */
TS_CAPI_EXPORT TsStatus TsPassInfoCreate(const char* name, int opt_level,
                                         const char* const* required, size_t num_required,
                                         TsPassInfo* out);
/** A new handle to the same info (the caller destroys it); NULL on NULL. Instrument hooks
 *  are lent infos valid for the call only: retain one to keep it. */
TS_CAPI_EXPORT TsPassInfo TsPassInfoRetain(TsPassInfo info);
/** Releases a pass info (NULL is ignored). */
TS_CAPI_EXPORT void TsPassInfoDestroy(TsPassInfo info);
/** The pass name, borrowed from `info` (empty for NULL). */
TS_CAPI_EXPORT TsStringRef TsPassInfoGetName(TsPassInfo info);
/** The opt level (0 for NULL). */
TS_CAPI_EXPORT int TsPassInfoGetOptLevel(TsPassInfo info);
/** How many required passes (0 for NULL). */
TS_CAPI_EXPORT size_t TsPassInfoGetNumRequired(TsPassInfo info);
/** Required pass `index`, borrowed from `info`; TS_ERROR_VALUE when out of range. */
TS_CAPI_EXPORT TsStatus TsPassInfoGetRequired(TsPassInfo info, size_t index, TsStringRef* out);
/** "The meta data of the pass - pass name: X, opt_level: N, required passes: [A, B]". */
TS_CAPI_EXPORT TsStatus TsPassInfoPrint(TsPassInfo info, TsStringCallback callback,
                                        void* user_data);

/* ---- Pass contexts ----------------------------------------------------------------- */

/** Creates a pass context. `required`/`disabled` are arrays of NUL-terminated pass names
 *  (may be NULL when the count is 0). `config_json` is a JSON object of config keys to
 *  values, e.g. {"collage.enable": true}, or NULL. Unknown keys (TS_ERROR_NOT_FOUND) and
 *  wrong value types (TS_ERROR_TYPE) fail with the valid keys / expected type in the
 *  message; values a key rejects fail with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsPassContextCreate(int opt_level, const char* const* required,
                                            size_t num_required, const char* const* disabled,
                                            size_t num_disabled, const char* config_json,
                                            TsPassContext* out);
/** TsPassContextCreate with `instruments` (borrowed; the context shares them). Their
 *  enter/exit hooks run when the context is entered and exited, not here. */
TS_CAPI_EXPORT TsStatus TsPassContextCreateWithInstruments(
    int opt_level, const char* const* required, size_t num_required, const char* const* disabled,
    size_t num_disabled, const char* config_json, const TsPassInstrument* instruments,
    size_t num_instruments, TsPassContext* out);
/** A new handle to the innermost context entered on this thread, or the thread's default
 *  (opt level 2, no config, no instruments). The caller destroys it. */
TS_CAPI_EXPORT TsStatus TsPassContextGetCurrent(TsPassContext* out);
/** A new handle to the same context (the caller destroys it); NULL on NULL. */
TS_CAPI_EXPORT TsPassContext TsPassContextRetain(TsPassContext context);
/** Releases a context handle (NULL is ignored); an entered context stays entered. */
TS_CAPI_EXPORT void TsPassContextDestroy(TsPassContext context);
/** 1 when both handles are the same context (Python's ==), else 0. */
TS_CAPI_EXPORT int TsPassContextEqual(TsPassContext a, TsPassContext b);
/** A hash consistent with TsPassContextEqual (0 for NULL). */
TS_CAPI_EXPORT size_t TsPassContextHash(TsPassContext context);

/** Makes `context` the current one on this thread (Python's `with ctx:`): its
 *  instruments' enter hooks run in order; if one fails, those entered are exited, the
 *  context's instruments are cleared and the error is returned (the context is then not
 *  entered). */
TS_CAPI_EXPORT TsStatus TsPassContextEnter(TsPassContext context);
/** Leaves `context`, which must be the innermost entered one (TS_ERROR_VALUE otherwise),
 *  then runs its instruments' exit hooks (a failing one is returned; the context is left
 *  and its instruments cleared all the same). */
TS_CAPI_EXPORT TsStatus TsPassContextExit(TsPassContext context);

/** The opt level (0 for NULL). */
TS_CAPI_EXPORT int TsPassContextGetOptLevel(TsPassContext context);
/** How many required passes (0 for NULL). */
TS_CAPI_EXPORT size_t TsPassContextGetNumRequiredPasses(TsPassContext context);
/** Required pass `index`, borrowed from the context; TS_ERROR_VALUE when out of range. */
TS_CAPI_EXPORT TsStatus TsPassContextGetRequiredPass(TsPassContext context, size_t index,
                                                     TsStringRef* out);
/** How many disabled passes (0 for NULL). */
TS_CAPI_EXPORT size_t TsPassContextGetNumDisabledPasses(TsPassContext context);
/** Disabled pass `index`, borrowed from the context; TS_ERROR_VALUE when out of range. */
TS_CAPI_EXPORT TsStatus TsPassContextGetDisabledPass(TsPassContext context, size_t index,
                                                     TsStringRef* out);
/** Whether a Sequential under `context` runs a pass with `info`: disabled wins, then
 *  required, then the opt level. `*enabled` is 1 or 0. */
TS_CAPI_EXPORT TsStatus TsPassContextPassEnabled(TsPassContext context, TsPassInfo info,
                                                 int* enabled);

/** Sets config `key` to `json_value` (JSON text, e.g. "true" or "[\"a.NoFusion\"]"),
 *  checked as TsPassContextCreate checks its config: unknown key TS_ERROR_NOT_FOUND
 *  (listing the valid keys), wrong kind TS_ERROR_TYPE, rejected value or null
 *  TS_ERROR_VALUE, malformed JSON TS_ERROR_PARSE. Passes run later under the context see
 *  the new value (on the thread's default context, from TsPassContextGetCurrent, every
 *  later pass on the thread does). */
TS_CAPI_EXPORT TsStatus TsPassContextSetConfig(TsPassContext context, const char* key,
                                               const char* json_value);
/** The value of config `key` as JSON text: the value set, else the registered default.
 *  An unregistered key is TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsPassContextGetConfig(TsPassContext context, const char* key,
                                               TsStringCallback callback, void* user_data);
/** A JSON object of the config keys set on the context (defaults not included). */
TS_CAPI_EXPORT TsStatus TsPassContextGetConfigs(TsPassContext context, TsStringCallback callback,
                                                void* user_data);
/** JSON object {key: {"type": ..., "default": ..., "description": ...}} of every config
 *  key; "type" is "bool", "int", "float", "string" or "array" and "default" a JSON value
 *  of that type. */
TS_CAPI_EXPORT TsStatus TsListConfigs(TsStringCallback callback, void* user_data);

/** How many instruments the context has (0 for NULL). */
TS_CAPI_EXPORT size_t TsPassContextGetNumInstruments(TsPassContext context);
/** A new handle to instrument `index` (the caller destroys it); TS_ERROR_VALUE when out
 *  of range. */
TS_CAPI_EXPORT TsStatus TsPassContextGetInstrument(TsPassContext context, size_t index,
                                                   TsPassInstrument* out);
/** Replaces the context's instruments: exit hooks run on the old ones, then enter hooks on
 *  `instruments` (borrowed; a failing enter clears the list and is returned). */
TS_CAPI_EXPORT TsStatus TsPassContextOverrideInstruments(TsPassContext context,
                                                         const TsPassInstrument* instruments,
                                                         size_t num_instruments);

/* ---- Passes ------------------------------------------------------------------------ */

/** Parses a textual pipeline ("InferType,FoldConstant") into a Sequential named "pipeline"
 *  (TsPassCreateFromRegistry makes one registered pass alone). Errors, an unknown pass
 *  included, are TS_ERROR_PARSE naming the column and the pass. */
TS_CAPI_EXPORT TsStatus TsPipelineParse(const char* text, TsPass* out);
/** Prints a pass back in pipeline syntax (Python's str(pass) and print_pipeline). */
TS_CAPI_EXPORT TsStatus TsPassPrint(TsPass pass, TsStringCallback callback, void* user_data);
/** "Run Module pass: <name> at the optimization level <n>" (or Function, PrimFunc,
 *  Sequential): Python's describe() and repr(). */
TS_CAPI_EXPORT TsStatus TsPassDescribe(TsPass pass, TsStringCallback callback, void* user_data);
/** Runs a pass on a module. With a NULL `context` it runs under the thread's current
 *  context. Otherwise under `context`, which is entered for the call (its instruments'
 *  enter/exit hooks run and it is current inside) unless it already is the current one.
 *  `*out` is a new module (possibly `module` itself, retained). A pass whose C callback
 *  fails returns the callback's status and message. */
TS_CAPI_EXPORT TsStatus TsPassRun(TsPass pass, TsModule module, TsPassContext context,
                                  TsModule* out);
/** A new handle to the same pass (the caller destroys it); NULL on NULL. */
TS_CAPI_EXPORT TsPass TsPassRetain(TsPass pass);
/** Releases a pass (NULL is ignored). */
TS_CAPI_EXPORT void TsPassDestroy(TsPass pass);
/** What the pass transforms (TS_PASS_MODULE for NULL). */
TS_CAPI_EXPORT TsPassKind TsPassGetKind(TsPass pass);
/** A new info of the pass (the caller destroys it). */
TS_CAPI_EXPORT TsStatus TsPassGetInfo(TsPass pass, TsPassInfo* out);
/** How many passes a Sequential holds (0 for other passes and NULL). */
TS_CAPI_EXPORT size_t TsPassGetNumPasses(TsPass pass);
/** A new handle to a Sequential's pass `index`; TS_ERROR_VALUE when out of range. */
TS_CAPI_EXPORT TsStatus TsPassGetPass(TsPass pass, size_t index, TsPass* out);

/** Runs `passes` (borrowed) in order: each child the context enables (disabled, then
 *  required, then opt level) runs after its own required passes (from the registry). A
 *  NULL `name` is "sequential". */
TS_CAPI_EXPORT TsStatus TsSequentialCreate(const TsPass* passes, size_t num_passes,
                                           const char* name, int opt_level,
                                           const char* const* required, size_t num_required,
                                           TsPass* out);

/* ---- Passes written in C ------------------------------------------------------------
 * The library takes `user_data` when a Create function is called: it calls
 * `destroy_user_data` (when not NULL) once, when the pass dies, or before returning when
 * the call fails. That may happen on any thread releasing the last reference to the
 * pass. Callbacks run on the thread running the pass. Their arguments are lent for the
 * call (retain to keep); the handle returned through `*out` is the library's afterwards
 * (return a retained argument to keep it unchanged). A failing callback calls
 * TsSetLastError and returns an error status: the pass fails with that status, the
 * message prefixed with the pass name. */

/** A module pass's body: the transformed `module`. Returning no module is TS_ERROR_VALUE
 *  and a handle that is not a module TS_ERROR_TYPE. */
typedef TsStatus (*TsModulePassCallback)(TsModule module, TsPassContext context, TsModule* out,
                                         void* user_data);
/** A function or PrimFunc pass's body: the replacement of `function` (a graph function
 *  or a PrimFunc, by the pass's kind), which is in `module`. A graph function pass must
 *  return a graph function (NULL is TS_ERROR_VALUE, another node TS_ERROR_TYPE); a PrimFunc
 *  pass returns a PrimFunc, or NULL to remove the PrimFunc from the module. */
typedef TsStatus (*TsFunctionPassCallback)(TsExpr function, TsModule module, TsPassContext context,
                                           TsExpr* out, void* user_data);
/** Makes a registered pass for TsPassRegister; `*out` is the library's afterwards. */
typedef TsStatus (*TsPassFactoryCallback)(TsPass* out, void* user_data);

/** A module pass (Python's module_pass) named `name` whose transformation is `callback`.
 *  `required` names the passes a Sequential runs before it (NULL when 0). */
TS_CAPI_EXPORT TsStatus TsModulePassCreate(const char* name, int opt_level,
                                           const char* const* required, size_t num_required,
                                           TsModulePassCallback callback, void* user_data,
                                           TsUserDataDestroy destroy_user_data, TsPass* out);
/** A function pass (Python's function_pass): `callback` runs on each graph function of
 *  the module in order. Functions marked Compiler, SkipOptimization or Primitive are
 *  skipped unless `include_all` is nonzero. When no function changes (every callback
 *  returns its argument), the result is the input module. */
TS_CAPI_EXPORT TsStatus TsFunctionPassCreate(const char* name, int opt_level,
                                             const char* const* required, size_t num_required,
                                             int include_all, TsFunctionPassCallback callback,
                                             void* user_data, TsUserDataDestroy destroy_user_data,
                                             TsPass* out);
/** A PrimFunc pass (Python's prim_func_pass): `callback` runs on each PrimFunc of the
 *  module; returning NULL removes it. */
TS_CAPI_EXPORT TsStatus TsPrimFuncPassCreate(const char* name, int opt_level,
                                             const char* const* required, size_t num_required,
                                             TsFunctionPassCallback callback, void* user_data,
                                             TsUserDataDestroy destroy_user_data, TsPass* out);

/* ---- The pass registry ---------------------------------------------------------------- */

/** JSON array of registered passes, sorted by name: [{"name", "description", "options":
 *  [{"name", "type", "default", "description"}]}] ("default" a JSON value). */
TS_CAPI_EXPORT TsStatus TsListPasses(TsStringCallback callback, void* user_data);
/** Registered pass `name` built with `options_json` (a JSON object of option values, or
 *  NULL for the defaults). Unknown names are TS_ERROR_NOT_FOUND listing the registered
 *  ones; an unknown option is TS_ERROR_VALUE and a value of the wrong kind TS_ERROR_TYPE,
 *  naming the pass and option. */
TS_CAPI_EXPORT TsStatus TsPassCreateFromRegistry(const char* name, const char* options_json,
                                                 TsPass* out);
/** Registers `factory` under `name` for pipelines, TsPassCreateFromRegistry and other
 *  passes' required lists; the pass takes no options. The registry keeps the factory for
 *  the life of the process (`destroy_user_data` is called only when registration fails).
 *  A taken name is TS_ERROR_VALUE. The factory runs on the thread that looks the pass up.
 *  A factory's failure (or a NULL pass) fails the lookup. */
TS_CAPI_EXPORT TsStatus TsPassRegister(const char* name, const char* description,
                                       TsPassFactoryCallback factory, void* user_data,
                                       TsUserDataDestroy destroy_user_data);

/* ---- Pass instruments ------------------------------------------------------------------
 * An instrument's hooks run around contexts and passes (TVM's protocol): entering a
 * context calls enter_pass_context on each instrument; for each pass run (direct, nested,
 * a Sequential itself, or a required dependency) should_run is asked of every instrument
 * unless the pass is in the context's required list, and a 0 from any skips the pass;
 * then run_before_pass, the pass, run_after_pass (run_after_pass_failed when the pass
 * fails; its own errors are ignored); leaving the context calls exit_pass_context. */

/** Hooks written in C, each optional (NULL: no hook; should_run then says 1). `module` and
 *  `info` are lent for the call. A hook that fails (TsSetLastError + an error status)
 *  fails the library call running it with that status, the message prefixed with the
 *  instrument's name and the hook. */
typedef struct TsPassInstrumentCallbacks {
  TsStatus (*enter_pass_context)(void* user_data);
  TsStatus (*exit_pass_context)(void* user_data);
  /** Sets `*run` to 0 to skip the pass (it starts at 1). */
  TsStatus (*should_run)(TsModule module, TsPassInfo info, int* run, void* user_data);
  TsStatus (*run_before_pass)(TsModule module, TsPassInfo info, void* user_data);
  TsStatus (*run_after_pass)(TsModule module, TsPassInfo info, void* user_data);
  TsStatus (*run_after_pass_failed)(TsModule module, TsPassInfo info, void* user_data);
} TsPassInstrumentCallbacks;

/** An instrument named `name` whose hooks are `*callbacks` (copied). The library takes
 *  `user_data`: `destroy_user_data` (when not NULL) is called once when the last context
 *  and handle holding the instrument are gone, or before returning when the call fails. */
TS_CAPI_EXPORT TsStatus TsPassInstrumentCreate(const char* name,
                                               const TsPassInstrumentCallbacks* callbacks,
                                               void* user_data, TsUserDataDestroy destroy_user_data,
                                               TsPassInstrument* out);
/** Times every pass as a nested tree (Python's PassTimingInstrument). */
TS_CAPI_EXPORT TsStatus TsPassTimingInstrumentCreate(TsPassInstrument* out);
/** The timing tree, one line per pass ("" when nothing ran); TS_ERROR_TYPE for an
 *  instrument that is not a timing instrument. */
TS_CAPI_EXPORT TsStatus TsPassTimingInstrumentRender(TsPassInstrument instrument,
                                                     TsStringCallback callback, void* user_data);
/** Prints the module to stdout (flushed after each print) before every pass
 *  (`before_all`), after every pass (`after_all`), after each pass that changed it
 *  (`after_change`), and before/after the passes named in `before_passes` /
 *  `after_passes` (Python's PrintIRInstrument and its PrintBeforeAll, ...). */
TS_CAPI_EXPORT TsStatus TsPrintIRInstrumentCreate(int before_all, int after_all, int after_change,
                                                  const char* const* before_passes,
                                                  size_t num_before_passes,
                                                  const char* const* after_passes,
                                                  size_t num_after_passes, TsPassInstrument* out);
/** Writes the module after every pass to `<dir>/<NNN>_<pass>.txt` (Python's DumpIR). */
TS_CAPI_EXPORT TsStatus TsDumpIRInstrumentCreate(const char* dir, TsPassInstrument* out);
/** Checks well-formedness after every pass (Python's Verifier): a pass producing
 *  ill-formed IR fails with an error naming it. */
TS_CAPI_EXPORT TsStatus TsVerifierInstrumentCreate(TsPassInstrument* out);
/** A new handle to the same instrument (the caller destroys it); NULL on NULL. */
TS_CAPI_EXPORT TsPassInstrument TsPassInstrumentRetain(TsPassInstrument instrument);
/** Releases an instrument handle (NULL is ignored); contexts holding it keep it. */
TS_CAPI_EXPORT void TsPassInstrumentDestroy(TsPassInstrument instrument);
/** The instrument's name, borrowed from it (empty for NULL). */
TS_CAPI_EXPORT TsStringRef TsPassInstrumentGetName(TsPassInstrument instrument);
/** The `user_data` of an instrument made by TsPassInstrumentCreate (so a binding finds
 *  its own object again from TsPassContextGetInstrument); NULL for built-in ones. */
TS_CAPI_EXPORT void* TsPassInstrumentGetUserData(TsPassInstrument instrument);
/** 1 when both handles are the same instrument, else 0. */
TS_CAPI_EXPORT int TsPassInstrumentEqual(TsPassInstrument a, TsPassInstrument b);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_PASS_H_ */
