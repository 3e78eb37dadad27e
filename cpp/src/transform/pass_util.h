// Private: helpers shared by the standard passes.
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

/// Splits a pass option "dnnl,blas" into compiler names; empty items and an empty list
/// are value errors naming `what`.
std::vector<std::string> SplitCompilerNames(const std::string& text, const char* what);

}  // namespace tessera
