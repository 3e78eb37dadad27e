// Private: the blocked GEMM template of nn.dense / nn.matmul / nn.batch_matmul (packed
// weights, register-tile micro-kernel, epilogue fused per finished output tile).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/backend/lower/compute.h"

namespace tessera::lower {

/// One GEMM-family op: out[batch..., i, j] = sum_k a(batch, i, k) * b(batch, j, k).
struct GemmDesc {
  std::vector<int64_t> batch;  ///< leading output dimensions (may be empty)
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::kFloat32;
  /// Element (i, k) of the left operand of batch element `batch` (output-rank indices).
  std::function<tir::PrimExpr(const Indices& batch, tir::PrimExpr i, tir::PrimExpr k)> a;
  /// Element (j, k) of the right operand.
  std::function<tir::PrimExpr(const Indices& batch, tir::PrimExpr j, tir::PrimExpr k)> b;
  /// The right operand is stored with j innermost: tiles read it directly, unpacked
  /// (unless it is `b_constant`, which is packed at compile time).
  bool b_j_contiguous = false;
  /// The right operand depends on the batch index (else it is packed once).
  bool b_batched = false;
  /// The left operand is stored with k innermost (the dot-product path vectorizes it).
  bool a_k_contiguous = false;
  /// The right operand as a float32 constant, when it is one (not batched): its panels are
  /// packed once, at compile time, instead of on every call (or read with a stride of n).
  NDArray b_constant{};
  /// `b_constant` is stored [k, n] (a matmul's weights) rather than [n, k] (a dense layer's).
  bool b_constant_kn = false;
  /// Optional: the output indices of element (i, j) of batch element `batch` (default:
  /// the batch indices, then i, j). Set when batch rows are folded into m.
  std::function<Indices(const Indices& batch, tir::PrimExpr i, tir::PrimExpr j)> out_index;
  std::string name;
};

/// Products with fewer rows than this take dot products over k (the right operand read
/// as it is); from this many on the blocked template packs the right operand.
inline constexpr int64_t kGemmPackRows = 4;

/// Whether the blocked template handles `desc` (float32 with a non-empty domain).
bool UseGemmTemplate(const GemmDesc& desc);
/// Makes `spec` emit the blocked nest of `desc` instead of the naive reduction.
void AttachGemmNest(ReduceSpec& spec, GemmDesc desc);

}  // namespace tessera::lower
