// Lowering of one Primitive graph function to one PrimFunc: injective producers inline
// into their consumers, reductions get their elementwise epilogues fused.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::lower {

/// A lowered Primitive function and the non-scalar constants of its body, which became
/// extra input buffers after the function's own parameters (the call site passes them).
struct LoweredPrimitive {
  tir::PrimFunc func;
  std::vector<Constant> constants;
};

/// Lowers `func` (a graph function of op calls, tuples and projections) to one PrimFunc
/// with attr global_symbol = `name`. Params: a buffer per tensor parameter (one per field
/// of a tuple parameter), then one per non-scalar constant, then the output buffer(s).
/// Throws an unsupported error for ops without a compute rule or nested calls.
LoweredPrimitive LowerPrimitiveWithConstants(const Function& func, const std::string& name);

/// LowerPrimitiveWithConstants without the constants (for bodies known to have none).
tir::PrimFunc LowerPrimitive(const Function& func, const std::string& name);

/// The readable kernel name of a Primitive function: "fused_" and its op names in
/// dataflow order, dots as underscores (fused_nn_conv2d_nn_bias_add_nn_relu).
std::string KernelName(const Function& func);

}  // namespace tessera::lower
