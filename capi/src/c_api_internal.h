// Shared internals of the compiler C API's source files: the compiler's handle structs on
// top of the runtime's. Not installed; C callers only see c_api.h.
#pragma once

#include "c_runtime_internal.h"
#include "tessera/c_api.h"
#include "tessera/ir/module.h"
#include "tessera/target/target.h"
#include "tessera/transform/pass.h"

struct TsModule_ {
  tessera::IRModule mod;
};
struct TsPass_ {
  tessera::Pass pass;
};
struct TsPassContext_ {
  tessera::PassContext ctx;
};
struct TsTarget_ {
  tessera::Target target;
};
