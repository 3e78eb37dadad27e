// Helpers for the text-format tests: round-trip checks and small IR builders.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera::testing {

/// Checks parse(print(m)) is structurally equal to m and that printing is a fixpoint;
/// returns the printed text.
inline std::string ExpectRoundTrip(const IRModule& mod) {
  std::string text = PrintModule(mod);
  IRModule parsed = ParseModule(text, "roundtrip");
  EXPECT_EQ(PrintModule(parsed), text);
  std::optional<std::string> diff = StructuralDiff(mod, parsed);
  EXPECT_FALSE(diff.has_value()) << (diff ? *diff : "") << "\n" << text;
  EXPECT_TRUE(StructuralEqual(mod, parsed)) << text;
  return text;
}

/// A float32 tensor type.
inline TensorType F32(std::vector<int64_t> shape) {
  return MakeTensorType(std::move(shape));
}

/// The message of the tessera::Error `fn` throws ("" if it does not throw).
template <typename F>
std::string ErrorOf(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace tessera::testing
