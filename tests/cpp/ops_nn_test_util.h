// Helpers for the nn.* op tests: build a call, infer its type and run its reference kernel.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/ir/op.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::nn_test {

/// Deterministic pseudo-random values in [-1, 1).
inline std::vector<float> RandomValues(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>((s >> 8) & 0xFFFF) / 32768.0f - 1.0f;
  }
  return v;
}

/// A float32 array of `shape` with deterministic random contents.
inline NDArray RandomArray(const std::vector<int64_t>& shape, uint32_t seed) {
  return NDArray::FromFloats(shape, RandomValues(ShapeNumElements(shape), seed));
}

/// The element values of `a` as doubles.
inline std::vector<double> Values(const NDArray& a) {
  std::vector<double> v(static_cast<size_t>(a.NumElements()));
  for (int64_t i = 0; i < a.NumElements(); ++i) v[i] = a.GetFloat(i);
  return v;
}

/// Builds `name(args...)` over variables of the given types and returns the call.
inline Call MakeCallOfTypes(const std::string& name, const std::vector<Type>& types,
                            const Attrs& attrs) {
  std::vector<Expr> args;
  for (size_t i = 0; i < types.size(); ++i)
    args.push_back(MakeVar("v" + std::to_string(i), types[i]));
  return MakeOpCall(name, args, attrs);
}

/// The inferred result type of `name` on arguments of `types`.
inline Type Infer(const std::string& name, const std::vector<Type>& types,
                  const Attrs& attrs = {}) {
  Call call = MakeCallOfTypes(name, types, attrs);
  return OpRegistry::Global().Get(name).type_rel(types, call->attrs, {});
}

/// Runs the reference kernel of `name` on `inputs` after type inference.
inline std::vector<NDArray> RunAll(const std::string& name, const std::vector<NDArray>& inputs,
                                   const Attrs& attrs = {}) {
  std::vector<Type> types;
  for (const auto& a : inputs) types.push_back(MakeTensorType(a.shape(), a.dtype()));
  Call call = MakeCallOfTypes(name, types, attrs);
  const OpDef& def = OpRegistry::Global().Get(name);
  Type out = def.type_rel(types, call->attrs, {});
  return def.kernel(inputs, call->attrs, out);
}

/// The single result of `name` on `inputs`.
inline NDArray RunOp(const std::string& name, const std::vector<NDArray>& inputs,
                     const Attrs& attrs = {}) {
  std::vector<NDArray> out = RunAll(name, inputs, attrs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

/// The message of the error `fn` throws (failing the test if it throws none).
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

/// Expects every element of `got` within `tol` of `want` and the shapes equal.
inline void ExpectClose(const NDArray& got, const std::vector<int64_t>& shape,
                        const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < got.NumElements(); ++i)
    ASSERT_NEAR(got.GetFloat(i), want[i], tol) << "at flat index " << i;
}

}  // namespace tessera::nn_test
