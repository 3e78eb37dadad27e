// Internal: which layout_transforms oneDNN partitions run: NCHW <-> NCHW{x}c conversions
// without padding, where the result is the same logical tensor in another memory format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera::dnnl_backend {

/// The data layouts ("NCHW" or "NCHW{x}c", by the ranks and lanes of `in` and `out`) between
/// which `index_map` converts a tensor of shape `in` into shape `out`, proved on the maps
/// (not guessed from shapes); false for any other map, or one that pads.
bool DataLayoutConversion(const std::string& index_map, const std::vector<int64_t>& in,
                          const std::vector<int64_t>& out, std::string* src_layout,
                          std::string* dst_layout);

/// The op predicate: a float32 layout_transform that DataLayoutConversion accepts.
bool LayoutTransformSupported(const CallNode& call);

}  // namespace tessera::dnnl_backend
