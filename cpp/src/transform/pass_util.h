// Private: helpers shared by the standard passes.
#pragma once

#include <functional>

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

}  // namespace tessera
