// Typed attribute values on calls and functions: none, bool, int, float, string, arrays.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tessera {

/// One attribute value. Arrays nest (e.g. pad_width=[[0, 0], [1, 1]]).
class AttrValue {
 public:
  /// Which alternative an AttrValue holds.
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kArray };

  AttrValue() = default;
  AttrValue(bool v) : value_(v) {}                               // NOLINT
  AttrValue(int v) : value_(int64_t{v}) {}                       // NOLINT
  AttrValue(int64_t v) : value_(v) {}                            // NOLINT
  AttrValue(double v) : value_(v) {}                             // NOLINT
  AttrValue(const char* v) : value_(std::string(v)) {}           // NOLINT
  AttrValue(std::string v) : value_(std::move(v)) {}             // NOLINT
  AttrValue(std::vector<AttrValue> v) : value_(std::move(v)) {}  // NOLINT
  AttrValue(std::initializer_list<AttrValue> v) : value_(std::vector<AttrValue>(v)) {}
  /// An int array attribute from a list of integers.
  static AttrValue Ints(const std::vector<int64_t>& values);

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_float() const { return kind() == Kind::kFloat; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }

  bool AsBool() const { return std::get<bool>(value_); }
  int64_t AsInt() const { return std::get<int64_t>(value_); }
  /// The value as a double (ints convert).
  double AsFloat() const;
  const std::string& AsString() const { return std::get<std::string>(value_); }
  const std::vector<AttrValue>& AsArray() const { return std::get<std::vector<AttrValue>>(value_); }
  /// An int array's elements (throws a value error naming `what` otherwise).
  std::vector<int64_t> AsInts(const char* what = "attribute") const;

  /// Structural equality: floats compare by bit pattern (so NaN equals the same NaN,
  /// and 0.0 differs from -0.0), arrays element-wise.
  friend bool operator==(const AttrValue& a, const AttrValue& b);
  /// Hash consistent with ==.
  size_t Hash() const;
  /// Text form as in the Relay printer: 1, 1.5f, "NCHW", True, None, [1, 2].
  std::string ToString() const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<AttrValue>> value_;
};

/// An ordered list of named attributes. Call attributes are kept in their op's schema
/// order; function attributes in insertion order. Equality ignores order.
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}

  /// The value of `key`, or nullptr.
  const AttrValue* Find(const std::string& key) const;
  bool Has(const std::string& key) const { return Find(key) != nullptr; }
  /// The value of `key`; throws a not-found error when absent.
  const AttrValue& Get(const std::string& key) const;
  /// Sets (replacing or appending) `key`.
  void Set(const std::string& key, AttrValue value);
  /// Removes `key` if present.
  void Erase(const std::string& key);
  /// A copy with `key` set.
  Attrs With(const std::string& key, AttrValue value) const;

  /// Typed getters that throw a value error naming the key when the kind is wrong.
  int64_t GetInt(const std::string& key) const;
  double GetFloat(const std::string& key) const;
  bool GetBool(const std::string& key) const;
  const std::string& GetString(const std::string& key) const;
  std::vector<int64_t> GetInts(const std::string& key) const;

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

  /// Order-insensitive equality.
  friend bool operator==(const Attrs& a, const Attrs& b);
  /// Order-insensitive hash.
  size_t Hash() const;

 private:
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace tessera
