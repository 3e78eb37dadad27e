// Type inference over a module: graph functions, op calls (by their type relations),
// call_tir into PrimFuncs. The InferType pass (transform) runs it.
#pragma once

#include "tessera/ir/module.h"

namespace tessera {

/// Infers the type of every expression of every graph function and checks PrimFunc
/// calls. Returns a module whose functions carry their result types (`ret_type`) and
/// whose expressions have `checked_type()` set. Errors are type errors naming the
/// function, the op and the mismatch ("in @main: op 'add': shapes [1, 3] and [4] cannot
/// be broadcast together"). Iterative over deep graphs.
IRModule InferTypes(const IRModule& mod);

/// Infers the type of a standalone expression (globals resolved in `mod`).
Type InferExprType(const Expr& expr, const IRModule& mod = IRModule());

}  // namespace tessera
