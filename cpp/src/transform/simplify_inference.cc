// SimplifyInference: batch_norm, layer_norm and dropout rewritten for inference.
#include "builtin_passes.h"
#include "pass_util.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

Expr ScalarLike(double value, DType dtype) {
  return MakeConstant(NDArray::Scalar(value, dtype));
}

/// Reshapes a per-channel vector so it broadcasts along `axis` of a rank-`ndim` tensor.
Expr ExpandToAxis(const Expr& vec, int axis, int ndim) {
  int trailing = ndim - axis - 1;
  if (trailing <= 0) return vec;
  return MakeOpCall("expand_dims", {vec}, Attrs{{"axis", 1}, {"num_newaxis", trailing}});
}

/// batch_norm(x, gamma, beta, mean, var)[0] = x * scale + shift with
/// scale = gamma / sqrt(var + eps) and shift = beta - mean * scale (per channel).
Expr ExpandBatchNorm(const CallNode* bn, const std::vector<Expr>& args) {
  const auto* t = bn->args[0]->checked_type().as<TensorTypeNode>();
  int ndim = t->ndim();
  int axis = static_cast<int>(bn->attrs.GetInt("axis"));
  if (axis < 0) axis += ndim;
  Expr std_dev = MakeOpCall(
      "sqrt", {MakeOpCall("add", {args[4], ScalarLike(bn->attrs.GetFloat("epsilon"), t->dtype)})});
  Expr scale = MakeOpCall("divide", {ScalarLike(1.0, t->dtype), std_dev});
  if (bn->attrs.GetBool("scale")) scale = MakeOpCall("multiply", {scale, args[1]});
  Expr shift = MakeOpCall("multiply", {MakeOpCall("negative", {args[3]}), scale});
  if (bn->attrs.GetBool("center")) shift = MakeOpCall("add", {shift, args[2]});
  Expr out = MakeOpCall("multiply", {args[0], ExpandToAxis(scale, axis, ndim)});
  return MakeOpCall("add", {out, ExpandToAxis(shift, axis, ndim)});
}

/// layer_norm(x, gamma, beta) = (x - mean) / sqrt(var + eps) * gamma + beta over `axis`.
Expr ExpandLayerNorm(const CallNode* ln, const std::vector<Expr>& args) {
  const auto* t = ln->args[0]->checked_type().as<TensorTypeNode>();
  int ndim = t->ndim();
  int axis = static_cast<int>(ln->attrs.GetInt("axis"));
  if (axis < 0) axis += ndim;
  Attrs reduce{{"axis", AttrValue::Ints({axis})}, {"keepdims", true}};
  Expr centered = MakeOpCall("subtract", {args[0], MakeOpCall("mean", {args[0]}, reduce)});
  Expr var = MakeOpCall("mean", {MakeOpCall("multiply", {centered, centered})}, reduce);
  Expr inv_std = MakeOpCall(
      "rsqrt", {MakeOpCall("add", {var, ScalarLike(ln->attrs.GetFloat("epsilon"), t->dtype)})});
  Expr out = MakeOpCall("multiply", {centered, inv_std});
  if (ln->attrs.GetBool("scale"))
    out = MakeOpCall("multiply", {out, ExpandToAxis(args[1], axis, ndim)});
  if (ln->attrs.GetBool("center"))
    out = MakeOpCall("add", {out, ExpandToAxis(args[2], axis, ndim)});
  return out;
}

class InferenceSimplifier : public ExprMutator {
 protected:
  bool SkipChildren(const Expr& e) override { return IsKernelOrSkipped(e); }
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    if (auto* call = rebuilt.as<CallNode>();
        call && call->op() && call->op()->name == "nn.layer_norm")
      return ExpandLayerNorm(original.as<CallNode>(), call->args);
    auto* item = rebuilt.as<TupleGetItemNode>();
    if (!item) return rebuilt;
    auto* call = item->tuple.as<CallNode>();
    auto* original_call = original.as<TupleGetItemNode>()->tuple.as<CallNode>();
    if (!call || !call->op() || !original_call) return rebuilt;
    const std::string& name = call->op()->name;
    if (name == "nn.dropout" && item->index == 0) return call->args[0];
    if (name != "nn.batch_norm") return rebuilt;
    if (item->index == 0) return ExpandBatchNorm(original_call, call->args);
    return call->args[item->index + 2];  // [1] moving_mean, [2] moving_var
  }
};

}  // namespace

Pass SimplifyInference() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        return InferTypes(MapOptimizableFunctions(
            mod, [](const Function& f) { return InferenceSimplifier().Mutate(f); }));
      },
      PassInfo{"SimplifyInference", 0, {}});
}

PassRegistration SimplifyInferenceRegistration() {
  return {"SimplifyInference",
          "rewrite batch_norm, layer_norm and dropout for inference",
          {},
          [](const Attrs&) { return SimplifyInference(); }};
}

}  // namespace tessera
