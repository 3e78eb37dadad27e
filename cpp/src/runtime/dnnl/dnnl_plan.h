// A oneDNN plan for one partition: primitives created once with their memories (blocked
// formats chosen by oneDNN inside plain partitions; Tessera's NCHW{x}c tensors read and
// written where they are), run in order.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/runtime/library_graph.h"
#include "tessera/runtime/library_modules.h"

namespace tessera::runtime::dnnl_impl {

/// One primitive execution with its arguments.
struct Step {
  dnnl::primitive prim;
  std::unordered_map<int, dnnl::memory> args;
  std::string what;  ///< for error messages and logs
};

/// The compiled partition. Boundary memories (params, plain outputs) are rebound to the
/// caller's buffers each run; everything else is allocated once here.
class DnnlPlan {
 public:
  explicit DnnlPlan(const LibraryGraph& graph);
  /// Runs on `buffers` (params, then outputs).
  void Run(void* const* buffers);
  /// How many primitives the plan runs (fused groups count once).
  size_t num_steps() const { return steps_.size(); }
  /// How many of those steps are reorders run on every call (data conversions at run time;
  /// constant weights are reordered once, at plan time, and not counted).
  size_t num_run_reorders() const;
  /// The steps as DescribeDnnlPlan reports them.
  std::vector<DnnlStep> Describe() const;

 private:
  struct PostOp {
    dnnl::algorithm alg;
    float alpha = 0, beta = 0;
    int sum_src = -1;  ///< residual node for a sum post-op
  };
  struct Group {
    int anchor = -1, bias = -1, out = -1;
    std::vector<PostOp> post;
  };

  void Compile();
  /// Gives every step that needs one the plan's scratchpad (user scratchpad mode).
  void AttachScratchpad();
  bool TryFuse(Group& g, int id, std::vector<bool>& consumed);
  void EmitGroup(const Group& g);
  void EmitConv(const Group& g);
  void EmitMatmul(const Group& g);
  void EmitSingle(int id);
  /// The group's post-ops. Residuals become sum post-ops (their nodes in `sum_srcs`, to be
  /// copied into the destination first) or, when `residual_md` is given, binary adds of
  /// that desc (their post-op index and node in `binary_srcs`: read in place, no copy).
  dnnl::post_ops MakePostOps(const Group& g, std::vector<int>* sum_srcs,
                             const dnnl::memory::desc* residual_md = nullptr,
                             std::vector<std::pair<int, int>>* binary_srcs = nullptr);
  /// Conv weights in the form `pd` wants: the node's bytes described by its kernel layout,
  /// reordered once at plan time when constant (a step per run otherwise).
  dnnl::memory ConvWeights(int w, const dnnl::memory::desc& user, const dnnl::memory::desc& want);

  /// The plain row-major memory desc of a node.
  dnnl::memory::desc PlainDesc(int node) const;
  /// The memory of `node` in `desc`, adding a reorder step (once per node and desc).
  dnnl::memory Get(int node, const dnnl::memory::desc& desc);
  /// The memory of `node` in whatever format it has.
  dnnl::memory Get(int node);
  /// A (strided) view `desc` over the plain bytes of `node`.
  dnnl::memory View(int node, const dnnl::memory::desc& desc);
  /// `desc` over the bytes of `base` (rebound with it each run when `base` is bound).
  dnnl::memory Alias(const dnnl::memory& base, const dnnl::memory::desc& desc);
  /// Whether `a` and `b` describe the same bytes of `node`: its plain row-major desc and,
  /// for a 5-D NCHW{x}c tensor, the logical nChw{x}c desc of the same memory.
  bool SameBytes(int node, const dnnl::memory::desc& a, const dnnl::memory::desc& b) const;
  /// Creates the destination memory of `node` for a primitive writing `desc`.
  dnnl::memory Define(int node, const dnnl::memory::desc& desc);
  /// The desc a primitive should write `node` in: plain for results, else `any`.
  dnnl::memory::desc DstDesc(int node) const;
  bool IsOutput(int node) const;
  /// What `node` is, for step descriptions: its op, "parameter i" or "a constant".
  std::string NodeName(int node) const;

  LibraryGraph g_;
  dnnl::engine eng_;
  dnnl::stream stream_;
  std::vector<Step> steps_;
  dnnl::memory scratchpad_;  // shared by the steps, which run one at a time
  std::unordered_map<int, dnnl::memory> mem_;  // node -> memory (its native format)
  std::vector<std::vector<std::pair<dnnl::memory::desc, dnnl::memory>>> alt_;  // reordered
  std::vector<std::pair<int, dnnl::memory>> bind_;  // buffer index -> memory to rebind
};

}  // namespace tessera::runtime::dnnl_impl
