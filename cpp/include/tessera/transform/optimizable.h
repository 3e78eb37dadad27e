// Which graph functions optimisation passes rewrite, and the loop that rewrites them.
#pragma once

#include <functional>

#include "tessera/ir/module.h"

namespace tessera {

/// True for functions optimisation passes leave alone: already a kernel (`Primitive`),
/// owned by a backend (`Compiler`) or marked `SkipOptimization`.
bool IsKernelOrSkipped(const Expr& expr);

/// Replaces every graph function that is not IsKernelOrSkipped by `rewrite(func)` (when
/// it returns a different node), keeping the module's identity when nothing changes.
IRModule MapOptimizableFunctions(const IRModule& mod,
                                 const std::function<Expr(const Function&)>& rewrite);

}  // namespace tessera
