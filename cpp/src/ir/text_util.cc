// Spellings shared by the text printer and parser: shortest round-trip floats, quoting.
#include "text_util.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace tessera::text {

std::string ShortestDouble(double value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, res.ptr);
}

std::string ShortestFloat(float value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, res.ptr);
}

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

bool IsPlainName(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

std::string GlobalText(const std::string& name) {
  bool plain = !name.empty();
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9')))
      plain = false;
  return plain ? "@" + name : "@" + QuoteString(name);
}

std::string AttrKeyText(const std::string& key) {
  // Dotted keys (tir.noalias) lex as one identifier when every part is a plain name.
  bool plain = !key.empty();
  for (size_t start = 0; plain && start <= key.size();) {
    size_t dot = key.find('.', start);
    if (dot == std::string::npos) dot = key.size();
    plain = IsPlainName(std::string_view(key).substr(start, dot - start)) &&
            !(key[start] >= '0' && key[start] <= '9');
    start = dot + 1;
  }
  return plain ? key : QuoteString(key);
}

std::string AttrText(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return "None";
    case AttrValue::Kind::kBool:
      return value.AsBool() ? "True" : "False";
    case AttrValue::Kind::kInt:
      return std::to_string(value.AsInt());
    case AttrValue::Kind::kFloat:
      return FloatLiteral(value.AsFloat(), DType::kFloat32, false);
    case AttrValue::Kind::kString:
      return QuoteString(value.AsString());
    case AttrValue::Kind::kArray: {
      std::string out = "[";
      const auto& items = value.AsArray();
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + AttrText(items[i]);
      return out + "]";
    }
  }
  return "None";
}

const char* LiteralSuffix(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return "f";
    case DType::kFloat16:
      return "f16";
    case DType::kBFloat16:
      return "bf16";
    case DType::kFloat64:
      return "f64";
    case DType::kInt8:
      return "i8";
    case DType::kInt32:
      return "";
    case DType::kInt64:
      return "i64";
    case DType::kUInt8:
      return "u8";
    case DType::kBool:
      return nullptr;
  }
  return nullptr;
}

std::string FloatLiteral(double value, DType dtype, bool shortest_as_float) {
  std::string suffix = LiteralSuffix(dtype);
  if (std::isnan(value)) return (std::signbit(value) ? "-nan" : "nan") + suffix;
  if (std::isinf(value)) return (value < 0 ? "-inf" : "inf") + suffix;
  std::string digits =
      shortest_as_float ? ShortestFloat(static_cast<float>(value)) : ShortestDouble(value);
  return digits + suffix;
}

std::string IntLiteral(int64_t value, DType dtype) {
  if (dtype == DType::kBool) return value ? "True" : "False";
  const char* suffix = LiteralSuffix(dtype);
  return std::to_string(value) + (suffix ? suffix : "");
}

std::string NameTable::Unique(const std::string& hint) {
  std::string base;
  bool all_digits = true;
  for (char c : hint) {
    bool digit = c >= '0' && c <= '9';
    bool ok = digit || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    all_digits = all_digits && digit;
    base += ok ? c : '_';
  }
  if (all_digits) base = "v" + base;
  std::string name = base;
  int& k = next_suffix_[base];
  while (used_.count(name)) name = base + "_" + std::to_string(++k);
  used_.insert(name);
  return name;
}

}  // namespace tessera::text
