// Target: a backend kind plus typed options ("native -num_threads=1 -libs=blas"),
// validated against the option schema the backend registry holds for that kind.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/attrs.h"

namespace tessera {

/// The type of one target option.
enum class TargetAttrType { kInt, kBool, kString, kStringList };

/// "int", "bool", "string", "string list".
const char* TargetAttrTypeName(TargetAttrType type);

/// One option a target kind accepts.
struct TargetAttrSpec {
  std::string name;
  TargetAttrType type = TargetAttrType::kString;
  /// Used when the option is not given (kStringList: an array of strings).
  AttrValue default_value;
  std::string description;
  /// Extra check of a parsed value (e.g. names must be registered backends); throws.
  std::function<void(const AttrValue& value)> validate;
};

/// A backend kind and its options. Only options given explicitly are stored; getters
/// fall back to the schema's defaults.
class Target {
 public:
  /// Parses "kind -name=value -flag ..."; throws a value error naming the unknown kind
  /// or option (listing the valid ones) or the expected type of a bad value.
  static Target Parse(std::string_view text);
  /// A target of `kind` with no explicit options (the kind must be registered).
  explicit Target(std::string kind);

  /// The backend kind ("native", "interp").
  const std::string& kind() const { return kind_; }
  /// Options given explicitly, by name.
  const std::map<std::string, AttrValue>& attrs() const { return attrs_; }
  /// Whether the kind's schema has option `name`.
  bool HasAttr(const std::string& name) const;
  /// Typed option values (explicit or default); throw a value error for an option the
  /// kind does not have or of another type.
  int64_t GetInt(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  std::string GetString(const std::string& name) const;
  std::vector<std::string> GetStringList(const std::string& name) const;
  /// Sets option `name` from its text form (validated as Parse does).
  void Set(const std::string& name, std::string_view value);
  /// This target without the explicit option `name` (so its default applies).
  Target Without(const std::string& name) const;

  /// Canonical text: the kind, then explicit options sorted by name ("-libs=blas").
  std::string ToString() const;
  friend bool operator==(const Target& a, const Target& b) {
    return a.kind_ == b.kind_ && a.attrs_ == b.attrs_;
  }

 private:
  const TargetAttrSpec& Spec(const std::string& name) const;
  AttrValue Value(const std::string& name, TargetAttrType type) const;

  std::string kind_;
  std::map<std::string, AttrValue> attrs_;
};

}  // namespace tessera
