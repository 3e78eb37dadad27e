// Private: registration functions of the nn.* op files and the helpers they share.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/type.h"
#include "tessera/op/layout_2d.h"
#include "tessera/ir/op.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::op_defs {

/// nn.conv2d.
void RegisterNNConvOps(OpRegistry& registry);
/// nn.dense, nn.matmul, nn.batch_matmul.
void RegisterNNMatmulOps(OpRegistry& registry);
/// nn.bias_add, nn.batch_norm, nn.layer_norm, nn.softmax, nn.log_softmax.
void RegisterNNNormOps(OpRegistry& registry);
/// nn.max_pool2d, nn.avg_pool2d, nn.global_{avg,max}_pool2d, nn.adaptive_avg_pool2d.
void RegisterNNPoolOps(OpRegistry& registry);
/// nn.pad, nn.batch_flatten.
void RegisterNNShapeOps(OpRegistry& registry);

namespace nn {

using tessera::nn::DataLayout2D;
using tessera::nn::KernelLayout2D;
using tessera::nn::Layout2D;
using tessera::nn::ParseDataLayout;
using tessera::nn::ParseDataLayout2D;
using tessera::nn::ParseKernelLayout2D;
using tessera::nn::ParseLayoutPermutation;

/// Checks that `out_layout` is "" or equals `layout` (layout conversion is not supported).
void CheckOutLayout(const Attrs& attrs, const char* layout_key);

/// Expands an int-array attribute of 1 element to 2; requires each value >= `min_value`.
void NormalizePair(Attrs& attrs, const char* key, int64_t min_value);
/// Expands 2-D padding given as 1, 2 or 4 ints to [top, left, bottom, right], all >= 0.
void NormalizePadding4(Attrs& attrs, const char* key);
/// Checks that `out_dtype` is "" or a known dtype name.
void CheckOutDTypeAttr(const Attrs& attrs);
/// The output dtype: `out_dtype` if set, else `input`.
DType ResolveOutDType(const Attrs& attrs, DType input);

/// Throws a type error unless `t` has rank `rank`; `name` and `layout` describe it.
void ExpectRank(const TensorTypeNode* t, int rank, const char* name, const std::string& layout);
/// Throws a type error unless both tensors have the same dtype.
void ExpectSameDType(const TensorTypeNode* a, const char* a_name, const TensorTypeNode* b,
                     const char* b_name);

/// The elements of `array` as doubles, row-major.
std::vector<double> ToDoubles(const NDArray& array);
/// A new array of `type`'s shape and dtype holding `values` converted to that dtype.
NDArray FromDoubles(const std::vector<double>& values, const Type& type);

/// The output positions o in [0, out) whose input position o * stride + offset lies in
/// [0, in), as the half-open range [*lo, *hi) (empty when none).
void ValidOutputRange(int64_t offset, int64_t stride, int64_t in, int64_t out, int64_t* lo,
                      int64_t* hi);

}  // namespace nn
}  // namespace tessera::op_defs
