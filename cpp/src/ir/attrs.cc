// Attribute values: access, equality, hashing and text form.
#include "tessera/ir/attrs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>

#include "tessera/support/error.h"
#include "tessera/support/hash.h"

namespace tessera {

AttrValue AttrValue::Ints(const std::vector<int64_t>& values) {
  std::vector<AttrValue> items;
  items.reserve(values.size());
  for (int64_t v : values) items.emplace_back(v);
  return AttrValue(std::move(items));
}

double AttrValue::AsFloat() const {
  if (is_int()) return static_cast<double>(AsInt());
  return std::get<double>(value_);
}

std::vector<int64_t> AttrValue::AsInts(const char* what) const {
  if (is_int()) return {AsInt()};
  if (!is_array())
    TS_THROW(kValue) << what << ": expected an array of integers, got " << ToString();
  std::vector<int64_t> out;
  for (const auto& item : AsArray()) {
    if (!item.is_int())
      TS_THROW(kValue) << what << ": expected an array of integers, got " << ToString();
    out.push_back(item.AsInt());
  }
  return out;
}

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case AttrValue::Kind::kNone: return true;
    case AttrValue::Kind::kBool: return a.AsBool() == b.AsBool();
    case AttrValue::Kind::kInt: return a.AsInt() == b.AsInt();
    case AttrValue::Kind::kFloat: {
      double x = a.AsFloat(), y = b.AsFloat();
      return std::memcmp(&x, &y, sizeof(double)) == 0;
    }
    case AttrValue::Kind::kString: return a.AsString() == b.AsString();
    case AttrValue::Kind::kArray: {
      const auto& p = a.AsArray();
      const auto& q = b.AsArray();
      if (p.size() != q.size()) return false;
      for (size_t i = 0; i < p.size(); ++i)
        if (!(p[i] == q[i])) return false;
      return true;
    }
  }
  return false;
}

size_t AttrValue::Hash() const {
  size_t h = static_cast<size_t>(kind());
  switch (kind()) {
    case Kind::kNone:
      break;
    case Kind::kBool:
      h = HashCombine(h, AsBool());
      break;
    case Kind::kInt:
      h = HashCombine(h, std::hash<int64_t>()(AsInt()));
      break;
    case Kind::kFloat:
      h = HashCombine(h, std::hash<double>()(AsFloat()));
      break;
    case Kind::kString:
      h = HashCombine(h, std::hash<std::string>()(AsString()));
      break;
    case Kind::kArray:
      for (const auto& item : AsArray()) h = HashCombine(h, item.Hash());
      break;
  }
  return h;
}

/// Shortest text that parses back to exactly `value` (with a trailing 'f').
static std::string FloatText(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  std::string text(buf, res.ptr);
  return text;
}

std::string AttrValue::ToString() const {
  switch (kind()) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return AsBool() ? "True" : "False";
    case Kind::kInt:
      return std::to_string(AsInt());
    case Kind::kFloat:
      return FloatText(AsFloat()) + "f";
    case Kind::kString: {
      std::string out = "\"";
      for (char c : AsString()) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
          out += "\\n";
          continue;
        }
        out += c;
      }
      return out + "\"";
    }
    case Kind::kArray: {
      std::string out = "[";
      const auto& items = AsArray();
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].ToString();
      return out + "]";
    }
  }
  return "?";
}

const AttrValue* Attrs::Find(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

const AttrValue& Attrs::Get(const std::string& key) const {
  if (const AttrValue* v = Find(key)) return *v;
  TS_THROW(kNotFound) << "attribute '" << key << "' is not set";
}

void Attrs::Set(const std::string& key, AttrValue value) {
  for (auto& [k, v] : items_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items_.emplace_back(key, std::move(value));
}

void Attrs::Erase(const std::string& key) {
  items_.erase(std::remove_if(items_.begin(), items_.end(),
                              [&](const auto& item) { return item.first == key; }),
               items_.end());
}

Attrs Attrs::With(const std::string& key, AttrValue value) const {
  Attrs copy = *this;
  copy.Set(key, std::move(value));
  return copy;
}

int64_t Attrs::GetInt(const std::string& key) const {
  const AttrValue& v = Get(key);
  if (v.is_bool()) return v.AsBool();
  if (!v.is_int())
    TS_THROW(kValue) << "attribute '" << key << "': expected an integer, got " << v.ToString();
  return v.AsInt();
}

double Attrs::GetFloat(const std::string& key) const {
  const AttrValue& v = Get(key);
  if (!v.is_int() && !v.is_float())
    TS_THROW(kValue) << "attribute '" << key << "': expected a number, got " << v.ToString();
  return v.AsFloat();
}

bool Attrs::GetBool(const std::string& key) const {
  const AttrValue& v = Get(key);
  if (v.is_int()) return v.AsInt() != 0;
  if (!v.is_bool())
    TS_THROW(kValue) << "attribute '" << key << "': expected a bool, got " << v.ToString();
  return v.AsBool();
}

const std::string& Attrs::GetString(const std::string& key) const {
  const AttrValue& v = Get(key);
  if (!v.is_string())
    TS_THROW(kValue) << "attribute '" << key << "': expected a string, got " << v.ToString();
  return v.AsString();
}

std::vector<int64_t> Attrs::GetInts(const std::string& key) const {
  std::string what = "attribute '" + key + "'";
  return Get(key).AsInts(what.c_str());
}

bool operator==(const Attrs& a, const Attrs& b) {
  if (a.items_.size() != b.items_.size()) return false;
  for (const auto& [k, v] : a.items_) {
    const AttrValue* other = b.Find(k);
    if (!other || !(*other == v)) return false;
  }
  return true;
}

size_t Attrs::Hash() const {
  // Order-insensitive: sum of per-item hashes.
  size_t h = items_.size();
  for (const auto& [k, v] : items_) h += HashCombine(std::hash<std::string>()(k), v.Hash());
  return h;
}

}  // namespace tessera
