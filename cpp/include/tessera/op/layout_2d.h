// 2-D image layouts of the nn ops (NCHW, NHWC, OIHW, ...): the positions of their axes,
// shared by the op definitions and their lowerings.
#pragma once

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
}  // namespace tessera::nn
