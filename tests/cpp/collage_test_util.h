// Helpers for the Collage tests: typed @main graphs and IR-in/IR-out pass checks.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tessera/collage/dataflow_graph.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass.h"

namespace tessera::testing {

/// The type-inferred @main of module text `text`.
inline Function TypedMain(const std::string& text) {
  return InferTypes(ParseModule(text, "test")).LookupFunction("main");
}

/// Runs `pass` on module text `before` and compares the result with `expected` by
/// structural equality (both type-inferred).
inline void ExpectPassGives(const Pass& pass, const std::string& before,
                            const std::string& expected) {
  IRModule out = InferTypes(pass(ParseModule(before, "before")));
  IRModule want = InferTypes(ParseModule(expected, "expected"));
  if (auto diff = StructuralDiff(out, want))
    ADD_FAILURE() << "got\n"
                  << PrintModule(out) << "\nexpected\n"
                  << PrintModule(want) << "\ndifference: " << *diff;
}

}  // namespace tessera::testing
