// libFuzzer harness: the ONNX importer (serialized ModelProto bytes -> module), then type
// inference and a text round trip of what it built.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "tessera/frontend/onnx.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"

using namespace tessera;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  return fuzz::RunOne([&] {
    IRModule mod = frontend::FromOnnxBytes(bytes, {}, "<fuzz>");
    IRModule typed = InferTypes(mod);
    // What the importer built is an ordinary module: it prints and parses back.
    std::string printed = PrintModule(typed);
    IRModule again = fuzz::MustSucceed("text round trip of the imported module",
                                       [&] { return ParseModule(printed, "<printed>"); });
    if (auto diff = StructuralDiff(typed, again))
      fuzz::Fail("text round trip of the imported module", *diff + "\n" + printed);
  });
}
