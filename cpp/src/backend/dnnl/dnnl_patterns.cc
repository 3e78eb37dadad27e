// oneDNN's pattern table and op predicates: what the dnnl backend claims, checked
// against what oneDNN 2.6 really does (float32, NCHW/OIHW or channel-blocked convolutions, ...).
#include "dnnl_layout_transform.h"
#include "tessera/backend/dnnl/dnnl_backend.h"
#include "tessera/op/layout_2d.h"
#include "tessera/pattern/library_patterns.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

bool OutDTypeF32(const Attrs& attrs) {
  return StringAttrIs(attrs, "out_dtype", "float32");
}

/// The channel block of a data layout attribute the module runs: 0 for NCHW (or the
/// default), x for NCHW{x}c, -1 otherwise (NHWC, ...).
int64_t DataBlockOf(const Attrs& attrs, const char* key, const std::string& fallback = "") {
  const AttrValue* v = attrs.Find(key);
  std::string layout = v && v->is_string() && !v->AsString().empty() ? v->AsString() : fallback;
  if (layout.empty() || layout == "NCHW") return 0;
  try {
    nn::DataLayout2D l = nn::ParseDataLayout2D(layout, key);
    return l.IsNCHWFamily() && l.blocked() ? l.c_block : -1;
  } catch (const Error&) {
    return -1;
  }
}

/// oneDNN convolution, float32, any groups (depthwise included), strides, padding and
/// dilation: plain NCHW data and OIHW weights (oneDNN picks its formats inside), or the
/// channel-blocked layouts of layout planning, data and result NCHW{x}c and weights
/// OIHW{y}i{x}o (depthwise OIHW1i{x}o), read and written as oneDNN's nChw{x}c and
/// OIhw{y}i{x}o / Goihw{x}g without a reorder of the data.
bool Conv2dSupported(const CallNode& call) {
  if (!AllFloat32(call) || !OutDTypeF32(call.attrs)) return false;
  const AttrValue* data_attr = call.attrs.Find("data_layout");
  std::string data = data_attr && data_attr->is_string() ? data_attr->AsString() : "";
  int64_t in_block = DataBlockOf(call.attrs, "data_layout");
  int64_t out_block = DataBlockOf(call.attrs, "out_layout", data);
  if (in_block < 0 || out_block < 0) return false;
  const AttrValue* kernel_attr = call.attrs.Find("kernel_layout");
  std::string kernel = kernel_attr && kernel_attr->is_string() ? kernel_attr->AsString() : "";
  int kernel_rank = 4;
  if (!kernel.empty() && kernel != "OIHW") {
    try {
      nn::KernelLayout2D l = nn::ParseKernelLayout2D(kernel, "kernel_layout");
      if (!l.blocked() || l.perm != std::vector<int>{0, 1, 2, 3}) return false;
    } catch (const Error&) {
      return false;
    }
    kernel_rank = 6;
  }
  const auto* result = call.checked_type_or_null().as<TensorTypeNode>();
  return RankOf(call.args[0]) == (in_block > 0 ? 5 : 4) && RankOf(call.args[1]) == kernel_rank &&
         result && result->ndim() == (out_block > 0 ? 5 : 4);
}

/// oneDNN matmul covers nn.dense (data 2-D/3-D, weight [N, K]), nn.matmul (a 2-D/3-D,
/// b 2-D, transposes by strides) and nn.batch_matmul (3-D, batch broadcast).
bool DenseSupported(const CallNode& call) {
  int a = RankOf(call.args[0]);
  return AllFloat32(call) && (a == 2 || a == 3) && RankOf(call.args[1]) == 2 &&
         OutDTypeF32(call.attrs);
}
bool MatmulSupported(const CallNode& call) {
  return DenseSupported(call);
}
bool BatchMatmulSupported(const CallNode& call) {
  return AllFloat32(call) && RankOf(call.args[0]) == 3 && RankOf(call.args[1]) == 3 &&
         OutDTypeF32(call.attrs);
}

/// Pooling on NCHW or NCHW{x}c (blocked: in place as nChw{x}c) float32 without ceil mode
/// (as TVM's DNNL predicates).
bool PoolSupported(const CallNode& call) {
  const AttrValue* ceil = call.attrs.Find("ceil_mode");
  const AttrValue* layout_attr = call.attrs.Find("layout");
  std::string layout = layout_attr && layout_attr->is_string() ? layout_attr->AsString() : "";
  int64_t in_block = DataBlockOf(call.attrs, "layout");
  int64_t out_block = DataBlockOf(call.attrs, "out_layout", layout);
  return AllFloat32(call) && in_block >= 0 && out_block == in_block &&
         RankOf(call.args[0]) == (in_block > 0 ? 5 : 4) &&
         !(ceil && ceil->is_bool() && ceil->AsBool());
}

/// Layer normalisation over the last axis (oneDNN normalises the innermost dims).
bool LayerNormSupported(const CallNode& call) {
  int rank = RankOf(call.args[0]);
  int64_t axis = call.attrs.GetInt("axis");
  return AllFloat32(call) && rank >= 2 && (axis == -1 || axis == rank - 1);
}

/// Inference batch norm on NCHW (channel axis 1). Its result is a tuple: check inputs.
bool BatchNormSupported(const CallNode& call) {
  for (const Expr& a : call.args)
    if (!Float32Tensor(a)) return false;
  int64_t axis = call.attrs.GetInt("axis");
  return RankOf(call.args[0]) == 4 && (axis == 1 || axis == -3);
}

/// oneDNN binary: src1 broadcasts into src0, whose shape is the result's.
bool BinarySupported(const CallNode& call) {
  if (!AllFloat32(call)) return false;
  const TensorTypeNode* a = Float32Tensor(call.args[0]);
  const TensorTypeNode* b = Float32Tensor(call.args[1]);
  if (!a || !b || b->ndim() > a->ndim()) return false;
  const Type& rt = call.checked_type_or_null();
  if (!rt.defined() || rt.as<TensorTypeNode>()->shape != a->shape) return false;
  for (int i = 0; i < b->ndim(); ++i) {
    int64_t d = b->shape[i], want = a->shape[a->ndim() - b->ndim() + i];
    if (d != 1 && d != want) return false;
  }
  return a->ndim() >= 1;
}

}  // namespace

void RegisterDnnlPatternTable(PatternTableRegistry& registry) {
  const std::vector<std::string> acts = {"relu", "clip", "gelu", "sigmoid", "tanh", "swish"};
  std::vector<PatternTableEntry> entries;
  auto add = [&](AnchorKind kind, const OpSupportPredicate& check) {
    for (PatternTableEntry& e : MakeChainEntries("dnnl", kind, acts, /*with_sum=*/true,
                                                 /*with_bare=*/true, check))
      entries.push_back(std::move(e));
  };
  add(AnchorKind::kConv2d, Conv2dSupported);
  add(AnchorKind::kDense, DenseSupported);
  add(AnchorKind::kMatmul, MatmulSupported);
  add(AnchorKind::kBatchMatmul, BatchMatmulSupported);
  registry.RegisterPatterns("dnnl", std::move(entries));

  registry.RegisterOpSupport("dnnl", "nn.conv2d", Conv2dSupported);
  registry.RegisterOpSupport("dnnl", "nn.dense", DenseSupported);
  registry.RegisterOpSupport("dnnl", "nn.matmul", MatmulSupported);
  registry.RegisterOpSupport("dnnl", "nn.batch_matmul", BatchMatmulSupported);
  registry.RegisterOpSupport("dnnl", "nn.max_pool2d", PoolSupported);
  registry.RegisterOpSupport("dnnl", "nn.avg_pool2d", PoolSupported);
  registry.RegisterOpSupport("dnnl", "nn.global_avg_pool2d", PoolSupported);
  // NCHW <-> NCHW{x}c conversions, so a planned graph's transforms between oneDNN ops
  // (around a convolution kept in NCHW) stay inside one partition, as oneDNN reorders.
  registry.RegisterOpSupport("dnnl", "layout_transform", dnnl_backend::LayoutTransformSupported);
  registry.RegisterOpSupport("dnnl", "nn.softmax", [](const CallNode& c) { return AllFloat32(c); });
  registry.RegisterOpSupport("dnnl", "nn.layer_norm", LayerNormSupported);
  registry.RegisterOpSupport("dnnl", "nn.batch_norm", BatchNormSupported);
  for (const char* op :
       {"nn.relu", "sigmoid", "tanh", "exp", "log", "sqrt", "abs", "clip", "nn.gelu"})
    registry.RegisterOpSupport("dnnl", op, [](const CallNode& c) { return AllFloat32(c); });
  for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"})
    registry.RegisterOpSupport("dnnl", op, BinarySupported);
}

}  // namespace tessera
