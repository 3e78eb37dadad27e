// Helpers shared by the IndexMap files: a map's outputs as normalized sums, shape checks,
// and the padded domain that shapes, inverses and Apply are computed on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iter_sum.h"
#include "tessera/layout/index_map.h"

namespace tessera::layout::detail {

/// The outputs of `map` as sums over its input variables (by position), normalized over
/// `domain` (null: no domain).
std::vector<IterSum> SumsOf(const IndexMap& map, Domain domain);

/// Throws a type error naming the map and shape when the arity differs from the rank of
/// `shape`, and a value error when an extent is not positive; `what` names the operation.
void CheckShape(const IndexMap& map, const std::vector<int64_t>& shape, const char* what);

/// The domain TVM pads to. Each variable x with a split is replaced by u = x + offset
/// (the offset of its top split, the one with the largest lower factor), and u ranges over
/// [0, P): offset + extent rounded up to a multiple of the top split's lower factor. E.g.
/// i -> ((i + 1) // 4, (i + 1) % 4) over [14] has u = i + 1 over [0, 16). The outputs are
/// normalized over that domain, in terms of u.
struct PaddedForm {
  /// Per variable: P, the extent of u (the extent itself when the variable has no split).
  std::vector<int64_t> padded;
  /// Per variable: the offset of its top split (0 when it has no split); x = u - offset.
  std::vector<int64_t> offset;
  /// The outputs over u, normalized over `padded`.
  std::vector<IterSum> sums;
};
/// The padded form of `map` over `shape` (already checked).
PaddedForm Padded(const IndexMap& map, const std::vector<int64_t>& shape);

/// The extent of output `sum` (its largest value plus one) over `domain`; a value error
/// naming `map`, `shape` and output `index` when it can be negative or is unbounded.
int64_t OutputExtent(const IndexMap& map, const std::vector<int64_t>& shape, size_t index,
                     const IterSum& sum, Domain domain);

}  // namespace tessera::layout::detail
