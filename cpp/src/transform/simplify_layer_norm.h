// Private to SimplifyExpr: a layer normalisation written op by op, recognised as one op.
#pragma once

#include "tessera/ir/expr.h"

namespace tessera {

/// `call` (rebuilt; `type` is the original call's type) when it is divide(d, sqrt(add(
/// mean(power(d, 2) or d * d), eps))) with d = subtract(x, mean(x)), both means over the
/// last axis with keepdims, as ONNX exporters before opset 17 write a layer norm:
/// nn.layer_norm(x) without scale and centre. multiply(layer_norm, gamma) and
/// add(layer_norm, beta) with a constant of the last axis' extent fold into its scale and
/// centre. Otherwise null.
Expr SimplifyLayerNorm(const CallNode* call, const Type& type);

}  // namespace tessera
