// Compute rule of nn.conv2d: one reduction over (in-channel of the group, kh, kw) for any
// data layout (NCHW, NHWC, NCHW16c, ...), kernel layout (OIHW, HWIO, OIHW16i16o, ...),
// groups, strides, padding and dilation; out_dtype widens the operands before the multiply.
// NCHW and NCHW{x}c outputs of enough work get the register-tiled templates.
#include "compute_rules.h"
#include "layout_indices.h"
#include "lower_util.h"
#include "schedule_conv2d.h"
#include "schedule_conv2d_blocked.h"
#include "schedule_conv2d_winograd.h"
#include "tessera/op/layout_2d.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_context.h"

namespace tessera::lower {

using namespace tir;

namespace {

std::vector<int64_t> Pair(const Attrs& attrs, const char* key) {
  std::vector<int64_t> v = attrs.GetInts(key);
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

std::vector<int64_t> Padding4(const Attrs& attrs) {
  std::vector<int64_t> p = attrs.GetInts("padding");
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  return p;
}

/// Multiply-adds below which the naive nest (no scratch copies) is kept.
constexpr int64_t kMinTemplateMacs = 32768;

std::vector<TensorExpr> Conv2D(LowerContext& ctx, const std::vector<TensorExpr>& in,
                               const Attrs& attrs, const Type& out) {
  TensorExpr data = in[0], weight = in[1];
  const std::string& out_text = attrs.GetString("out_layout");
  nn::DataLayout2D DL = nn::ParseDataLayout2D(attrs.GetString("data_layout"), "data_layout");
  nn::DataLayout2D OL = out_text.empty() ? DL : nn::ParseDataLayout2D(out_text, "out_layout");
  nn::KernelLayout2D KL =
      nn::ParseKernelLayout2D(attrs.GetString("kernel_layout"), "kernel_layout");
  const std::vector<int>& K = KL.perm;
  std::vector<int64_t> s = Pair(attrs, "strides"), d = Pair(attrs, "dilation");
  std::vector<int64_t> pad = Padding4(attrs);
  int64_t groups = attrs.GetInt("groups");
  const auto* ot = out.as<TensorTypeNode>();
  const int64_t ob = KL.blocked() ? KL.o_block : 1, ib = KL.blocked() ? KL.i_block : 1;
  int64_t out_c = weight.shape[K[0]] * ob, icpg = weight.shape[K[1]] * ib;
  int64_t kh = weight.shape[K[2]], kw = weight.shape[K[3]];
  int64_t ocpg = out_c / groups;
  int64_t in_h = data.shape[DL.axes.h], in_w = data.shape[DL.axes.w];
  const nn::Layout2D& OA = OL.axes;
  bool padded = pad[0] || pad[1] || pad[2] || pad[3];
  DType dt = ot->dtype;

  auto input_pos = [=](const Indices& i, const Indices& r) {
    PrimExpr ih = Simplify(i[OA.h] * s[0] + r[1] * d[0] + IntImm(-pad[0]));
    PrimExpr iw = Simplify(i[OA.w] * s[1] + r[2] * d[1] + IntImm(-pad[1]));
    return std::make_pair(ih, iw);
  };
  ReduceSpec spec;
  spec.shape = ot->shape;
  spec.dtype = dt;
  spec.reduce_extents = {icpg, kh, kw};
  spec.init = Const(0, dt);
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
    auto [ih, iw] = input_pos(i, r);
    PrimExpr oc = LogicalChannel(OL, i);
    PrimExpr ic = groups == 1 ? r[0] : Simplify(FloorDiv(oc, IntImm(ocpg)) * icpg + r[0]);
    PrimExpr x = data.at(DataIndices(DL, i[OA.n], ic, ih, iw));
    PrimExpr w = weight.at(KernelIndices(KL, oc, r[0], r[1], r[2]));
    if (x->dtype != dt) x = MakeCast(dt, x);
    if (w->dtype != dt) w = MakeCast(dt, w);
    return acc + x * w;
  };
  if (padded)
    spec.predicate = [=](const Indices& i, const Indices& r) {
      auto [ih, iw] = input_pos(i, r);
      return MakeBinary(BinaryOp::kAnd, InRange(ih, in_h), InRange(iw, in_w));
    };
  int64_t macs = ShapeNumElements(ot->shape) * icpg * kh * kw;
  Conv2DShape cs;
  cs.n = data.shape[DL.axes.n];
  cs.oc = out_c;
  cs.oh = ot->shape[OA.h];
  cs.ow = ot->shape[OA.w];
  cs.ic = icpg;
  cs.ih = in_h;
  cs.iw = in_w;
  cs.kh = kh;
  cs.kw = kw;
  cs.stride_h = s[0];
  cs.stride_w = s[1];
  cs.dilation_h = d[0];
  cs.dilation_w = d[1];
  cs.groups = groups;
  cs.pad_top = pad[0];
  cs.pad_left = pad[1];
  cs.pad_bottom = pad[2];
  cs.pad_right = pad[3];
  cs.dtype = dt;
  if (macs < kMinTemplateMacs) {
    // Too little work for the templates' padded-input and packed-weight copies.
  } else if (!DL.blocked() && !OL.blocked() && !KL.blocked() && DL.IsNCHWFamily() &&
             OL.IsNCHWFamily()) {
    // NCHW output: the blocked template replaces the naive nest when the shape fits.
    spec.emit_nest = Conv2DTemplate(cs, data, weight, K);
  } else if (OL.blocked() && DL.IsNCHWFamily()) {
    // A channel-blocked output (NCHW{x}c): the register-tiled NCHWc template.
    if (PassContext::Current().GetConfigBool("native.winograd"))
      spec.emit_nest = WinogradConv2DTemplate(cs, data, DL, weight, KL, OL);
    if (!spec.emit_nest) spec.emit_nest = BlockedConv2DTemplate(cs, data, DL, weight, KL, OL);
  }
  return {ctx.Reduce(spec, "conv2d")};
}

}  // namespace

void RegisterNNConvRules(ComputeRegistry& r) {
  r.Register("nn.conv2d", Conv2D);
}

}  // namespace tessera::lower
