// 2-D image layouts of the nn ops (NCHW, NHWC, OIHW, and TVM's channel-blocked NCHW16c,
// OIHW16i16o): the positions of their axes, shared by the op definitions and their lowerings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::nn {

/// Axis positions of a 2-D image layout, e.g. NHWC -> n=0, h=1, w=2, c=3.
struct Layout2D {
  int n = 0, c = 1, h = 2, w = 3;
};

/// Parses a permutation of the letters of `letters` ("NCHW" or "OIHW") into their
/// positions (indexed like `letters`); throws a value error naming `what` otherwise.
std::vector<int> ParseLayoutPermutation(const std::string& layout, const char* letters,
                                        const char* what);
/// A data layout that is a permutation of N, C, H, W (NCHW, NHWC, ...).
Layout2D ParseDataLayout(const std::string& layout, const char* what);

/// A data layout that may be channel-blocked: a permutation of N, C, H, W, or TVM's
/// NCHW{x}c, whose tensors have shape (N, C / x, H, W, x) (channel c at outer index c / x,
/// lane c % x of the last axis).
struct DataLayout2D {
  Layout2D axes;        ///< positions of N, C (the outer channel axis when blocked), H, W
  int64_t c_block = 0;  ///< x of NCHW{x}c; 0 when the layout is not blocked
  /// Whether the channels are split into blocks (a rank-5 layout).
  bool blocked() const { return c_block > 0; }
  /// The rank of a tensor in this layout.
  int rank() const { return blocked() ? 5 : 4; }
  /// The channel block as a divisor: x when blocked, else 1.
  int64_t block() const { return blocked() ? c_block : 1; }
  /// Whether the layout is NCHW or NCHW{x}c (the family whose layouts convert freely).
  bool IsNCHWFamily() const { return axes.n == 0 && axes.c == 1 && axes.h == 2 && axes.w == 3; }
  /// The shape of an (n, c, h, w) tensor in this layout; `c` must divide by the block.
  std::vector<int64_t> Shape(int64_t n, int64_t c, int64_t h, int64_t w) const;
};
/// Parses a permutation of NCHW or NCHW{x}c (x >= 1); throws a value error naming `what`.
DataLayout2D ParseDataLayout2D(const std::string& layout, const char* what);

/// A conv2d kernel layout that may be blocked: a permutation of O, I, H, W, or TVM's
/// OIHW{y}i{x}o, whose tensors have shape (O / x, I / y, KH, KW, y, x): the innermost axis
/// is the block of output channels, the one before it the block of input channels.
struct KernelLayout2D {
  std::vector<int> perm{0, 1, 2, 3};  ///< positions of O, I, H, W (outer axes when blocked)
  int64_t i_block = 0;                ///< y of OIHW{y}i{x}o; 0 when not blocked
  int64_t o_block = 0;                ///< x of OIHW{y}i{x}o; 0 when not blocked
  /// Whether the channels are split into blocks (a rank-6 layout).
  bool blocked() const { return o_block > 0; }
  /// The rank of a weight in this layout.
  int rank() const { return blocked() ? 6 : 4; }
};
/// Parses a permutation of OIHW or OIHW{y}i{x}o (x, y >= 1); throws a value error naming
/// `what` otherwise.
KernelLayout2D ParseKernelLayout2D(const std::string& layout, const char* what);

}  // namespace tessera::nn
