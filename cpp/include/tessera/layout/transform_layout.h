// TransformLayout: rewrites one buffer of a PrimFunc into a new layout given by an index
// map (TVM's schedule primitive transform_layout), so kernels can read and write tensors
// in the layouts the planner chose.
#pragma once

#include <optional>
#include <string>

#include "tessera/ir/tir.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout {

/// `func` with parameter `param_index` (inputs, then outputs) rewritten by `map`: the
/// buffer gets the shape MapShape(old shape) and every access (loads, stores, block read
/// and write regions) is rewritten through the map, indices substituted into its outputs
/// and simplified. A region over a range of indices becomes the range its image spans
/// (the whole new dimension when that cannot be bounded). When the map pads and the
/// function writes the buffer, `pad_value` (converted to the buffer's dtype) is written at
/// the padding positions by a block "<buffer>_pad" at the start of the function (or of the
/// buffer's allocation); without a pad value they are left alone. Reads never touch them.
/// Callers of the PrimFunc pass the buffer in the new shape.
///
/// Throws a value error when `param_index` is out of range or the map is not injective on
/// the buffer's shape, and a type error when the map's arity differs from the buffer's
/// rank (both naming the buffer and the map).
tir::PrimFunc TransformLayout(const tir::PrimFunc& func, int param_index, const IndexMap& map,
                              std::optional<double> pad_value = std::nullopt);

/// The same for the buffer named `buffer`: a parameter, else a buffer the function
/// allocates. Throws a not-found error listing the buffers when there is none, and a value
/// error when the name is ambiguous.
tir::PrimFunc TransformLayout(const tir::PrimFunc& func, const std::string& buffer,
                              const IndexMap& map, std::optional<double> pad_value = std::nullopt);

}  // namespace tessera::layout
