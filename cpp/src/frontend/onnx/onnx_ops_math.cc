// ONNX converters for elementwise math, comparisons, casts and reductions.
#include <cmath>

#include "onnx_context.h"
#include "tessera/support/error.h"

namespace tessera {
namespace frontend {
namespace onnx_detail {
namespace {

Converter Unary(const char* op) {
  return [op](Context& ctx, const onnx::NodeProto& node, NodeAttrs&) -> std::vector<Expr> {
    return {ctx.Emit(op, {ctx.Input(node, 0)})};
  };
}

Converter Binary(const char* op) {
  return [op](Context& ctx, const onnx::NodeProto& node, NodeAttrs&) -> std::vector<Expr> {
    Expr a = ctx.Input(node, 0), b = ctx.Input(node, 1);
    if (ctx.DTypeOf(a) != ctx.DTypeOf(b))
      TS_THROW(kType) << "inputs have different element types " << DTypeName(ctx.DTypeOf(a))
                      << " and " << DTypeName(ctx.DTypeOf(b));
    return {ctx.Emit(op, {a, b})};
  };
}

/// Max, Min, Sum: a left fold of a binary op over one or more inputs.
Converter Variadic(const char* op) {
  return [op](Context& ctx, const onnx::NodeProto& node, NodeAttrs&) -> std::vector<Expr> {
    Expr acc = ctx.Input(node, 0);
    for (int i = 1; i < node.input_size(); ++i) acc = ctx.Emit(op, {acc, ctx.Input(node, i)});
    return {acc};
  };
}

std::vector<Expr> ConvertPow(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr x = ctx.Input(node, 0), y = ctx.Input(node, 1);
  if (!IsFloat(ctx.DTypeOf(x)))
    TS_THROW(kUnsupported) << "Pow of a " << DTypeName(ctx.DTypeOf(x))
                           << " base is not supported (float bases only)";
  return {ctx.Emit("power", {x, ctx.Cast(y, ctx.DTypeOf(x))})};
}

std::vector<Expr> ConvertReciprocal(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr x = ctx.Input(node, 0);
  return {ctx.Emit("divide", {ctx.Scalar(1.0, ctx.DTypeOf(x)), x})};
}

std::vector<Expr> ConvertIdentity(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  return {ctx.Input(node, 0)};
}

std::vector<Expr> ConvertLeakyRelu(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  double alpha = attrs.Float("alpha", 0.01);
  return {ctx.Emit("nn.leaky_relu", {ctx.Input(node, 0)}, {{"alpha", alpha}})};
}

std::vector<Expr> ConvertCast(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  if (!attrs.Has("to")) TS_THROW(kParse) << "attribute 'to' is required";
  int64_t to = attrs.Int("to", 0);
  std::optional<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(to));
  if (!dtype)
    attrs.Reject("to", "= " + std::to_string(to) + " names an element type Tessera lacks");
  if (attrs.Has("saturate")) attrs.Reject("saturate", "is not supported");
  return {ctx.Cast(ctx.Input(node, 0), *dtype)};
}

/// Clip: bounds come from inputs (opset 11+); absent bounds leave that side open.
std::vector<Expr> ConvertClip(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr x = ctx.Input(node, 0);
  DType dt = ctx.DTypeOf(x);
  std::optional<Expr> lo, hi;
  if (ctx.HasInput(node, 1)) lo = ctx.Input(node, 1);
  if (ctx.HasInput(node, 2)) hi = ctx.Input(node, 2);
  auto scalar = [&](const std::optional<Expr>& e) -> std::optional<double> {
    if (!e) return std::nullopt;
    std::optional<NDArray> v = ctx.ConstValue(*e);
    if (!v || v->NumElements() != 1) return std::nullopt;
    return v->GetFloat(0);
  };
  std::optional<double> lo_v = scalar(lo), hi_v = scalar(hi);
  if (IsFloat(dt) && lo_v && hi_v && *lo_v <= *hi_v)
    return {ctx.Emit("clip", {x}, {{"a_min", *lo_v}, {"a_max", *hi_v}})};
  if (lo) x = ctx.Emit("maximum", {x, ctx.Cast(*lo, dt)});
  if (hi) x = ctx.Emit("minimum", {x, ctx.Cast(*hi, dt)});
  return {x};
}

std::vector<Expr> ConvertWhere(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  return {ctx.Emit("where", {ctx.Input(node, 0), ctx.Input(node, 1), ctx.Input(node, 2)})};
}

/// ReduceX: axes from the attribute (and, for ReduceSum from opset 13, an input).
Converter Reduce(const char* op, bool axes_input_from_13) {
  return [op, axes_input_from_13](Context& ctx, const onnx::NodeProto& node,
                                  NodeAttrs& attrs) -> std::vector<Expr> {
    Expr x = ctx.Input(node, 0);
    bool keepdims = attrs.Int("keepdims", 1) != 0;
    bool noop = attrs.Int("noop_with_empty_axes", 0) != 0;
    std::vector<int64_t> axes;
    if (axes_input_from_13 && ctx.opset >= 13) {
      if (ctx.HasInput(node, 1)) axes = ctx.ConstInts(ctx.Input(node, 1), "the axes input");
    } else {
      axes = attrs.Ints("axes");
    }
    if (axes.empty() && noop) return {x};
    int64_t rank = ctx.RankOf(x);
    for (int64_t& a : axes) a = NormAxis(a, rank, "axis");
    if (rank == 0) return {x};
    AttrValue axis = axes.empty() ? AttrValue() : AttrValue::Ints(axes);
    return {ctx.Emit(op, {x}, {{"axis", axis}, {"keepdims", keepdims}})};
  };
}

}  // namespace

void RegisterMathConverters(ConverterTable& t) {
  t["Add"] = Binary("add");
  t["Sub"] = Binary("subtract");
  t["Mul"] = Binary("multiply");
  t["Div"] = Binary("divide");
  t["Pow"] = ConvertPow;
  t["Max"] = Variadic("maximum");
  t["Min"] = Variadic("minimum");
  t["Sum"] = Variadic("add");
  t["Equal"] = Binary("equal");
  t["Less"] = Binary("less");
  t["LessOrEqual"] = Binary("less_equal");
  t["Greater"] = Binary("greater");
  t["GreaterOrEqual"] = Binary("greater_equal");
  t["Relu"] = Unary("nn.relu");
  t["Sigmoid"] = Unary("sigmoid");
  t["Tanh"] = Unary("tanh");
  t["Exp"] = Unary("exp");
  t["Log"] = Unary("log");
  t["Sqrt"] = Unary("sqrt");
  t["Neg"] = Unary("negative");
  t["Abs"] = Unary("abs");
  t["Erf"] = Unary("erf");
  t["Floor"] = Unary("floor");
  t["Ceil"] = Unary("ceil");
  t["Reciprocal"] = ConvertReciprocal;
  t["Identity"] = ConvertIdentity;
  t["LeakyRelu"] = ConvertLeakyRelu;
  t["Cast"] = ConvertCast;
  t["Clip"] = ConvertClip;
  t["Where"] = ConvertWhere;
  t["ReduceMean"] = Reduce("mean", false);
  t["ReduceSum"] = Reduce("sum", true);
  t["ReduceMax"] = Reduce("max", false);
  t["ReduceMin"] = Reduce("min", false);
}

}  // namespace onnx_detail
}  // namespace frontend
}  // namespace tessera
