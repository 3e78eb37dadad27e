// libFuzzer harness: the JSON reader, then type inference; whatever reads must write and
// read back to a structurally equal module, before and after type inference.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_util.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/json.h"
#include "tessera/ir/structural_equal.h"

using namespace tessera;

namespace {

/// Writes `mod` as JSON, reads it back and checks that nothing changed on the way.
void CheckRoundTrip(const IRModule& mod, const char* stage) {
  std::string json = ModuleToJson(mod);
  IRModule again = fuzz::MustSucceed(stage, [&] { return ModuleFromJson(json); });
  if (auto diff = StructuralDiff(mod, again))
    fuzz::Fail(stage, "the written JSON reads back as a different module: " + *diff + "\n" + json);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  return fuzz::RunOne([&] {
    IRModule mod = ModuleFromJson(json);
    CheckRoundTrip(mod, "JSON round trip of the read module");
    IRModule typed = InferTypes(mod);
    CheckRoundTrip(typed, "JSON round trip of the type-checked module");
  });
}
