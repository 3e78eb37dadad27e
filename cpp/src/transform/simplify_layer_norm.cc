// A layer normalisation written op by op (ONNX before opset 17) recognised as nn.layer_norm.
#include "simplify_layer_norm.h"

#include "tessera/ir/op.h"

namespace tessera {

namespace {

const CallNode* OpCall(const Expr& e, const char* name) {
  const auto* c = e.as<CallNode>();
  return c && c->op() && c->op()->name == name ? c : nullptr;
}

/// mean(x, axis=[last], keepdims=True) of a rank-`ndim` x.
const CallNode* LastAxisMean(const Expr& e, int64_t ndim) {
  const CallNode* m = OpCall(e, "mean");
  if (!m || m->args.size() != 1 || !m->attrs.GetBool("keepdims") || m->attrs.GetBool("exclude"))
    return nullptr;
  const AttrValue* axis = m->attrs.Find("axis");
  if (!axis || axis->is_none()) return nullptr;
  std::vector<int64_t> axes = axis->AsInts();
  if (axes.size() != 1) return nullptr;
  return (axes[0] < 0 ? axes[0] + ndim : axes[0]) == ndim - 1 ? m : nullptr;
}

/// The value of a one-element float32 constant.
bool ScalarConstant(const Expr& e, double* value) {
  const auto* c = e.as<ConstantNode>();
  if (!c || c->data.NumElements() != 1 || c->data.dtype() != DType::kFloat32) return false;
  *value = c->data.GetFloat(0);
  return true;
}

/// A float32 constant of shape [n] (or [1, ..., 1, n]) of rank at most `ndim`.
bool VectorConstant(const Expr& e, int64_t n, int64_t ndim) {
  const auto* c = e.as<ConstantNode>();
  if (!c || c->data.dtype() != DType::kFloat32 || c->data.ndim() < 1 || c->data.ndim() > ndim)
    return false;
  const std::vector<int64_t>& s = c->data.shape();
  for (size_t d = 0; d + 1 < s.size(); ++d)
    if (s[d] != 1) return false;
  return s.back() == n;
}

Expr LayerNorm(const Expr& x, const Expr& gamma, const Expr& beta, double eps, bool scale,
               bool center) {
  return MakeOpCall("nn.layer_norm", {x, gamma, beta},
                    Attrs{{"axis", AttrValue(int64_t{-1})},
                          {"epsilon", AttrValue(eps)},
                          {"center", AttrValue(center)},
                          {"scale", AttrValue(scale)}});
}

Constant Filled(int64_t n, float value) {
  return MakeConstant(NDArray::FromFloats({n}, std::vector<float>(static_cast<size_t>(n), value)));
}

}  // namespace

Expr SimplifyLayerNorm(const CallNode* call, const Type& type) {
  const auto* t = type.defined() ? type.as<TensorTypeNode>() : nullptr;
  if (!t || t->dtype != DType::kFloat32 || t->ndim() < 1 || !call->op() ||
      call->args.size() != 2 || IsFrozenLayout(Call(call)))
    return Expr();
  const int64_t ndim = t->ndim(), n = t->shape.back();
  const std::string& op = call->op()->name;
  if (op == "multiply" || op == "add") {
    // The affine part: gamma and beta on a layer_norm that has none yet.
    const bool is_scale = op == "multiply";
    for (int side : {0, 1}) {
      const CallNode* ln = OpCall(call->args[side], "nn.layer_norm");
      const Expr& c = call->args[1 - side];
      if (!ln || !VectorConstant(c, n, ndim) || ln->attrs.GetInt("axis") != -1) continue;
      bool scale = ln->attrs.GetBool("scale"), center = ln->attrs.GetBool("center");
      if (is_scale && (scale || center)) continue;  // gamma applies before beta only
      if (!is_scale && center) continue;
      Expr flat = MakeConstant(c.as<ConstantNode>()->data.Reshaped({n}));
      return is_scale ? LayerNorm(ln->args[0], flat, ln->args[2], ln->attrs.GetFloat("epsilon"),
                                  true, false)
                      : LayerNorm(ln->args[0], ln->args[1], flat, ln->attrs.GetFloat("epsilon"),
                                  scale, true);
    }
    return Expr();
  }
  if (op != "divide") return Expr();
  const CallNode* d = OpCall(call->args[0], "subtract");
  const CallNode* root = OpCall(call->args[1], "sqrt");
  if (!d || !root) return Expr();
  const CallNode* mean_x = LastAxisMean(d->args[1], ndim);
  if (!mean_x || !mean_x->args[0].same_as(d->args[0])) return Expr();
  const CallNode* plus = OpCall(root->args[0], "add");
  if (!plus) return Expr();
  double eps = 0;
  int var_side = ScalarConstant(plus->args[1], &eps)   ? 0
                 : ScalarConstant(plus->args[0], &eps) ? 1
                                                       : -1;
  if (var_side < 0 || !(eps >= 0)) return Expr();
  const CallNode* var = LastAxisMean(plus->args[var_side], ndim);
  if (!var) return Expr();
  const Expr& sq = var->args[0];
  double two = 0;
  const CallNode* pow = OpCall(sq, "power");
  const CallNode* mul = OpCall(sq, "multiply");
  const Expr& dv = call->args[0];
  bool squares_d =
      (pow && pow->args[0].same_as(dv) && ScalarConstant(pow->args[1], &two) && two == 2) ||
      (mul && mul->args[0].same_as(dv) && mul->args[1].same_as(dv));
  if (!squares_d) return Expr();
  return LayerNorm(d->args[0], Filled(n, 1), Filled(n, 0), eps, false, false);
}

}  // namespace tessera
