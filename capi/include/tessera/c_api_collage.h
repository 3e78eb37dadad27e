/* Tessera's C API for Collage: partition rules and candidates, the partition pass,
 * estimators, reports, the cost database and fingerprints. */
#ifndef TESSERA_C_API_COLLAGE_H_
#define TESSERA_C_API_COLLAGE_H_

#include "tessera/c_api_build.h"
#include "tessera/c_api_pass.h"
#include "tessera/c_api_pattern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every handle below is an object the caller owns once a function returns it and
 * releases with the Destroy of its kind (NULL is ignored); handles given to a function are
 * borrowed for the call. Rules, combiners and estimators are immutable once made (a rule
 * tree shares its sub-rules, so destroying a sub-rule after building on it is fine).
 *
 * Callbacks (predicates, estimators, progress, C source writers) are called on the thread
 * that runs the search or build using them. Their `user_data` belongs to the library from
 * the call that takes it: its `destroy` (may be NULL) is called exactly once, when the last
 * object holding the callback dies, or right away when that call fails. */

typedef struct TsPartitionRule_* TsPartitionRule;   /**< a tree of partition rules */
typedef struct TsCombinerRule_* TsCombinerRule;     /**< a combiner rule for Combine rules */
typedef struct TsDataflowGraph_* TsDataflowGraph;   /**< @main of a module as a dataflow graph */
typedef struct TsCandidateList_* TsCandidateList;   /**< candidates found on a graph, by spec */
typedef struct TsCandidate_* TsCandidate;           /**< one candidate partition (kernel) */
typedef struct TsSubGraph_* TsSubGraph;             /**< a candidate's or nested sub-graph */
typedef struct TsCostEstimator_* TsCostEstimator;   /**< a kernel cost estimator */
typedef struct TsCostDatabase_* TsCostDatabase;     /**< an open cost database file */
typedef struct TsCostRecordList_* TsCostRecordList; /**< records read from a cost database */

/* Predicates on expressions are TsPatternPredicate (c_api_pattern.h): here they get a call
 * (op predicates) or a pattern match's root; a failing one makes the enumeration fail with
 * its status and message. */

/* ---- Dataflow graphs ------------------------------------------------------------------ */

/** The dataflow graph of @main of `module` after type inference. Its nodes are numbered in
 *  post-DFS order: parameters first, each call's callee before its arguments, the function
 *  itself last. A module without @main fails with TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsDataflowGraphCreate(TsModule module, TsDataflowGraph* out);
/** The number of nodes (never fails on a valid handle; 0 for NULL). */
TS_CAPI_EXPORT size_t TsDataflowGraphGetNumNodes(TsDataflowGraph graph);
/** Node `index`'s label: an op name for a call ("nn.conv2d"), "op" for an op node, "var",
 *  "const", "tuple", "proj", "fn" for the function (last). Borrowed from the graph. An
 *  index out of range fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsDataflowGraphGetNodeLabel(TsDataflowGraph graph, size_t index,
                                                    TsStringRef* out);
/** Node `index`'s expression (a new reference). Out of range: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsDataflowGraphGetNode(TsDataflowGraph graph, size_t index, TsExpr* out);

/** One part for TsDataflowGraphRewrite: node indexes (borrowed) becoming one function with
 *  `attrs` (e.g. Compiler="dnnl", Primitive=1). */
typedef struct TsCollagePart {
  const size_t* indexes;
  size_t num_indexes;
  const TsNamedAttribute* attrs;
  size_t num_attrs;
} TsCollagePart;
/** The graph's module with @main rewritten so each part becomes a call of a function of its
 *  nodes (types inferred; a new module). Parts must be disjoint, non-empty, without the
 *  function node, ops or globals, and each must form a valid function: otherwise
 *  TS_ERROR_VALUE saying which part and why. */
TS_CAPI_EXPORT TsStatus TsDataflowGraphRewrite(TsDataflowGraph graph, const TsCollagePart* parts,
                                               size_t num_parts, TsModule* out);
/** Releases a graph (NULL is ignored). Candidates taken from it keep what they need. */
TS_CAPI_EXPORT void TsDataflowGraphDestroy(TsDataflowGraph graph);

/* ---- Partition rules ------------------------------------------------------------------ */

/* Depth and exit limits are int64_t: 0 means no limit, a negative one fails with
 * TS_ERROR_VALUE. Rule names are NUL-terminated and must not be NULL. */

/** One candidate per call of an op in `ops` (`num_ops` op names; an unknown op fails with
 *  TS_ERROR_NOT_FOUND). `description` (NULL or "": "op in a, b") shows when printed. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleOpPredicateCreate(const char* name, const char* const* ops,
                                                         size_t num_ops, const char* description,
                                                         TsPartitionRule* out);
/** One candidate per op call `predicate` accepts (it gets the call). */
TS_CAPI_EXPORT TsStatus TsPartitionRuleOpPredicateCallbackCreate(
    const char* name, TsPatternPredicate predicate, void* user_data, TsUserDataDestroy destroy,
    const char* description, TsPartitionRule* out);
/** One candidate per match of `pattern` (borrowed; tried at every node, matches may
 *  overlap) whose root `predicate` accepts (NULL: every match). Wildcard matches and
 *  inlinable nodes stay outside. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleDFPatternCreate(const char* name, TsPattern pattern,
                                                       TsPatternPredicate predicate,
                                                       void* user_data, TsUserDataDestroy destroy,
                                                       TsPartitionRule* out);
/** A library backend's rule from its registered pattern table and supported ops. `fusion`:
 *  "none", "tvm", "arbitrary" (or NoFusion, TVMFusion, ArbitraryFusion); an unknown
 *  compiler fails with TS_ERROR_NOT_FOUND, an unknown fusion with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleByocCreate(const char* compiler, int64_t max_depth,
                                                  const char* fusion, TsPartitionRule* out);
/** One candidate per call of kind <= out_elemwise_fusable. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleOpCallByKindCreate(const char* name, TsPartitionRule* out);
/** `sub_rule`'s candidates, each to become a function with Composite=name. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleCompositeCreate(const char* name, TsPartitionRule sub_rule,
                                                       TsPartitionRule* out);
/** `sub_rule`'s candidates, each to become a kernel (Primitive, plus Compiler for a
 *  library spec). */
TS_CAPI_EXPORT TsStatus TsPartitionRulePrimitiveCreate(const char* name, TsPartitionRule sub_rule,
                                                       TsPartitionRule* out);
/** The candidates of every rule in `sub_rules` (borrowed array), in order. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleUnionCreate(const char* name,
                                                   const TsPartitionRule* sub_rules,
                                                   size_t num_sub_rules, TsPartitionRule* out);
/** `sub_rule`'s candidates grown round after round by `combiners` (borrowed array). */
TS_CAPI_EXPORT TsStatus TsPartitionRuleCombineCreate(const char* name, TsPartitionRule sub_rule,
                                                     const TsCombinerRule* combiners,
                                                     size_t num_combiners, int64_t max_depth,
                                                     TsPartitionRule* out);
/** `sub_rule`'s candidates that are valid functions: at most `max_exits` exits, taps
 *  allowed when `allow_taps` is nonzero, depth at most `max_depth`. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleOnlyValidCreate(const char* name, TsPartitionRule sub_rule,
                                                       int64_t max_exits, int allow_taps,
                                                       int64_t max_depth, TsPartitionRule* out);
/** A zero-cost candidate per node the host evaluates without a kernel. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleHostCreate(const char* name, TsPartitionRule* out);
/** `sub_rule`'s candidates with touching ones merged. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleMaxCoalesceCreate(const char* name, TsPartitionRule sub_rule,
                                                         TsPartitionRule* out);
/** The native spec's rule: FuseOps's fusions, every combination up to `max_depth`. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleFuseOpsLikeCreate(int64_t max_depth, TsPartitionRule* out);
/** The rule's own name, borrowed from the rule ({NULL, 0} for NULL). */
TS_CAPI_EXPORT TsStringRef TsPartitionRuleGetName(TsPartitionRule rule);
/** The rule tree, one rule per line, children indented (no final newline). */
TS_CAPI_EXPORT TsStatus TsPartitionRulePrint(TsPartitionRule rule, TsStringCallback callback,
                                             void* user_data);
/** Releases a rule (NULL is ignored). */
TS_CAPI_EXPORT void TsPartitionRuleDestroy(TsPartitionRule rule);

/** Unions touching candidate pairs whose upstream kind <= upstream_kinds[i] and downstream
 *  kind <= downstream_kinds[i] for some i. Kinds are letters E B I R A T O or names
 *  ("broadcast", ...); an unknown one fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsCombinerRuleAllSimpleCreate(const char* name,
                                                      const char* const* upstream_kinds,
                                                      const char* const* downstream_kinds,
                                                      size_t num_pairs, TsCombinerRule* out);
/** Adds a tuple feeding a candidate together with the candidates of its fields. */
TS_CAPI_EXPORT TsStatus TsCombinerRuleTupleArgCreate(const char* name, TsCombinerRule* out);
/** Adds the tuple projections of a candidate's outputs. */
TS_CAPI_EXPORT TsStatus TsCombinerRuleTupleProjCreate(const char* name, TsCombinerRule* out);
/** Adds a candidate's non-scalar constant arguments. */
TS_CAPI_EXPORT TsStatus TsCombinerRuleConstantCreate(const char* name, TsCombinerRule* out);
/** The combiner as text ("AllSimple(A->B, B->R)"). */
TS_CAPI_EXPORT TsStatus TsCombinerRulePrint(TsCombinerRule rule, TsStringCallback callback,
                                            void* user_data);
/** Releases a combiner (NULL is ignored). */
TS_CAPI_EXPORT void TsCombinerRuleDestroy(TsCombinerRule rule);

/* ---- Candidates ----------------------------------------------------------------------- */

/** Runs `rule` on `graph` as the spec `spec_name` (NULL: "spec") for `target` (NULL:
 *  "native") with `compiler` (NULL or "": native code generation); `*out` holds one spec. */
TS_CAPI_EXPORT TsStatus TsPartitionRuleGetCandidates(TsPartitionRule rule, TsDataflowGraph graph,
                                                     const char* spec_name, TsTarget target,
                                                     const char* compiler, TsCandidateList* out);
/** The candidates of every spec `targets` give (a FuseOps-like spec per target kind, a
 *  library spec per -compiler/-libs, and "host" when `include_host` is nonzero), grouped
 *  by spec in order. */
TS_CAPI_EXPORT TsStatus TsCollageTargetCandidates(TsDataflowGraph graph, const TsTarget* targets,
                                                  size_t num_targets, int64_t max_depth,
                                                  int include_host, TsCandidateList* out);
/** The number of candidates (0 for NULL). */
TS_CAPI_EXPORT size_t TsCandidateListGetNumCandidates(TsCandidateList list);
/** Candidate `index` (a new handle). Out of range: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsCandidateListGetCandidate(TsCandidateList list, size_t index,
                                                    TsCandidate* out);
/** The number of specs (0 for NULL). */
TS_CAPI_EXPORT size_t TsCandidateListGetNumSpecs(TsCandidateList list);
/** Spec `index`: its name (borrowed from the list) and its candidates, which are
 *  [*first, *first + *count) (a spec may have none). Any out pointer may be NULL. */
TS_CAPI_EXPORT TsStatus TsCandidateListGetSpec(TsCandidateList list, size_t index,
                                               TsStringRef* name, size_t* first, size_t* count);
/** Releases a list (NULL is ignored); candidates taken from it stay valid. */
TS_CAPI_EXPORT void TsCandidateListDestroy(TsCandidateList list);

/** The rule path that found the candidate ("native.combine.op_call_by_kind"), borrowed. */
TS_CAPI_EXPORT TsStringRef TsCandidateGetRuleName(TsCandidate candidate);
/** The name of the candidate's spec, borrowed. */
TS_CAPI_EXPORT TsStringRef TsCandidateGetSpecName(TsCandidate candidate);
/** The candidate's sub-graph (a new handle). */
TS_CAPI_EXPORT TsStatus TsCandidateGetSubGraph(TsCandidate candidate, TsSubGraph* out);
/** The candidate extracted as a standalone function (a new reference), or NULL for a
 *  candidate holding the function node itself (the host's). */
TS_CAPI_EXPORT TsStatus TsCandidateGetFunction(TsCandidate candidate, TsExpr* out);
/** Releases a candidate (NULL is ignored). */
TS_CAPI_EXPORT void TsCandidateDestroy(TsCandidate candidate);

/** Which index set of a sub-graph. */
typedef enum TsSubGraphIndexKind {
  TS_SUB_GRAPH_INSIDE = 0,  /**< its nodes */
  TS_SUB_GRAPH_ENTRIES = 1, /**< inside nodes fed from outside */
  TS_SUB_GRAPH_EXITS = 2,   /**< inside nodes read from outside */
  TS_SUB_GRAPH_INPUTS = 3,  /**< outside nodes it reads */
  TS_SUB_GRAPH_OUTPUTS = 4, /**< outside nodes reading it */
  TS_SUB_GRAPH_INDEX_KIND_MIN_ENUM = -0x7FFFFFFF - 1, /**< not a value: the enum spans int */
  TS_SUB_GRAPH_INDEX_KIND_MAX_ENUM = 0x7FFFFFFF
} TsSubGraphIndexKind;
/** How many indexes the set `kind` holds; an unknown kind fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsSubGraphGetNumIndexes(TsSubGraph sub_graph, TsSubGraphIndexKind kind,
                                                size_t* out);
/** The `i`-th index (ascending) of the set `kind`. Out of range: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsSubGraphGetIndex(TsSubGraph sub_graph, TsSubGraphIndexKind kind, size_t i,
                                           size_t* out);
/** The label ("nn.dense+add"), borrowed. */
TS_CAPI_EXPORT TsStringRef TsSubGraphGetLabel(TsSubGraph sub_graph);
/** The kind's name ("elemwise", "broadcast", "injective", "comm_reduce",
 *  "out_elemwise_fusable", "tuple", "opaque"), static. */
TS_CAPI_EXPORT TsStringRef TsSubGraphGetKind(TsSubGraph sub_graph);
/** The depth (longest op chain inside). 0 for NULL. */
TS_CAPI_EXPORT size_t TsSubGraphGetDepth(TsSubGraph sub_graph);
/** How many nested sub-graphs (functions inside the kernel, e.g. Composite ones). */
TS_CAPI_EXPORT size_t TsSubGraphGetNumNested(TsSubGraph sub_graph);
/** Nested sub-graph `i` (a new handle; it has the attributes of its function).
 *  Out of range: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsSubGraphGetNested(TsSubGraph sub_graph, size_t i, TsSubGraph* out);
/** How many attributes the sub-graph's function gets (0 for a candidate's own). */
TS_CAPI_EXPORT size_t TsSubGraphGetNumAttributes(TsSubGraph sub_graph);
/** Attribute `i` (`name` borrowed from the sub-graph, `value` new). Out of range:
 *  TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsSubGraphGetAttribute(TsSubGraph sub_graph, size_t i,
                                               TsNamedAttribute* out);
/** Releases a sub-graph (NULL is ignored). */
TS_CAPI_EXPORT void TsSubGraphDestroy(TsSubGraph sub_graph);

/** A pass turning nodes `indexes` of @main into one function with Compiler=compiler
 *  (Primitive=1 when "" or NULL); `labels` (NULL, or `num_indexes` strings) groups nodes into
 *  Composite functions ("" keeps a node outside them). When the nodes do not form a valid
 *  sub-graph ({max_exits, allow_taps}) the pass leaves the module unchanged. */
TS_CAPI_EXPORT TsStatus TsCollagePartitionForTestingPassCreate(
    int64_t max_exits, int allow_taps, const char* compiler, const size_t* indexes,
    size_t num_indexes, const char* const* labels, size_t num_labels, TsPass* out);

/* ---- Estimators ----------------------------------------------------------------------- */

/** Estimates the seconds @main of `module` takes on `target` (both borrowed; @main calls
 *  one candidate kernel). +INFINITY: cannot run there; NAN: unknown. A failing estimate
 *  (TsSetLastError + error status) makes that candidate invalid with the message as the
 *  reason; the search goes on. */
typedef TsStatus (*TsCostEstimateCallback)(TsModule module, TsTarget target, double* seconds,
                                           void* user_data);
/** An estimator calling `estimate`, reported as `name` (NULL: "custom"). Its costs are
 *  never stored in a cost database. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorCreate(const char* name, TsCostEstimateCallback estimate,
                                              void* user_data, TsUserDataDestroy destroy,
                                              TsCostEstimator* out);
/** TVM's mock: a candidate on a target of kind kinds[i] costs costs[i] * 0.9^k summed over
 *  its op calls. A target kind missing from `kinds` makes its candidates invalid; more than
 *  `max_estimates` estimates (when nonzero) is an error. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorMockCreate(const char* const* kinds, const double* costs,
                                                  size_t num_kinds, size_t max_estimates,
                                                  TsCostEstimator* out);
/** How many estimates a mock estimator made; another estimator fails with TS_ERROR_TYPE. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorMockGetNumEstimates(TsCostEstimator estimator, size_t* out);
/** The measuring estimator (Collage's default): `repeat` samples of `number` runs (0:
 *  ~1 ms per sample), the `percentile` of the samples, on `runner` ("local" or
 *  "dask://HOST:PORT"; NULL: "local"), in a worker process when `isolate` is nonzero, at
 *  most `timeout_s` per candidate. A bad runner fails with TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorMeasuringCreate(int repeat, int number, double percentile,
                                                       const char* runner, int isolate,
                                                       double timeout_s, TsCostEstimator* out);
/** Calls the estimator once: seconds @main of `module` takes on `target`. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorEstimate(TsCostEstimator estimator, TsModule module,
                                                TsTarget target, double* out);
/** Seconds the executor spends per extra kernel call on `target` (0 unless measuring). */
TS_CAPI_EXPORT TsStatus TsCostEstimatorGetLaunchPenalty(TsCostEstimator estimator, TsTarget target,
                                                        double* out);
/** The estimator's name for reports ("measure", "mock", "custom", ...). */
TS_CAPI_EXPORT TsStatus TsCostEstimatorGetName(TsCostEstimator estimator, TsStringCallback callback,
                                               void* user_data);
/** Releases an estimator (NULL is ignored); a pass or registration using it keeps it. */
TS_CAPI_EXPORT void TsCostEstimatorDestroy(TsCostEstimator estimator);
/** Registers `estimator` (borrowed; the registry keeps it for the process's life) for the
 *  config key collage.estimator = `name`, replacing an earlier one. "measure" is built in and
 *  a NULL estimator is refused: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsCostEstimatorRegister(const char* name, TsCostEstimator estimator);
/** JSON array of the names collage.estimator accepts ("measure" and registered ones),
 *  sorted. */
TS_CAPI_EXPORT TsStatus TsListCostEstimators(TsStringCallback callback, void* user_data);

/* ---- The Collage pass and reports ----------------------------------------------------- */

/** Told `done` of `total` estimates are finished. A failing call fails the search. */
typedef TsStatus (*TsCollageProgressCallback)(size_t done, size_t total, void* user_data);

/** The Collage pass over `targets` (borrowed; as TsBuild takes them, at least one): it
 *  picks every kernel's backend by estimated cost with `estimator` (NULL: the one
 *  collage.estimator names) and calls `progress` (may be NULL) as candidates are
 *  estimated. The result module's attribute "collage.report" holds the choices. */
TS_CAPI_EXPORT TsStatus TsCollagePartitionPassCreate(const TsTarget* targets, size_t num_targets,
                                                     TsCostEstimator estimator,
                                                     TsCollageProgressCallback progress,
                                                     void* user_data, TsUserDataDestroy destroy,
                                                     TsPass* out);
/** Sets the progress callback of Collage searches on this thread that were given none
 *  (inside TsBuild too); NULL removes it. The previous one's user_data is destroyed. */
TS_CAPI_EXPORT TsStatus TsCollageSetProgress(TsCollageProgressCallback progress, void* user_data,
                                             TsUserDataDestroy destroy);
/** The JSON report the Collage pass left on `module` (render it with
 *  TsCollageReportRender). A module without one fails with TS_ERROR_NOT_FOUND. */
TS_CAPI_EXPORT TsStatus TsCollageGetReport(TsModule module, TsStringCallback callback,
                                           void* user_data);

/* External backends usable as Collage targets are registered with
 * TsExternalBackendRegister (c_api_pattern.h). */

/* ---- Cost database and fingerprints --------------------------------------------------- */

/** Opens (creating it when missing) the cost database at `path`; NULL opens the default
 *  one ($TESSERA_CACHE_DIR/collage.db, folders created). A file that is not an SQLite
 *  database fails with TS_ERROR_IO and is left alone; a damaged database is moved aside
 *  and a new one created. */
TS_CAPI_EXPORT TsStatus TsCostDatabaseOpen(const char* path, TsCostDatabase* out);
/** The database's file, borrowed from the handle. */
TS_CAPI_EXPORT TsStringRef TsCostDatabaseGetPath(TsCostDatabase db);
/** JSON object {"path", "records", "invalid", "bytes", "by_kind": {kind: n},
 *  "by_target": {target: n}, "by_fingerprint": {hash: {"records", "text"}}}. */
TS_CAPI_EXPORT TsStatus TsCostDatabaseGetStats(TsCostDatabase db, TsStringCallback callback,
                                               void* user_data);
/** Every record, oldest first (`*out` a new list). */
TS_CAPI_EXPORT TsStatus TsCostDatabaseListRecords(TsCostDatabase db, TsCostRecordList* out);
/** Removes every record; `*removed` (may be NULL) gets how many. */
TS_CAPI_EXPORT TsStatus TsCostDatabaseClear(TsCostDatabase db, size_t* removed);
/** Writes every record to `path` as JSON lines; `*count` (may be NULL) gets how many. */
TS_CAPI_EXPORT TsStatus TsCostDatabaseExport(TsCostDatabase db, const char* path, size_t* count);
/** Adds the records of a file TsCostDatabaseExport wrote (existing keys kept); `*added`
 *  (may be NULL) gets how many were new. A missing file fails with TS_ERROR_NOT_FOUND, a
 *  malformed line with TS_ERROR_PARSE naming it (nothing is added then). */
TS_CAPI_EXPORT TsStatus TsCostDatabaseImport(TsCostDatabase db, const char* path, size_t* added);
/** Closes a database (NULL is ignored). */
TS_CAPI_EXPORT void TsCostDatabaseDestroy(TsCostDatabase db);

/** One stored measurement; its strings are borrowed from the list. */
typedef struct TsCostRecord {
  TsStringRef hash;        /**< SHA-256 of `workload` */
  TsStringRef kind;        /**< "kernel", "program" or "launch" */
  TsStringRef label;       /**< a short description ("nn.dense+nn.relu") */
  TsStringRef target;      /**< the target it was measured for */
  TsStringRef fingerprint; /**< the machine fingerprint's hash */
  TsStringRef cost_model;  /**< the estimator and its settings */
  TsStringRef workload;    /**< the candidate module's text without constant data */
  TsStringRef error;       /**< why it cannot run (when `cost` is +INFINITY) */
  double cost;             /**< seconds; +INFINITY when invalid */
  double spread;           /**< seconds, 10th to 90th percentile; NAN when unknown */
  int64_t repeats;         /**< timed samples */
  int64_t measured_at;     /**< unix seconds */
} TsCostRecord;
/** The number of records (0 for NULL). */
TS_CAPI_EXPORT size_t TsCostRecordListGetNumRecords(TsCostRecordList list);
/** Record `index`. Out of range: TS_ERROR_VALUE. */
TS_CAPI_EXPORT TsStatus TsCostRecordListGetRecord(TsCostRecordList list, size_t index,
                                                  TsCostRecord* out);
/** Releases a record list (NULL is ignored). */
TS_CAPI_EXPORT void TsCostRecordListDestroy(TsCostRecordList list);

/** The text costs measured for `targets` (borrowed) on this machine are stored under:
 *  CPU, ISA extensions, threads, backend versions, one item per line. */
TS_CAPI_EXPORT TsStatus TsCollageMachineFingerprint(const TsTarget* targets, size_t num_targets,
                                                    TsStringCallback callback, void* user_data);
/** What measuring a saved program for `targets_text` (';'-separated targets) depends on
 *  where it runs (a remote worker must match the driver's). */
TS_CAPI_EXPORT TsStatus TsCollageRunnerFingerprint(const char* targets_text,
                                                   TsStringCallback callback, void* user_data);
/** The short hash (16 hex digits) of a fingerprint's text, as records store it. */
TS_CAPI_EXPORT TsStatus TsCollageFingerprintHash(const char* text, TsStringCallback callback,
                                                 void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_COLLAGE_H_ */
