// Standard base64 codec used by the JSON module format for constant data.
#include "tessera/support/base64.h"

#include <array>
#include <cstdint>

namespace tessera::base64 {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Reverse table: 0-63 for alphabet characters, -1 for everything else.
std::array<int8_t, 256> MakeReverse() {
  std::array<int8_t, 256> table{};
  table.fill(-1);
  for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}

}  // namespace

std::string Encode(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = size - i;
  if (rest == 1) {
    uint32_t v = uint32_t{bytes[i]} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

bool Decode(std::string_view text, std::string* out, std::string* error) {
  static const std::array<int8_t, 256> reverse = MakeReverse();
  out->clear();
  if (text.size() % 4 != 0) {
    *error = "base64 length " + std::to_string(text.size()) + " is not a multiple of 4";
    return false;
  }
  out->reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int pad = 0;
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      int8_t d = reverse[static_cast<uint8_t>(c)];
      // Padding may only fill the last one or two characters of the final group.
      if (c == '=' && last && k >= 2) {
        ++pad;
        d = 0;
      } else if (d < 0 || pad > 0) {
        *error = "invalid base64 character at offset " + std::to_string(i + k);
        return false;
      }
      v = (v << 6) | static_cast<uint32_t>(d);
    }
    out->push_back(static_cast<char>((v >> 16) & 0xff));
    if (pad < 2) out->push_back(static_cast<char>((v >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(v & 0xff));
  }
  return true;
}

}  // namespace tessera::base64
