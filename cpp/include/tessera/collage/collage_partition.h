// CollagePartition: the Collage pass. For every graph function it gathers the targets'
// partition specs, finds their candidate kernels, estimates each distinct one, picks the
// cheapest cover by a shortest-path search and rewrites the function with the winners.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/dataflow_graph.h"
#include "tessera/collage/name_supply.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_registry.h"
#include "tessera/transform/pass_context.h"

namespace tessera::collage {

/// The search's settings, read from the collage.* config keys of a PassContext.
struct CollageOptions {
  size_t native_max_depth = 8;  ///< collage.native_max_depth (alias collage.tvm_max_depth)
  size_t byoc_max_depth = 8;    ///< collage.byoc_max_depth
  /// collage.byoc_fusion_style: per library; libraries not listed use kArbitraryFusion.
  std::map<std::string, ByocFusionStyle> fusion_styles;
  bool prune = false;             ///< collage.prune
  bool coalesce = true;           ///< collage.coalesce: merge touching library winners
  bool regions = true;            ///< collage.library_regions: each library's regions too
  int refine = 0;                 ///< collage.refine: calibration rounds (measuring only)
  std::string search = "dp";      ///< collage.search: "dp" or "dp+refine"
  double refine_budget_s = 60;    ///< collage.refine_budget_s: the refinement's time budget
  double launch_penalty_us = -1;  ///< collage.launch_penalty_us; < 0: measured per target
  std::string estimator = "measure";  ///< collage.estimator
  /// collage.cost_db: the cost database ("auto": DefaultPath; "": none).
  std::string cost_db = "auto";
  /// The options `ctx` gives (its values were validated when it was created).
  static CollageOptions FromContext(const PassContext& ctx);
};

/// Parses "<library>.NoFusion|TVMFusion|ArbitraryFusion"; throws a value error naming
/// the config key otherwise.
std::pair<std::string, ByocFusionStyle> ParseFusionStyle(const std::string& text);

/// The Collage pass over `targets` (as build takes them: "native -compiler=dnnl", or
/// "native", "dnnl", "blas"). `estimator` null: the one `collage.estimator` names.
/// Every graph function without Primitive, Compiler or SkipOptimization is partitioned:
/// native winners become inline `Primitive` functions (lowered exactly as chosen),
/// library winners global `@collage_<library>_<label>` functions (Primitive, Compiler,
/// global_symbol; touching winners of one library merged; equal ones shared), host nodes
/// stay. The module gets the attribute `collage.report`: the choices as JSON.
/// With collage.search "dp+refine" the search's cover is then refined by measured
/// end-to-end latency (collage.refine_budget_s): neighbouring covers (a kernel moved to
/// another backend, two merged, one split) are built and timed, and a faster one kept.
Pass CollagePartition(std::vector<Target> targets, CostEstimatorPtr estimator = nullptr,
                      ProgressFn progress = nullptr);

/// The module estimators see for `candidate`: @main takes the candidate's non-constant
/// inputs (a tuple input as one parameter per field) and calls the candidate once, in
/// the form the final rewrite gives it (constants passed in; a library's kernel a global
/// Compiler function with its constants inside).
IRModule CandidateModule(const DataflowGraph& graph, const CandidatePartition& candidate);

/// `mod` with every inline function carrying a `Compiler` attribute lifted into a global
/// named by its `global_symbol` attribute (or `collage_<compiler>` from `names`), its
/// constant arguments bound inside; structurally equal functions share one global.
/// `renamed` (optional) maps each requested name to the global that stands for it.
IRModule OutlineCompilerFunctions(const IRModule& mod, NameSupply& names,
                                  std::map<std::string, std::string>* renamed = nullptr);

}  // namespace tessera::collage

namespace tessera {

/// Appends the Collage passes (CollagePartition and its testing helpers) to the built-in
/// pass table.
void AppendCollagePasses(std::vector<PassRegistration>& passes);

}  // namespace tessera
