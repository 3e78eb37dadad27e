// PartitionForTesting: partitions @main on explicit post-DFS indices, so sub-graph
// extraction and rewriting can be tested without rules or a cost model.
#pragma once

#include <string>
#include <vector>

#include "tessera/transform/pass.h"

namespace tessera::collage {

/// A pass that turns the nodes `indexes` of @main's DataflowGraph into one inline
/// function with attribute Compiler=`compiler` (Primitive=1 when `compiler` is empty).
/// `labels[k]` (parallel to `indexes`; all "" when empty) names the Composite function
/// node k belongs to inside it; "" keeps it in the outer function. When the sub-graph
/// fails IsValid({max_exits, allow_taps}) the module is returned unchanged. Indices out
/// of range or mismatched label counts are value errors.
Pass PartitionForTesting(size_t max_exits, bool allow_taps, std::string compiler,
                         std::vector<size_t> indexes, std::vector<std::string> labels = {});

}  // namespace tessera::collage
