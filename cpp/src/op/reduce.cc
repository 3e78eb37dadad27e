// Reduction ops.
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

void RegisterReduceOps(OpRegistry& registry) {}

}  // namespace tessera::op_defs
