// Type construction, printing, equality and hashing.
#include "tessera/ir/type.h"

#include <functional>

#include "tessera/support/error.h"
#include "tessera/support/hash.h"

namespace tessera {

int64_t TensorTypeNode::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

TensorType MakeTensorType(std::vector<int64_t> shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) TS_THROW(kType) << "tensor dimensions must be non-negative, got " << d;
  return MakeNode<const TensorTypeNode>(std::move(shape), dtype);
}

TupleType MakeTupleType(std::vector<Type> fields) {
  return MakeNode<const TupleTypeNode>(std::move(fields));
}

FuncType MakeFuncType(std::vector<Type> arg_types, Type ret_type) {
  return MakeNode<const FuncTypeNode>(std::move(arg_types), std::move(ret_type));
}

std::string TypeToString(const Type& type) {
  if (!type) return "?";
  if (auto* t = type.as<TensorTypeNode>()) {
    std::string out = "Tensor[(";
    for (size_t i = 0; i < t->shape.size(); ++i)
      out += (i ? ", " : "") + std::to_string(t->shape[i]);
    return out + "), " + DTypeName(t->dtype) + "]";
  }
  if (auto* t = type.as<TupleTypeNode>()) {
    std::string out = "(";
    for (size_t i = 0; i < t->fields.size(); ++i)
      out += (i ? ", " : "") + TypeToString(t->fields[i]);
    if (t->fields.size() == 1) out += ",";
    return out + ")";
  }
  auto* f = type.as<FuncTypeNode>();
  std::string out = "fn (";
  for (size_t i = 0; i < f->arg_types.size(); ++i)
    out += (i ? ", " : "") + TypeToString(f->arg_types[i]);
  return out + ") -> " + TypeToString(f->ret_type);
}

bool TypeEqual(const Type& a, const Type& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->type_index() != b->type_index()) return false;
  if (auto* x = a.as<TensorTypeNode>()) {
    auto* y = b.as<TensorTypeNode>();
    return x->dtype == y->dtype && x->shape == y->shape;
  }
  auto fields_equal = [](const std::vector<Type>& p, const std::vector<Type>& q) {
    if (p.size() != q.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (!TypeEqual(p[i], q[i])) return false;
    return true;
  };
  if (auto* x = a.as<TupleTypeNode>())
    return fields_equal(x->fields, b.as<TupleTypeNode>()->fields);
  auto* x = a.as<FuncTypeNode>();
  auto* y = b.as<FuncTypeNode>();
  return fields_equal(x->arg_types, y->arg_types) && TypeEqual(x->ret_type, y->ret_type);
}

size_t TypeHash(const Type& type) {
  if (!type) return 0x51ed;
  size_t h = static_cast<size_t>(type->type_index());
  if (auto* t = type.as<TensorTypeNode>()) {
    h = HashCombine(h, static_cast<size_t>(t->dtype));
    for (int64_t d : t->shape) h = HashCombine(h, std::hash<int64_t>()(d));
    return h;
  }
  if (auto* t = type.as<TupleTypeNode>()) {
    for (const auto& f : t->fields) h = HashCombine(h, TypeHash(f));
    return h;
  }
  auto* f = type.as<FuncTypeNode>();
  for (const auto& a : f->arg_types) h = HashCombine(h, TypeHash(a));
  return HashCombine(h, TypeHash(f->ret_type));
}

}  // namespace tessera
