// Hash combination helpers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera {

/// Mixes `value` into `seed` (boost-style, 64-bit constant).
inline size_t HashCombine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 12) + (seed >> 4));
}

}  // namespace tessera
