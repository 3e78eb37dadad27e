// The C API of IR types (tensor, tuple, function) and element dtypes by name.
#include "c_api_ir_internal.h"

#include "tessera/ir/type.h"

using namespace tessera;
using namespace tessera::capi;

namespace {

Ref<const TypeNode> TypeOf(TsType type) {
  return Borrow<TypeNode>(type, "a type");
}
Ref<const TensorTypeNode> TensorTypeOf(TsType type) {
  return Borrow<TensorTypeNode>(type, "a tensor type");
}
Ref<const TupleTypeNode> TupleTypeOf(TsType type) {
  return Borrow<TupleTypeNode>(type, "a tuple type");
}
Ref<const FuncTypeNode> FuncTypeOf(TsType type) {
  return Borrow<FuncTypeNode>(type, "a function type");
}

}  // namespace

extern "C" {

TsStatus TsDTypeFromName(TsStringRef name, TsDType* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = DTypeToC(ParseDTypeOrThrow(StringOf(name, "dtype name"), "dtype")); });
}

TsStatus TsDTypeGetName(TsDType dtype, const char** out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = DTypeName(DTypeFromC(dtype)); });
}

TsStatus TsTypeTensorCreate(const int64_t* shape, size_t ndim, TsDType dtype, TsType* out) {
  TS_REQUIRE(out);
  if (ndim) TS_REQUIRE(shape);
  return Guard([&] {
    std::vector<int64_t> dims(shape, shape + ndim);
    for (int64_t d : dims)
      if (d < 0)
        TS_THROW(kValue) << "TsTypeTensorCreate: dimension " << d << " in " << ShapeToString(dims)
                         << " is negative";
    *out = Give<TsType>(MakeTensorType(std::move(dims), DTypeFromC(dtype)));
  });
}

TsStatus TsTypeTupleCreate(const TsType* fields, size_t num_fields, TsType* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsType>(
        MakeTupleType(NodesOf<TypeNode>(fields, num_fields, "TsTypeTupleCreate: field", "a type")));
  });
}

TsStatus TsTypeFuncCreate(const TsType* arg_types, size_t num_args, TsType ret_type, TsType* out) {
  TS_REQUIRE(ret_type);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsType>(MakeFuncType(
        NodesOf<TypeNode>(arg_types, num_args, "TsTypeFuncCreate: argument type", "a type"),
        TypeOf(ret_type)));
  });
}

TsStatus TsTypeGetKind(TsType type, TsTypeKind* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] {
    switch (TypeOf(type)->type_index()) {
      case TypeIndex::kTensorType:
        *out = TS_TYPE_TENSOR;
        return;
      case TypeIndex::kTupleType:
        *out = TS_TYPE_TUPLE;
        return;
      default:
        *out = TS_TYPE_FUNC;
    }
  });
}

TsStatus TsTensorTypeGetShape(TsType type, const int64_t** shape, size_t* ndim) {
  TS_REQUIRE(type);
  TS_REQUIRE(shape);
  TS_REQUIRE(ndim);
  return Guard([&] {
    TensorType t = TensorTypeOf(type);
    *shape = t->shape.data();
    *ndim = t->shape.size();
  });
}

TsStatus TsTensorTypeGetDType(TsType type, TsDType* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] { *out = DTypeToC(TensorTypeOf(type)->dtype); });
}

TsStatus TsTupleTypeGetNumFields(TsType type, size_t* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] { *out = TupleTypeOf(type)->fields.size(); });
}

TsStatus TsTupleTypeGetField(TsType type, size_t index, TsType* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] {
    TupleType t = TupleTypeOf(type);
    CheckIndex(index, t->fields.size(), "TsTupleTypeGetField: field");
    *out = Give<TsType>(t->fields[index]);
  });
}

TsStatus TsFuncTypeGetNumArgs(TsType type, size_t* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] { *out = FuncTypeOf(type)->arg_types.size(); });
}

TsStatus TsFuncTypeGetArg(TsType type, size_t index, TsType* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] {
    FuncType t = FuncTypeOf(type);
    CheckIndex(index, t->arg_types.size(), "TsFuncTypeGetArg: argument");
    *out = Give<TsType>(t->arg_types[index]);
  });
}

TsStatus TsFuncTypeGetRetType(TsType type, TsType* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] { *out = Give<TsType>(FuncTypeOf(type)->ret_type); });
}

TsStatus TsTypePrint(TsType type, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(type);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(TypeToString(TypeOf(type)), callback, user_data); });
}

TsStatus TsTypeEqual(TsType a, TsType b, int* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  return Guard([&] { *out = TypeEqual(TypeOf(a), TypeOf(b)) ? 1 : 0; });
}

TsStatus TsTypeHash(TsType type, uint64_t* out) {
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Guard([&] { *out = static_cast<uint64_t>(TypeHash(TypeOf(type))); });
}

TsType TsTypeRetain(TsType type) {
  return Retain(type);
}

void TsTypeDestroy(TsType type) {
  Drop(type);
}

}  // extern "C"
