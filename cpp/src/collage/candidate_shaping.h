// Shaping Collage's candidate set before the search: opaque ops as native kernels,
// TVM's pruning, each library's largest regions, kernels the module already has, and
// short kernel names. (Private to the collage folder.)
#pragma once

#include <string>
#include <vector>

#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/partition_spec.h"

namespace tessera::collage {

/// Whether `c` belongs to the host spec (nodes evaluated without a kernel).
inline bool IsHost(const CandidatePartition& c) { return c.spec_name() == "host"; }
/// Whether `c` is a library's (its spec names a Compiler).
inline bool IsLibrary(const CandidatePartition& c) { return c.spec && !c.spec->compiler.empty(); }

/// A kernel name's label: the first two ops and how many there are in all
/// ("nn.conv2d+add+nn.relu+nn.conv2d" -> "nn.conv2d+add+4ops").
std::string ShortLabel(const std::string& label);

/// `specs` with every native spec also taking opaque op calls (softmax, ...) as single
/// kernels: the native code generator lowers any op, so no op is left without one.
std::vector<PartitionSpecPtr> WithOpaqueSingles(std::vector<PartitionSpecPtr> specs);

/// TVM's pruning heuristic, keyed on (spec, sub-graph); host candidates all stay.
std::vector<CandidatePartition> Prune(std::vector<CandidatePartition> candidates);

/// Adds, per library, its largest regions (a greedy disjoint choice of its candidates,
/// merged where they touch) as candidates; keeps `cands` sorted.
void AddLibraryRegions(const DataflowGraph& graph, std::vector<CandidatePartition>& cands);

/// Adds a zero-cost `host` candidate for every call of an inline Primitive function (a
/// kernel FuseOps or an earlier Collage run made), which then stays as it is.
void AddPremadeKernels(const DataflowGraph& graph, const PartitionSpecPtr& host,
                       std::vector<CandidatePartition>& cands);

}  // namespace tessera::collage
