// Private: constant evaluation shared by FoldConstant and FoldScaleAxis.
#pragma once

#include "tessera/ir/expr.h"

namespace tessera {

/// If `expr` is an op call (not call_tir) whose arguments are all constants (or tuples
/// of constants) and the op has a reference kernel, evaluates it and returns a Constant
/// (or a Tuple of Constants); otherwise returns null.
Expr TryEvaluateConstantCall(const Expr& expr);

/// True for a Constant, or a Tuple whose fields are all constants.
bool IsConstantValue(const Expr& expr);

}  // namespace tessera
