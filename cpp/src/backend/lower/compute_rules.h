// Private: the registration functions of the compute-rule families, one per file.
#pragma once

#include "tessera/backend/lower/compute.h"

namespace tessera::lower {

/// Unary/binary math, activations, comparisons, where, casts, fills (compute_elemwise.cc).
void RegisterElemwiseRules(ComputeRegistry& registry);
/// reshape, transpose, concatenate, split, slices, take, pad, layout_transform, crop
/// (compute_transform.cc).
void RegisterTransformRules(ComputeRegistry& registry);
/// sum, mean, max, min (compute_reduce.cc).
void RegisterReduceRules(ComputeRegistry& registry);
/// dense/matmul/batch_matmul, bias_add, norms, softmax (compute_nn.cc).
void RegisterNNRules(ComputeRegistry& registry);
/// nn.*_pool2d and adaptive pooling (compute_nn_pool.cc).
void RegisterNNPoolRules(ComputeRegistry& registry);
/// nn.conv2d (compute_nn_conv.cc).
void RegisterNNConvRules(ComputeRegistry& registry);

}  // namespace tessera::lower
