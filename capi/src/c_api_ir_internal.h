// Helpers shared by the IR C API's source files (types, attributes, expressions, ops,
// modules): attribute entries out and lookups by name.
#pragma once

#include <string>
#include <vector>

#include "c_api_internal.h"

namespace tessera::capi {

/// Entry `index` of `attrs` for C: the name borrowed from `attrs`, the value new.
inline TsNamedAttribute NamedAttrOf(const Attrs& attrs, size_t index, const char* what) {
  CheckIndex(index, attrs.size(), what);
  const auto& item = attrs.items()[index];
  return TsNamedAttribute{RefOf(item.first), GiveAttr(item.second)};
}

/// A new attribute handle holding the value of `key` in `attrs`; a not-found error naming
/// `what` and listing the names otherwise.
TsAttribute LookupAttr(const Attrs& attrs, const std::string& key, const char* what);

/// The value a borrowed attribute handle holds (NULL is None).
inline AttrValue AttrOf(TsAttribute attribute) {
  return attribute ? attribute->value : AttrValue();
}

}  // namespace tessera::capi
