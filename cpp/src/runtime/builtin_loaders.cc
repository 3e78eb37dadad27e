// The module kinds the runtime loads by itself: native shared objects, whole programs,
// and (when built with them) oneDNN and OpenBLAS partitions.
#include "builtin_loaders.h"

#include "tessera/runtime/executable_module.h"
#include "tessera/runtime/native_module.h"

namespace tessera::runtime {

std::map<std::string, ModuleLoader> BuiltinModuleLoaders() {
  std::map<std::string, ModuleLoader> loaders{
      {"native", LoadNativeModule},
      {"executable", LoadExecutableModule},
  };
#ifdef TESSERA_WITH_DNNL
  loaders["dnnl"] = LoadDnnlModule;
#endif
#ifdef TESSERA_WITH_BLAS
  loaders["blas"] = LoadBlasModule;
#endif
  return loaders;
}

}  // namespace tessera::runtime
