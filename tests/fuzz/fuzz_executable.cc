// libFuzzer harness: the saved-executable loader. The input is the body of a file (the
// program, constants and module tree); the harness adds the header and the SHA-256 digest,
// so the fuzzer explores what lies behind the checksum instead of the checksum itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "tessera/backend/build.h"
#include "tessera/ir/parser.h"
#include "tessera/runtime/executable.h"
#include "tessera/runtime/module.h"
#include "tessera/support/sha256.h"
#include "tessera/target/target.h"

using namespace tessera;

namespace {

constexpr size_t kHeaderLen = 16;  // "TESSERA-EXEC" and the format version
constexpr size_t kDigestLen = 64;  // SHA-256 in hex

/// Stands in for native code: a file's shared object is code its loader runs (the docs
/// say: load only files you trust), so the fuzzer does not hand bytes to dlopen. This
/// module offers a do-nothing kernel under every name, so that the program checks behind
/// the module tree are reached.
class StandInNativeModule : public runtime::ModuleNode {
 public:
  std::string type_key() const override { return "native"; }
  runtime::KernelFunction GetFunction(const std::string&) override {
    return [](void* const*, const TsKernelEnv*) {};
  }
  std::vector<std::string> ListFunctions() const override { return {}; }
  std::string SaveToBytes() const override { return ""; }
};

/// The header this build writes, taken from an executable it saves.
std::string Header() {
  IRModule mod = ParseModule("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }");
  std::string bytes = Build(mod, {Target::Parse("interp")})->SaveToBytes();
  return bytes.substr(0, kHeaderLen);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  runtime::RegisterModuleLoader("native", [](const std::string&) {
    return std::make_shared<StandInNativeModule>();
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string header = Header();
  std::string bytes = header;
  bytes.append(reinterpret_cast<const char*>(data), size);
  bytes += Sha256Hex(bytes);
  return fuzz::RunOne([&] { runtime::Executable::LoadFromBytes(bytes); });
}
