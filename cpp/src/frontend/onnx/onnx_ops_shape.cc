// ONNX converters for shape and data-movement ops. Shape computations (Shape, Gather,
// Concat, Unsqueeze feeding Reshape, ...) fold to constants because every converter
// emits through Context::Emit, which evaluates calls whose arguments are constants.
#include <cmath>
#include <limits>

#include "onnx_context.h"
#include "tessera/support/error.h"

namespace tessera {
namespace frontend {
namespace onnx_detail {
namespace {

NDArray Int64s(const std::vector<int64_t>& v) {
  NDArray a = NDArray::Zeros({static_cast<int64_t>(v.size())}, DType::kInt64);
  for (size_t i = 0; i < v.size(); ++i) a.SetInt(static_cast<int64_t>(i), v[i]);
  return a;
}

/// Axes from the attribute (before `input_from`) or from input `index` (from it on).
std::vector<int64_t> AxesArg(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs,
                             int64_t input_from, int index) {
  if (ctx.opset >= input_from)
    return ctx.HasInput(node, index) ? ctx.ConstInts(ctx.Input(node, index), "the axes input")
                                     : std::vector<int64_t>{};
  return attrs.Ints("axes");
}

std::vector<Expr> ConvertShape(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  std::vector<int64_t> shape = ctx.ShapeOf(ctx.Input(node, 0));
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t start = attrs.Int("start", 0), end = attrs.Int("end", rank);
  auto clampi = [rank](int64_t v) {
    if (v < 0) v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  start = clampi(start), end = clampi(end);
  std::vector<int64_t> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back(shape[static_cast<size_t>(i)]);
  return {ctx.Const(Int64s(dims))};
}

std::vector<Expr> ConvertSize(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  return {ctx.Const(NDArray::Scalar(
      static_cast<double>(ShapeNumElements(ctx.ShapeOf(ctx.Input(node, 0)))), DType::kInt64))};
}

std::vector<Expr> ConvertGather(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr data = ctx.Input(node, 0), indices = ctx.Input(node, 1);
  int64_t rank = ctx.RankOf(data);
  int64_t axis = NormAxis(attrs.Int("axis", 0), rank, "axis");
  int64_t dim = ctx.ShapeOf(data)[static_cast<size_t>(axis)];
  std::string mode = "wrap";  // ONNX allows negative indices; wrap maps them in range
  if (std::optional<NDArray> idx = ctx.ConstValue(indices)) {
    NDArray fixed = idx->Copy();
    for (int64_t i = 0; i < fixed.NumElements(); ++i) {
      int64_t v = fixed.GetInt(i);
      if (v < -dim || v >= dim)
        TS_THROW(kValue) << "index " << v << " is out of range for axis " << axis << " of size "
                         << dim;
      fixed.SetInt(i, v < 0 ? v + dim : v);
    }
    indices = ctx.Const(fixed);
    mode = "clip";
  }
  return {ctx.Emit("take", {data, indices}, {{"axis", axis}, {"mode", mode}})};
}

std::vector<Expr> ConvertConcat(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  if (!attrs.Has("axis")) TS_THROW(kParse) << "attribute 'axis' is required";
  std::vector<Expr> fields;
  std::vector<Type> types;
  for (int i = 0; i < node.input_size(); ++i) {
    fields.push_back(ctx.Input(node, i));
    types.push_back(fields.back()->checked_type());
  }
  if (fields.empty()) TS_THROW(kParse) << "Concat needs at least one input";
  int64_t axis = NormAxis(attrs.Int("axis", 0), ctx.RankOf(fields[0]), "axis");
  if (fields.size() == 1) return {fields[0]};
  Tuple tuple = MakeTuple(fields);
  tuple->set_checked_type(MakeTupleType(types));
  return {ctx.Emit("concatenate", {tuple}, {{"axis", axis}})};
}

std::vector<Expr> ConvertUnsqueeze(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  std::vector<int64_t> axes = AxesArg(ctx, node, attrs, 13, 1);
  std::vector<int64_t> in = ctx.ShapeOf(x);
  int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> is_new(static_cast<size_t>(out_rank), false);
  for (int64_t a : axes) {
    int64_t n = NormAxis(a, out_rank, "axis");
    if (is_new[static_cast<size_t>(n)]) TS_THROW(kValue) << "axis " << a << " is repeated";
    is_new[static_cast<size_t>(n)] = true;
  }
  std::vector<int64_t> out;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i)
    out.push_back(is_new[static_cast<size_t>(i)] ? 1 : in[next++]);
  return {ctx.Reshape(x, out)};
}

std::vector<Expr> ConvertSqueeze(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  std::vector<int64_t> axes = AxesArg(ctx, node, attrs, 13, 1);
  std::vector<int64_t> in = ctx.ShapeOf(x);
  int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    for (int64_t a : axes) {
      int64_t n = NormAxis(a, rank, "axis");
      if (in[static_cast<size_t>(n)] != 1)
        TS_THROW(kType) << "cannot squeeze axis " << a << " of size " << in[static_cast<size_t>(n)];
      drop[static_cast<size_t>(n)] = true;
    }
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  return {ctx.Reshape(x, out)};
}

std::vector<Expr> ConvertReshape(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  std::vector<int64_t> target = ctx.ConstInts(ctx.Input(node, 1), "the shape input");
  bool allowzero = attrs.Int("allowzero", 0) != 0;
  std::vector<int64_t> in = ctx.ShapeOf(x);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowzero) {
      if (i >= in.size()) TS_THROW(kType) << "shape entry " << i << " copies a missing input axis";
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (infer >= 0) TS_THROW(kType) << "shape has more than one -1";
      infer = static_cast<int64_t>(i);
    } else if (target[i] < 0) {
      TS_THROW(kType) << "shape entry " << target[i] << " is invalid";
    } else if (__builtin_mul_overflow(known, target[i], &known)) {
      TS_THROW(kType) << "shape " << ShapeToString(target) << " has too many elements";
    }
  }
  int64_t total = ShapeNumElements(in);
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      TS_THROW(kType) << "cannot reshape " << ShapeToString(in) << " to " << ShapeToString(target);
    target[static_cast<size_t>(infer)] = total / known;
  }
  if (ShapeNumElements(target) != total)
    TS_THROW(kType) << "cannot reshape " << ShapeToString(in) << " (" << total << " elements) to "
                    << ShapeToString(target);
  return {ctx.Reshape(x, target)};
}

std::vector<Expr> ConvertFlatten(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  std::vector<int64_t> in = ctx.ShapeOf(x);
  int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = attrs.Int("axis", 1);
  if (axis < -rank || axis > rank) TS_THROW(kValue) << "axis " << axis << " is out of range";
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= in[static_cast<size_t>(i)];
  return {ctx.Reshape(x, {outer, inner})};
}

std::vector<Expr> ConvertTranspose(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  int64_t rank = ctx.RankOf(x);
  std::vector<int64_t> perm = attrs.Ints("perm");
  if (perm.empty())
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  return {ctx.Emit("transpose", {x}, {{"axes", AttrValue::Ints(perm)}})};
}

std::vector<Expr> ConvertSlice(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr x = ctx.Input(node, 0);
  int64_t rank = ctx.RankOf(x);
  std::vector<int64_t> starts = ctx.ConstInts(ctx.Input(node, 1), "the starts input");
  std::vector<int64_t> ends = ctx.ConstInts(ctx.Input(node, 2), "the ends input");
  std::vector<int64_t> axes, steps;
  if (ctx.HasInput(node, 3)) axes = ctx.ConstInts(ctx.Input(node, 3), "the axes input");
  if (ctx.HasInput(node, 4)) steps = ctx.ConstInts(ctx.Input(node, 4), "the steps input");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    TS_THROW(kType) << "starts, ends, axes and steps must have the same length";
  for (int64_t& a : axes) a = NormAxis(a, rank, "axis");
  for (int64_t s : steps)
    if (s == 0) TS_THROW(kValue) << "slice step 0 is invalid";
  return {ctx.Emit("strided_slice", {x},
                   {{"begin", AttrValue::Ints(starts)},
                    {"end", AttrValue::Ints(ends)},
                    {"strides", AttrValue::Ints(steps)},
                    {"axes", AttrValue::Ints(axes)}})};
}

std::vector<Expr> ConvertSplit(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  int64_t axis = NormAxis(attrs.Int("axis", 0), ctx.RankOf(x), "axis");
  int64_t dim = ctx.ShapeOf(x)[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (ctx.opset >= 13) {
    if (ctx.HasInput(node, 1)) sizes = ctx.ConstInts(ctx.Input(node, 1), "the split input");
  } else {
    sizes = attrs.Ints("split");
  }
  int64_t n = node.output_size();
  if (sizes.empty()) {
    if (n <= 0 || dim % n != 0)
      TS_THROW(kType) << "axis of size " << dim << " does not split into " << n << " equal parts";
    sizes.assign(static_cast<size_t>(n), dim / n);
  }
  if (static_cast<int64_t>(sizes.size()) != n)
    TS_THROW(kType) << sizes.size() << " split sizes for " << n << " outputs";
  int64_t sum = 0;
  std::vector<int64_t> indices;
  for (int64_t s : sizes) {
    if (s < 0) TS_THROW(kValue) << "negative split size " << s;
    sum += s;
    indices.push_back(sum);
  }
  if (sum != dim) TS_THROW(kType) << "split sizes sum to " << sum << ", not the axis size " << dim;
  if (n == 1) return {x};
  indices.pop_back();
  Expr parts =
      ctx.Emit("split", {x}, {{"indices_or_sections", AttrValue::Ints(indices)}, {"axis", axis}});
  std::vector<Expr> outs;
  for (int64_t i = 0; i < n; ++i) outs.push_back(ctx.Field(parts, static_cast<int>(i)));
  return outs;
}

std::vector<int64_t> Broadcast(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.size() < b.size()) std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) continue;
    if (a[i] == 1) {
      a[i] = b[i];
      continue;
    }
    TS_THROW(kType) << "shapes " << ShapeToString(a) << " and " << ShapeToString(b)
                    << " cannot be broadcast together";
  }
  return a;
}

std::vector<Expr> ConvertExpand(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr x = ctx.Input(node, 0);
  std::vector<int64_t> shape =
      Broadcast(ctx.ShapeOf(x), ctx.ConstInts(ctx.Input(node, 1), "the shape input"));
  if (shape == ctx.ShapeOf(x)) return {x};
  DType dt = ctx.DTypeOf(x);
  if (dt == DType::kBool) {
    Expr all = ctx.Emit("ones", {}, {{"shape", AttrValue::Ints(shape)}, {"dtype", "bool"}});
    return {ctx.Emit("where", {all, x, x})};
  }
  Expr zeros = ctx.Emit("zeros", {}, {{"shape", AttrValue::Ints(shape)}, {"dtype", DTypeName(dt)}});
  return {ctx.Emit("add", {x, zeros})};
}

std::vector<Expr> ConvertConstant(Context& ctx, const onnx::NodeProto&, NodeAttrs& attrs) {
  if (const onnx::TensorProto* t = attrs.Tensor("value"))
    return {ctx.Const(TensorFromProto(*t, "attribute 'value'"))};
  if (attrs.Has("value_float"))
    return {ctx.Const(NDArray::Scalar(attrs.Float("value_float", 0), DType::kFloat32))};
  if (attrs.Has("value_int"))
    return {
        ctx.Const(NDArray::Scalar(static_cast<double>(attrs.Int("value_int", 0)), DType::kInt64))};
  if (attrs.Has("value_floats")) {
    std::vector<float> v = attrs.Floats("value_floats");
    return {ctx.Const(NDArray::FromFloats({static_cast<int64_t>(v.size())}, v))};
  }
  if (attrs.Has("value_ints")) return {ctx.Const(Int64s(attrs.Ints("value_ints")))};
  for (const char* a : {"sparse_value", "value_string", "value_strings"})
    if (attrs.Has(a)) attrs.Reject(a, "is not supported");
  TS_THROW(kParse) << "Constant has no value attribute";
}

std::vector<Expr> ConvertConstantOfShape(Context& ctx, const onnx::NodeProto& node,
                                         NodeAttrs& attrs) {
  std::vector<int64_t> shape = ctx.ConstInts(ctx.Input(node, 0), "the shape input");
  for (int64_t d : shape)
    if (d < 0) TS_THROW(kValue) << "negative dimension " << d;
  NDArray value = NDArray::Scalar(0.0, DType::kFloat32);
  if (const onnx::TensorProto* t = attrs.Tensor("value")) {
    value = TensorFromProto(*t, "attribute 'value'");
    if (value.NumElements() != 1) TS_THROW(kValue) << "attribute 'value' must hold one element";
  }
  NDArray out = NDArray::Zeros(shape, value.dtype());
  for (int64_t i = 0; i < out.NumElements(); ++i) out.SetFloat(i, value.GetFloat(0));
  return {ctx.Const(out)};
}

std::vector<Expr> ConvertPad(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0);
  int64_t rank = ctx.RankOf(x);
  std::string mode = attrs.String("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    attrs.Reject("mode", "= '" + mode + "' is not supported");
  std::vector<int64_t> pads = ctx.ConstInts(ctx.Input(node, 1), "the pads input");
  if (static_cast<int64_t>(pads.size()) != 2 * rank)
    TS_THROW(kType) << "pads has " << pads.size() << " values for rank " << rank;
  std::vector<AttrValue> width;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t b = pads[static_cast<size_t>(i)], e = pads[static_cast<size_t>(i + rank)];
    if (b < 0 || e < 0) TS_THROW(kUnsupported) << "negative pads are not supported";
    width.push_back(AttrValue::Ints({b, e}));
  }
  Expr value = ctx.Scalar(0.0, ctx.DTypeOf(x));
  if (ctx.HasInput(node, 2)) {
    value = ctx.Input(node, 2);
    if (ctx.RankOf(value) != 0) value = ctx.Reshape(value, {});
  }
  return {ctx.Emit("nn.pad", {x, value}, {{"pad_width", AttrValue(width)}, {"pad_mode", mode}})};
}

std::vector<Expr> ConvertRange(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  std::optional<NDArray> s = ctx.ConstValue(ctx.Input(node, 0)),
                         l = ctx.ConstValue(ctx.Input(node, 1)),
                         d = ctx.ConstValue(ctx.Input(node, 2));
  if (!s || !l || !d) TS_THROW(kUnsupported) << "Range with inputs computed at run time";
  double start = s->GetFloat(0), limit = l->GetFloat(0), delta = d->GetFloat(0);
  if (delta == 0) TS_THROW(kValue) << "Range delta is 0";
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
  NDArray out = NDArray::Zeros({n}, s->dtype());
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(s->dtype()))
      out.SetFloat(i, start + static_cast<double>(i) * delta);
    else
      out.SetInt(i, s->GetInt(0) + i * d->GetInt(0));
  }
  return {ctx.Const(out)};
}

}  // namespace

void RegisterShapeConverters(ConverterTable& t) {
  t["Shape"] = ConvertShape;
  t["Size"] = ConvertSize;
  t["Gather"] = ConvertGather;
  t["Concat"] = ConvertConcat;
  t["Unsqueeze"] = ConvertUnsqueeze;
  t["Squeeze"] = ConvertSqueeze;
  t["Reshape"] = ConvertReshape;
  t["Flatten"] = ConvertFlatten;
  t["Transpose"] = ConvertTranspose;
  t["Slice"] = ConvertSlice;
  t["Split"] = ConvertSplit;
  t["Expand"] = ConvertExpand;
  t["Constant"] = ConvertConstant;
  t["ConstantOfShape"] = ConvertConstantOfShape;
  t["Pad"] = ConvertPad;
  t["Range"] = ConvertRange;
}

}  // namespace onnx_detail
}  // namespace frontend
}  // namespace tessera
