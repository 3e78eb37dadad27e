// Shared internals of the Collage C API's source files: the handle structs, limits and rules
// from C (patterns, predicates and user data come from c_api_pattern_internal.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "c_api_pattern_internal.h"
#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/combiner_rule.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/dataflow_graph.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/sub_graph.h"

struct TsPartitionRule_ {
  tessera::collage::PartitionRulePtr rule;
};
struct TsCombinerRule_ {
  tessera::collage::CombinerRulePtr rule;
};
/// A graph and the module it came from (rewrites return a new module of it); labels are
/// computed once so they can be handed out borrowed.
struct TsDataflowGraph_ {
  tessera::IRModule mod;
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  std::vector<std::string> labels;
};
/// Candidates grouped by spec: spec i holds candidates [first, first + count).
struct TsCandidateList_ {
  struct Spec {
    std::string name;
    size_t first = 0, count = 0;
  };
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  std::vector<tessera::collage::CandidatePartition> candidates;
  std::vector<Spec> specs;
};
struct TsCandidate_ {
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  tessera::collage::CandidatePartition candidate;
};
/// A sub-graph with the attributes its function gets (empty for a candidate's own).
struct TsSubGraph_ {
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  tessera::collage::SubGraph sub_graph;
  tessera::Attrs attrs;
};
struct TsCostEstimator_ {
  tessera::collage::CostEstimatorPtr estimator;
};
struct TsCostDatabase_ {
  std::shared_ptr<tessera::collage::CostDatabase> db;
};
struct TsCostRecordList_ {
  std::vector<tessera::collage::CostRecord> records;
};

namespace tessera::capi {

/// A depth or exit limit from C: 0 means none; negative is a value error naming `what`.
size_t LimitFromC(int64_t value, const char* what, const char* which = "max_depth");

/// `s`, or `fallback` when `s` is NULL or empty (optional names and settings from C).
inline std::string Text(const char* s, const char* fallback) {
  return s && *s ? s : fallback;
}

/// The rule behind a handle; a value error naming `what` when NULL.
collage::PartitionRulePtr RuleOf(TsPartitionRule rule, const char* what);

}  // namespace tessera::capi
