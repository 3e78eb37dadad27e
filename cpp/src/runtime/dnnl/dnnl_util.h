// Internal: small helpers of the oneDNN plan (dims and plain descs, attribute reading, the
// oneDNN algorithm of an eltwise or binary op).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <vector>

#include "tessera/runtime/library_graph.h"

namespace tessera::runtime::dnnl_impl {

using dnnl::algorithm;
using dnnl::memory;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;


/// Attributes asking for a caller-provided scratchpad. With oneDNN's default (library)
/// scratchpad a primitive must run on the thread that created it; a program loaded on one
/// thread and run on another (a service's worker) would crash.
inline dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

inline memory::dims Dims(const std::vector<int64_t>& shape) {
  if (shape.empty()) return {1};
  return memory::dims(shape.begin(), shape.end());
}

inline memory::dims RowMajorStrides(const memory::dims& dims) {
  memory::dims s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

inline memory::desc Plain(const memory::dims& dims) {
  return memory::desc(dims, dt::f32, RowMajorStrides(dims));
}

/// `dims` left-padded with ones to `rank` (numpy broadcasting).
inline memory::dims AlignRank(memory::dims dims, size_t rank) {
  while (dims.size() < rank) dims.insert(dims.begin(), 1);
  return dims;
}

inline std::vector<int64_t> Ints(const KernelAttrs& a, const char* key, std::vector<int64_t> def) {
  return a.Has(key) ? a.GetInts(key) : def;
}

/// Padding attr (1, 2 or 4 ints) as [top, left, bottom, right].
inline std::vector<int64_t> Pad4(const KernelAttrs& a) {
  std::vector<int64_t> p = Ints(a, "padding", {0, 0});
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  return p;
}

inline bool Bool(const KernelAttrs& a, const char* key, bool def) {
  return a.Has(key) ? a.GetBool(key) : def;
}

/// The eltwise algorithm (and alpha, beta) of a unary op, or false.
inline bool EltwiseOf(const LibraryNode& n, algorithm* alg, float* alpha, float* beta) {
  *alpha = 0.f;
  *beta = 0.f;
  const std::string& op = n.op;
  if (op == "nn.relu")
    *alg = algorithm::eltwise_relu;
  else if (op == "nn.leaky_relu") {
    *alg = algorithm::eltwise_relu;
    *alpha = static_cast<float>(n.attrs.Has("alpha") ? n.attrs.GetFloat("alpha") : 0.01);
  } else if (op == "clip") {
    *alg = algorithm::eltwise_clip_v2;
    *alpha = static_cast<float>(n.attrs.GetFloat("a_min"));
    *beta = static_cast<float>(n.attrs.GetFloat("a_max"));
  } else if (op == "sigmoid")
    *alg = algorithm::eltwise_logistic;
  else if (op == "tanh")
    *alg = algorithm::eltwise_tanh;
  else if (op == "exp")
    *alg = algorithm::eltwise_exp;
  else if (op == "log")
    *alg = algorithm::eltwise_log;
  else if (op == "sqrt")
    *alg = algorithm::eltwise_sqrt;
  else if (op == "abs")
    *alg = algorithm::eltwise_abs;
  else if (op == "round")
    *alg = algorithm::eltwise_round;
  else if (op == "negative") {
    *alg = algorithm::eltwise_linear;
    *alpha = -1.f;
  } else if (op == "nn.gelu") {
    bool tanh = n.attrs.Has("approximate") && n.attrs.GetString("approximate") == "tanh";
    *alg = tanh ? algorithm::eltwise_gelu_tanh : algorithm::eltwise_gelu_erf;
  } else {
    return false;
  }
  return true;
}

inline bool BinaryOf(const std::string& op, algorithm* alg, bool* commutative) {
  *commutative = true;
  if (op == "add")
    *alg = algorithm::binary_add;
  else if (op == "multiply")
    *alg = algorithm::binary_mul;
  else if (op == "maximum")
    *alg = algorithm::binary_max;
  else if (op == "minimum")
    *alg = algorithm::binary_min;
  else if (op == "subtract")
    *alg = algorithm::binary_sub, *commutative = false;
  else if (op == "divide")
    *alg = algorithm::binary_div, *commutative = false;
  else
    return false;
  return true;
}

inline bool IsAnchor(const std::string& op) {
  return op == "nn.conv2d" || op == "nn.dense" || op == "nn.matmul" || op == "nn.batch_matmul";
}

}  // namespace tessera::runtime::dnnl_impl
