/* Tessera's C API for the dataflow pattern language (DFPattern), matching and rewriting,
 * pattern tables and BYOC partitioning. */
#ifndef TESSERA_C_API_PATTERN_H_
#define TESSERA_C_API_PATTERN_H_

#include "tessera/c_api_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsPattern_* TsPattern; /**< a dataflow pattern */
/** What each node of a matched pattern matched: pattern -> expression. */
typedef struct TsPatternBindings_* TsPatternBindings;
/** A list of (label, pattern, predicate) entries: a backend's fusions. */
typedef struct TsPatternTable_* TsPatternTable;

/* Patterns are immutable nodes like expressions: every TsPattern a function returns is a
 * new reference the caller releases with TsPatternDestroy, patterns passed in are
 * borrowed, and two handles to one pattern node are equal pointers (a pattern node used
 * twice in one pattern must match the same expression both times). Names (ops, vars,
 * dtypes, labels, compilers) are NUL-terminated strings. */

/* ---- Building patterns ---------------------------------------------------------------- */

/** A pattern matching any expression. */
TS_CAPI_EXPORT TsStatus TsPatternWildcard(TsPattern* out);
/** A pattern matching op `name` (call it with TsPatternCall to match its calls). An unknown
 *  op fails with TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsPatternIsOp(const char* name, TsPattern* out);
/** A pattern matching expressions structurally equal to `expr` (borrowed). */
TS_CAPI_EXPORT TsStatus TsPatternIsExpr(TsExpr expr, TsPattern* out);
/** A pattern matching any constant. */
TS_CAPI_EXPORT TsStatus TsPatternIsConstant(TsPattern* out);
/** A pattern matching any variable (`name` NULL or "") or the one named `name`. */
TS_CAPI_EXPORT TsStatus TsPatternIsVar(const char* name, TsPattern* out);
/** A pattern matching a tuple whose fields match `fields[0..num_fields)`. */
TS_CAPI_EXPORT TsStatus TsPatternIsTuple(const TsPattern* fields, size_t num_fields,
                                         TsPattern* out);
/** A pattern matching field `index` (-1: any field) of a tuple matching `tuple`. */
TS_CAPI_EXPORT TsStatus TsPatternIsTupleGetItem(TsPattern tuple, int index, TsPattern* out);
/** A dominator pattern, matched at the consumer: the expression matches `child`, each of
 *  its inputs followed upwards is the expression matching `parent` or matches `path`, and
 *  the expression post-dominates the parent (conv2d -> elementwise ops -> add diamonds).
 *  Matching it inside a function needs the function: use TsPatternMatchIn. */
TS_CAPI_EXPORT TsStatus TsPatternDominates(TsPattern parent, TsPattern path, TsPattern child,
                                           TsPattern* out);
/** A pattern matching calls whose callee matches `callee` (usually TsPatternIsOp) and
 *  whose arguments match `args[0..num_args)`. */
TS_CAPI_EXPORT TsStatus TsPatternCall(TsPattern callee, const TsPattern* args, size_t num_args,
                                      TsPattern* out);
/** A pattern matching calls whose callee matches `callee`, with any arguments. */
TS_CAPI_EXPORT TsStatus TsPatternCallAnyArgs(TsPattern callee, TsPattern* out);
/** A pattern matching `first`, or else `second` (Python's `first | second`; `optional(f)`
 *  is `p | f(p)`). */
TS_CAPI_EXPORT TsStatus TsPatternAlt(TsPattern first, TsPattern second, TsPattern* out);
/** `pattern` whose call (or function) attributes include `attrs` (borrowed). On an op
 *  pattern the key "TOpPattern" compares the op's pattern kind as an int. */
TS_CAPI_EXPORT TsStatus TsPatternHasAttr(TsPattern pattern, const TsNamedAttribute* attrs,
                                         size_t num_attrs, TsPattern* out);
/** `pattern` whose checked type equals `type` (borrowed). Type predicates read checked
 *  types: infer types first, untyped expressions never match. */
TS_CAPI_EXPORT TsStatus TsPatternHasType(TsPattern pattern, TsType type, TsPattern* out);
/** `pattern`, a tensor of shape `shape[0..ndim)` (`shape` may be NULL when ndim is 0). */
TS_CAPI_EXPORT TsStatus TsPatternHasShape(TsPattern pattern, const int64_t* shape, size_t ndim,
                                          TsPattern* out);
/** `pattern`, a tensor of dtype `dtype` ("float32", "int64", ...; an unknown name fails
 *  with TS_ERROR_VALUE). */
TS_CAPI_EXPORT TsStatus TsPatternHasDType(TsPattern pattern, const char* dtype, TsPattern* out);
/** Prints the pattern as readable Python-like text: `is_op("nn.relu")(wildcard())`. */
TS_CAPI_EXPORT TsStatus TsPatternPrint(TsPattern pattern, TsStringCallback callback,
                                       void* user_data);
/** A new reference to the same node as `pattern` (the same handle value; destroy it too). */
TS_CAPI_EXPORT TsPattern TsPatternRetain(TsPattern pattern);
/** Releases a pattern (NULL is ignored). */
TS_CAPI_EXPORT void TsPatternDestroy(TsPattern pattern);

/* ---- Matching ------------------------------------------------------------------------- */

/** Sets `*matched` to 1 when `pattern` matches `expr`, else 0. Matching follows dataflow
 *  edges only (never into nested functions or through let-bound variables); `add` and
 *  `multiply` also match with swapped arguments; a dominator pattern sees the graph of
 *  `expr` alone. */
TS_CAPI_EXPORT TsStatus TsPatternMatch(TsPattern pattern, TsExpr expr, int* matched);
/** Matches `pattern` at `expr` inside function `func` (dominator patterns need the function
 *  to find consumers). On a match `*out` is a new TsPatternBindings the caller destroys;
 *  without one, `*out` is NULL (and the status TS_OK). `func` not a function is a
 *  TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsPatternMatchIn(TsPattern pattern, TsExpr expr, TsExpr func,
                                         TsPatternBindings* out);
/** The number of pattern nodes the match bound (the path of a dominator pattern matches
 *  many expressions and is not bound). Never fails on a valid handle. */
TS_CAPI_EXPORT TsStatus TsPatternBindingsGetNumEntries(TsPatternBindings bindings,
                                                       size_t* num_entries);
/** Entry `index`: a pattern node and the expression it matched, as new references the
 *  caller destroys (either out pointer may be NULL). The order is unspecified but stable
 *  for one bindings object. An index out of range fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsPatternBindingsGetEntry(TsPatternBindings bindings, size_t index,
                                                  TsPattern* pattern, TsExpr* expr);
/** The expression `pattern` (a node of the matched pattern, compared by identity) matched,
 *  as a new reference; a pattern the match did not bind fails with TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsPatternBindingsLookup(TsPatternBindings bindings, TsPattern pattern,
                                                TsExpr* out);
/** Releases bindings (NULL is ignored). Do not destroy bindings given to a callback. */
TS_CAPI_EXPORT void TsPatternBindingsDestroy(TsPatternBindings bindings);

/* ---- Rewriting and partitioning ------------------------------------------------------- */

/** A rewrite: where the pattern matched, gives the replacement in `*out`, which the
 *  library sets to NULL before the call. `pre` is the matched original, `post` the same
 *  node rebuilt over already rewritten inputs, `bindings` what each pattern node matched
 *  in `pre`; the three are borrowed for the call (look an expression up in `bindings` to
 *  keep a reference). Leaving `*out` NULL keeps `post` (no change). Otherwise `*out` is a
 *  reference the callback owns (e.g. from TsPatternBindingsLookup or an expression
 *  constructor; never the borrowed `pre`/`post` themselves), which the library takes
 *  over; something other than an expression fails with TS_ERROR_TYPE. On failure call
 *  TsSetLastError and return an error status: the rewrite fails with it. */
typedef TsStatus (*TsPatternRewriteCallback)(TsExpr pre, TsExpr post, TsPatternBindings bindings,
                                             TsExpr* out, void* user_data);

/** One rewrite rule (Python's DFPatternCallback). `pattern` is borrowed. With
 *  `require_type` nonzero, types are inferred before each round (for type predicates).
 *  `user_data_destroy` (may be NULL) is called once on `user_data` by the pass of
 *  TsPatternRewritePassCreate when it dies; TsPatternRewrite holds nothing and never
 *  calls it. */
typedef struct TsPatternCallback {
  TsPattern pattern;
  TsPatternRewriteCallback callback;
  void* user_data;
  TsUserDataDestroy user_data_destroy;
  int require_type;
} TsPatternCallback;

/** Applies `callbacks[0..num_callbacks)` in order, each over the whole body of function
 *  `func` (one bottom-up sweep per round), until a round changes nothing. Types are
 *  inferred in `module`'s context (NULL: none). `*out` is the new function. */
TS_CAPI_EXPORT TsStatus TsPatternRewrite(const TsPatternCallback* callbacks, size_t num_callbacks,
                                         TsExpr func, TsModule module, TsExpr* out);
/** A function pass named `name` (opt level 0) applying TsPatternRewrite with `callbacks` to
 *  every graph function of a module (partitions, kernels and SkipOptimization functions
 *  excepted). The pass owns the callbacks' user data from here on (see TsPatternCallback);
 *  on failure none is destroyed. The callbacks run on the thread running the pass. */
TS_CAPI_EXPORT TsStatus TsPatternRewritePassCreate(const char* name,
                                                   const TsPatternCallback* callbacks,
                                                   size_t num_callbacks, TsPass* out);

/** A test on an expression: sets `*accepted` to 1 (take it) or 0. `root` (the typed root of
 *  a match; for Collage's op predicates, the call) is borrowed for the call. On failure call
 *  TsSetLastError and return an error status. */
typedef TsStatus (*TsPatternPredicate)(TsExpr root, int* accepted, void* user_data);

/** Turns every match of `pattern` in function `func` whose root `check` accepts (NULL:
 *  every match; `check_data` is its user_data, used during this call only) into a call of
 *  a local function with attribute Composite=`label`. `func` should be typed. `*out` is the
 *  new function. */
TS_CAPI_EXPORT TsStatus TsPatternPartition(TsPattern pattern, TsExpr func, const char* label,
                                           TsPatternPredicate check, void* check_data, TsExpr* out);

/* ---- Pattern tables ------------------------------------------------------------------- */

/** One entry of a pattern table: matches of `pattern` that `predicate` accepts (NULL:
 *  every match) become Composite=`label` functions; the label's prefix up to the first
 *  '.' names the backend ("dnnl.conv2d_bias_relu"). `label` and `pattern` are borrowed.
 *  `user_data_destroy` (may be NULL) is called once on `user_data` when no table, pass or
 *  registry holds the predicate any more (at once without a predicate; for a registered
 *  table's, possibly never). A
 *  table's predicates may be called by any thread that runs a pass, build or Collage
 *  search using it. */
typedef struct TsPatternTableEntry {
  const char* label;
  TsPattern pattern;
  TsPatternPredicate predicate;
  void* user_data;
  TsUserDataDestroy user_data_destroy;
} TsPatternTableEntry;

/** A table of `entries[0..num_entries)` (earlier entries are tried first, so put longer
 *  patterns before their prefixes); labels are kept as given. The table owns the entries'
 *  user data from here on; on failure (a NULL label or pattern: TS_ERROR_INVALID_ARGUMENT)
 *  none is destroyed. */
TS_CAPI_EXPORT TsStatus TsPatternTableCreate(const TsPatternTableEntry* entries, size_t num_entries,
                                             TsPatternTable* out);
/** A copy of the registered table of `compiler` ("dnnl"); an unknown compiler fails with
 *  TS_ERROR_NOT_FOUND listing the known ones. */
TS_CAPI_EXPORT TsStatus TsPatternTableGet(const char* compiler, TsPatternTable* out);
/** The number of entries. */
TS_CAPI_EXPORT TsStatus TsPatternTableGetNumEntries(TsPatternTable table, size_t* num_entries);
/** Entry `index`: its label (borrowed from the table), its pattern (a new reference) and
 *  whether it has a predicate (1/0); any out pointer may be NULL. An index out of range
 *  fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsPatternTableGetEntry(TsPatternTable table, size_t index,
                                               TsStringRef* label, TsPattern* pattern,
                                               int* has_predicate);
/** Runs entry `index`'s predicate on `root` (a typed match root): `*accepted` is 1 when it
 *  accepts (always, without a predicate), else 0. */
TS_CAPI_EXPORT TsStatus TsPatternTableCheck(TsPatternTable table, size_t index, TsExpr root,
                                            int* accepted);
/** Registers (or replaces) the pattern table `name` with a copy of `table`'s entries
 *  (labels without the "<name>." prefix get it); its op-support predicates stay. Enough for
 *  TsMergeCompositeCompilersPassCreate and Collage; to build its partitions, use
 *  TsExternalBackendRegister. Built-in tables (dnnl, blas, ...) fail with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsPatternTableRegister(const char* name, TsPatternTable table);
/** Releases a table (NULL is ignored). */
TS_CAPI_EXPORT void TsPatternTableDestroy(TsPatternTable table);
/** JSON array of every compiler with a pattern table or op predicates, sorted. */
TS_CAPI_EXPORT TsStatus TsListPatternTables(TsStringCallback callback, void* user_data);
/** JSON array of the ops `compiler` supports one by one (sorted; [] for an unknown one). */
TS_CAPI_EXPORT TsStatus TsListSupportedOps(const char* compiler, TsStringCallback callback,
                                           void* user_data);
/** Sets `*supported` to 1 when `compiler` takes call `call` (a Composite call labelled
 *  "<compiler>.*", or an op call its registered predicate accepts; the call should be
 *  typed), else 0. `call` not a call fails with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsCallIsSupportedBy(TsExpr call, const char* compiler, int* supported);

/** Writes the C source of one partition's kernel: a function named `c_name` with the
 *  kernel ABI `int32_t c_name(void* const* buffers, const TsKernelEnv* env)` (buffers: the
 *  partition's parameters, tuples flattened, then its outputs; dense row-major; returns
 *  0), passed in pieces to `emit(text, length, emit_data)`; the ABI's declarations are put
 *  before it. `partition` is borrowed for the call. On failure call TsSetLastError and
 *  return an error status: the build fails with it. */
typedef TsStatus (*TsPartitionCSource)(TsExpr partition, const char* c_name, TsStringCallback emit,
                                       void* emit_data, void* user_data);

/** Registers (or replaces) external backend `name`: the pattern table `table` (a copy;
 *  labels get the "<name>." prefix) and a backend compiling its Compiler="<name>"
 *  partitions, so TsModulePartitionFor, Collage, TsBuild (target "<name>" next to
 *  "native", as "dnnl" is, or "native -compiler=<name>") and
 *  save/load work with it. With `c_source` NULL the native code generator compiles them;
 *  otherwise `c_source` writes each kernel's C, compiled by the system compiler (called
 *  by whichever thread builds), and the backend owns `user_data` from then on: a replaced
 *  backend stays alive (executables built with it may still run), so `user_data_destroy`
 *  (may be NULL) is called at most once, possibly never; on failure it is not called and
 *  the caller keeps `user_data`. Built-in names, names with spaces, dots, commas, ';' or '=', an
 * empty table or a label given twice fail with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsExternalBackendRegister(const char* name, TsPatternTable table,
                                                  TsPartitionCSource c_source, void* user_data,
                                                  TsUserDataDestroy user_data_destroy);

/* ---- BYOC partitioning passes --------------------------------------------------------- */

/** MergeComposite with `table`: every match of its entries (in order) becomes a call of a
 *  local Composite="<label>" function. Runs on every graph function except partitions and
 *  kernels; infers types first. */
TS_CAPI_EXPORT TsStatus TsMergeCompositePassCreate(TsPatternTable table, TsPass* out);
/** MergeComposite with the registered tables of `compilers[0..num_compilers)`, in order. */
TS_CAPI_EXPORT TsStatus TsMergeCompositeCompilersPassCreate(const char* const* compilers,
                                                            size_t num_compilers, TsPass* out);
/** AnnotateTarget: marks the calls the first of `compilers` supporting them takes with
 *  compiler_begin/compiler_end annotations; with `include_non_call_ops` nonzero, tuples and
 *  projections join the compiler of their operands when they all agree. */
TS_CAPI_EXPORT TsStatus TsAnnotateTargetPassCreate(const char* const* compilers,
                                                   size_t num_compilers, int include_non_call_ops,
                                                   TsPass* out);
/** MergeCompilerRegions: merges adjacent regions of one compiler (unless that would make a
 *  cycle). */
TS_CAPI_EXPORT TsStatus TsMergeCompilerRegionsPassCreate(TsPass* out);
/** PartitionGraph: outlines every annotated region into a global function with
 *  Primitive=1, Compiler=<compiler> and global_symbol=<compiler>_<function>_<k>. */
TS_CAPI_EXPORT TsStatus TsPartitionGraphPassCreate(TsPass* out);
/** The classic BYOC flow for registered `compiler` ("dnnl", "blas", or one from
 *  TsExternalBackendRegister): InferType, FoldConstant, MergeComposite, AnnotateTarget,
 *  MergeCompilerRegions, PartitionGraph, InferType. `*out` is a new module; an unknown
 *  compiler fails with TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsModulePartitionFor(TsModule module, const char* compiler, TsModule* out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_PATTERN_H_ */
