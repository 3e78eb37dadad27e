// oneDNN's pattern table and op predicates: what the dnnl backend claims, checked
// against what oneDNN 2.6 really does (float32, NCHW/OIHW convolutions, ...).
#include "tessera/backend/dnnl/dnnl_backend.h"
#include "tessera/pattern/library_patterns.h"

namespace tessera {

namespace {

bool OutDTypeF32(const Attrs& attrs) {
  return StringAttrIs(attrs, "out_dtype", "float32");
}

/// oneDNN convolution: plain NCHW data, OIHW weights, 4-D, float32; any groups
/// (depthwise included), strides, padding and dilation.
bool Conv2dSupported(const CallNode& call) {
  return AllFloat32(call) && RankOf(call.args[0]) == 4 && RankOf(call.args[1]) == 4 &&
         StringAttrIs(call.attrs, "data_layout", "NCHW") &&
         StringAttrIs(call.attrs, "kernel_layout", "OIHW") &&
         StringAttrIs(call.attrs, "out_layout", "NCHW") && OutDTypeF32(call.attrs);
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

/// Pooling on plain NCHW float32 without ceil mode (as TVM's DNNL predicates).
bool PoolSupported(const CallNode& call) {
  const AttrValue* ceil = call.attrs.Find("ceil_mode");
  return AllFloat32(call) && RankOf(call.args[0]) == 4 &&
         StringAttrIs(call.attrs, "layout", "NCHW") &&
         StringAttrIs(call.attrs, "out_layout", "NCHW") &&
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
