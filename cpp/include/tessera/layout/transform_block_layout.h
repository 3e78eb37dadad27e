// TransformBlockLayout: remaps the iteration space of one block of a PrimFunc by an index
// map (TVM's schedule primitive transform_block_layout), so its loops follow the layout
// of the buffers it reads.
#pragma once

#include <string>

#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout {

/// `func` with the block named `block` iterating MapShape(its domain) instead of its
/// domain: new iteration variables over the mapped shape (each spatial or reduce as the
/// variables its map output reads), the old ones replaced by the inverse map in the body,
/// the init and the read and write regions (indices simplified on the new domain), and
/// the block's loops rebuilt as a serial nest over the new domain (loop annotations such
/// as parallel are dropped; schedule again afterwards).
///
/// The block must be the only statement of a perfect nest of its own loops: the innermost
/// loops around it, one per iteration variable, each bound to one of them, starting at 0
/// and as long as its domain. Throws a not-found error listing the blocks for an unknown
/// name, a value error for an ambiguous name, a block that is not such a nest, a map that
/// is not a bijection of its domain (it pads or folds), or an output mixing spatial and
/// reduce variables; and a type error when the map's arity differs from the number of
/// iteration variables (naming the block and the map).
tir::PrimFunc TransformBlockLayout(const tir::PrimFunc& func, const std::string& block,
                                   const IndexMap& map);

}  // namespace tessera::layout
