// The one list of built-in backends: one registration line per backend.
#include "tessera/backend/interp/interp_module.h"
#include "tessera/backend/native/native_backend.h"
#include "tessera/target/backend_registry.h"
#ifdef TESSERA_WITH_BLAS
#include "tessera/backend/blas/blas_backend.h"
#endif
#ifdef TESSERA_WITH_DNNL
#include "tessera/backend/dnnl/dnnl_backend.h"
#endif

namespace tessera {

void RegisterBuiltinBackends(BackendRegistry& registry) {
  RegisterInterpBackend(registry);
  RegisterNativeBackend(registry);
#ifdef TESSERA_WITH_BLAS
  RegisterBlasBackend(registry);
#endif
#ifdef TESSERA_WITH_DNNL
  RegisterDnnlBackend(registry);
#endif
}

}  // namespace tessera
