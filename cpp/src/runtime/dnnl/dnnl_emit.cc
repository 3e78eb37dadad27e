// Emitting the oneDNN primitives of a plan: convolution and matmul groups with their
// post-ops, and single ops (pooling, softmax, norms, eltwise, binary).
#include "dnnl_layout.h"
#include "dnnl_plan.h"
#include "dnnl_util.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace tessera::runtime::dnnl_impl {

namespace {

/// Whether oneDNN chose its reference implementation (plain loops, many times slower).
bool IsReference(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

}  // namespace

void DnnlPlan::EmitConv(const Group& g) {
  const LibraryNode& n = g_.nodes[g.anchor];
  const KernelAttrs& a = n.attrs;
  auto layout = [&](const char* key) { return a.Has(key) ? a.GetString(key) : std::string(); };
  std::string data_layout = layout("data_layout"), out_layout = layout("out_layout");
  int64_t in_block = DataBlock(data_layout);
  int64_t out_block = DataBlock(out_layout.empty() ? data_layout : out_layout);
  KernelBlocks kb = ParseKernelBlocks(layout("kernel_layout"));
  if (in_block < 0 || out_block < 0 || !kb.ok)
    TS_THROW(kUnsupported) << "backend 'dnnl': nn.conv2d needs NCHW or NCHW{x}c data and OIHW "
                              "or OIHW{y}i{x}o weights";
  // Any blocked layout: the data is read and written where it is, in the formats the
  // layouts say (nChw{x}c); plain NCHW: oneDNN chooses its formats, reorders at the edges.
  bool blocked = in_block > 0 || out_block > 0 || kb.blocked();
  int src = n.inputs[0], w = n.inputs[1];
  const auto& ws = g_.nodes[w].shape;
  int64_t groups = a.Has("groups") ? a.GetInt("groups") : 1;
  std::vector<int64_t> st = Ints(a, "strides", {1, 1}), dl = Ints(a, "dilation", {1, 1});
  std::vector<int64_t> pad = Pad4(a);
  memory::desc w_user = WeightsDesc(ws, kb, groups);
  memory::desc src_md = blocked ? DataDesc(g_.nodes[src].shape)
                                : memory::desc(Dims(g_.nodes[src].shape), dt::f32, tag::any);
  memory::desc w_any(w_user.dims(), dt::f32, tag::any);
  memory::desc dst = blocked ? DataDesc(g_.nodes[g.out].shape) : DstDesc(g.out);
  memory::dims strides{st[0], st[1]}, dil{dl[0] - 1, dl[1] - 1};
  memory::dims pl{pad[0], pad[1]}, pr{pad[2], pad[3]};
  int64_t channels = dst.dims()[1];
  std::vector<int> sums;
  std::vector<std::pair<int, int>> residuals;
  dnnl::primitive_attr attr = UserScratchpad();
  // Blocked: a residual is a binary add read in place (a sum post-op needs it copied into
  // the destination first, a reorder on every run).
  attr.set_post_ops(MakePostOps(g, &sums, blocked ? &dst : nullptr, &residuals));
  auto make = [&](const memory::desc& s, const memory::desc& d) {
    if (g.bias >= 0)
      return dnnl::convolution_forward::primitive_desc(
          {dnnl::prop_kind::forward_inference, algorithm::convolution_direct, s, w_any,
           memory::desc({channels}, dt::f32, tag::a), d, strides, dil, pl, pr},
          attr, eng_);
    return dnnl::convolution_forward::primitive_desc(
        {dnnl::prop_kind::forward_inference, algorithm::convolution_direct, s, w_any, d, strides,
         dil, pl, pr},
        attr, eng_);
  };
  dnnl::convolution_forward::primitive_desc pd = make(src_md, dst);
  if (blocked && IsReference(pd)) {
    // No fast kernel takes these formats (nChw8c data into nChw16c results, say): one
    // reorder of the data (then of the result) costs less than oneDNN's reference loops.
    memory::desc src_any(src_md.dims(), dt::f32, tag::any);
    pd = make(src_any, dst);
    if (IsReference(pd)) pd = make(src_any, memory::desc(dst.dims(), dt::f32, tag::any));
    LogDebug(std::string("dnnl: nn.conv2d in ") + TagName(src_md) + " -> " + TagName(dst) +
             " has no fast kernel; runs " + pd.impl_info_str() + " with reorders");
  }
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = Get(src, pd.src_desc());
  args[DNNL_ARG_WEIGHTS] = ConvWeights(w, w_user, pd.weights_desc());
  if (g.bias >= 0) {
    // A bias of C values, or a blocked (C/x, 1, 1, x) one: the same bytes in channel order.
    memory b = Get(g.bias);
    args[DNNL_ARG_BIAS] =
        memory(memory::desc({channels}, dt::f32, tag::a), eng_, b.get_data_handle());
  }
  memory out = Define(g.out, pd.dst_desc());
  for (int s : sums) {  // (plain NCHW only: blocked residuals are binary post-ops)
    memory r = Get(s);
    steps_.push_back({dnnl::reorder(r, out, UserScratchpad()),
                      {{DNNL_ARG_FROM, r}, {DNNL_ARG_TO, out}},
                      "residual into conv2d dst"});
  }
  for (auto [index, node] : residuals)
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1] = Get(node, dst);
  args[DNNL_ARG_DST] = out;
  steps_.push_back({dnnl::convolution_forward(pd), std::move(args), "conv2d"});
}

memory DnnlPlan::ConvWeights(int w, const memory::desc& user, const memory::desc& want) {
  // The node's plain bytes, described as the kernel layout says (OIHW as goihw when grouped,
  // OIHW{y}i{x}o as OIhw{y}i{x}o or Goihw{x}g).
  memory plain = Get(w, PlainDesc(w));
  memory view = Alias(plain, user);
  if (user == want) return view;
  memory out(want, eng_);
  if (g_.nodes[w].kind == LibraryNode::Kind::kConstant) {
    dnnl::reorder(view, out).execute(stream_, view, out);  // once, here
    stream_.wait();
  } else {
    steps_.push_back({dnnl::reorder(view, out, UserScratchpad()),
                      {{DNNL_ARG_FROM, view}, {DNNL_ARG_TO, out}},
                      "reorder weights"});
  }
  return out;
}

void DnnlPlan::EmitMatmul(const Group& g) {
  // dense / matmul / batch_matmul as one oneDNN matmul of rank r = the result's rank;
  // transposes are strided views, weights' batch dims of 1 broadcast.
  const LibraryNode& n = g_.nodes[g.anchor];
  int a = n.inputs[0], b = n.inputs[1];
  const auto& as = g_.nodes[a].shape;
  const auto& bs = g_.nodes[b].shape;
  size_t r = n.shape.size();
  if (r < 2) TS_THROW(kUnsupported) << "backend 'dnnl': " << n.op << " needs a result of rank >= 2";
  int64_t N = n.shape[r - 1];
  bool ta = false, tb = false;
  int64_t K = 0;
  memory::dims src_dims(n.shape.begin(), n.shape.end()), w_dims(r, 1);
  if (n.op == "nn.dense") {
    K = as.back();
    tb = true;
  } else if (n.op == "nn.matmul") {
    ta = Bool(n.attrs, "transpose_a", false);
    tb = Bool(n.attrs, "transpose_b", false);
    K = tb ? bs[1] : bs[0];
  } else {
    ta = Bool(n.attrs, "transpose_a", false);
    tb = Bool(n.attrs, "transpose_b", true);
    K = ta ? as[as.size() - 2] : as.back();
    w_dims[0] = bs[0];
    src_dims[0] = as[0];
  }
  src_dims[r - 1] = K;
  w_dims[r - 2] = K;
  w_dims[r - 1] = N;
  // Strides of the logical [.., M, K] / [.., K, N] views over the row-major inputs.
  auto view_strides = [](const memory::dims& d, bool trans) {
    size_t k = d.size();
    memory::dims phys = d;
    if (trans) std::swap(phys[k - 1], phys[k - 2]);
    memory::dims s = RowMajorStrides(phys);
    if (trans) std::swap(s[k - 1], s[k - 2]);
    return s;
  };
  // The views below describe the operands' bytes by the result's dims: they must be the
  // operands' own sizes, or a damaged partition would be read past its arrays.
  auto count = [](const memory::dims& d) {
    int64_t p = 1;
    for (int64_t x : d) p *= x;
    return p;
  };
  if (ShapeNumElements(as) != count(src_dims) || ShapeNumElements(bs) != count(w_dims))
    TS_THROW(kValue) << "backend 'dnnl': " << n.op << " operands " << ShapeToString(as) << " x "
                     << ShapeToString(bs) << " do not fit its result " << ShapeToString(n.shape);
  memory::desc src_view(src_dims, dt::f32, view_strides(src_dims, ta));
  memory::desc w_view(w_dims, dt::f32, view_strides(w_dims, tb));
  bool const_w = g_.nodes[b].kind == LibraryNode::Kind::kConstant;
  memory::desc w_md = const_w ? memory::desc(w_dims, dt::f32, tag::any) : w_view;
  memory::desc dst = Plain(Dims(n.shape));
  std::vector<int> sums;
  dnnl::primitive_attr attr = UserScratchpad();
  attr.set_post_ops(MakePostOps(g, &sums));
  dnnl::matmul::primitive_desc pd;
  memory::dims bias_dims(r, 1);
  bias_dims[r - 1] = N;
  if (g.bias >= 0)
    pd = {{src_view, w_md, memory::desc(bias_dims, dt::f32, RowMajorStrides(bias_dims)), dst},
          attr,
          eng_};
  else
    pd = {{src_view, w_md, dst}, attr, eng_};
  std::unordered_map<int, memory> args;
  args[DNNL_ARG_SRC] = View(a, src_view);
  memory wv = View(b, w_view);
  if (const_w && wv.get_desc() != pd.weights_desc()) {
    memory out(pd.weights_desc(), eng_);
    dnnl::reorder(wv, out).execute(stream_, wv, out);  // once, at load
    stream_.wait();
    wv = out;
  }
  args[DNNL_ARG_WEIGHTS] = wv;
  if (g.bias >= 0)
    args[DNNL_ARG_BIAS] = memory(pd.bias_desc(), eng_, Get(g.bias).get_data_handle());
  memory out = Define(g.out, pd.dst_desc());
  for (int s : sums) {
    memory res = Get(s);
    steps_.push_back({dnnl::reorder(res, out, UserScratchpad()),
                      {{DNNL_ARG_FROM, res}, {DNNL_ARG_TO, out}},
                      "residual into matmul dst"});
  }
  args[DNNL_ARG_DST] = out;
  steps_.push_back({dnnl::matmul(pd), std::move(args), n.op});
}

namespace {

/// A binary op on 5-D NCHW{x}c tensors as oneDNN's logical 4-D one in nChw{x}c, when the
/// second operand `yd` has all the channels, (.., C/x, .., x): a per-channel constant or a
/// whole tensor. As plain 5-D, a per-channel broadcast over axes 1 and 4 falls to oneDNN's
/// reference kernel; blocked, it is the fast per-channel case. (Broadcasts across channels,
/// a scalar say, stay plain 5-D, which oneDNN runs fast: in nChw{x}c a one-channel operand
/// would be padded to x channels, more bytes than it has.)
void BlockedBinary(const memory::dims& od, const memory::dims& yd, memory::desc* x_md,
                   memory::desc* y_md, memory::desc* o_md) {
  if (od.size() != 5 || yd[4] != od[4] || yd[1] != od[1]) return;
  *y_md = DataDesc(std::vector<int64_t>(yd.begin(), yd.end()));
  *x_md = DataDesc(std::vector<int64_t>(od.begin(), od.end()));
  *o_md = *x_md;
}

}  // namespace

void DnnlPlan::EmitSingle(int id) {
  const LibraryNode& n = g_.nodes[id];
  const KernelAttrs& a = n.attrs;
  auto fwd = dnnl::prop_kind::forward_inference;
  algorithm alg;
  float alpha, beta;
  bool commutative;
  if (n.inputs.size() == 1 && EltwiseOf(n, &alg, &alpha, &beta)) {
    memory src = Get(n.inputs[0]);
    memory::desc dst_md = IsOutput(id) ? PlainDesc(id) : src.get_desc();
    if (dst_md != src.get_desc()) src = Get(n.inputs[0], dst_md);
    dnnl::eltwise_forward::primitive_desc pd({fwd, alg, src.get_desc(), alpha, beta},
                                               UserScratchpad(), eng_);
    memory out = Define(id, pd.dst_desc());
    steps_.push_back({dnnl::eltwise_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, out}}, n.op});
    return;
  }
  if (n.inputs.size() == 2 && (BinaryOf(n.op, &alg, &commutative) || n.op == "nn.bias_add")) {
    int x = n.inputs[0], y = n.inputs[1];
    memory::dims xd = Dims(g_.nodes[x].shape), yd = Dims(g_.nodes[y].shape);
    memory::dims od = Dims(n.shape);
    if (n.op == "nn.bias_add") {
      alg = algorithm::binary_add;
      int64_t axis = a.Has("axis") ? a.GetInt("axis") : 1;
      if (axis < 0) axis += static_cast<int64_t>(od.size());
      yd = memory::dims(od.size(), 1);
      yd[axis] = od[axis];
    } else {
      xd = AlignRank(xd, od.size());
      yd = AlignRank(yd, od.size());
      if (xd != od && yd == od && commutative) {
        std::swap(x, y);
        std::swap(xd, yd);
      }
    }
    if (xd != od)
      TS_THROW(kUnsupported) << "backend 'dnnl': " << n.op
                             << " broadcasts its first input, which oneDNN binary cannot";
    memory::desc x_md = Plain(xd), y_md = Plain(yd), o_md = Plain(od);
    BlockedBinary(od, yd, &x_md, &y_md, &o_md);
    memory xm = View(x, x_md);
    memory ym = View(y, y_md);
    dnnl::binary::primitive_desc pd({alg, x_md, y_md, o_md}, UserScratchpad(), eng_);
    memory out = Define(id, pd.dst_desc());
    steps_.push_back({dnnl::binary(pd),
                      {{DNNL_ARG_SRC_0, xm}, {DNNL_ARG_SRC_1, ym}, {DNNL_ARG_DST, out}},
                      n.op});
    return;
  }
  if (n.op == "layout_transform") {
    // NCHW <-> NCHW{x}c: the same logical tensor, so no primitive here; the result is the
    // input's memory as 4-D logical NCHW, and whoever reads it in another format reorders
    // (once: the result's reorders are cached like any node's).
    if (DataBlock(a.Has("src_layout") ? a.GetString("src_layout") : "x") < 0 ||
        DataBlock(a.Has("dst_layout") ? a.GetString("dst_layout") : "x") < 0)
      TS_THROW(kUnsupported) << "backend 'dnnl': layout_transform needs src_layout and "
                                "dst_layout, NCHW or NCHW{x}c";
    int in = n.inputs[0];
    memory m = Get(in);
    if (m.get_desc().dims().size() == 5) m = Get(in, DataDesc(g_.nodes[in].shape));
    mem_[id] = m;
    return;
  }
  auto block_of = [&](const char* key) {
    int64_t x = DataBlock(a.Has(key) ? a.GetString(key) : "");
    if (x < 0)
      TS_THROW(kUnsupported) << "backend 'dnnl': " << n.op << " supports NCHW and NCHW{x}c only";
    return x;
  };
  bool global = n.op == "nn.global_avg_pool2d" || n.op == "nn.global_max_pool2d";
  if (n.op == "nn.max_pool2d" || n.op == "nn.avg_pool2d" || global) {
    // Blocked (NCHW{x}c): read and written in place as nChw{x}c.
    bool blocked = block_of("layout") > 0 || block_of("out_layout") > 0;
    const auto& is = g_.nodes[n.inputs[0]].shape;
    if (is.size() != (blocked ? 5u : 4u))
      TS_THROW(kUnsupported) << "backend 'dnnl': " << n.op << " needs 4-D data (5-D blocked)";
    std::vector<int64_t> k =
        global ? std::vector<int64_t>{is[2], is[3]} : Ints(a, "pool_size", {1, 1});
    std::vector<int64_t> st = global ? std::vector<int64_t>{1, 1} : Ints(a, "strides", {1, 1});
    std::vector<int64_t> dl = global ? std::vector<int64_t>{1, 1} : Ints(a, "dilation", {1, 1});
    std::vector<int64_t> pad = global ? std::vector<int64_t>{0, 0, 0, 0} : Pad4(a);
    // ceil_mode: extra bottom/right padding so oneDNN's floor formula gives the result size.
    for (int d = 0; d < 2; ++d) {
      int64_t need = (n.shape[2 + d] - 1) * st[d] + (k[d] - 1) * dl[d] + 1 - is[2 + d] - pad[d];
      if (need > pad[2 + d]) pad[2 + d] = need;
    }
    bool max = n.op == "nn.max_pool2d" || n.op == "nn.global_max_pool2d";
    alg = max ? algorithm::pooling_max
              : (Bool(a, "count_include_pad", false) ? algorithm::pooling_avg_include_padding
                                                     : algorithm::pooling_avg_exclude_padding);
    memory src = blocked ? Get(n.inputs[0], DataDesc(is)) : Get(n.inputs[0]);
    memory::desc dst_md =
        blocked ? DataDesc(n.shape) : memory::desc(Dims(n.shape), dt::f32, tag::any);
    dnnl::pooling_v2_forward::primitive_desc pd({fwd,
                                                 alg,
                                                 src.get_desc(),
                                                 dst_md,
                                                 {st[0], st[1]},
                                                 {k[0], k[1]},
                                                 {dl[0] - 1, dl[1] - 1},
                                                 {pad[0], pad[1]},
                                                 {pad[2], pad[3]}},
                                                UserScratchpad(), eng_);
    memory out = Define(id, pd.dst_desc());
    steps_.push_back(
        {dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, out}}, n.op});
    return;
  }
  int rank = static_cast<int>(n.shape.size());
  auto axis_of = [&](int64_t def) {
    int64_t ax = a.Has("axis") ? a.GetInt("axis") : def;
    return ax < 0 ? ax + rank : ax;
  };
  if (n.op == "nn.softmax") {
    memory src = Get(n.inputs[0], PlainDesc(n.inputs[0]));
    dnnl::softmax_forward::primitive_desc pd({fwd, src.get_desc(), static_cast<int>(axis_of(-1))},
                                             UserScratchpad(), eng_);
    memory out = Define(id, pd.dst_desc());
    steps_.push_back({dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, out}}, n.op});
    return;
  }
  if (n.op == "nn.layer_norm" || n.op == "nn.batch_norm") {
    bool ln = n.op == "nn.layer_norm";
    if (ln && axis_of(-1) != rank - 1)
      TS_THROW(kUnsupported) << "backend 'dnnl': nn.layer_norm normalises the last axis only";
    if (!ln && axis_of(1) != 1)
      TS_THROW(kUnsupported) << "backend 'dnnl': nn.batch_norm needs axis 1";
    float eps = static_cast<float>(a.Has("epsilon") ? a.GetFloat("epsilon") : 1e-5);
    auto flags = dnnl::normalization_flags::none;
    bool scale = Bool(a, "scale", true), center = Bool(a, "center", true);
    if (scale) flags |= dnnl::normalization_flags::use_scale;
    if (center) flags |= dnnl::normalization_flags::use_shift;
    if (!ln) flags |= dnnl::normalization_flags::use_global_stats;
    memory src = ln ? Get(n.inputs[0], PlainDesc(n.inputs[0])) : Get(n.inputs[0]);
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = src;
    auto vec = [&](int input) {
      return View(n.inputs[input], Plain({n.shape[ln ? rank - 1 : 1]}));
    };
    if (scale) args[DNNL_ARG_SCALE] = vec(1);
    if (center) args[DNNL_ARG_SHIFT] = vec(2);
    memory out;
    if (ln) {
      dnnl::layer_normalization_forward::primitive_desc pd({fwd, src.get_desc(), eps, flags},
                                                            UserScratchpad(), eng_);
      out = Define(id, pd.dst_desc());
      args[DNNL_ARG_DST] = out;
      steps_.push_back({dnnl::layer_normalization_forward(pd), std::move(args), n.op});
    } else {
      dnnl::batch_normalization_forward::primitive_desc pd({fwd, src.get_desc(), eps, flags},
                                                            UserScratchpad(), eng_);
      args[DNNL_ARG_MEAN] = vec(3);
      args[DNNL_ARG_VARIANCE] = vec(4);
      out = Define(id, pd.dst_desc());
      args[DNNL_ARG_DST] = out;
      steps_.push_back({dnnl::batch_normalization_forward(pd), std::move(args), n.op});
    }
    return;
  }
  TS_THROW(kUnsupported) << "backend 'dnnl' cannot run op '" << n.op << "'";
}

}  // namespace tessera::runtime::dnnl_impl
