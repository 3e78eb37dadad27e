// Private to SimplifyExpr: a layer normalisation written op by op, recognised as one op.
#pragma once

#include "pass_util.h"

namespace tessera {

/// The replacement of `rebuilt` (the mutator's copy of the type-checked `original`), or
/// null. divide(d, sqrt(add(mean(power(d, 2) or d * d), eps))), or d * rsqrt(...) as
/// SimplifyInference expands nn.layer_norm, with d = subtract(x,
/// mean(x)), both means over the last axis with keepdims, as ONNX exporters before opset 17
/// write a layer norm, becomes nn.layer_norm(x) without scale and centre; multiply(layer
/// norm, gamma) and then add(layer norm, beta), gamma and beta constants of the last axis'
/// extent, fold into its scale and centre. Only where nothing else reads the intermediate
/// values, no call is frozen and no operand broadcasts the result to another shape.
Expr SimplifyLayerNorm(const CallNode* original, const CallNode* rebuilt, const UseCounts& uses);

}  // namespace tessera
