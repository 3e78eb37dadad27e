// Anchor + bias + sum + activation chains for library pattern tables, and shared checks.
#include "tessera/pattern/library_patterns.h"

#include "tessera/support/error.h"

namespace tessera {

const char* AnchorName(AnchorKind kind) {
  switch (kind) {
    case AnchorKind::kConv2d:
      return "conv2d";
    case AnchorKind::kDense:
      return "dense";
    case AnchorKind::kMatmul:
      return "matmul";
    case AnchorKind::kBatchMatmul:
      return "batch_matmul";
  }
  return "?";
}

std::string ChainLabel(const std::string& prefix, const ChainSpec& spec) {
  std::string label = prefix + "." + AnchorName(spec.anchor);
  if (spec.bias) label += "_bias";
  if (spec.sum) label += "_sum";
  if (!spec.activation.empty()) label += "_" + spec.activation;
  return label;
}

namespace {
const TensorTypeNode* Float32Type(const Type& t) {
  const auto* tt = t.defined() ? t.as<TensorTypeNode>() : nullptr;
  return tt && tt->dtype == DType::kFloat32 ? tt : nullptr;
}
}  // namespace

const TensorTypeNode* Float32Tensor(const Expr& e) {
  return e.defined() ? Float32Type(e->checked_type_or_null()) : nullptr;
}

bool AllFloat32(const CallNode& call) {
  for (const Expr& a : call.args)
    if (!Float32Tensor(a)) return false;
  return Float32Type(call.checked_type_or_null()) != nullptr;
}

int RankOf(const Expr& e) {
  const Type& t = e->checked_type_or_null();
  const auto* tt = t.defined() ? t.as<TensorTypeNode>() : nullptr;
  return tt ? tt->ndim() : -1;
}

bool StringAttrIs(const Attrs& attrs, const std::string& key, const std::string& want) {
  const AttrValue* v = attrs.Find(key);
  return !v || v->is_none() || (v->is_string() && (v->AsString().empty() || v->AsString() == want));
}

namespace {

const char* AnchorOp(AnchorKind kind) {
  switch (kind) {
    case AnchorKind::kConv2d:
      return "nn.conv2d";
    case AnchorKind::kDense:
      return "nn.dense";
    case AnchorKind::kMatmul:
      return "nn.matmul";
    case AnchorKind::kBatchMatmul:
      return "nn.batch_matmul";
  }
  return "";
}

DFPattern Activation(const std::string& name, const DFPattern& x) {
  if (name == "relu") return IsOp("nn.relu")({x});
  if (name == "clip") return IsOp("clip")({x});
  if (name == "gelu") return IsOp("nn.gelu")({x});
  if (name == "sigmoid") return IsOp("sigmoid")({x});
  if (name == "tanh") return IsOp("tanh")({x});
  if (name == "swish") return IsOp("multiply")({x, IsOp("sigmoid")({x})});
  TS_THROW(kValue) << "unknown chain activation '" << name << "'";
}

/// `bias` is a per-channel bias of `out` (channel axis `axis`): 1-D of size C for
/// nn.bias_add on that axis; for add, a constant whose shape, right-aligned to the
/// result, is 1 everywhere except C on the channel axis. A channel-blocked result
/// (NCHW{x}c, `lane_axis` >= 0) has its channels on two axes: the bias is then an add of a
/// constant that is 1 everywhere except on both (C/x, x), as layout planning leaves it.
bool BiasFits(const CallNode& bias_call, const Expr& bias, int channel_axis, int lane_axis) {
  const TensorTypeNode* out = Float32Type(bias_call.checked_type_or_null());
  const TensorTypeNode* b = Float32Tensor(bias);
  if (!out || !b) return false;
  int rank = out->ndim();
  int64_t channels = out->shape[channel_axis];
  if (bias_call.op()->name == "nn.bias_add") {
    int64_t axis = bias_call.attrs.GetInt("axis");
    if (axis < 0) axis += rank;
    return lane_axis < 0 && axis == channel_axis && b->ndim() == 1 && b->shape[0] == channels;
  }
  if (!bias.as<ConstantNode>() || b->ndim() > rank || b->ndim() == 0) return false;
  for (int i = 0; i < b->ndim(); ++i) {
    int axis = rank - b->ndim() + i;
    int64_t want = axis == channel_axis || axis == lane_axis ? out->shape[axis] : 1;
    if (b->shape[i] != want) return false;
  }
  return true;
}

}  // namespace

PatternTableEntry MakeChainEntry(const std::string& prefix, const ChainSpec& spec,
                                 const OpSupportPredicate& anchor_check) {
  DFPattern anchor = IsOp(AnchorOp(spec.anchor))({Wildcard(), Wildcard()});
  DFPattern x = anchor, bias, bias_add, bias_plus, other, sum;
  if (spec.bias) {
    bias = Wildcard();
    bias_add = IsOp("nn.bias_add")({x, bias});
    bias_plus = IsOp("add")({x, bias});
    x = bias_add | bias_plus;
  }
  if (spec.sum) {
    other = Wildcard();
    sum = IsOp("add")({x, other});
    x = sum;
  }
  if (!spec.activation.empty()) x = Activation(spec.activation, x);
  DFPattern pattern = x;
  AnchorKind kind = spec.anchor;
  PatternPredicate predicate = [=](const Expr& root) {
    DFPatternMatcher m;
    if (!m.Match(pattern, root)) return false;
    const auto& map = m.node_map();
    const auto* call = map.at(anchor.get()).as<CallNode>();
    if (!call || !anchor_check(*call)) return false;
    for (const Expr& e : m.internal())
      if (!Float32Tensor(e)) return false;
    int rank = RankOf(map.at(anchor.get()));
    int channel_axis = kind == AnchorKind::kConv2d ? 1 : rank - 1;
    int lane_axis = kind == AnchorKind::kConv2d && rank == 5 ? 4 : -1;  // NCHW{x}c
    if (spec.bias) {
      auto it = map.find(bias_add.get());
      if (it == map.end()) it = map.find(bias_plus.get());
      if (it == map.end()) return false;
      if (!BiasFits(*it->second.as<CallNode>(), map.at(bias.get()), channel_axis, lane_axis))
        return false;
    }
    if (spec.sum) {
      const TensorTypeNode* o = Float32Tensor(map.at(other.get()));
      const TensorTypeNode* r = Float32Tensor(map.at(sum.get()));
      if (!o || !r || o->shape != r->shape) return false;
    }
    return true;
  };
  return {ChainLabel(prefix, spec), pattern, predicate};
}

std::vector<PatternTableEntry> MakeChainEntries(const std::string& prefix, AnchorKind anchor,
                                                const std::vector<std::string>& activations,
                                                bool with_sum, bool with_bare,
                                                const OpSupportPredicate& anchor_check) {
  std::vector<std::string> acts = activations;
  acts.push_back("");
  std::vector<PatternTableEntry> out;
  // Longest first: bias+sum+act, bias+sum, sum+act, sum, bias+act, bias, act, bare.
  for (int sum = with_sum ? 1 : 0; sum >= 0; --sum) {
    for (int bias = 1; bias >= 0; --bias) {
      for (const std::string& act : acts) {
        if (!sum && !bias && act.empty() && !with_bare) continue;
        out.push_back(MakeChainEntry(prefix, {anchor, bias == 1, sum == 1, act}, anchor_check));
      }
    }
  }
  return out;
}

}  // namespace tessera
