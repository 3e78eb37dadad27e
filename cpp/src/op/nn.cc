// Neural-network ops.
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

void RegisterNNOps(OpRegistry& registry) {}

}  // namespace tessera::op_defs
