// The one list of built-in backends: one registration line per backend.
#include "tessera/backend/interp/interp_module.h"
#include "tessera/backend/native/native_backend.h"
#include "tessera/runtime/executable_module.h"
#include "tessera/target/backend_registry.h"
#ifdef TESSERA_WITH_BLAS
#include "tessera/backend/blas/blas_backend.h"
#endif
#ifdef TESSERA_WITH_DNNL
#include "tessera/backend/dnnl/dnnl_backend.h"
#endif

namespace tessera {

void RegisterBuiltinBackends(BackendRegistry& registry) {
  // Kernels that run a whole program (external backends compiled natively).
  runtime::RegisterModuleLoader("executable", runtime::LoadExecutableModule);
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
