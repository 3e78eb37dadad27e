// Shared helpers for the lowering tests: random inputs, comparison against the graph
// interpreter, and the lowering paths under test (LowerPrimitive, ScheduleDefault,
// LowerToTIR).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tessera/backend/build.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/backend/lower/lower_primitive.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/backend/lower/schedule_default.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"

namespace tessera::testing_lower {

/// `def @main(params) { body }` in the text format.
inline std::string Main(const std::string& params, const std::string& body) {
  return "def @main(" + params + ") {\n  " + body + "\n}\n";
}
/// `Tensor[(shape), dtype]` in the text format.
inline std::string T(const std::string& shape, const std::string& dtype = "float32") {
  return "Tensor[(" + shape + "), " + dtype + "]";
}

/// Random inputs for @main's parameters: floats in [-2, 2], ints in [-5, 5] (or
/// [0, int_hi) when given), bools at random.
inline std::map<std::string, NDArray> RandomInputs(const IRModule& mod, unsigned seed,
                                                   int64_t int_hi = 0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uf(-2.0, 2.0);
  std::map<std::string, NDArray> inputs;
  for (const Var& p : mod.LookupFunction("main")->params) {
    const auto* t = p->type_annotation.as<TensorTypeNode>();
    NDArray a = NDArray::Empty(t->shape, t->dtype);
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (IsFloat(t->dtype))
        a.SetFloat(i, uf(rng));
      else if (t->dtype == DType::kBool)
        a.SetInt(i, rng() % 2);
      else
        a.SetInt(i, int_hi > 0 ? static_cast<int64_t>(rng() % int_hi)
                               : static_cast<int64_t>(rng() % 11) - 5);
    }
    inputs[p->name_hint] = a;
  }
  return inputs;
}

/// Element-wise comparison: exact for integers, `tol` relative (to max(1, |want|)) for floats.
inline void ExpectClose(const NDArray& want, const NDArray& got, const std::string& what,
                        double tol = 1e-5) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  ASSERT_EQ(want.dtype(), got.dtype()) << what;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    if (IsFloat(want.dtype())) {
      double a = want.GetFloat(i), b = got.GetFloat(i);
      if ((std::isnan(a) && std::isnan(b)) || a == b) continue;
      ASSERT_LE(std::fabs(a - b), tol * std::max(1.0, std::fabs(a)))
          << what << " element " << i << ": want " << a << " got " << b;
    } else {
      ASSERT_EQ(want.GetInt(i), got.GetInt(i)) << what << " element " << i;
    }
  }
}

inline void ExpectSameValues(const Value& want, const Value& got, const std::string& what,
                             double tol = 1e-5) {
  std::vector<NDArray> w = want.Flatten(), g = got.Flatten();
  ASSERT_EQ(w.size(), g.size()) << what;
  for (size_t i = 0; i < w.size(); ++i)
    ExpectClose(w[i], g[i], what + " output " + std::to_string(i), tol);
}

/// Runs the PrimFunc on `inputs` (by @main's parameter order) and returns its outputs.
inline Value RunKernel(const tir::PrimFunc& pf, const IRModule& mod,
                       const std::map<std::string, NDArray>& inputs) {
  std::vector<NDArray> buffers;
  for (const Var& p : mod.LookupFunction("main")->params)
    buffers.push_back(inputs.at(p->name_hint));
  std::vector<Value> outs;
  for (size_t i = pf->params.size() - pf->num_outputs; i < pf->params.size(); ++i) {
    NDArray o = NDArray::Zeros(pf->params[i]->shape, pf->params[i]->dtype);
    buffers.push_back(o);
    outs.push_back(o);
  }
  RunPrimFunc(pf, buffers);
  return outs.size() == 1 ? outs[0] : Value::TupleOf(outs);
}

/// True when @main calls only PrimFuncs: no op other than call_tir, no function calls.
inline bool OnlyCallTir(const IRModule& mod) {
  bool ok = true;
  PostOrderVisit(mod.LookupFunction("main")->body, [&](const Expr& e) {
    if (const auto* c = e.as<CallNode>()) ok = ok && c->op() && c->op()->name == "call_tir";
    if (e.as<FunctionNode>()) ok = false;
  });
  return ok;
}

/// Lowers @main of `text` three ways (LowerPrimitive, + ScheduleDefault, LowerToTIR),
/// builds it for the native backend and runs the executable; checks each against the
/// graph interpreter (floats to `tol`, relative: long float32 sums need more than 1e-5).
inline void CheckLowering(const std::string& text, unsigned seed = 7, int64_t int_hi = 0,
                          double tol = 1e-5) {
  SCOPED_TRACE(text);
  IRModule mod = InferTypes(ParseModule(text));
  auto inputs = RandomInputs(mod, seed, int_hi);
  Value want = RunMain(mod, inputs);
  Function main = mod.LookupFunction("main");
  tir::PrimFunc pf = lower::LowerPrimitive(WithAttr(main, attr::kPrimitive, int64_t{1}), "k");
  ExpectSameValues(want, RunKernel(pf, mod, inputs), "LowerPrimitive", tol);
  ExpectSameValues(want, RunKernel(lower::ScheduleDefault(pf), mod, inputs), "ScheduleDefault",
                   tol);
  IRModule lowered = LowerModuleToTIR(mod);
  EXPECT_TRUE(OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(want, RunMain(lowered, inputs), "LowerToTIR", tol);
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(lowered)), lowered)) << PrintModule(lowered);

  runtime::Executor native(Build(mod, "native"));
  std::vector<NDArray> got = native.Run(inputs);
  std::vector<NDArray> flat = want.Flatten();
  ASSERT_EQ(got.size(), flat.size());
  for (size_t i = 0; i < got.size(); ++i) ExpectClose(flat[i], got[i], "native build", tol);
}

}  // namespace tessera::testing_lower
