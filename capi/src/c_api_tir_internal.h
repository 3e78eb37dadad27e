// Shared internals of the tensor-level IR's C API sources: node access with kind checks and
// messages naming the function, the argument and what it is instead.
#pragma once

#include <string>

#include "c_api_internal.h"
#include "tessera/ir/tir.h"

namespace tessera::capi::tirc {

using namespace tessera::tir;

/// "a binary expression", "a loop", "a buffer", ... for messages about a wrong handle.
inline const char* Describe(const Object* object) {
  switch (object->type_index()) {
    case TypeIndex::kIntImm:
      return "an integer literal";
    case TypeIndex::kFloatImm:
      return "a float literal";
    case TypeIndex::kTirVar:
      return "a variable";
    case TypeIndex::kBinary:
      return "a binary expression";
    case TypeIndex::kNot:
      return "a not expression";
    case TypeIndex::kSelect:
      return "a select";
    case TypeIndex::kCast:
      return "a cast";
    case TypeIndex::kBufferLoad:
      return "a buffer load";
    case TypeIndex::kIntrinsic:
      return "an intrinsic call";
    case TypeIndex::kFor:
      return "a loop";
    case TypeIndex::kBlock:
      return "a block";
    case TypeIndex::kBufferStore:
      return "a buffer store";
    case TypeIndex::kAllocate:
      return "an allocate";
    case TypeIndex::kSeqStmt:
      return "a sequence";
    case TypeIndex::kIfThenElse:
      return "an if-then-else";
    case TypeIndex::kPrefetch:
      return "a prefetch";
    case TypeIndex::kBuffer:
      return "a buffer";
    case TypeIndex::kPrimFunc:
      return "a PrimFunc";
    case TypeIndex::kFunction:
      return "a graph function";
    case TypeIndex::kIRModule:
      return "a module";
    default:
      return TypeIndex::kTensorType <= object->type_index() &&
                     object->type_index() <= TypeIndex::kFuncType
                 ? "a type"
                 : "a graph-level expression";
  }
}

/// The node behind the borrowed `handle`, checked to be a T; otherwise throws a type error
/// "`where`: `arg` is <what it is>, expected `expected`" (a value error when NULL: an entry
/// of an array or struct given in).
template <typename T, typename H>
Ref<const T> Node(H handle, const char* where, const char* arg, const char* expected) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!object) TS_THROW(kValue) << where << ": " << arg << " is NULL";
  if (!IsInstance<T>(object))
    TS_THROW(kType) << where << ": " << arg << " is " << Describe(object) << ", expected "
                    << expected;
  return Ref<const T>(static_cast<const T*>(object));
}

/// Runs `body(node, *out)` on the node of kind T behind `handle` for a getter: NULL
/// `handle` or `out` fail with TS_ERROR_INVALID_ARGUMENT, a wrong kind with TS_ERROR_TYPE.
template <typename T, typename H, typename Out, typename F>
TsStatus Field(H handle, Out* out, const char* where, const char* arg, const char* expected,
               F&& body) {
  if (!handle)
    return Fail(TS_ERROR_INVALID_ARGUMENT, std::string(where) + ": " + arg + " must not be NULL");
  if (!out) return Fail(TS_ERROR_INVALID_ARGUMENT, std::string(where) + ": out must not be NULL");
  return Guard([&] { body(*Node<T>(handle, where, arg, expected), *out); });
}

/// Getters shared by the access nodes T (a load, a store, a prefetch: a buffer and
/// `indices`): the number of indices, and index `index` (an index error past the end).
template <typename T, typename H>
TsStatus AccessNumIndices(H handle, size_t* out, const char* where, const char* arg,
                          const char* expected) {
  return Field<T>(handle, out, where, arg, expected,
                  [](const T& n, size_t& o) { o = n.indices.size(); });
}
template <typename T, typename H>
TsStatus AccessIndex(H handle, size_t index, TsPrimExpr* out, const char* where, const char* arg,
                     const char* expected) {
  return Field<T>(handle, out, where, arg, expected, [&](const T& n, TsPrimExpr& o) {
    CheckIndex(index, n.indices.size(), (std::string(where) + ": index").c_str());
    o = Give<TsPrimExpr>(n.indices[index]);
  });
}

}  // namespace tessera::capi::tirc
