// Private vocabulary shared by the JSON module writer (json.cc) and reader (json_read.cc).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tessera/ir/tir.h"

namespace tessera::json_detail {

/// Object keys keep insertion order so attribute order survives a round trip.
using Json = nlohmann::ordered_json;

inline constexpr const char* kFormatName = "tessera-ir";
inline constexpr int kFormatVersion = 1;

/// JSON names of tensor-IR binary operators (indexed by BinaryOp).
inline constexpr const char* kBinaryOpNames[] = {
    "add", "sub", "mul", "div", "floordiv", "floormod", "min", "max",
    "eq",  "ne",  "lt",  "le",  "gt",       "ge",       "and", "or",
};
inline constexpr int kNumBinaryOps = 16;

/// JSON names of loop kinds (indexed by ForKind).
inline constexpr const char* kForKindNames[] = {"serial", "parallel", "vectorized", "unrolled"};
inline constexpr int kNumForKinds = 4;

/// Bit pattern of the NaN that the plain "nan" spelling stands for.
inline constexpr uint64_t kCanonicalNaNBits = 0x7ff8000000000000ull;

inline uint64_t DoubleBits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

inline double BitsDouble(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// A double as JSON: a number when finite (nlohmann prints the shortest text that
/// parses back to the same bits, -0.0 included); "inf", "-inf", "nan", or
/// "nan:0x<16 hex digits>" for a NaN with another sign or payload.
inline Json EncodeDouble(double v) {
  if (v == v && v - v == 0.0) return Json(v);
  if (v != v) {
    uint64_t bits = DoubleBits(v);
    if (bits == kCanonicalNaNBits) return Json("nan");
    char buf[32];
    std::snprintf(buf, sizeof buf, "nan:0x%016llx", static_cast<unsigned long long>(bits));
    return Json(std::string(buf));
  }
  return Json(v > 0 ? "inf" : "-inf");
}

/// Inverse of EncodeDouble; nullopt when `j` is neither a number nor a known spelling.
inline std::optional<double> DecodeDouble(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (!j.is_string()) return std::nullopt;
  const std::string& s = j.get_ref<const std::string&>();
  if (s == "inf") return BitsDouble(0x7ff0000000000000ull);
  if (s == "-inf") return BitsDouble(0xfff0000000000000ull);
  if (s == "nan") return BitsDouble(kCanonicalNaNBits);
  if (s.size() == 22 && s.compare(0, 6, "nan:0x") == 0) {
    uint64_t bits = 0;
    for (size_t i = 6; i < s.size(); ++i) {
      char c = s[i];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return std::nullopt;
      bits = (bits << 4) | static_cast<uint64_t>(d);
    }
    double v = BitsDouble(bits);
    if (v == v) return std::nullopt;  // the spelling promises a NaN
    return v;
  }
  return std::nullopt;
}

}  // namespace tessera::json_detail
