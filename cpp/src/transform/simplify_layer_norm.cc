// A layer normalisation written op by op (ONNX before opset 17) recognised as nn.layer_norm.
#include "simplify_layer_norm.h"

#include "pass_util.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"

namespace tessera {

namespace {

/// `e` as a call of op `name` that is not pinned by frozen_layout, else null.
const CallNode* OpCall(const Expr& e, const char* name) {
  const auto* c = e.as<CallNode>();
  return c && c->op() && c->op()->name == name && !IsFrozenLayout(Call(c)) ? c : nullptr;
}

/// `e` as mean(x, axis=[last], keepdims=True) of a rank-`ndim` x, else null.
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

/// Whether `e` is a float32 constant of one element (any rank; the callers check that it
/// does not broadcast the result), and its value.
bool ScalarConstant(const Expr& e, double* value) {
  const auto* c = e.as<ConstantNode>();
  if (!c || c->data.NumElements() != 1 || c->data.dtype() != DType::kFloat32) return false;
  *value = c->data.GetFloat(0);
  return true;
}

/// Whether `e` is a float32 constant of shape [n] or [1, ..., 1, n] and rank at most `ndim`.
bool VectorConstant(const Expr& e, int64_t n, int64_t ndim) {
  const auto* c = e.as<ConstantNode>();
  if (!c || c->data.dtype() != DType::kFloat32 || c->data.ndim() < 1 || c->data.ndim() > ndim)
    return false;
  const std::vector<int64_t>& s = c->data.shape();
  for (size_t d = 0; d + 1 < s.size(); ++d)
    if (s[d] != 1) return false;
  return s.back() == n;
}

/// nn.layer_norm over the last axis.
Expr LayerNorm(const Expr& x, const Expr& gamma, const Expr& beta, double eps, bool scale,
               bool center) {
  return MakeOpCall("nn.layer_norm", {x, gamma, beta},
                    Attrs{{"axis", AttrValue(int64_t{-1})},
                          {"epsilon", AttrValue(eps)},
                          {"center", AttrValue(center)},
                          {"scale", AttrValue(scale)}});
}

/// A float32 constant [n] of `value` (the unused gamma or beta).
Constant Filled(int64_t n, float value) {
  return MakeConstant(NDArray::FromFloats({n}, std::vector<float>(static_cast<size_t>(n), value)));
}

/// multiply(layer_norm, gamma) or add(layer_norm, beta) folded into the layer norm.
Expr FoldAffine(const CallNode* original, const CallNode* rebuilt, const UseCounts& uses,
                int64_t ndim, int64_t n) {
  const bool is_scale = rebuilt->op()->name == "multiply";
  for (int side : {0, 1}) {
    const CallNode* ln = OpCall(rebuilt->args[side], "nn.layer_norm");
    const Expr& c = rebuilt->args[1 - side];
    // The layer norm's value is read here only, and the constant does not broadcast it.
    if (!ln || !VectorConstant(c, n, ndim) || ln->attrs.GetInt("axis") != -1 ||
        Uses(uses, original->args[side]) != 1 ||
        !SameTensorType(original->args[side], Expr(original)))
      continue;
    bool scale = ln->attrs.GetBool("scale"), center = ln->attrs.GetBool("center");
    if (is_scale ? (scale || center) : center) continue;  // gamma applies before beta only
    Expr flat = MakeConstant(c.as<ConstantNode>()->data.Reshaped({n}));
    double eps = ln->attrs.GetFloat("epsilon");
    return is_scale ? LayerNorm(ln->args[0], flat, ln->args[2], eps, true, false)
                    : LayerNorm(ln->args[0], ln->args[1], flat, eps, scale, true);
  }
  return Expr();
}

}  // namespace

Expr SimplifyLayerNorm(const CallNode* original, const CallNode* rebuilt, const UseCounts& uses) {
  const auto* t = TensorTypeOf(Expr(original));
  if (!t || t->dtype != DType::kFloat32 || t->ndim() < 1 || !rebuilt->op() ||
      rebuilt->args.size() != 2 || original->args.size() != 2 || IsFrozenLayout(Call(original)))
    return Expr();
  const int64_t ndim = t->ndim(), n = t->shape.back();
  const std::string& op = rebuilt->op()->name;
  if (op == "add") return FoldAffine(original, rebuilt, uses, ndim, n);
  if (op != "divide" && op != "multiply") return Expr();
  // The pattern is matched on the original calls, whose types and uses are known; the
  // replacement reads x as rebuilt. d / sqrt(v) as written out, or d * rsqrt(v) as
  // SimplifyInference expands nn.layer_norm (so both end as one kernel).
  const int d_side = op == "multiply" && OpCall(original->args[0], "rsqrt") ? 1 : 0;
  const Expr& od = original->args[d_side];
  const CallNode* sub = OpCall(od, "subtract");
  const CallNode* root = OpCall(original->args[1 - d_side], op == "divide" ? "sqrt" : "rsqrt");
  if (!sub || !root || !SameTensorType(od, Expr(original)))
    return op == "multiply" ? FoldAffine(original, rebuilt, uses, ndim, n) : Expr();
  const CallNode* mean_x = LastAxisMean(sub->args[1], ndim);
  if (!mean_x || !mean_x->args[0].same_as(sub->args[0])) return Expr();
  const CallNode* plus = OpCall(root->args[0], "add");
  if (!plus) return Expr();
  double eps = 0;
  int var_side = ScalarConstant(plus->args[1], &eps)   ? 0
                 : ScalarConstant(plus->args[0], &eps) ? 1
                                                       : -1;
  if (var_side < 0 || !(eps >= 0)) return Expr();
  const CallNode* var = LastAxisMean(plus->args[var_side], ndim);
  if (!var) return Expr();
  double two = 0;
  const CallNode* pow = OpCall(var->args[0], "power");
  const CallNode* mul = OpCall(var->args[0], "multiply");
  bool squares_d = (pow && pow->args[0].same_as(od) && ScalarConstant(pow->args[1], &two) &&
                    two == 2 && SameTensorType(Expr(pow), od)) ||
                   (mul && mul->args[0].same_as(od) && mul->args[1].same_as(od));
  // Every intermediate is read by the pattern alone (d by the division and the square).
  if (!squares_d || Uses(uses, od) != (pow ? 2 : 3) || Uses(uses, sub->args[1]) != 1 ||
      Uses(uses, var->args[0]) != 1 || Uses(uses, plus->args[var_side]) != 1 ||
      Uses(uses, root->args[0]) != 1 || Uses(uses, original->args[1 - d_side]) != 1 ||
      !SameTensorType(root->args[0], plus->args[var_side]))
    return Expr();
  const CallNode* rebuilt_sub = rebuilt->args[d_side].as<CallNode>();
  if (!rebuilt_sub || !rebuilt_sub->op() || rebuilt_sub->op()->name != "subtract") return Expr();
  return LayerNorm(rebuilt_sub->args[0], Filled(n, 1), Filled(n, 0), eps, false, false);
}

}  // namespace tessera
