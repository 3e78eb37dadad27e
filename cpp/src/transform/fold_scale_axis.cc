// FoldScaleAxis: folds a constant per-output-channel scale after conv2d/dense into the
// constant weights.
#include <unordered_map>
#include "builtin_passes.h"

#include "fold_util.h"
#include "pass_util.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// If `scale` broadcasts only along `axis` of a rank-`ndim` output with `channels`
/// channels (or is a scalar), its per-channel values as a vector of that many elements;
/// else null.
Expr ChannelVector(const ConstantNode* scale, int axis, int ndim, int64_t channels) {
  const auto& shape = scale->data.shape();
  if (static_cast<int>(shape.size()) > ndim) return nullptr;
  int offset = ndim - static_cast<int>(shape.size());
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    int out_dim = d + offset;
    if (out_dim == axis ? (shape[d] != channels && shape[d] != 1) : shape[d] != 1) return nullptr;
  }
  NDArray vec = NDArray::Empty({channels}, scale->data.dtype());
  bool per_channel = offset <= axis && shape[axis - offset] == channels;
  for (int64_t c = 0; c < channels; ++c) vec.SetFloat(c, scale->data.GetFloat(per_channel ? c : 0));
  return MakeConstant(vec);
}

class ScaleFolder : public ExprMutator {
 public:
  explicit ScaleFolder(std::unordered_map<const ExprNode*, int> uses) : uses_(std::move(uses)) {}
  /// Folds scales in `func`'s body (nested functions are left alone).
  Expr Run(const Function& func) {
    root_ = func;
    return Mutate(func);
  }

 protected:
  bool SkipChildren(const Expr& e) override { return e.as<FunctionNode>() && !root_.same_as(e); }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    auto* mul = rebuilt.as<CallNode>();
    if (!mul || !mul->op() || mul->op()->name != "multiply") return rebuilt;
    auto* orig_mul = original.as<CallNode>();
    for (int side = 0; side < 2; ++side) {
      auto* producer = mul->args[side].as<CallNode>();
      auto* scale = mul->args[1 - side].as<ConstantNode>();
      if (!producer || !scale || !producer->op()) continue;
      if (uses_[orig_mul->args[side].get()] != 1) continue;  // the unscaled value is used elsewhere
      auto* weight = producer->args[1].as<ConstantNode>();
      if (!weight) continue;
      const auto* out_t = original->checked_type().as<TensorTypeNode>();
      const auto* prod_t = orig_mul->args[side]->checked_type().as<TensorTypeNode>();
      if (!out_t || !prod_t || out_t->shape != prod_t->shape)
        continue;  // scale must not broadcast the output
      Expr folded = FoldInto(producer, weight, scale, out_t->ndim());
      if (folded) return folded;
    }
    return rebuilt;
  }

 private:
  Expr FoldInto(const CallNode* producer, const ConstantNode* weight, const ConstantNode* scale,
                int ndim) {
    const std::string& op = producer->op()->name;
    Expr vec;
    std::vector<int64_t> weight_shape;
    if (op == "nn.conv2d") {
      const std::string& layout = producer->attrs.GetString("data_layout");
      const std::string& kernel = producer->attrs.GetString("kernel_layout");
      std::string out_layout = producer->attrs.GetString("out_layout");
      if (out_layout.empty()) out_layout = layout;
      int axis = static_cast<int>(out_layout.find('C'));
      int o_axis = static_cast<int>(kernel.find('O'));
      if (axis < 0 || o_axis < 0 || kernel.size() != 4) return nullptr;
      int64_t channels = weight->data.shape()[o_axis];
      vec = ChannelVector(scale, axis, ndim, channels);
      weight_shape.assign(4, 1);
      weight_shape[o_axis] = channels;
    } else if (op == "nn.dense") {
      int64_t channels = weight->data.shape()[0];
      vec = ChannelVector(scale, ndim - 1, ndim, channels);
      weight_shape = {channels, 1};
    } else {
      return nullptr;
    }
    if (!vec) return nullptr;
    Expr reshaped = TryEvaluateConstantCall(
        MakeOpCall("reshape", {vec}, Attrs{{"newshape", AttrValue::Ints(weight_shape)}}));
    Expr new_weight =
        TryEvaluateConstantCall(MakeOpCall("multiply", {producer->args[1], reshaped}));
    if (!new_weight) return nullptr;
    std::vector<Expr> args = producer->args;
    args[1] = new_weight;
    return MakeCall(producer->callee, args, producer->attrs, producer->type_args);
  }

  std::unordered_map<const ExprNode*, int> uses_;
  Expr root_;
};

}  // namespace

Pass FoldScaleAxis() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        return InferTypes(MapOptimizableFunctions(mod, [](const Function& f) {
          std::unordered_map<const ExprNode*, int> uses;
          PostOrderVisit(f, [&](const Expr& e) {
            for (const Expr& c : ExprChildren(e)) ++uses[c.get()];
          });
          return ScaleFolder(std::move(uses)).Run(f);
        }));
      },
      PassInfo{"FoldScaleAxis", 3, {}});
}

PassRegistration FoldScaleAxisRegistration() {
  return {
      "FoldScaleAxis", "fold per-channel scales into conv2d/dense weights", {}, [](const Attrs&) {
        return FoldScaleAxis();
      }};
}

}  // namespace tessera
