// The search of Collage: Dijkstra over covered sets of dataflow nodes, each step adding
// one candidate that holds the lowest uncovered node.
#pragma once

#include <string>
#include <vector>

#include "tessera/collage/candidate_partition.h"

namespace tessera::collage {

/// The indexes (into `candidates`) of the cheapest set of disjoint candidates covering
/// every node of `graph`, in the order the path adds them. `costs[i]` is candidate i's
/// edge cost in seconds (its kernel cost plus launch penalty): +inf candidates are never
/// used; NaN (unknown) ones only when nothing else covers a node (they sort after every
/// known cost). Ties go to the first relaxation, as in TVM; states are ordered by (cost,
/// covered set), so the result is deterministic. A node no usable candidate holds is a
/// value error naming the node (its index and label), the specs that were tried and, when
/// only invalid candidates hold it, their reasons (`invalid_reasons[i]`, may be empty).
/// `spec_names` (optional) are the specs to name as tried, those without candidates too.
std::vector<size_t> SearchCheapestCover(const DataflowGraph& graph,
                                        const std::vector<CandidatePartition>& candidates,
                                        const std::vector<double>& costs,
                                        const std::vector<std::string>& invalid_reasons = {},
                                        const std::vector<std::string>& spec_names = {});

}  // namespace tessera::collage
