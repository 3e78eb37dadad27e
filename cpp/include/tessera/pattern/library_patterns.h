// Building blocks for library backends' pattern tables: anchor + bias + residual sum +
// activation chains (TVM's DNNL table shape) and the checks their predicates share.
#pragma once

#include <string>
#include <vector>

#include "tessera/pattern/pattern_table.h"

namespace tessera {

/// The anchor ops a GEMM/convolution chain starts from.
enum class AnchorKind { kConv2d, kDense, kMatmul, kBatchMatmul };

/// Label fragment of an anchor: "conv2d", "dense", "matmul", "batch_matmul".
const char* AnchorName(AnchorKind kind);

/// Which parts a chain has: anchor [-> bias] [-> residual add] [-> activation].
/// `activation` is "" or one of relu, clip, gelu, sigmoid, tanh, swish.
struct ChainSpec {
  AnchorKind anchor;
  bool bias = false;
  bool sum = false;
  std::string activation;
};

/// The label `<prefix>.<anchor>[_bias][_sum][_<activation>]`.
std::string ChainLabel(const std::string& prefix, const ChainSpec& spec);

/// The pattern of a chain: the anchor with wildcard operands; the bias as
/// `nn.bias_add(x, b)` or `add(x, b)`; the sum as `add(x, other)`; the activation as
/// its op (swish as `multiply(x, sigmoid(x))`).
/// `predicate_check` decides whether the anchor call itself is supported; the returned
/// entry's predicate also checks float32 everywhere, that a bias really is a per-channel
/// bias (`nn.bias_add` on the channel axis, or `add` of a constant broadcast along it;
/// for a rank-5 channel-blocked NCHW{x}c convolution, along both channel axes 1 and 4),
/// and that the residual has the result's shape.
PatternTableEntry MakeChainEntry(const std::string& prefix, const ChainSpec& spec,
                                 const OpSupportPredicate& anchor_check);

/// Every chain of `anchor` with `activations` (and ""), with and without bias and (when
/// `with_sum`) residual sum, longest first, minus the bare anchor when !`with_bare`.
std::vector<PatternTableEntry> MakeChainEntries(const std::string& prefix, AnchorKind anchor,
                                                const std::vector<std::string>& activations,
                                                bool with_sum, bool with_bare,
                                                const OpSupportPredicate& anchor_check);

/// The checked tensor type of `e` when it is a float32 tensor, else nullptr.
const TensorTypeNode* Float32Tensor(const Expr& e);
/// Every argument and the result of `call` are float32 tensors.
bool AllFloat32(const CallNode& call);
/// The rank of `e`'s checked tensor type (-1 when not a tensor).
int RankOf(const Expr& e);
/// An attribute that is a string equal to `want`, or empty (meaning the default).
bool StringAttrIs(const Attrs& attrs, const std::string& key, const std::string& want);

}  // namespace tessera
