// The op layer's table of contents: the registration of every op it defines (elementwise,
// nn, transform, reduce, call_tir, annotations).
#pragma once

#include "tessera/ir/op.h"

namespace tessera {

/// Registers the standard ops into `registry`.
void RegisterStandardOps(OpRegistry& registry);

}  // namespace tessera
