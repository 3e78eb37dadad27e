// The native backend's registration: its target options, codegen and module loader.
#include "tessera/backend/native/native_backend.h"

#include "tessera/backend/native/native_module.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

void RegisterNativeBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "native";
  b.description = "C for this CPU, compiled with the system compiler (-O3 -march=native)";
  b.attrs = CpuTargetAttrs();
  b.codegen = [](const IRModule& lowered, const std::vector<std::string>& symbols, const Target&) {
    return native::BuildNativeModule(SelectPrimFuncs(lowered, symbols, "native"));
  };
  b.loader = native::LoadNativeModule;
  registry.Register(std::move(b));
}

}  // namespace tessera
