// Helpers for the elementwise, reduction and transform op tests: typed arrays, type
// inference through MakeOpCall and reference-kernel runs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/ir/op.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::math_test {

/// An array of `shape` and `dtype` holding `values` (converted to the dtype).
inline NDArray Arr(const std::vector<int64_t>& shape, const std::vector<double>& values,
                   DType dtype = DType::kFloat32) {
  NDArray a = NDArray::Empty(shape, dtype);
  EXPECT_EQ(static_cast<int64_t>(values.size()), a.NumElements());
  for (int64_t i = 0; i < a.NumElements() && i < static_cast<int64_t>(values.size()); ++i) {
    if (IsFloat(dtype))
      a.SetFloat(i, values[i]);
    else
      a.SetInt(i, static_cast<int64_t>(values[i]));
  }
  return a;
}

/// 0, 1, 2, ... in `shape` and `dtype`.
inline NDArray Iota(const std::vector<int64_t>& shape, DType dtype = DType::kFloat32) {
  std::vector<double> v(static_cast<size_t>(ShapeNumElements(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Arr(shape, v, dtype);
}

/// The element values of `a` as doubles.
inline std::vector<double> Values(const NDArray& a) {
  std::vector<double> v(static_cast<size_t>(a.NumElements()));
  for (int64_t i = 0; i < a.NumElements(); ++i) v[i] = a.GetFloat(i);
  return v;
}

/// Argument types of `inputs`.
inline std::vector<Type> TypesOf(const std::vector<NDArray>& inputs) {
  std::vector<Type> types;
  for (const auto& a : inputs) types.push_back(MakeTensorType(a.shape(), a.dtype()));
  return types;
}

/// Builds `name(args...)` through MakeOpCall over variables of `types` (attribute
/// validation) and returns the type relation's result.
inline Type Infer(const std::string& name, const std::vector<Type>& types,
                  const Attrs& attrs = {}) {
  std::vector<Expr> args;
  for (size_t i = 0; i < types.size(); ++i)
    args.push_back(MakeVar("v" + std::to_string(i), types[i]));
  Call call = MakeOpCall(name, args, attrs);
  return OpRegistry::Global().Get(name).type_rel(types, call->attrs, {});
}

/// Runs `name`'s reference kernel on tensor `inputs` (one argument each) after inference.
inline std::vector<NDArray> RunAll(const std::string& name, const std::vector<NDArray>& inputs,
                                   const Attrs& attrs = {}) {
  std::vector<Type> types = TypesOf(inputs);
  std::vector<Expr> args;
  for (size_t i = 0; i < types.size(); ++i)
    args.push_back(MakeVar("v" + std::to_string(i), types[i]));
  Call call = MakeOpCall(name, args, attrs);
  const OpDef& def = OpRegistry::Global().Get(name);
  Type out = def.type_rel(types, call->attrs, {});
  return def.kernel(inputs, call->attrs, out);
}

/// The single result of `name` on `inputs`; checks its dtype and shape against inference.
inline NDArray RunOp(const std::string& name, const std::vector<NDArray>& inputs,
                     const Attrs& attrs = {}) {
  std::vector<NDArray> out = RunAll(name, inputs, attrs);
  EXPECT_EQ(out.size(), 1u);
  Type t = Infer(name, TypesOf(inputs), attrs);
  const auto* tt = t.as<TensorTypeNode>();
  EXPECT_TRUE(tt != nullptr);
  if (tt && !out.empty()) {
    EXPECT_EQ(out[0].shape(), tt->shape);
    EXPECT_EQ(out[0].dtype(), tt->dtype);
  }
  return out.at(0);
}

/// The message of the tessera::Error `fn` throws, checking its kind ("" if none thrown).
template <typename Fn>
std::string ErrorOf(Fn fn, ErrorKind kind) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

/// Expects `text` to contain `part`.
#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

/// A float32 tensor type.
inline TensorType F32(std::vector<int64_t> shape) {
  return MakeTensorType(std::move(shape));
}

/// The shape of tensor type `t`.
inline std::vector<int64_t> ShapeOf(const Type& t) {
  return t.as<TensorTypeNode>()->shape;
}

}  // namespace tessera::math_test
