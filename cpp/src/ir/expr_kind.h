// Private to the IR library: the printable kind of a graph expression node, for messages.
#pragma once

#include "tessera/support/object.h"

namespace tessera::ir_detail {

/// "variable", "call", "tuple projection", ... ("expression" for any other node).
const char* ExprKindName(const Object* node);

}  // namespace tessera::ir_detail
