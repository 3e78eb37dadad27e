// Collage's graph-level refinement (collage.search "dp+refine"): a hill climb from the
// search's cover over covers one move away (a kernel to another backend, two adjacent
// kernels merged, one split in two), judged by measured end-to-end latency.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/dataflow_graph.h"

namespace tessera::collage {

/// One move: the cover after it and what it changes.
struct RefineMove {
  std::vector<size_t> winners;  ///< candidate indexes of the new cover, sorted
  std::string what;             ///< "nn.conv2d+nn.relu: dnnl -> native"
  double estimated = 0;         ///< the new cover's estimated total (additive model), seconds
};

/// Every move from `winners` (indexes into `cands`, a cover of the function) to another
/// cover made of candidates with finite `edge` costs: one kernel moved to a candidate of
/// another backend over the same nodes, two kernels replaced by one candidate over their
/// union, one kernel split into two candidates that cover it exactly. Sorted by estimated
/// total, cheapest first (ties in a fixed order).
std::vector<RefineMove> NeighbourMoves(const std::vector<CandidatePartition>& cands,
                                       const std::vector<double>& edge,
                                       const std::vector<size_t>& winners);

/// One function's candidates and their estimated costs (edge costs of the search).
struct RefineFunction {
  const std::vector<CandidatePartition>* cands;
  const std::vector<double>* edge;
};

/// A cover of every function: candidate indexes by function name.
using Cover = std::map<std::string, std::vector<size_t>>;

/// Milliseconds per run of the program `cover` gives (+inf, with `why`, when it cannot be
/// built or run); `fresh`: timed now, not taken from the cost database.
using CoverTimer = std::function<double(const Cover& cover, bool fresh, std::string* why)>;

/// The refinement's result: the best cover and what happened (JSON for the report:
/// budget, seconds, covers evaluated, the search's and the refined time, the changes
/// kept and the moves tried).
struct RefineResult {
  Cover cover;
  nlohmann::ordered_json summary;
};

/// Hill-climbs from `start` within `budget_s` seconds: the neighbours of the current
/// cover are timed cheapest estimate first; one at least 2% faster is timed again
/// together with the current best (fresh) and kept if it still is, and the climb goes on
/// from it; it stops when the budget is spent or no neighbour is faster. Never returns a
/// cover measured slower than `start`.
RefineResult RefineCover(const std::map<std::string, RefineFunction>& functions, const Cover& start,
                         const CoverTimer& time, double budget_s);

}  // namespace tessera::collage
