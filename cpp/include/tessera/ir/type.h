// Types of graph-level values: tensors, tuples and functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/runtime/dtype.h"
#include "tessera/support/object.h"

namespace tessera {

/// Base of all types.
class TypeNode : public Object {
 public:
  static constexpr TypeIndex kFirst = TypeIndex::kTensorType;
  static constexpr TypeIndex kLast = TypeIndex::kFuncType;

 protected:
  using Object::Object;
};
/// Handle to a type.
using Type = Ref<const TypeNode>;

/// A tensor of static shape and element dtype. Rank 0 is a scalar. A dimension of
/// -1 is reserved for a future symbolic dimension and rejected today.
class TensorTypeNode : public TypeNode {
 public:
  TensorTypeNode(std::vector<int64_t> shape, DType dtype)
      : TypeNode(TypeIndex::kTensorType), shape(std::move(shape)), dtype(dtype) {}
  std::vector<int64_t> shape;
  DType dtype;
  int ndim() const { return static_cast<int>(shape.size()); }
  int64_t NumElements() const;
  static constexpr TypeIndex kFirst = TypeIndex::kTensorType;
  static constexpr TypeIndex kLast = TypeIndex::kTensorType;
};
using TensorType = Ref<const TensorTypeNode>;

/// A tuple of values, e.g. the three results of nn.batch_norm.
class TupleTypeNode : public TypeNode {
 public:
  explicit TupleTypeNode(std::vector<Type> fields)
      : TypeNode(TypeIndex::kTupleType), fields(std::move(fields)) {}
  std::vector<Type> fields;
  static constexpr TypeIndex kFirst = TypeIndex::kTupleType;
  static constexpr TypeIndex kLast = TypeIndex::kTupleType;
};
using TupleType = Ref<const TupleTypeNode>;

/// The type of a function: parameter types to a result type.
class FuncTypeNode : public TypeNode {
 public:
  FuncTypeNode(std::vector<Type> arg_types, Type ret_type)
      : TypeNode(TypeIndex::kFuncType),
        arg_types(std::move(arg_types)),
        ret_type(std::move(ret_type)) {}
  std::vector<Type> arg_types;
  Type ret_type;
  static constexpr TypeIndex kFirst = TypeIndex::kFuncType;
  static constexpr TypeIndex kLast = TypeIndex::kFuncType;
};
using FuncType = Ref<const FuncTypeNode>;

/// Builds `Tensor[shape, dtype]`.
TensorType MakeTensorType(std::vector<int64_t> shape, DType dtype = DType::kFloat32);
/// Builds a tuple type.
TupleType MakeTupleType(std::vector<Type> fields);
/// Builds a function type.
FuncType MakeFuncType(std::vector<Type> arg_types, Type ret_type);
/// Relay text form: `Tensor[(1, 3), float32]`, `(Tensor[...], ...)`, `fn (...) -> ...`.
std::string TypeToString(const Type& type);
/// Structural equality of two types (null equals only null).
bool TypeEqual(const Type& a, const Type& b);
/// Structural hash consistent with TypeEqual.
size_t TypeHash(const Type& type);

}  // namespace tessera
