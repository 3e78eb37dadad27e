// ONNX converters for neural-network ops: Conv, pooling, normalisation, Gemm/MatMul,
// softmax and dropout.
#include <numeric>

#include "onnx_context.h"
#include "tessera/support/error.h"

namespace tessera {
namespace frontend {
namespace onnx_detail {
namespace {

int64_t Product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

void ExpectRank4(Context& ctx, const Expr& x, const char* op) {
  if (ctx.RankOf(x) != 4)
    TS_THROW(kUnsupported) << op << " of a rank-" << ctx.RankOf(x)
                           << " input is not supported (2-D images, rank 4, only)";
}

/// Window attributes shared by Conv and the pools, with auto_pad resolved to explicit
/// [top, left, bottom, right] padding.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
};

Window ReadWindow(NodeAttrs& attrs, const std::vector<int64_t>& in_shape,
                  const std::vector<int64_t>& kernel, bool has_dilations) {
  Window w;
  w.kernel = kernel;
  w.strides = attrs.Ints("strides", {1, 1});
  w.dilations = has_dilations ? attrs.Ints("dilations", {1, 1}) : std::vector<int64_t>{1, 1};
  w.pads = attrs.Ints("pads", {0, 0, 0, 0});
  if (w.kernel.size() != 2 || w.strides.size() != 2 || w.dilations.size() != 2 ||
      w.pads.size() != 4)
    TS_THROW(kUnsupported) << "only 2-D windows are supported (kernel_shape, strides, "
                              "dilations of 2 values, pads of 4)";
  for (int64_t p : w.pads)
    if (p < 0) attrs.Reject("pads", "with negative values is not supported");
  // Checked before any use: SAME_* padding divides by the stride.
  for (int64_t s : w.strides)
    if (s < 1) attrs.Reject("strides", "must be positive");
  for (int64_t d : w.dilations)
    if (d < 1) attrs.Reject("dilations", "must be positive");
  for (int64_t k : w.kernel)
    if (k < 1) attrs.Reject("kernel_shape", "must be positive");
  std::string auto_pad = attrs.String("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t in = in_shape[static_cast<size_t>(2 + i)], s = w.strides[i];
      int64_t out = (in + s - 1) / s;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * s + (w.kernel[i] - 1) * w.dilations[i] + 1 - in);
      int64_t small = total / 2, big = total - small;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      w.pads[i + 2] = auto_pad == "SAME_UPPER" ? big : small;
    }
  } else if (auto_pad == "VALID") {
    w.pads = {0, 0, 0, 0};
  } else if (auto_pad != "NOTSET") {
    attrs.Reject("auto_pad", "= '" + auto_pad + "' is not a valid auto_pad value");
  }
  return w;
}

std::vector<Expr> ConvertConv(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0), w = ctx.Input(node, 1);
  ExpectRank4(ctx, x, "Conv");
  if (ctx.RankOf(w) != 4) TS_THROW(kType) << "Conv weight must have rank 4";
  std::vector<int64_t> ws = ctx.ShapeOf(w);
  std::vector<int64_t> kernel = attrs.Ints("kernel_shape", {ws[2], ws[3]});
  if (kernel != std::vector<int64_t>{ws[2], ws[3]})
    TS_THROW(kType) << "kernel_shape " << ShapeToString(kernel) << " does not match the weight "
                    << ShapeToString(ws);
  Window win = ReadWindow(attrs, ctx.ShapeOf(x), kernel, true);
  int64_t group = attrs.Int("group", 1);
  Expr y = ctx.Emit("nn.conv2d", {x, w},
                    {{"strides", AttrValue::Ints(win.strides)},
                     {"padding", AttrValue::Ints(win.pads)},
                     {"dilation", AttrValue::Ints(win.dilations)},
                     {"groups", group},
                     {"channels", ws[0]},
                     {"kernel_size", AttrValue::Ints(kernel)}});
  if (ctx.HasInput(node, 2)) y = ctx.Emit("nn.bias_add", {y, ctx.Input(node, 2)}, {{"axis", 1}});
  return {y};
}

Converter Pool(bool is_max) {
  return
      [is_max](Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) -> std::vector<Expr> {
        Expr x = ctx.Input(node, 0);
        ExpectRank4(ctx, x, is_max ? "MaxPool" : "AveragePool");
        if (!attrs.Has("kernel_shape")) TS_THROW(kParse) << "attribute 'kernel_shape' is required";
        Window win = ReadWindow(attrs, ctx.ShapeOf(x), attrs.Ints("kernel_shape"), is_max);
        Attrs a = {{"pool_size", AttrValue::Ints(win.kernel)},
                   {"strides", AttrValue::Ints(win.strides)},
                   {"dilation", AttrValue::Ints(win.dilations)},
                   {"padding", AttrValue::Ints(win.pads)},
                   {"ceil_mode", attrs.Int("ceil_mode", 0) != 0}};
        if (is_max) {
          if (attrs.Int("storage_order", 0) != 0)
            attrs.Reject("storage_order", "= 1 (column-major indices) is not supported");
        } else {
          a.Set("count_include_pad", attrs.Int("count_include_pad", 0) != 0);
        }
        return {ctx.Emit(is_max ? "nn.max_pool2d" : "nn.avg_pool2d", {x}, a)};
      };
}

Converter GlobalPool(bool is_max) {
  return [is_max](Context& ctx, const onnx::NodeProto& node, NodeAttrs&) -> std::vector<Expr> {
    Expr x = ctx.Input(node, 0);
    int64_t rank = ctx.RankOf(x);
    if (rank < 3) TS_THROW(kType) << "global pooling needs a rank >= 3 input";
    if (rank == 4) return {ctx.Emit(is_max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d", {x})};
    std::vector<int64_t> axes;
    for (int64_t i = 2; i < rank; ++i) axes.push_back(i);
    return {ctx.Emit(is_max ? "max" : "mean", {x},
                     {{"axis", AttrValue::Ints(axes)}, {"keepdims", true}})};
  };
}

std::vector<Expr> ConvertBatchNorm(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  if (attrs.Int("training_mode", 0) != 0)
    attrs.Reject("training_mode", "= 1 is not supported (inference only)");
  attrs.Float("momentum", 0.9);  // only matters in training mode
  double eps = attrs.Float("epsilon", 1e-5);
  std::vector<Expr> args;
  for (int i = 0; i < 5; ++i) args.push_back(ctx.Input(node, i));
  if (ctx.RankOf(args[0]) < 2) TS_THROW(kType) << "BatchNormalization needs a rank >= 2 input";
  Expr bn = ctx.Emit("nn.batch_norm", args, {{"axis", 1}, {"epsilon", eps}});
  return {ctx.Field(bn, 0)};
}

/// LayerNormalization (opset 17) over axes [axis, rank): one Tessera layer_norm over the
/// flattened normalised axes.
std::vector<Expr> ConvertLayerNorm(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr x = ctx.Input(node, 0), scale = ctx.Input(node, 1);
  int64_t rank = ctx.RankOf(x);
  int64_t axis = NormAxis(attrs.Int("axis", -1), rank, "axis");
  double eps = attrs.Float("epsilon", 1e-5);
  if (attrs.Int("stash_type", 1) != 1) attrs.Reject("stash_type", "other than 1 is not supported");
  std::vector<int64_t> shape = ctx.ShapeOf(x);
  std::vector<int64_t> norm_shape(shape.begin() + axis, shape.end());
  int64_t len = Product(shape, static_cast<size_t>(axis), shape.size());
  DType dt = ctx.DTypeOf(x);
  auto as_vector = [&](Expr v) {
    if (ctx.ShapeOf(v) != norm_shape)
      v = ctx.Emit("add", {v, ctx.Const(NDArray::Zeros(norm_shape, dt))});
    return ctx.Reshape(v, {len});
  };
  Expr gamma = as_vector(scale);
  Expr beta =
      ctx.HasInput(node, 2) ? as_vector(ctx.Input(node, 2)) : ctx.Const(NDArray::Zeros({len}, dt));
  std::vector<int64_t> flat(shape.begin(), shape.begin() + axis);
  flat.push_back(len);
  Expr y = ctx.Emit("nn.layer_norm", {ctx.Reshape(x, flat), gamma, beta},
                    {{"axis", -1}, {"epsilon", eps}});
  return {ctx.Reshape(y, shape)};
}

std::vector<Expr> ConvertGemm(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  Expr a = ctx.Input(node, 0), b = ctx.Input(node, 1);
  double alpha = attrs.Float("alpha", 1.0), beta = attrs.Float("beta", 1.0);
  bool ta = attrs.Int("transA", 0) != 0, tb = attrs.Int("transB", 0) != 0;
  if (ctx.RankOf(a) != 2 || ctx.RankOf(b) != 2)
    TS_THROW(kType) << "Gemm inputs A and B must be 2-D";
  DType dt = ctx.DTypeOf(a);
  Expr y = !ta && tb ? ctx.Emit("nn.dense", {a, b})
                     : ctx.Emit("nn.matmul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}});
  if (alpha != 1.0) y = ctx.Emit("multiply", {y, ctx.Scalar(alpha, dt)});
  if (ctx.HasInput(node, 2)) {
    Expr c = ctx.Input(node, 2);
    if (beta != 1.0) c = ctx.Emit("multiply", {c, ctx.Scalar(beta, dt)});
    y = ctx.Emit("add", {y, c});
  }
  return {y};
}

/// NumPy broadcast of two shapes; throws a type error when they do not broadcast.
std::vector<int64_t> BroadcastShapes(std::vector<int64_t> a, std::vector<int64_t> b) {
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

Expr BroadcastTo(Context& ctx, const Expr& x, const std::vector<int64_t>& shape) {
  if (ctx.ShapeOf(x) == shape) return x;
  DType dt = ctx.DTypeOf(x);
  if (dt == DType::kBool) {
    Expr all = ctx.Emit("ones", {}, {{"shape", AttrValue::Ints(shape)}, {"dtype", "bool"}});
    return ctx.Emit("where", {all, x, x});
  }
  return ctx.Emit(
      "add",
      {x, ctx.Emit("zeros", {}, {{"shape", AttrValue::Ints(shape)}, {"dtype", DTypeName(dt)}})});
}

/// MatMul with NumPy semantics: 1-D operands gain and lose an axis, batch axes broadcast.
std::vector<Expr> ConvertMatMul(Context& ctx, const onnx::NodeProto& node, NodeAttrs&) {
  Expr a = ctx.Input(node, 0), b = ctx.Input(node, 1);
  std::vector<int64_t> as = ctx.ShapeOf(a), bs = ctx.ShapeOf(b);
  if (as.empty() || bs.empty()) TS_THROW(kType) << "MatMul inputs must have rank >= 1";
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) a = ctx.Reshape(a, {1, as[0]}), as = {1, as[0]};
  if (b_vec) b = ctx.Reshape(b, {bs[0], 1}), bs = {bs[0], 1};
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  if (bs[bs.size() - 2] != k)
    TS_THROW(kType) << "MatMul shapes " << ShapeToString(ctx.ShapeOf(ctx.Input(node, 0))) << " and "
                    << ShapeToString(ctx.ShapeOf(ctx.Input(node, 1))) << " do not match";
  std::vector<int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  std::vector<int64_t> batch = BroadcastShapes(ab, bb);
  Expr y;
  if (bb.empty() || Product(bb, 0, bb.size()) == 1) {
    if (!bb.empty()) b = ctx.Reshape(b, {k, n});
    if (ab != batch) {  // a has fewer batch axes than the (trivial) batch of b
      std::vector<int64_t> full = batch;
      full.push_back(m), full.push_back(k);
      a = BroadcastTo(ctx, a, full);
    }
    y = ctx.Emit("nn.matmul", {a, b});
  } else {
    int64_t nb = Product(batch, 0, batch.size());
    auto prep = [&](Expr v, const std::vector<int64_t>& vb, int64_t r, int64_t c) {
      if (Product(vb, 0, vb.size()) == 1) return ctx.Reshape(v, {1, r, c});
      std::vector<int64_t> full = batch;
      full.push_back(r), full.push_back(c);
      if (vb != batch) v = BroadcastTo(ctx, v, full);
      return ctx.Reshape(v, {nb, r, c});
    };
    Expr a3 = prep(a, ab, m, k), b3 = prep(b, bb, k, n);
    y = ctx.Emit("nn.batch_matmul", {a3, b3}, {{"transpose_b", false}});
    std::vector<int64_t> out = batch;
    out.push_back(m), out.push_back(n);
    y = ctx.Reshape(y, out);
  }
  std::vector<int64_t> out = ctx.ShapeOf(y);
  if (b_vec) out.pop_back();
  if (a_vec) out.erase(out.end() - (b_vec ? 1 : 2));
  return {ctx.Reshape(y, out)};
}

Converter Softmax(bool log) {
  return [log](Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) -> std::vector<Expr> {
    Expr x = ctx.Input(node, 0);
    const char* op = log ? "nn.log_softmax" : "nn.softmax";
    int64_t rank = ctx.RankOf(x);
    if (ctx.opset >= 13) {
      int64_t axis = NormAxis(attrs.Int("axis", -1), rank, "axis");
      return {ctx.Emit(op, {x}, {{"axis", axis}})};
    }
    // Before opset 13 the input is coerced to 2-D at `axis` and normalised per row.
    int64_t axis = NormAxis(attrs.Int("axis", 1), rank, "axis");
    std::vector<int64_t> shape = ctx.ShapeOf(x);
    Expr flat = ctx.Reshape(x, {Product(shape, 0, static_cast<size_t>(axis)),
                                Product(shape, static_cast<size_t>(axis), shape.size())});
    return {ctx.Reshape(ctx.Emit(op, {flat}, {{"axis", -1}}), shape)};
  };
}

/// Dropout at inference is the identity; its mask output is all true.
std::vector<Expr> ConvertDropout(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs) {
  attrs.Int("seed", 0);
  if (ctx.HasInput(node, 2)) {
    std::optional<NDArray> train = ctx.ConstValue(ctx.Input(node, 2));
    if (!train || train->GetInt(0) != 0)
      TS_THROW(kUnsupported) << "Dropout with training_mode other than a constant false";
  }
  Expr x = ctx.Input(node, 0);
  NDArray mask = NDArray::Zeros(ctx.ShapeOf(x), DType::kBool);
  for (int64_t i = 0; i < mask.NumElements(); ++i) mask.SetInt(i, 1);
  return {x, ctx.Const(mask)};
}

}  // namespace

void RegisterNNConverters(ConverterTable& t) {
  t["Conv"] = ConvertConv;
  t["MaxPool"] = Pool(true);
  t["AveragePool"] = Pool(false);
  t["GlobalAveragePool"] = GlobalPool(false);
  t["GlobalMaxPool"] = GlobalPool(true);
  t["BatchNormalization"] = ConvertBatchNorm;
  t["LayerNormalization"] = ConvertLayerNorm;
  t["Gemm"] = ConvertGemm;
  t["MatMul"] = ConvertMatMul;
  t["Softmax"] = Softmax(false);
  t["LogSoftmax"] = Softmax(true);
  t["Dropout"] = ConvertDropout;
}

}  // namespace onnx_detail
}  // namespace frontend
}  // namespace tessera
