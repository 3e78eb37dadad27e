// A oneDNN plan from a library graph: anchor ops (conv2d, dense, matmul, batch_matmul)
// grouped with bias and post-ops, memories and reorders only where needed, and running
// (the primitives themselves are emitted in dnnl_emit.cc).
#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>

#include "dnnl_layout.h"
#include "dnnl_plan.h"
#include "dnnl_util.h"
#include "tessera/support/error.h"

namespace tessera::runtime::dnnl_impl {

DnnlPlan::DnnlPlan(const LibraryGraph& graph)
    : g_(graph), eng_(dnnl::engine::kind::cpu, 0), stream_(eng_) {
  alt_.resize(g_.nodes.size());
  try {
    Compile();
    AttachScratchpad();
  } catch (const dnnl::error& e) {
    TS_THROW(kUnsupported) << "backend 'dnnl': oneDNN rejected the partition: " << e.what();
  }
}

void DnnlPlan::AttachScratchpad() {
  // Steps run one after another, so one buffer of the largest size serves them all.
  size_t bytes = 0;
  std::vector<memory::desc> descs;
  for (const Step& s : steps_) {
    const dnnl_memory_desc_t* md =
        dnnl_primitive_desc_query_md(s.prim.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
    descs.push_back(md ? memory::desc(*md) : memory::desc());
    bytes = std::max(bytes, descs.back().get_size());
  }
  if (bytes == 0) return;
  scratchpad_ = memory(memory::desc({static_cast<memory::dim>(bytes)}, dt::u8, tag::a), eng_);
  for (size_t i = 0; i < steps_.size(); ++i)
    if (descs[i].get_size() > 0)
      steps_[i].args[DNNL_ARG_SCRATCHPAD] = memory(descs[i], eng_, scratchpad_.get_data_handle());
}

bool DnnlPlan::IsOutput(int node) const {
  for (int o : g_.outputs)
    if (o == node) return true;
  return false;
}

memory::desc DnnlPlan::PlainDesc(int node) const {
  return Plain(Dims(g_.nodes[node].shape));
}

memory::desc DnnlPlan::DstDesc(int node) const {
  if (IsOutput(node)) return PlainDesc(node);
  return memory::desc(Dims(g_.nodes[node].shape), dt::f32, tag::any);
}

memory DnnlPlan::Get(int node) {
  auto it = mem_.find(node);
  if (it != mem_.end()) return it->second;
  const LibraryNode& n = g_.nodes[node];
  memory m;
  if (n.kind == LibraryNode::Kind::kParam) {
    m = memory(PlainDesc(node), eng_, DNNL_MEMORY_NONE);
    bind_.emplace_back(n.param, m);
  } else if (n.kind == LibraryNode::Kind::kConstant) {
    m = memory(PlainDesc(node), eng_, n.data.data());
  } else {
    TS_THROW(kInternal) << "dnnl: node " << node << " (" << n.op << ") used before it is computed";
  }
  mem_[node] = m;
  return m;
}

std::string DnnlPlan::NodeName(int node) const {
  const LibraryNode& n = g_.nodes[node];
  if (n.kind == LibraryNode::Kind::kParam) return "parameter " + std::to_string(n.param);
  if (n.kind == LibraryNode::Kind::kConstant) return "a constant";
  return n.op;
}

bool DnnlPlan::SameBytes(int node, const memory::desc& a, const memory::desc& b) const {
  if (a == b) return true;
  const std::vector<int64_t>& shape = g_.nodes[node].shape;
  if (shape.size() != 5) return false;
  memory::desc plain = PlainDesc(node), blocked = DataDesc(shape);
  return (a == plain && b == blocked) || (a == blocked && b == plain);
}

memory DnnlPlan::Alias(const memory& base, const memory::desc& desc) {
  memory view(desc, eng_, base.get_data_handle());
  for (size_t i = 0, n = bind_.size(); i < n; ++i)
    if (bind_[i].second.get() == base.get()) {
      bind_.emplace_back(bind_[i].first, view);
      break;
    }
  return view;
}

memory DnnlPlan::Get(int node, const memory::desc& desc) {
  memory base = Get(node);
  if (base.get_desc() == desc) return base;
  for (auto& [d, m] : alt_[node])
    if (d == desc) return m;
  memory out;
  const std::vector<int64_t>& shape = g_.nodes[node].shape;
  if (SameBytes(node, base.get_desc(), desc)) {
    // A blocked tensor seen as 5-D plain or as nChw{x}c: the same bytes, no reorder.
    out = Alias(base, desc);
    alt_[node].emplace_back(desc, out);
    return out;
  }
  if (shape.size() == 5 && base.get_desc().dims().size() != desc.dims().size()) {
    // Between a 5-D blocked tensor's plain bytes and a 4-D format, oneDNN reorders only
    // by the logical dims: through the tensor's nChw{x}c view, an alias of its bytes.
    memory logical = Get(node, DataDesc(shape));
    if (desc.dims().size() == 4) {
      base = logical;
      if (base.get_desc() == desc) return base;
    } else {
      if (desc != PlainDesc(node))
        TS_THROW(kInternal) << "dnnl: node " << node << " wanted in a 5-D format other than plain";
      out = Alias(logical, desc);
      alt_[node].emplace_back(desc, out);
      return out;
    }
  }
  if (g_.nodes[node].kind == LibraryNode::Kind::kConstant) {
    // Weights and other constants are reordered once, here.
    out = memory(desc, eng_);
    dnnl::reorder(base, out).execute(stream_, base, out);
    stream_.wait();
  } else {
    out = memory(desc, eng_);
    steps_.push_back({dnnl::reorder(base, out, UserScratchpad()),
                      {{DNNL_ARG_FROM, base}, {DNNL_ARG_TO, out}},
                      "reorder of " + NodeName(node)});
  }
  alt_[node].emplace_back(desc, out);
  return out;
}

memory DnnlPlan::Define(int node, const memory::desc& desc) {
  memory m;
  if (IsOutput(node) && SameBytes(node, desc, PlainDesc(node))) {
    m = memory(desc, eng_, DNNL_MEMORY_NONE);
    for (size_t j = 0; j < g_.outputs.size(); ++j)
      if (g_.outputs[j] == node) {
        bind_.emplace_back(g_.num_params + static_cast<int>(j), m);
        break;
      }
  } else {
    m = memory(desc, eng_);  // allocated once, for the plan's lifetime
  }
  mem_[node] = m;
  return m;
}

dnnl::post_ops DnnlPlan::MakePostOps(const Group& g, std::vector<int>* sum_srcs,
                                     const memory::desc* residual_md,
                                     std::vector<std::pair<int, int>>* binary_srcs) {
  dnnl::post_ops po;
  for (const PostOp& p : g.post) {
    if (p.sum_src >= 0 && residual_md) {
      binary_srcs->emplace_back(po.len(), p.sum_src);
      po.append_binary(algorithm::binary_add, *residual_md);
    } else if (p.sum_src >= 0) {
      po.append_sum(1.f);
      sum_srcs->push_back(p.sum_src);
    } else {
      po.append_eltwise(1.f, p.alg, p.alpha, p.beta);
    }
  }
  return po;
}

size_t DnnlPlan::num_run_reorders() const {
  size_t n = 0;
  for (const Step& s : steps_) n += s.prim.get_kind() == dnnl::primitive::kind::reorder;
  return n;
}

bool DnnlPlan::TryFuse(Group& g, int id, std::vector<bool>& consumed) {
  const LibraryNode& n = g_.nodes[id];
  const LibraryNode& cur = g_.nodes[g.out];
  bool first = !n.inputs.empty() && n.inputs[0] == g.out;
  bool second = n.inputs.size() == 2 && n.inputs[1] == g.out;
  if (!first && !second) return false;
  const LibraryNode& anchor = g_.nodes[g.anchor];
  bool conv = anchor.op == "nn.conv2d";
  int rank = static_cast<int>(anchor.shape.size());
  // A blocked (NCHW{x}c) result has its channels on axes 1 and 4.
  bool blocked = conv && rank == 5;
  int64_t channels =
      conv ? (blocked ? anchor.shape[1] * anchor.shape[4] : anchor.shape[1]) : anchor.shape.back();
  // swish: multiply(x, sigmoid(x)) with x used by exactly those two.
  if (n.op == "sigmoid" && first && cur.uses == 2) {
    for (size_t j = id + 1; j < g_.nodes.size(); ++j) {
      const LibraryNode& m = g_.nodes[j];
      if (m.kind == LibraryNode::Kind::kOp && m.op == "multiply" && m.inputs.size() == 2 &&
          ((m.inputs[0] == g.out && m.inputs[1] == id) ||
           (m.inputs[1] == g.out && m.inputs[0] == id)) &&
          n.uses == 1) {
        g.post.push_back({algorithm::eltwise_swish, 1.f, 0.f, -1});
        consumed[j] = true;
        g.out = static_cast<int>(j);
        return true;
      }
    }
    return false;
  }
  if (cur.uses != 1) return false;
  if (first && g.bias < 0 && g.post.empty() && n.inputs.size() == 2 &&
      g_.nodes[n.inputs[1]].kind == LibraryNode::Kind::kConstant) {
    const LibraryNode& b = g_.nodes[n.inputs[1]];
    int64_t numel = ShapeNumElements(b.shape);
    bool ok = false;
    if (n.op == "nn.bias_add") {
      int64_t axis = n.attrs.Has("axis") ? n.attrs.GetInt("axis") : 1;
      if (axis < 0) axis += rank;
      ok = numel == channels && axis == (conv ? 1 : rank - 1);
    } else if (n.op == "add" && numel == channels && b.shape.size() <= static_cast<size_t>(rank)) {
      // A constant broadcast along the channel axis (conv) or the last axis; blocked, along
      // both channel axes, (1, C/x, 1, 1, x): its bytes are the C values in channel order.
      memory::dims d = AlignRank(Dims(b.shape), rank);
      ok = blocked ? d[1] == anchor.shape[1] && d[4] == anchor.shape[4]
                   : d[conv ? 1 : rank - 1] == channels;
    }
    if (ok) {
      g.bias = n.inputs[1];
      g.out = id;
      return true;
    }
  }
  algorithm alg;
  float alpha, beta;
  if (first && n.inputs.size() == 1 && EltwiseOf(n, &alg, &alpha, &beta)) {
    g.post.push_back({alg, alpha, beta, -1});
    g.out = id;
    return true;
  }
  if (n.op == "add" && n.inputs.size() == 2) {
    int other = first ? n.inputs[1] : n.inputs[0];
    if (other != g.out && g_.nodes[other].shape == n.shape && n.shape == cur.shape &&
        g_.nodes[other].kind != LibraryNode::Kind::kConstant) {
      g.post.push_back({algorithm::undef, 0.f, 0.f, other});  // residual: oneDNN sum
      g.out = id;
      return true;
    }
  }
  return false;
}

namespace {

/// Checks what the emitters read of op node `id` (inputs, ranks, attribute lengths, axes),
/// so that a partition read from a damaged file is a value error (the loader reports a
/// damaged file), never an out-of-bounds read.
void CheckNode(const LibraryGraph& g, int id) {
  const LibraryNode& n = g.nodes[static_cast<size_t>(id)];
// The error this check throws, naming the node.
#define TS_NODE_FAIL TS_THROW(kValue) << "backend 'dnnl': node " << id << " (" << n.op << "): "
  auto inputs = [&](size_t k) {
    if (n.inputs.size() < k) TS_NODE_FAIL << "has " << n.inputs.size() << " input(s), needs " << k;
  };
  auto rank_of = [&](int node) { return g.nodes[static_cast<size_t>(node)].shape.size(); };
  auto rank = [&](int node, size_t lo, size_t hi) {
    size_t r = node == id ? n.shape.size() : rank_of(node);
    if (r < lo || r > hi) TS_NODE_FAIL << "a value of rank " << r << " where " << lo << ".." << hi << " fits";
  };
  auto list = [&](const char* key, std::initializer_list<size_t> sizes) {
    if (!n.attrs.Has(key)) return;
    size_t k = n.attrs.GetInts(key).size();
    if (std::find(sizes.begin(), sizes.end(), k) == sizes.end())
      TS_NODE_FAIL << "attribute '" << key << "' has " << k << " value(s)";
  };
  // A value in data layout `layout` (when the module knows it): 4-D NCHW, or 5-D NCHW{x}c
  // with x lanes, so that its descs cover exactly its bytes.
  auto data_block = [&](int node, const std::string& layout) {
    const std::vector<int64_t>& s = node == id ? n.shape : g.nodes[static_cast<size_t>(node)].shape;
    int64_t x = DataBlock(layout);
    if (x >= 0 && (s.size() != (x > 0 ? 5u : 4u) || (x > 0 && s[4] != x)))
      TS_NODE_FAIL << "a value of shape " << ShapeToString(s) << " is not in layout '" << layout
                   << "'";
  };
  inputs(1);
  if (n.attrs.Has("axis")) {
    int64_t axis = n.attrs.GetInt("axis"), r = static_cast<int64_t>(n.shape.size());
    if (axis < -r || axis >= r) TS_NODE_FAIL << "axis " << axis << " is out of range for rank " << r;
  }
  const std::string& op = n.op;
  if (op == "nn.conv2d") {
    inputs(2);
    rank(n.inputs[0], 4, 5), rank(n.inputs[1], 4, 6), rank(id, 4, 5);
    list("strides", {2}), list("dilation", {2}), list("padding", {1, 2, 4});
    std::string data = n.attrs.Has("data_layout") ? n.attrs.GetString("data_layout") : "";
    std::string out = n.attrs.Has("out_layout") ? n.attrs.GetString("out_layout") : "";
    data_block(n.inputs[0], data), data_block(id, out.empty() ? data : out);
    const std::vector<int64_t>& ws = g.nodes[static_cast<size_t>(n.inputs[1])].shape;
    KernelBlocks kb =
        ParseKernelBlocks(n.attrs.Has("kernel_layout") ? n.attrs.GetString("kernel_layout") : "");
    if (kb.ok && (ws.size() != (kb.blocked() ? 6u : 4u) ||
                  (kb.blocked() && (ws[4] != kb.i || ws[5] != kb.o))))
      TS_NODE_FAIL << "weights of shape " << ShapeToString(ws) << " are not in its kernel layout";
    int64_t groups = n.attrs.Has("groups") ? n.attrs.GetInt("groups") : 1;
    int64_t out_channels = ws[0] * (ws.size() == 6 ? ws[5] : 1);
    if (groups < 1 || out_channels % groups != 0)
      TS_NODE_FAIL << "groups " << groups << " do not divide the output channels";
  } else if (op == "nn.max_pool2d" || op == "nn.avg_pool2d" || op == "nn.global_avg_pool2d" ||
             op == "nn.global_max_pool2d") {
    rank(n.inputs[0], 4, 5), rank(id, 4, 5);
    std::string layout = n.attrs.Has("layout") ? n.attrs.GetString("layout") : "";
    std::string out = n.attrs.Has("out_layout") ? n.attrs.GetString("out_layout") : "";
    data_block(n.inputs[0], layout), data_block(id, out.empty() ? layout : out);
    list("pool_size", {2}), list("strides", {2}), list("dilation", {2}), list("padding", {1, 2, 4});
  } else if (op == "layout_transform") {
    rank(n.inputs[0], 4, 5), rank(id, 4, 5);
    std::string src = n.attrs.Has("src_layout") ? n.attrs.GetString("src_layout") : "";
    std::string dst = n.attrs.Has("dst_layout") ? n.attrs.GetString("dst_layout") : "";
    data_block(n.inputs[0], src), data_block(id, dst);
    if (LogicalNCHW(g.nodes[static_cast<size_t>(n.inputs[0])].shape) != LogicalNCHW(n.shape))
      TS_NODE_FAIL << "converts between tensors of other logical shapes";
  } else if (op == "nn.dense" || op == "nn.matmul" || op == "nn.batch_matmul") {
    inputs(2);
    rank(n.inputs[0], 2, 8), rank(n.inputs[1], 2, 8), rank(id, 2, 8);
  } else if (op == "nn.layer_norm" || op == "nn.batch_norm") {
    inputs(3);
    rank(id, op == "nn.batch_norm" ? 2 : 1, 8);
  } else if (op == "nn.bias_add" || op == "add" || op == "subtract" || op == "multiply" ||
             op == "divide" || op == "maximum" || op == "minimum") {
    inputs(2);
  }
}
#undef TS_NODE_FAIL

}  // namespace

void DnnlPlan::Compile() {
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    // Memories are described as f32: any other element size would be read past its end.
    if (g_.nodes[i].dtype != DType::kFloat32)
      TS_THROW(kValue) << "backend 'dnnl': node " << i << " is " << DTypeName(g_.nodes[i].dtype)
                       << "; the module runs float32 only";
    if (g_.nodes[i].kind == LibraryNode::Kind::kOp) CheckNode(g_, static_cast<int>(i));
  }
  std::vector<bool> consumed(g_.nodes.size(), false);
  Group open;
  auto close = [&] {
    if (open.anchor >= 0) EmitGroup(open);
    open = Group();
  };
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const LibraryNode& n = g_.nodes[i];
    int id = static_cast<int>(i);
    if (n.kind != LibraryNode::Kind::kOp || consumed[i]) continue;
    if (open.anchor >= 0 && TryFuse(open, id, consumed)) continue;
    close();
    if (IsAnchor(n.op)) {
      open.anchor = open.out = id;
      continue;
    }
    EmitSingle(id);
  }
  close();
  for (size_t j = 0; j < g_.outputs.size(); ++j) {
    int node = g_.outputs[j];
    if (g_.nodes[node].kind != LibraryNode::Kind::kOp)
      TS_THROW(kUnsupported) << "backend 'dnnl': partition result " << j
                             << " must be computed inside the partition";
    bool bound = false;
    for (auto& [idx, m] : bind_)
      if (idx == g_.num_params + static_cast<int>(j)) bound = true;
    if (bound) continue;
    // A result in a blocked format (or repeated): reorder into the caller's buffer.
    memory src = Get(node);
    // A blocked result computed in another 4-D format goes out as its nChw{x}c view.
    bool logical = g_.nodes[node].shape.size() == 5 && src.get_desc().dims().size() == 4;
    memory dst(logical ? DataDesc(g_.nodes[node].shape) : PlainDesc(node), eng_, DNNL_MEMORY_NONE);
    bind_.emplace_back(g_.num_params + static_cast<int>(j), dst);
    steps_.push_back({dnnl::reorder(src, dst, UserScratchpad()),
                      {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}},
                      "reorder of " + NodeName(node) + " into the result"});
  }
}

void DnnlPlan::EmitGroup(const Group& g) {
  if (g_.nodes[g.anchor].op == "nn.conv2d")
    EmitConv(g);
  else
    EmitMatmul(g);
}

memory DnnlPlan::View(int node, const memory::desc& desc) {
  // A plain copy of the node first (a reorder if it is blocked), then a strided view of
  // the same bytes; views over caller buffers are rebound each run.
  memory base = Get(node, PlainDesc(node));
  if (base.get_desc() == desc) return base;
  memory view(desc, eng_, base.get_data_handle());
  for (auto& [idx, m] : bind_)
    if (m.get() == base.get()) {
      bind_.emplace_back(idx, view);
      break;
    }
  return view;
}

std::vector<DnnlStep> DnnlPlan::Describe() const {
  std::vector<DnnlStep> out;
  for (const Step& s : steps_) {
    DnnlStep d;
    const_dnnl_primitive_desc_t pd = s.prim.get_primitive_desc();
    const char* impl = nullptr;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl)
      d.impl = impl;
    d.kind = dnnl_prim_kind2str(static_cast<dnnl_primitive_kind_t>(s.prim.get_kind()));
    d.what = s.what;
    auto format = [&](std::initializer_list<int> args) {
      for (int a : args) {
        auto it = s.args.find(a);
        if (it != s.args.end()) return TagName(it->second.get_desc());
      }
      return std::string();
    };
    d.src_format = format({DNNL_ARG_SRC, DNNL_ARG_SRC_0});
    d.dst_format = format({DNNL_ARG_DST});
    out.push_back(std::move(d));
  }
  return out;
}

void DnnlPlan::Run(void* const* buffers) {
  for (auto& [idx, m] : bind_) m.set_data_handle(buffers[idx]);
  for (Step& s : steps_) s.prim.execute(stream_, s.args);
  stream_.wait();
}

}  // namespace tessera::runtime::dnnl_impl
