// The report's entry for one partitioned function (the JSON under "functions" in
// `collage.report`).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/dataflow_graph.h"

namespace tessera::collage {

/// Function `fname`'s choice as JSON: name; kernels (name, spec, backend, label, rule,
/// indexes, ops, cost_us, penalty_us, the cheapest valid alternative from the same first
/// node); estimated_total_us; rejected candidates with reasons; the graph's nodes.
/// `winners` index `cands`; `lib_names` names each library partition's nodes; `penalty`
/// is the launch penalty by spec name (seconds).
nlohmann::ordered_json DescribeChoice(const std::string& fname, const DataflowGraph& graph,
                                      const std::vector<CandidatePartition>& cands,
                                      const std::vector<double>& edge,
                                      const std::vector<std::string>& reasons,
                                      const std::vector<size_t>& winners,
                                      const std::vector<std::pair<IndexSet, std::string>>& lib_names,
                                      const std::map<std::string, double>& penalty);

}  // namespace tessera::collage
