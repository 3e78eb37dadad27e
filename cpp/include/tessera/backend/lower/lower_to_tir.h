// The LowerToTIR pass: every Primitive function call (and every op call outside one)
// becomes call_tir into a scheduled PrimFunc added to the module.
#pragma once

#include "tessera/ir/module.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {

/// In every graph function, each call of a Primitive function without a `Compiler` attr
/// (a global, an inline `fn` literal or a let-bound one) and each op call outside such a
/// function becomes `call_tir(@name, (args...), out_type)`; the lowered, ScheduleDefault-ed
/// PrimFunc is added with attr global_symbol = name. Names are "fused_" plus the op names
/// (dots as underscores), `_1`, `_2`, ... on collisions; structurally identical functions
/// share one PrimFunc. Primitive functions no longer referenced are dropped.
/// Each call of a global function with a `Compiler` attr becomes call_tir of a body-less
/// "extern stub" PrimFunc `@<name>_extern` whose buffers are the function's flattened
/// params and results, with attrs global_symbol (the function's, else its name),
/// Compiler, and kExternFunctionAttr naming the graph function, which stays in the module
/// for its backend's ExternalCodegen.
Pass LowerToTIR();

/// The PrimFunc attr naming the graph function an extern stub stands for.
inline constexpr const char* kExternFunctionAttr = "extern_function";

/// The transformation LowerToTIR runs, on a module.
IRModule LowerModuleToTIR(const IRModule& mod);

/// Appends LowerToTIR to the built-in pass table.
void AppendLoweringPasses(std::vector<PassRegistration>& passes);

}  // namespace tessera
