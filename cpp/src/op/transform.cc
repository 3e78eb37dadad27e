// Shape and data-movement ops.
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

void RegisterTransformOps(OpRegistry& registry) {}

}  // namespace tessera::op_defs
