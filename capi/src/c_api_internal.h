// Shared internals of the compiler C API's source files: the compiler's handle structs on
// top of the runtime's, and the conversions between IR node handles and C++ references.
// Not installed; C callers only see c_api.h.
#pragma once

#include <string>
#include <string_view>

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

/// A borrowed view of `s` for C (valid while `s` lives).
inline TsStringRef RefOf(const std::string& s) {
  return TsStringRef{s.data(), s.size()};
}

}  // namespace tessera::capi
