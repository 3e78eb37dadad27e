// Helpers for pass tests: random inputs, numeric comparison, IR-in/IR-out checks.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass.h"

namespace tessera::testing {

/// Deterministic random inputs for every parameter of @main.
inline std::map<std::string, NDArray> RandomInputs(const IRModule& mod, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::map<std::string, NDArray> inputs;
  for (const Var& p : mod.LookupFunction("main")->params) {
    const auto* t = p->type_annotation.as<TensorTypeNode>();
    NDArray a = NDArray::Empty(t->shape, t->dtype);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, dist(rng));
    inputs[p->name_hint] = a;
  }
  return inputs;
}

/// Max absolute difference of two values of the same structure.
inline double MaxAbsDiff(const Value& a, const Value& b) {
  std::vector<NDArray> x = a.Flatten(), y = b.Flatten();
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (size_t k = 0; k < x.size() && k < y.size(); ++k) {
    EXPECT_EQ(x[k].shape(), y[k].shape());
    if (x[k].shape() != y[k].shape()) return 1e30;
    for (int64_t i = 0; i < x[k].NumElements(); ++i)
      worst = std::max(worst, std::abs(x[k].GetFloat(i) - y[k].GetFloat(i)));
  }
  return worst;
}

/// Runs `pass` on `before` and checks the result against `expected` (both type-inferred)
/// by structural equality, then checks the two modules compute the same @main.
inline IRModule CheckPass(const Pass& pass, const std::string& before, const std::string& expected,
                          double tolerance = 1e-5) {
  IRModule in = ParseModule(before, "before");
  IRModule out = InferTypes(pass(in));
  IRModule want = InferTypes(ParseModule(expected, "expected"));
  if (auto diff = StructuralDiff(out, want))
    ADD_FAILURE() << "pass " << pass.info().name << " gave\n"
                  << PrintModule(out) << "\nexpected\n"
                  << PrintModule(want) << "\ndifference: " << *diff;
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), tolerance);
  return out;
}

/// Counts calls of op `name` anywhere in the module (nested functions included).
int CountOpCalls(const IRModule& mod, const std::string& name);

}  // namespace tessera::testing
