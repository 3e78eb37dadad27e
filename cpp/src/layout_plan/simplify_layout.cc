// SimplifyLayoutTransforms: composes and cancels adjacent layout rewrites, folds crop∘pad
// and pad∘crop by their value rules, and folds layout rewrites of constants.
#include "simplify_layout.h"

#include "layout_ops.h"
#include "tessera/ir/op.h"
#include "tessera/ir/type.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/transform/optimizable.h"

namespace tessera::layout_plan {

namespace {

using layout::IndexMap;

/// The type of a new op call from its (typed) arguments.
Expr Typed(Expr call) {
  const auto* c = call.as<CallNode>();
  std::vector<Type> args;
  for (const Expr& a : c->args) args.push_back(a->checked_type());
  const OpDef& def = OpRegistry::Global().Get(c->op()->name);
  call->set_checked_type(def.type_rel(args, c->attrs, c->type_args));
  return call;
}

Expr TypedConstant(NDArray data) {
  Constant c = MakeConstant(data);
  c->set_checked_type(MakeTensorType(data.shape(), data.dtype()));
  return c;
}

/// A layout op with only constant operands, evaluated by its reference kernel.
std::optional<Expr> FoldConstantLayoutOp(const CallNode* call) {
  std::vector<NDArray> inputs;
  for (const Expr& a : call->args) {
    const auto* c = a.as<ConstantNode>();
    if (!c) return std::nullopt;
    inputs.push_back(c->data);
  }
  const OpDef& def = OpRegistry::Global().Get(call->op()->name);
  std::vector<NDArray> out = def.kernel(inputs, call->attrs, call->checked_type());
  return TypedConstant(out[0]);
}

/// The scalar value of a constant, if `e` is a one-element constant.
std::optional<double> ScalarOf(const Expr& e) {
  const auto* c = e.as<ConstantNode>();
  if (!c || c->data.NumElements() != 1) return std::nullopt;
  return c->data.GetFloat(0);
}

class LayoutSimplifier : public ExprMutator {
 public:
  int changes = 0;

 protected:
  bool SkipChildren(const Expr& e) override { return IsKernelOrSkipped(e); }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    if (!rebuilt->checked_type_or_null() && original->checked_type_or_null())
      rebuilt->set_checked_type(original->checked_type());
    const auto* call = rebuilt.as<CallNode>();
    if (!call || !call->op()) return rebuilt;
    const std::string& name = call->op()->name;
    if (name != "layout_transform" && name != "nn.pad" && name != "crop") return rebuilt;
    Expr out = Simplify(call);
    if (!out.same_as(rebuilt)) ++changes;
    return out;
  }

 private:
  Expr Simplify(const CallNode* call) {
    const std::string& name = call->op()->name;
    Expr self(call);
    if (IsFrozen(call)) return self;
    if (auto folded = FoldConstantLayoutOp(call)) return *folded;
    const Expr& x = call->args[0];
    auto x_shape = ShapeOf(x);
    if (!x_shape) return self;
    if (name == "layout_transform") {
      IndexMap m = TransformMap(call);
      auto out_shape = ShapeOf(self);
      if (!out_shape) return self;
      if (m.IsIdentity(*x_shape) && *out_shape == *x_shape) return x;
      if (const auto* inner = AsOpCall(x, "layout_transform"); inner && !IsFrozen(inner)) {
        auto u_shape = ShapeOf(inner->args[0]);
        if (!u_shape) return self;
        IndexMap n = TransformMap(inner);
        bool n_bijective = n.IsBijective(*u_shape);
        bool m_bijective = m.IsBijective(*x_shape);
        if (!n_bijective && !m_bijective) return self;
        IndexMap composed = n.ComposeWith(m);
        // Identity on the domain is not enough when the pair padded: the padding lanes are
        // part of the result (NCHW -> NCHW4c -> NCHW of 6 channels gives 8).
        if (composed.MapShape(*u_shape) != *out_shape) return self;
        if (composed.IsIdentity(*u_shape)) return inner->args[0];
        const AttrValue& pad = n_bijective ? call->attrs.Get("pad_value")
                                           : inner->attrs.Get("pad_value");
        return Typed(MakeLayoutTransform(inner->args[0], composed, pad));
      }
      return self;
    }
    if (name == "crop") {
      // crop(pad(x, w, v), begin = w's befores, sizes = x's shape) is x.
      const auto* pad = AsOpCall(x, "nn.pad");
      if (!pad || pad->attrs.GetString("pad_mode") != "constant") return self;
      auto inner_shape = ShapeOf(pad->args[0]);
      if (!inner_shape) return self;
      std::vector<int64_t> before;
      for (const AttrValue& w : pad->attrs.Get("pad_width").AsArray())
        before.push_back(w.AsInts()[0]);
      if (call->attrs.GetInts("begin") == before && call->attrs.GetInts("sizes") == *inner_shape)
        return pad->args[0];
      return self;
    }
    // nn.pad(crop(x, begin, sizes, v), widths back to x's shape, v) is x.
    const auto* crop = AsOpCall(x, "crop");
    if (!crop || call->attrs.GetString("pad_mode") != "constant") return self;
    auto full = ShapeOf(crop->args[0]);
    const AttrValue& cropped = crop->attrs.Get("cropped_value");
    auto pad_value = ScalarOf(call->args[1]);
    if (!full || cropped.is_none() || !pad_value || cropped.AsFloat() != *pad_value) return self;
    std::vector<int64_t> begin = crop->attrs.GetInts("begin");
    std::vector<int64_t> sizes = crop->attrs.GetInts("sizes");
    const auto& widths = call->attrs.Get("pad_width").AsArray();
    if (widths.size() != full->size()) return self;
    for (size_t d = 0; d < full->size(); ++d) {
      std::vector<int64_t> w = widths[d].AsInts();
      if (w[0] != begin[d] || w[1] != (*full)[d] - begin[d] - sizes[d]) return self;
    }
    return crop->args[0];
  }
};

}  // namespace

Expr SimplifyLayoutRewrites(const Expr& expr, int* changes) {
  LayoutSimplifier simplifier;
  Expr out = simplifier.Mutate(expr);
  if (changes) *changes = simplifier.changes;
  return out;
}

}  // namespace tessera::layout_plan
