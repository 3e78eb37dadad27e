// CandidatePartition: a sub-graph a spec's rule proposes as one kernel, with the rule's
// name and a cost slot that the search fills later.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tessera/collage/sub_graph.h"

namespace tessera::collage {

struct PartitionSpec;
/// Specs are immutable and shared by their candidates.
using PartitionSpecPtr = std::shared_ptr<const PartitionSpec>;

/// A candidate kernel: the sub-graph, the spec (backend) that proposed it, the rule
/// path that found it ("native.combine.op_call_by_kind"), and its cost in seconds (NaN
/// until estimated; +inf for invalid).
struct CandidatePartition {
  std::string rule_name;
  SubGraph sub_graph;
  PartitionSpecPtr spec;
  double cost = std::numeric_limits<double>::quiet_NaN();

  /// The name of the spec, or "" without one.
  const std::string& spec_name() const;
  /// "{6,8} nn.dense+add (out_elemwise_fusable) by native.combine".
  std::string ToString() const;
  /// Same spec (by name) and same sub-graph. Rule names and costs are ignored, so two
  /// rules finding one sub-graph give one candidate (keyed on the spec as well, unlike
  /// TVM, so two backends' equal sub-graphs stay apart).
  friend bool operator==(const CandidatePartition& a, const CandidatePartition& b);
  /// By sub-graph, then spec name, then rule name.
  friend bool operator<(const CandidatePartition& a, const CandidatePartition& b);
  size_t Hash() const;
};

/// The union of two disjoint candidates of the same spec: names joined with "+", costs
/// added (internal error when the specs differ or the sub-graphs overlap).
CandidatePartition DisjointUnion(const DataflowGraph& graph, const CandidatePartition& a,
                                 const CandidatePartition& b);

/// `outer.inner`, dropping an empty side and not repeating `outer` when `inner`
/// already starts with it.
std::string NestLabels(const std::string& outer, const std::string& inner);

/// Repeatedly merges touching candidates of the same spec until none touch (so
/// neighbouring kernels of one backend become one). Validity is not re-checked: the
/// merged candidates may have several exits. The result is sorted.
std::vector<CandidatePartition> MaxCoalesce(const DataflowGraph& graph,
                                            std::vector<CandidatePartition> candidates);

/// Rewrites the graph's function with every candidate's nested sub-graphs (candidates
/// must be disjoint).
Function ParallelRewrite(const DataflowGraph& graph,
                         const std::vector<CandidatePartition>& candidates);

}  // namespace tessera::collage
