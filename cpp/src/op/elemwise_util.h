// Private: registration entry points and helpers shared by the elementwise, reduction and
// transform op files (elemwise*.cc, reduce.cc, transform*.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ir/type.h"
#include "tessera/ir/op.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::op_defs {

/// Unary math, activations, clip, cast, copy and nn.dropout (elemwise_unary.cc).
void RegisterUnaryOps(OpRegistry& registry);
/// zeros, ones, full (elemwise_fill.cc).
void RegisterFillOps(OpRegistry& registry);
/// strided_slice and take (transform_slice.cc).
void RegisterSliceOps(OpRegistry& registry);
/// layout_transform (transform_layout.cc).
void RegisterLayoutTransformOp(OpRegistry& registry);
/// crop (transform_crop.cc).
void RegisterCropOp(OpRegistry& registry);

namespace math {

/// A new uninitialised array of the tensor type `type`.
NDArray EmptyOf(const Type& type);
/// Stores `v` into element `i` of `a`: floats round to nearest; integer dtypes truncate
/// toward zero and saturate to the dtype's range (NaN stores 0); bool stores v != 0.
void StoreDouble(const NDArray& a, int64_t i, double v);
/// Smallest and largest value of an integer or bool dtype.
int64_t IntMin(DType dtype);
int64_t IntMax(DType dtype);

/// Copies elements bytewise: out[idx] = src[base + sum_d idx[d] * strides[d]] over out's
/// shape (strides in elements, may be zero or negative). Exact for every dtype.
void StridedGather(const NDArray& src, int64_t base, const std::vector<int64_t>& strides,
                   const NDArray& out);
/// Strides (in elements) of `shape` viewed as a rank-`out_rank` broadcast operand: the
/// leading missing dimensions and dimensions of size 1 get stride 0.
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, int out_rank);

/// Normalises a list of possibly negative axes against `rank`; out-of-range and repeated
/// axes throw a value error naming `what`. Order is kept.
std::vector<int> NormalizeAxes(const std::vector<int64_t>& axes, int rank, const char* what);

/// Type relation of ops whose result has the type of their only input.
Type SameTypeRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>& targs);
/// Throws a type error unless `t` is a floating-point tensor.
void ExpectFloat(const TensorTypeNode* t, const char* what);
/// Checks that string attribute `key` names a dtype ("" is accepted when `allow_empty`).
void CheckDTypeAttr(const Attrs& attrs, const char* key, bool allow_empty);
/// Checks that int-array attribute `key` is a valid static shape (every dim >= 0).
void CheckShapeAttr(const Attrs& attrs, const char* key);

}  // namespace math
}  // namespace tessera::op_defs
