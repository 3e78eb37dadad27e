// Standard base64 (RFC 4648, with padding) for binary payloads embedded in JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tessera::base64 {

/// Encodes `size` bytes at `data` with the standard alphabet and '=' padding.
std::string Encode(const void* data, size_t size);
/// Decodes strict base64 (no whitespace, padding required) into `out`; on failure
/// returns false and describes the problem in `error`.
bool Decode(std::string_view text, std::string* out, std::string* error);

}  // namespace tessera::base64
