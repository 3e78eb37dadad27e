// The one place that knows every layer: it wires the built-in ops, backends, pattern
// tables and passes into their registries. Each declares its registration next to its code; adding a
// backend or a pass adds its line here.
#include "tessera/backend/interp/interp_module.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/backend/native/native_backend.h"
#include "tessera/collage/collage_partition.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/op/ops.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/pass_registry.h"
#ifdef TESSERA_WITH_BLAS
#include "tessera/backend/blas/blas_backend.h"
#endif
#ifdef TESSERA_WITH_DNNL
#include "tessera/backend/dnnl/dnnl_backend.h"
#endif

namespace tessera {

void RegisterBuiltinOps(OpRegistry& registry) { RegisterStandardOps(registry); }

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

void RegisterBuiltinPatternTables(PatternTableRegistry& registry) {
#ifdef TESSERA_WITH_DNNL
  RegisterDnnlPatternTable(registry);
#endif
#ifdef TESSERA_WITH_BLAS
  RegisterBlasPatternTable(registry);
#endif
}

std::vector<PassRegistration> BuiltinPassRegistrations() {
  std::vector<PassRegistration> passes;
  AppendTransformPasses(passes);
  AppendCollagePasses(passes);
  AppendLoweringPasses(passes);
  AppendLayoutPasses(passes);
  return passes;
}

}  // namespace tessera
