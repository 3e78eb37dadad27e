// Private: helpers shared by the standard passes.
#pragma once

#include <functional>
#include <unordered_map>

#include "tessera/ir/module.h"
#include "tessera/transform/optimizable.h"

namespace tessera {

/// Splits a pass option "dnnl,blas" into compiler names; empty items and an empty list
/// are value errors naming `what`.
std::vector<std::string> SplitCompilerNames(const std::string& text, const char* what);

/// The tensor type inference gave `e`, or null.
const TensorTypeNode* TensorTypeOf(const Expr& e);

/// Whether `a` and `b` were inferred the same tensor shape and dtype.
bool SameTensorType(const Expr& a, const Expr& b);

/// How many times each node of a function is an operand (of a call, tuple, projection, let
/// or the function itself).
using UseCounts = std::unordered_map<const ExprNode*, int>;

/// The uses of every node in `func`.
UseCounts CountUses(const Expr& func);

/// The uses of `e` in `uses` (0 when not counted).
int Uses(const UseCounts& uses, const Expr& e);

}  // namespace tessera
