// Helpers shared by the IR C API's source files (types, attributes, expressions, ops,
// modules): dtype and string conversion, checked node access, index checks, arrays in.
// Other concepts may include it (TIR needs the dtype conversions too).
#pragma once

#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/runtime/dtype.h"

namespace tessera::capi {

/// The Tessera dtype of a C dtype; TS_ERROR_UNSUPPORTED for one Tessera does not have.
DType DTypeFromC(TsDType dtype);
/// The C dtype of a Tessera dtype.
TsDType DTypeToC(DType dtype);

/// A string from C (`data` may be NULL only for length 0; `what` names it in errors).
inline std::string StringOf(TsStringRef ref, const char* what) {
  if (!ref.data && ref.length)
    TS_THROW(kValue) << what << " is NULL with a length of " << ref.length;
  return ref.data ? std::string(ref.data, ref.length) : std::string();
}

/// Throws a value error unless `index` < `size` (`what` names the array).
inline void CheckIndex(size_t index, size_t size, const char* what) {
  if (index >= size)
    TS_THROW(kValue) << what << " index " << index << " is out of range (size " << size << ")";
}

/// Nodes from a C array of borrowed handles, each checked to be a T (`what`: "argument").
template <typename T, typename H>
std::vector<Ref<const T>> NodesOf(const H* handles, size_t count, const char* what,
                                  const char* kind) {
  if (count && !handles) TS_THROW(kValue) << what << "s are NULL with a count of " << count;
  std::vector<Ref<const T>> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (!handles[i]) TS_THROW(kValue) << what << " " << i << " is NULL";
    const Object* object = reinterpret_cast<const Object*>(handles[i]);
    if (!IsInstance<T>(object)) TS_THROW(kType) << what << " " << i << ": expected " << kind;
    out.push_back(Ref<const T>(static_cast<const T*>(object)));
  }
  return out;
}

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
