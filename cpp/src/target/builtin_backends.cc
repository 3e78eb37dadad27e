// The one list of built-in backends: one registration line per backend.
#include "tessera/backend/interp/interp_module.h"
#include "tessera/backend/native/native_backend.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

void RegisterBuiltinBackends(BackendRegistry& registry) {
  RegisterInterpBackend(registry);
  RegisterNativeBackend(registry);
}

}  // namespace tessera
