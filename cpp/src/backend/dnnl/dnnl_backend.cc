// The oneDNN backend's registration: `Compiler="dnnl"` partitions flattened into the
// runtime's oneDNN module.
#include "tessera/backend/dnnl/dnnl_backend.h"

#include "../extern/flatten_partition.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

void RegisterDnnlBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "dnnl";
  b.description =
      "oneDNN primitives (conv2d / dense / matmul with bias and post-ops, pooling, softmax, "
      "norms, elementwise) in the formats oneDNN picks, or on channel-blocked NCHW{x}c "
      "tensors in place";
  b.attrs = CpuTargetAttrs();
  b.external_codegen = [](const Function& fn, const std::string& symbol, const Target& target) {
    return runtime::MakeDnnlModule(ext::FlattenPartition(fn, "dnnl"), symbol,
                                   static_cast<int>(target.GetInt("num_threads")));
  };
  b.identity = [] { return "oneDNN " + runtime::DnnlVersion(); };
  b.runtime_identity = b.identity;
  registry.Register(std::move(b));
}

}  // namespace tessera
