// Private: helpers shared by op definitions (type-relation checks, shape arithmetic).
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/type.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera::op_defs {

/// The argument as a tensor type; throws a type error naming input `index` otherwise.
const TensorTypeNode* ExpectTensor(const std::vector<Type>& args, size_t index);
/// NumPy broadcasting of two shapes; throws a type error showing both shapes.
std::vector<int64_t> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// Normalises a possibly negative axis against `rank`; throws a value error when out of range.
int NormalizeAxis(int64_t axis, int rank, const char* what = "axis");
/// Row-major strides of `shape` (in elements).
std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape);

}  // namespace tessera::op_defs
