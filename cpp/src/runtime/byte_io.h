// Internal: the little-endian byte format the runtime's files share (u64 lengths, strings
// as a length and raw bytes) and a bounds-checked reader of it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "tessera/support/error.h"

namespace tessera::runtime {

/// Appends `v` as 8 little-endian bytes.
inline void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

/// Appends `s` as its u64 length and its bytes.
inline void PutString(std::string& out, const std::string& s) {
  PutU64(out, s.size());
  out += s;
}

/// The u64 at `pos` of `in` (the caller checked that 8 bytes are there).
inline uint64_t GetU64(const std::string& in, size_t pos) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  return v;
}

/// Reads what PutU64/PutString wrote; running past the end is a parse error naming `file`
/// (e.g. "native module") and what was being read.
class ByteReader {
 public:
  ByteReader(const std::string& bytes, const char* file) : bytes_(bytes), file_(file) {}
  /// Checks that `bytes` starts with `magic` and moves past it.
  void Expect(const char* magic) {
    size_t n = std::strlen(magic);
    if (bytes_.compare(0, n, magic) != 0)
      TS_THROW(kParse) << "not a Tessera " << file_ << " (no '" << magic << "' header)";
    pos_ = n;
  }
  uint64_t U64(const char* what) {
    Need(8, what);
    uint64_t v = GetU64(bytes_, pos_);
    pos_ += 8;
    return v;
  }
  std::string String(const char* what) {
    uint64_t n = U64(what);
    Need(n, what);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  void Need(uint64_t n, const char* what) {
    if (n > bytes_.size() - pos_)
      TS_THROW(kParse) << file_ << " is truncated: " << what << " of " << n
                       << " byte(s) at offset " << pos_ << " runs past the end (" << bytes_.size()
                       << " bytes)";
  }
  const std::string& bytes_;
  const char* file_;
  size_t pos_ = 0;
};

}  // namespace tessera::runtime
