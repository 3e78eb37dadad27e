/* Tessera's runtime C API: status codes and the last error, tensors, and loading and
 * running a saved executable. libtessera_runtime alone provides it (no compiler). */
#ifndef TESSERA_C_RUNTIME_API_H_
#define TESSERA_C_RUNTIME_API_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TS_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define TS_CAPI_EXPORT
#endif

/** The version of this C API: raised when a declaration changes incompatibly (2: the whole
 *  compiler, option defaults in TsListTargets/TsListPasses as typed JSON). Compare it
 *  with what TsGetCApiVersion() says the loaded library implements. */
#define TS_C_API_VERSION 2

/** The library's version, "MAJOR.MINOR.PATCH" (static storage; never fails). */
TS_CAPI_EXPORT const char* TsGetVersion(void);
/** The TS_C_API_VERSION the loaded library was built with. */
TS_CAPI_EXPORT int32_t TsGetCApiVersion(void);

/** Result of every fallible call. TS_OK is 0; on failure TsGetLastError() explains. */
typedef enum TsStatus {
  TS_OK = 0,
  TS_ERROR_PARSE = 1,           /**< malformed input: a damaged executable file (and, in the
                                     compiler's API, text IR, JSON, pipelines, ONNX) */
  TS_ERROR_TYPE = 2,            /**< type or shape mismatch */
  TS_ERROR_VALUE = 3,           /**< bad value: attribute, option, config, argument */
  TS_ERROR_NOT_FOUND = 4,       /**< unknown op, pass, config key, function, input */
  TS_ERROR_UNSUPPORTED = 5,     /**< valid input this build cannot handle */
  TS_ERROR_IO = 6,              /**< file system failure */
  TS_ERROR_INTERNAL = 7,        /**< a Tessera bug */
  TS_ERROR_INVALID_ARGUMENT = 8, /**< null handle or pointer where one is required */
  TS_STATUS_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_STATUS_MAX_ENUM = 0x7FFFFFFF
} TsStatus;

/** The message of the last failed call on this thread ("" if none). Valid until the next
 *  failing call on this thread. */
TS_CAPI_EXPORT const char* TsGetLastError(void);
/** A short name for a status ("parse error", ...). */
TS_CAPI_EXPORT const char* TsStatusName(TsStatus status);

/* Opaque handles: a distinct struct type each, so handles cannot be mixed up. */
typedef struct TsNDArray_* TsNDArray;         /**< an n-dimensional array */
typedef struct TsExecutable_* TsExecutable; /**< a compiled model and its executor */

/** Receives text produced by the library (not NUL-terminated; `data` valid during the call). */
typedef void (*TsStringCallback)(const char* data, size_t length, void* user_data);

/** A string that is not NUL-terminated: `length` bytes at `data`. Strings the library
 *  returns this way are borrowed from the object they came from (valid while it lives). */
typedef struct TsStringRef {
  const char* data;
  size_t length;
} TsStringRef;

/** A TsStringRef viewing the NUL-terminated `text` (NULL gives an empty string). */
static inline TsStringRef TsStringRefFromC(const char* text) {
  TsStringRef ref = {text ? text : "", text ? strlen(text) : 0};
  return ref;
}

/** Releases the `user_data` of a callback the library held (called once, when the object
 *  that holds the callback is destroyed). */
typedef void (*TsUserDataDestroy)(void* user_data);

/** Sets this thread's last error to `message` (NUL-terminated). A callback given to the
 *  library that fails calls it, then returns its error status: the library's call fails
 *  with that status and message. */
TS_CAPI_EXPORT void TsSetLastError(const char* message);

/* ---- Tensors ------------------------------------------------------------------------ */

/** Element type, laid out as DLPack's DLDataType: code (0 int, 1 uint, 2 float,
 *  4 bfloat, 6 bool), bits, lanes (always 1). */
typedef struct TsDType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} TsDType;

/** A dense row-major tensor over caller memory; the caller keeps `data` alive and
 *  unchanged while the tensor exists. */
TS_CAPI_EXPORT TsStatus TsNDArrayFromBuffer(void* data, const int64_t* shape, int32_t ndim,
                                           TsDType dtype, TsNDArray* out);
/** A new zero-filled tensor owned by the library. */
TS_CAPI_EXPORT TsStatus TsNDArrayCreate(const int64_t* shape, int32_t ndim, TsDType dtype,
                                       TsNDArray* out);
/** The tensor's data pointer, shape (valid while the tensor lives), rank and dtype; any
 *  out pointer may be NULL. */
TS_CAPI_EXPORT TsStatus TsNDArrayGetInfo(TsNDArray tensor, void** data, const int64_t** shape,
                                        int32_t* ndim, TsDType* dtype);
/** Releases a tensor (NULL is ignored). */
TS_CAPI_EXPORT void TsNDArrayDestroy(TsNDArray tensor);
/** A one-line description of the tensor ("float32[2, 3]") through `callback`. */
TS_CAPI_EXPORT TsStatus TsNDArrayDescribe(TsNDArray tensor, TsStringCallback callback,
                                         void* user_data);
/** Reads a NumPy .npy file into a new tensor the caller destroys. A missing file fails with
 *  TS_ERROR_NOT_FOUND or TS_ERROR_IO, a malformed one with TS_ERROR_PARSE. */
TS_CAPI_EXPORT TsStatus TsNDArrayReadNpy(const char* path, TsNDArray* out);
/** Writes the tensor as a NumPy .npy file. */
TS_CAPI_EXPORT TsStatus TsNDArrayWriteNpy(const char* path, TsNDArray tensor);

/** DLPack's managed tensor; include <dlpack/dlpack.h> to use the DLPack functions. */
struct DLManagedTensor;
/** Zero-copy import of a DLPack tensor. On success `*out` owns `managed`: its deleter is
 *  called once, when `*out` and every output aliasing it are destroyed. On failure (a
 *  non-CPU device, non-compact strides, an unsupported dtype or lanes != 1; the message
 *  says which) `managed` is untouched and still owned by the caller. */
TS_CAPI_EXPORT TsStatus TsNDArrayFromDLPack(struct DLManagedTensor* managed, TsNDArray* out);
/** Zero-copy export: `*out` views the tensor's memory, which stays alive (also after
 *  TsNDArrayDestroy) until the consumer calls `(*out)->deleter(*out)` exactly once. */
TS_CAPI_EXPORT TsStatus TsNDArrayToDLPack(TsNDArray tensor, struct DLManagedTensor** out);

/* ---- Executables -------------------------------------------------------------------- */

/** Writes the executable to one file. */
TS_CAPI_EXPORT TsStatus TsExecutableSave(TsExecutable executable, const char* path);
/** Reads a file written by TsExecutableSave; its executor uses `num_threads` threads
 *  (0 = the build target's `num_threads`, saved in the file, whose 0 means all cores). A
 *  missing file fails with TS_ERROR_NOT_FOUND, a damaged one with TS_ERROR_PARSE. */
TS_CAPI_EXPORT TsStatus TsExecutableLoad(const char* path, int num_threads, TsExecutable* out);
/** Calls `callback` once per input (parameter) name of @main, in order. */
TS_CAPI_EXPORT TsStatus TsExecutableGetInputNames(TsExecutable executable,
                                                  TsStringCallback callback, void* user_data);
/** The number of inputs (parameters) of @main. */
TS_CAPI_EXPORT TsStatus TsExecutableGetNumInputs(TsExecutable executable, size_t* num_inputs);
/** The shape (valid while the executable lives), rank and dtype input `index` must have;
 *  any out pointer may be NULL. An index out of range fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsExecutableGetInputType(TsExecutable executable, size_t index,
                                                 const int64_t** shape, int32_t* ndim,
                                                 TsDType* dtype);
/** The shape (valid while the executable lives), rank and dtype of output `index` (a tuple
 *  result flattened, as TsExecutableRun returns it); any out pointer may be NULL. An index
 *  out of range fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsExecutableGetOutputType(TsExecutable executable, size_t index,
                                                  const int64_t** shape, int32_t* ndim,
                                                  TsDType* dtype);
/** The number of threads of the executable's executor (the resolved count: 0 = all
 *  cores becomes the core count). */
TS_CAPI_EXPORT TsStatus TsExecutableGetNumThreads(TsExecutable executable, int* num_threads);
/** Runs the compiled @main. Inputs are given by parameter name. On success
 *  `outputs[0..*num_outputs)` receive new tensors (a tuple result is flattened) that the
 *  caller destroys; at most `max_outputs` are written, and a result with more fails with
 *  TS_ERROR_VALUE. An unknown or missing input name fails with TS_ERROR_VALUE, a wrong
 *  shape/dtype with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsExecutableRun(TsExecutable executable, const char* const* input_names,
                                        const TsNDArray* inputs, size_t num_inputs,
                                        TsNDArray* outputs, size_t max_outputs, size_t* num_outputs);
/** Runs `warmup` untimed and `repeat` timed times; any of the out pointers may be NULL. */
TS_CAPI_EXPORT TsStatus TsExecutableBenchmark(TsExecutable executable,
                                              const char* const* input_names,
                                              const TsNDArray* inputs, size_t num_inputs, int warmup,
                                              int repeat, double* median_ms, double* p90_ms,
                                              double* min_ms);
/** What TsExecutableBenchmarkStats measured (milliseconds per run). */
typedef struct TsBenchmarkStats {
  double median_ms;
  double p90_ms;
  double min_ms;
  double mean_ms;
  int32_t repeat; /**< timed runs */
} TsBenchmarkStats;
/** TsExecutableBenchmark with every statistic in one struct. */
TS_CAPI_EXPORT TsStatus TsExecutableBenchmarkStats(TsExecutable executable,
                                                   const char* const* input_names,
                                                   const TsNDArray* inputs, size_t num_inputs,
                                                   int warmup, int repeat, TsBenchmarkStats* out);
/** Runs `repeat` times timing each kernel and passes JSON to `callback`: {"rows": [{"symbol",
 *  "backend", "calls", "total_ms", "mean_ms", "share"}] slowest first, "total_ms", "table"}
 *  ("table" is what TsExecutableProfile prints). */
TS_CAPI_EXPORT TsStatus TsExecutableProfileJSON(TsExecutable executable,
                                                const char* const* input_names,
                                                const TsNDArray* inputs, size_t num_inputs,
                                                int repeat, TsStringCallback callback,
                                                void* user_data);
/** Runs `repeat` times timing each kernel; passes the per-kernel table (symbol, module,
 *  calls, times, share) to `callback`. */
TS_CAPI_EXPORT TsStatus TsExecutableProfile(TsExecutable executable, const char* const* input_names,
                                            const TsNDArray* inputs, size_t num_inputs, int repeat,
                                            TsStringCallback callback, void* user_data);
/** Passes the report (JSON) of the Collage search that chose the executable's kernels to
 *  `callback`: per kernel its ops, backend, estimated cost and best rejected alternative,
 *  the estimated total and the guard's end-to-end timings (TsCollageReportRender in the
 *  compiler's c_api.h renders it). Without Collage the callback gets "". */
TS_CAPI_EXPORT TsStatus TsExecutableGetReport(TsExecutable executable, TsStringCallback callback,
                                              void* user_data);
/** The number of results of @main (a tuple result counts its fields). */
TS_CAPI_EXPORT TsStatus TsExecutableGetNumOutputs(TsExecutable executable, size_t* num_outputs);
/** 1 when @main returns a tuple, else 0. */
TS_CAPI_EXPORT TsStatus TsExecutableReturnsTuple(TsExecutable executable, int* returns_tuple);
/** Calls `callback` once per kernel the executable runs, in execution order (its symbol). */
TS_CAPI_EXPORT TsStatus TsExecutableGetKernels(TsExecutable executable, TsStringCallback callback,
                                               void* user_data);
/** The memory plan of the executable's intermediates. */
typedef struct TsMemoryPlan {
  size_t arena_bytes;              /**< peak intermediate bytes (the arena's size) */
  int32_t num_storages;            /**< storages the intermediates share */
  int32_t num_intermediates;       /**< intermediate tensors with storage (not parts) */
  size_t total_intermediate_bytes; /**< what one buffer per intermediate would take */
} TsMemoryPlan;
/** Fills `*out` with the executable's memory plan. */
TS_CAPI_EXPORT TsStatus TsExecutableGetMemoryPlan(TsExecutable executable, TsMemoryPlan* out);
/** The generated C source of a native executable through `callback`; `*has_source` is 1 then
 *  (the source is empty for one loaded from a file), and 0 (no callback call) for other
 *  kinds. */
TS_CAPI_EXPORT TsStatus TsExecutableGetSource(TsExecutable executable, TsStringCallback callback,
                                              void* user_data, int* has_source);
/** Sets the log level of the runtime and the compiler (one logger): "trace", "debug",
 *  "info", "warn", "error" or "off"; anything else fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsSetLogLevel(const char* level);

/** Releases an executable (NULL is ignored). */
TS_CAPI_EXPORT void TsExecutableDestroy(TsExecutable executable);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_RUNTIME_API_H_ */
