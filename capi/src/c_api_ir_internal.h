// Helpers shared by the IR C API's source files (types, attributes, expressions, ops,
// modules): attribute lookups by name and attribute values from handles.
#pragma once

#include <string>

#include "c_api_internal.h"

namespace tessera::capi {

/// A new attribute handle holding the value of `key` in `attrs`; a not-found error naming
/// `what` and listing the names otherwise.
TsAttribute LookupAttr(const Attrs& attrs, const std::string& key, const char* what);

/// The value a borrowed attribute handle holds (NULL is None).
inline AttrValue AttrOf(TsAttribute attribute) {
  return attribute ? attribute->value : AttrValue();
}

}  // namespace tessera::capi
