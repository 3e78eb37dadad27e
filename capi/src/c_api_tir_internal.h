// Shared internals of the tensor-level IR's C API sources: dtype conversion, node access
// with kind checks and messages naming the function and argument, and argument checks.
#pragma once

#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/ir/tir.h"

namespace tessera::capi::tirc {

using namespace tessera::tir;

/// The tensor element type of a C dtype (the runtime's encoding, DLPack's); throws an
/// unsupported error naming `where` otherwise.
inline DType DTypeFromC(TsDType d, const char* where) {
  if (d.lanes == 1) {
    switch (d.code) {
      case 0:
        if (d.bits == 8) return DType::kInt8;
        if (d.bits == 32) return DType::kInt32;
        if (d.bits == 64) return DType::kInt64;
        break;
      case 1:
        if (d.bits == 8) return DType::kUInt8;
        break;
      case 2:
        if (d.bits == 16) return DType::kFloat16;
        if (d.bits == 32) return DType::kFloat32;
        if (d.bits == 64) return DType::kFloat64;
        break;
      case 4:
        if (d.bits == 16) return DType::kBFloat16;
        break;
      case 6:
        if (d.bits == 8) return DType::kBool;
        break;
    }
  }
  TS_THROW(kUnsupported) << where << ": unsupported dtype (code " << int{d.code} << ", bits "
                         << int{d.bits} << ", lanes " << d.lanes << ")";
  return DType::kFloat32;  // not reached: the error builder throws
}

/// The C encoding of `d`.
inline TsDType DTypeToC(DType d) {
  switch (d) {
    case DType::kInt8:
      return {0, 8, 1};
    case DType::kInt32:
      return {0, 32, 1};
    case DType::kInt64:
      return {0, 64, 1};
    case DType::kUInt8:
      return {1, 8, 1};
    case DType::kFloat16:
      return {2, 16, 1};
    case DType::kFloat32:
      return {2, 32, 1};
    case DType::kFloat64:
      return {2, 64, 1};
    case DType::kBFloat16:
      return {4, 16, 1};
    case DType::kBool:
      return {6, 8, 1};
  }
  return {2, 32, 1};
}

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

/// The node behind the non-NULL borrowed `handle`, checked to be a T; otherwise throws a
/// type error "`where`: `arg` is <what it is>, expected `expected`".
template <typename T, typename H>
Ref<const T> Node(H handle, const char* where, const char* arg, const char* expected) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!IsInstance<T>(object))
    TS_THROW(kType) << where << ": " << arg << " is " << Describe(object) << ", expected "
                    << expected;
  return Ref<const T>(static_cast<const T*>(object));
}

/// Nodes behind the borrowed handles `items[0..count)` (checked non-NULL beforehand).
template <typename T, typename H>
std::vector<Ref<const T>> Nodes(const H* items, size_t count, const char* where, const char* arg,
                                const char* expected) {
  std::vector<Ref<const T>> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    std::string entry = std::string(arg) + " " + std::to_string(i);
    out.push_back(Node<T>(items[i], where, entry.c_str(), expected));
  }
  return out;
}

/// TS_OK when `items` holds `count` non-NULL handles (it may be NULL when `count` is 0);
/// otherwise fails with TS_ERROR_INVALID_ARGUMENT naming `where` and the entry.
template <typename H>
TsStatus CheckHandles(const H* items, size_t count, const char* where, const char* arg) {
  if (count && !items)
    return Fail(TS_ERROR_INVALID_ARGUMENT, std::string(where) + ": " + arg +
                                               " is NULL with a count of " + std::to_string(count));
  for (size_t i = 0; i < count; ++i)
    if (!items[i])
      return Fail(TS_ERROR_INVALID_ARGUMENT,
                  std::string(where) + ": " + arg + " " + std::to_string(i) + " is NULL");
  return TS_OK;
}

/// Throws a value error unless `index` < `size`; `what` names the things counted.
inline void CheckIndex(size_t index, size_t size, const char* where, const char* what) {
  if (index >= size)
    TS_THROW(kValue) << where << ": index " << index << " is out of range for " << size << " "
                     << what;
}

/// A std::string from a C string reference (NULL data with a nonzero length is a value
/// error naming `where`).
inline std::string StringFromC(TsStringRef ref, const char* where, const char* arg) {
  if (!ref.data && ref.length)
    TS_THROW(kValue) << where << ": " << arg << " has NULL data and length " << ref.length;
  return ref.data ? std::string(ref.data, ref.length) : std::string();
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

}  // namespace tessera::capi::tirc

/// Returns from the calling function when the status expression `EXPR` is not TS_OK.
#define TS_TIR_TRY(EXPR)                  \
  do {                                    \
    TsStatus status_ = (EXPR);            \
    if (status_ != TS_OK) return status_; \
  } while (0)
