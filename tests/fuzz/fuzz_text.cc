// libFuzzer harness: the text parser, then type inference; whatever parses must print and
// parse back to a structurally equal module, before and after type inference.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_util.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"

using namespace tessera;

namespace {

/// Prints `mod`, parses the print and checks that nothing changed on the way.
void CheckRoundTrip(const IRModule& mod, const char* stage) {
  std::string printed = PrintModule(mod);
  IRModule again = fuzz::MustSucceed(stage, [&] { return ParseModule(printed, "<printed>"); });
  if (auto diff = StructuralDiff(mod, again))
    fuzz::Fail(stage, "the printed module parses to a different one: " + *diff + "\n" + printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  return fuzz::RunOne([&] {
    IRModule mod = ParseModule(text, "<fuzz>");
    CheckRoundTrip(mod, "text round trip of the parsed module");
    IRModule typed = InferTypes(mod);
    CheckRoundTrip(typed, "text round trip of the type-checked module");
  });
}
