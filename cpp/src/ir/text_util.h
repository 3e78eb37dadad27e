// Private: spellings shared by the text printer and parser (literals, strings, names).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "tessera/ir/attrs.h"
#include "tessera/runtime/dtype.h"

namespace tessera::text {

/// Shortest decimal text that parses back to exactly `value` ("1", "0.5", "1e-05").
std::string ShortestDouble(double value);
/// Same for a float32 value (shortest among floats).
std::string ShortestFloat(float value);
/// A double-quoted string with `\"`, `\\`, `\n`, `\t`, `\r` and `\xHH` escapes.
std::string QuoteString(std::string_view s);
/// True for [A-Za-z_][A-Za-z0-9_]*.
bool IsPlainName(std::string_view s);
/// `@name`, or `@"name"` when the name is not plain.
std::string GlobalText(const std::string& name);
/// An attribute key: the name (dotted names allowed), or the quoted name otherwise.
std::string AttrKeyText(const std::string& key);
/// An attribute value: 1, 1.5f, inff, "NCHW", True, None, [1, 2].
std::string AttrText(const AttrValue& value);
/// The suffix of scalar literals of `dtype` ("f", "f64", "i64", "" for int32), or
/// nullptr for bool (True/False) .
const char* LiteralSuffix(DType dtype);
/// A float literal of `dtype` holding `value`, non-finite values as inf/nan with the
/// suffix ("-inff"); `value` must be exactly representable in `dtype`.
std::string FloatLiteral(double value, DType dtype, bool shortest_as_float);
/// An integer or bool literal of `dtype` ("3", "-1i64", "True").
std::string IntLiteral(int64_t value, DType dtype);
/// Printable, unique local names for one function: characters outside [A-Za-z0-9_]
/// become '_', all-digit names get a 'v' prefix (digits are graph binding numbers), and
/// clashes get a _1, _2, ... suffix.
class NameTable {
 public:
  /// A fresh name derived from `hint`.
  std::string Unique(const std::string& hint);
  void Clear() {
    used_.clear();
    next_suffix_.clear();
  }

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int> next_suffix_;
};

}  // namespace tessera::text
