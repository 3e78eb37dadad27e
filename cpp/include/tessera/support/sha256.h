// SHA-256, for content-addressed cache keys and the integrity check of saved files.
#pragma once

#include <cstddef>
#include <string>

namespace tessera {

/// The SHA-256 digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(const std::string& data);
/// The SHA-256 digest of `n` bytes at `data` as 64 lowercase hex digits.
std::string Sha256Hex(const char* data, size_t n);

}  // namespace tessera
