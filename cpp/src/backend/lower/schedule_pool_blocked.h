// Private: the pooling nests for channel-blocked NCHW{x}c tensors (schedule_pool_blocked.cc).
#pragma once

#include <functional>

#include "tessera/backend/lower/compute.h"

namespace tessera::lower {

/// One 2-D pooling of an (N, C / x, H, W, x) tensor into (N, C / x, OH, OW, x).
struct BlockedPoolDesc {
  std::vector<int64_t> out_shape;  ///< (N, C / x, OH, OW, x)
  bool is_max = true;
  DType dtype = DType::kFloat32;
  tir::PrimExpr init;  ///< the accumulator's start (lowest value, or 0)
  /// Fixed windows: kernel, stride, dilation and the top/left padding (adaptive: unused).
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pad_top = 0, pad_left = 0;
  /// Adaptive windows [floor(o * in / out), ceil((o + 1) * in / out)) instead.
  bool adaptive = false;
  /// Optional: the result from the final accumulator at output indices i (the average).
  std::function<tir::PrimExpr(const tir::PrimExpr& acc, const Indices& i)> finalize;
};

/// The nest of `desc` over input `x`: parallel over (image, channel block, output row), a
/// vector of x channels accumulated per output pixel over the taps inside the input (taps
/// in the padding are left out statically at the border columns, by one branch per row of
/// the window elsewhere), the finalize and the fused epilogue applied as it is stored.
NestEmitter BlockedPoolTemplate(const BlockedPoolDesc& desc, const TensorExpr& x);

}  // namespace tessera::lower
