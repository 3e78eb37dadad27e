// The registration of every op the op layer defines, one line per op file.
#include "op_defs.h"
#include "tessera/op/ops.h"

namespace tessera {

void RegisterStandardOps(OpRegistry& registry) {
  op_defs::RegisterElemwiseOps(registry);
  op_defs::RegisterNNOps(registry);
  op_defs::RegisterTransformOps(registry);
  op_defs::RegisterReduceOps(registry);
  op_defs::RegisterCallTir(registry);
  op_defs::RegisterAnnotationOps(registry);
}

}  // namespace tessera
