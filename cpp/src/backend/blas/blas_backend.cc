// The BLAS backend's registration: `Compiler="blas"` partitions flattened into the
// runtime's OpenBLAS module.
#include "tessera/backend/blas/blas_backend.h"

#include "../extern/flatten_partition.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

void RegisterBlasBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "blas";
  b.description =
      "OpenBLAS cblas_sgemm for dense / matmul / batch_matmul (+bias, relu); OpenBLAS core " +
      runtime::BlasCoreName();
  b.attrs = CpuTargetAttrs();
  b.external_codegen = [](const Function& fn, const std::string& symbol, const Target& target) {
    return runtime::MakeBlasModule(ext::FlattenPartition(fn, "blas"), symbol,
                                   static_cast<int>(target.GetInt("num_threads")));
  };
  b.identity = [] { return runtime::BlasConfig() + " core " + runtime::BlasCoreName(); };
  b.runtime_identity = b.identity;
  registry.Register(std::move(b));
}

}  // namespace tessera
