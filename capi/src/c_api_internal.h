// Shared internals of the compiler C API's source files: the compiler's handle structs on
// top of the runtime's, and the conversions between IR node handles and C++ references.
// Not installed; C callers only see c_api.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "c_runtime_internal.h"
#include "tessera/c_api.h"
#include "tessera/ir/module.h"
#include "tessera/target/target.h"
#include "tessera/transform/pass.h"

// IR handles (TsType, TsExpr, TsModule, TsPrimExpr, TsBuffer, TsStmt, TsPattern, ...) are
// the reference-counted tessera::Object itself: a handle owns one reference, so handing a
// node to C costs no allocation and two handles to one node are equal pointers. Objects
// that are not nodes get a heap struct of their own:
struct TsPass_ {
  tessera::Pass pass;
};
struct TsPassContext_ {
  tessera::PassContext ctx;
};
struct TsTarget_ {
  tessera::Target target;
};
struct TsAttribute_ {
  tessera::AttrValue value;
};

namespace tessera::capi {

/// Hands the caller the reference `ref` holds as a handle of type H (NULL for null).
template <typename H, typename T>
H Give(Ref<T> ref) {
  const Object* object = ref.release();
  return reinterpret_cast<H>(const_cast<Object*>(object));
}

/// A new reference to the node behind the borrowed handle `handle`, checked to be a T;
/// throws a type error saying `what` was expected otherwise. NULL gives a null Ref.
template <typename T, typename H>
Ref<const T> Borrow(H handle, const char* what) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!object) return nullptr;
  if (!IsInstance<T>(object)) TS_THROW(kType) << "expected " << what;
  return Ref<const T>(static_cast<const T*>(object));
}

/// Releases the reference a node handle owns (NULL is ignored).
template <typename H>
void Drop(H handle) {
  if (handle) reinterpret_cast<const Object*>(handle)->DecRef();
}

/// A new reference to the node behind `handle` (the same pointer).
template <typename H>
H Retain(H handle) {
  if (handle) reinterpret_cast<const Object*>(handle)->IncRef();
  return handle;
}

/// The handle of `node` without a new reference: lent to a callback for one call.
template <typename H>
H Lend(const Object* node) {
  return reinterpret_cast<H>(const_cast<Object*>(node));
}

/// Nodes from a C array of borrowed handles, each checked to be a T: a NULL array with a
/// nonzero count or a NULL entry is a value error, another kind of node a type error
/// (`what` names an entry, "TsExprTupleCreate: field"; `kind` what it must be).
template <typename T, typename H>
std::vector<Ref<const T>> NodesOf(const H* handles, size_t count, std::string_view what,
                                  const char* kind) {
  if (count && !handles) TS_THROW(kValue) << what << " array is NULL with a count of " << count;
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

/// Modules as node handles.
inline TsModule GiveModule(const IRModule& mod) {
  return Give<TsModule>(Ref<const IRModuleNode>(mod.get()));
}
/// The module behind a borrowed handle.
inline IRModule BorrowModule(TsModule handle) {
  return IRModule(Borrow<IRModuleNode>(handle, "a module"));
}

/// An attribute dictionary from C entries (NULL values are None); `what` names the owner in
/// errors (a NULL array with a nonzero count is a value error).
Attrs AttrsFromC(const TsNamedAttribute* attrs, size_t num_attrs, const char* what);
/// A new attribute handle holding `value`.
inline TsAttribute GiveAttr(AttrValue value) {
  return new TsAttribute_{std::move(value)};
}

/// A config or option value from JSON (bool, int, float, string, arrays of those; null is
/// None); `what` names it in errors.
AttrValue AttrFromJson(const std::string& what, const nlohmann::json& value);
/// The JSON of an attribute value (None is null).
nlohmann::json JsonOf(const AttrValue& value);
/// An attribute dictionary from a JSON object text (NULL or "" is empty).
Attrs AttrsFromJsonText(const char* text, const std::string& what);

/// Throws a value error unless `index` < `size` (`what` names the array's entries,
/// "TsCallGetArg: argument").
inline void CheckIndex(size_t index, size_t size, const char* what) {
  if (index >= size)
    TS_THROW(kValue) << what << " index " << index << " is out of range (size " << size << ")";
}

/// Names from a C array of NUL-terminated strings (`names` may be NULL when `count` is 0;
/// a NULL entry is a value error naming `what` and the index).
std::vector<std::string> NamesFromC(const char* const* names, size_t count, const char* what);

/// Targets from a borrowed C array; a NULL entry is a value error naming `what`.
std::vector<Target> TargetsFromC(const TsTarget* targets, size_t num_targets, const char* what);

/// A callback's user data: `destroy(data)` runs once, when the last holder dies (the C++
/// functions and objects calling the callback share it), unless Release()d first.
class UserData {
 public:
  UserData(void* data, TsUserDataDestroy destroy) : data_(data), destroy_(destroy) {}
  ~UserData() {
    if (destroy_) destroy_(data_);
  }
  UserData(const UserData&) = delete;
  UserData& operator=(const UserData&) = delete;
  void* data() const { return data_; }
  /// Gives `data` back to the caller: a refused call whose caller keeps ownership.
  void Release() { destroy_ = nullptr; }

 private:
  void* data_;
  TsUserDataDestroy destroy_;
};
using UserDataPtr = std::shared_ptr<UserData>;

/// Takes ownership of `data` first thing in a C entry point, so it is destroyed even when
/// the call then fails; failing itself (out of memory) only after destroying it. Use:
///   UserDataPtr data;
///   if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
inline TsStatus TakeUserData(void* data, TsUserDataDestroy destroy, UserDataPtr* out) {
  TsStatus status = Guard([&] { *out = std::make_shared<UserData>(data, destroy); });
  if (status != TS_OK && destroy) destroy(data);
  return status;
}

/// The error kind of a status (TS_ERROR_INVALID_ARGUMENT is a value error).
ErrorKind KindOf(TsStatus status);

/// Throws the error a C callback reported by returning `status` (not TS_OK): its kind
/// from the status, its message from TsSetLastError, prefixed with `where`.
[[noreturn]] void ThrowCallbackError(TsStatus status, const std::string& where);

/// A string from C: `length` bytes, or up to the NUL when `length` is (size_t)-1.
inline std::string_view TextOf(const char* text, size_t length) {
  return length == static_cast<size_t>(-1) ? std::string_view(text)
                                           : std::string_view(text, length);
}

/// Takes over the reference a C callback returned through an out-parameter (`handle`, NULL
/// for none), releasing it whatever happens: throws the callback's error when `status` is
/// not TS_OK, a type error "`where` must return `kind`" for another kind of node; gives a
/// null Ref for NULL.
template <typename T, typename H>
Ref<const T> AdoptResult(TsStatus status, H handle, const char* kind, const std::string& where) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  bool right_kind = !object || IsInstance<T>(object);
  Ref<const T> result = right_kind ? Ref<const T>(static_cast<const T*>(object)) : nullptr;
  Drop(handle);
  if (status != TS_OK) ThrowCallbackError(status, where);
  if (!right_kind) TS_THROW(kType) << where << " must return " << kind << ", got another node";
  return result;
}

/// A string from C (`data` may be NULL only for length 0; `what` names it in errors).
inline std::string StringOf(TsStringRef ref, std::string_view what) {
  if (!ref.data && ref.length)
    TS_THROW(kValue) << what << " is NULL with a length of " << ref.length;
  return ref.data ? std::string(ref.data, ref.length) : std::string();
}

/// A borrowed view of `s` for C (valid while `s` lives).
inline TsStringRef RefOf(const std::string& s) {
  return TsStringRef{s.data(), s.size()};
}

/// Entry `index` of `attrs` for C: the name borrowed from `attrs`, the value new (`what`
/// names the entries in the out-of-range error).
inline TsNamedAttribute NamedAttrOf(const Attrs& attrs, size_t index, const char* what) {
  CheckIndex(index, attrs.size(), what);
  const auto& item = attrs.items()[index];
  return TsNamedAttribute{RefOf(item.first), GiveAttr(item.second)};
}

}  // namespace tessera::capi
