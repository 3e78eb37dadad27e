// Shared helpers for the runtime tests: lowered modules in text, the interp backend,
// comparisons against the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"
#include "tessera/backend/build.h"
#include "tessera/backend/interp/interp_module.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/tir.h"
#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera::testing_runtime {

using ::tessera::testing::ExpectError;

/// primfn @name computing out[i] = EXPR over `n` float32 elements, where EXPR uses
/// %A[%vi] (and %B[%vi] for two inputs).
inline std::string ElemwiseFn(const std::string& name, int n, int num_inputs,
                              const std::string& expr) {
  std::string N = std::to_string(n);
  std::string buf = "Buffer[(" + N + "), float32]";
  std::string params = "%A: " + buf;
  std::string reads = "%A[%vi]";
  if (num_inputs == 2) {
    params += ", %B: " + buf;
    reads += ", %B[%vi]";
  }
  return "primfn @" + name + "(" + params + ", global_symbol=\"" + name + "_k\") -> (%Out: " + buf +
         ") {\n  for %i: int32 in 0 +: " + N + " {\n    block \"c\"(%vi: int32 in 0 +: " + N +
         " spatial = %i) reads(" + reads + ") writes(%Out[%vi]) {\n      %Out[%vi] = " + expr +
         ";\n    }\n  }\n}\n";
}

/// The standard kernels over 8 elements: add_one, twice, add (two inputs), mul.
inline std::string StdKernels(int n = 8) {
  return ElemwiseFn("add_one", n, 1, "%A[%vi] + 1f") + ElemwiseFn("twice", n, 1, "%A[%vi] * 2f") +
         ElemwiseFn("add", n, 2, "%A[%vi] + %B[%vi]") +
         ElemwiseFn("mul", n, 2, "%A[%vi] * %B[%vi]");
}

/// Compiles every PrimFunc of `mod` with the interp backend.
inline runtime::Module InterpKernels(const IRModule& mod) {
  std::vector<std::string> symbols;
  for (const auto& [name, func] : mod.functions())
    if (func.as<tir::PrimFuncNode>()) symbols.push_back(GlobalSymbolOf(name, func.get()));
  const Backend& interp = BackendRegistry::Global().Get("interp");
  return interp.codegen(mod, symbols, Target("interp"));
}

/// An executable of `mod` over interp kernels.
inline std::shared_ptr<runtime::Executable> Compile(const IRModule& mod) {
  return CreateExecutable(mod, InterpKernels(mod));
}

/// A float32 tensor of `shape` holding seed, seed + 0.5, ...
inline NDArray Iota(const std::vector<int64_t>& shape, float seed) {
  std::vector<float> v(ShapeNumElements(shape));
  for (size_t i = 0; i < v.size(); ++i) v[i] = seed + 0.5f * static_cast<float>(i);
  return NDArray::FromFloats(shape, v);
}

/// Expects `got` to match RunMain on `mod` bit for bit.
inline void ExpectMatchesInterpreter(const IRModule& mod, const std::vector<NDArray>& got,
                                     const std::map<std::string, NDArray>& inputs) {
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(got[i].BitwiseEqual(want[i]))
        << "output " << i << ": " << got[i].Describe() << " vs " << want[i].Describe();
}

}  // namespace tessera::testing_runtime
