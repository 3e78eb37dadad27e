// Private: SHA-256, for content-addressed cache keys and integrity checks.
#pragma once

#include <string>

namespace tessera::native::detail {

/// The SHA-256 digest of `data` as 64 lowercase hex digits.
std::string Sha256Hex(const std::string& data);

}  // namespace tessera::native::detail
