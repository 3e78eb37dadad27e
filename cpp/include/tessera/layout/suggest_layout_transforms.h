// SuggestLayoutTransforms: from the layouts wanted for a PrimFunc's results, the layouts
// its operands and blocks should take, read from the blocks' access regions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout {

/// What SuggestLayoutTransforms found.
struct LayoutSuggestion {
  /// One entry per PrimFunc parameter (inputs, then outputs): the map its buffer should be
  /// rewritten by, or an undefined map where the flow stops (an access the analysis does
  /// not understand, or a buffer no analysable block reads).
  std::vector<IndexMap> params;
  /// Per analysed block (by name, in program order): the map of its iteration space, over
  /// its iteration variables in order (spatial and reduce).
  std::vector<std::pair<std::string, IndexMap>> blocks;
  /// Names of buffers for which two consumers suggested different maps; the first
  /// consumer's (in consumer-first order) is kept.
  std::vector<std::string> conflicts;
};

/// Flows `write_maps` (the wanted maps of the last write_maps.size() parameters, i.e. the
/// outputs) backward through `func`: each block whose single written buffer has a map
/// gives maps to the buffers it reads, consumer-first, so maps pass through intermediate
/// buffers. An index of an access is understood when it is affine in the block's iteration
/// variables and involves at most one spatial one (reduce variables are opaque, so a
/// pooling window `2 * h + r` reads along h); dimensions without a spatial variable
/// (broadcast, reduced) keep their place as new axes of the operand's map; axes the
/// operand lacks are dropped. Blocks that cannot be analysed are skipped, not errors.
/// Throws a value error when there are more maps than outputs, and a type error when a
/// map's arity differs from its output's rank.
LayoutSuggestion SuggestLayoutTransforms(const tir::PrimFunc& func,
                                         const std::vector<IndexMap>& write_maps);

}  // namespace tessera::layout
