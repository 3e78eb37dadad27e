// FuseOps: TVM's greedy operator fusion driven by pattern kinds and post-dominators.
#include <algorithm>
#include <unordered_map>
#include "builtin_passes.h"

#include "pass_util.h"
#include "tessera/ir/indexed_graph.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

using Kind = OpPatternKind;

Kind MaxKind(Kind a, Kind b) {
  return a > b ? a : b;
}

bool IsScalarConstant(const Expr& e) {
  auto* c = e.as<ConstantNode>();
  return c && c->data.ndim() == 0;
}

/// The fusion pattern of a node on its own.
Kind NodePattern(const Expr& e) {
  if (auto* call = e.as<CallNode>()) {
    if (const OpNode* op = call->op()) return op->def->pattern;
    return Kind::kOpaque;
  }
  if (e.as<TupleNode>()) return Kind::kTuple;
  if (e.as<TupleGetItemNode>()) return Kind::kInjective;
  if (IsScalarConstant(e)) return Kind::kElemwise;
  return Kind::kOpaque;
}

/// The pattern of the edge from an input into consumer `e`: the consumer's op pattern,
/// relaxed to elemwise for a broadcast op whose input already has the output's shape.
Kind EdgePattern(const Expr& input, const Expr& consumer) {
  if (consumer.as<TupleNode>() || consumer.as<TupleGetItemNode>()) return Kind::kInjective;
  auto* call = consumer.as<CallNode>();
  if (!call || !call->op()) return Kind::kOpaque;
  Kind kind = call->op()->def->pattern;
  if (kind == Kind::kBroadcast) {
    const auto* in = input->checked_type_or_null().as<TensorTypeNode>();
    const auto* out = consumer->checked_type_or_null().as<TensorTypeNode>();
    if (in && out && in->shape == out->shape) return Kind::kElemwise;
  }
  return kind;
}

/// Whether `e` is an op that only moves elements by index arithmetic (a transpose, reshape,
/// slice): a matrix product may read its operand through one in its innermost loop. Not a
/// concatenation (a select per element read), a gather (an indirect load) or a pad.
bool MovesElementsOnly(const Expr& e) {
  const auto* call = e.as<CallNode>();
  if (!call || !call->op()) return false;
  const std::string& op = call->op()->name;
  return op == "transpose" || op == "reshape" || op == "strided_slice" || op == "squeeze" ||
         op == "expand_dims";
}

/// Union-find groups with TVM's merge rule: the sink's root survives and inherits an
/// out-elemwise-fusable anchor's pattern.
struct Groups {
  std::vector<int> parent, num_nodes;
  std::vector<Kind> pattern;
  std::vector<bool> has_anchor;
  std::vector<int> anchor;  ///< the group's out-elemwise-fusable node (-1: none)
  /// Every op of the group only moves elements (see MovesElementsOnly).
  std::vector<bool> moves_only;

  int Root(int g) {
    while (parent[g] != g) g = parent[g] = parent[parent[g]];
    return g;
  }
  void Merge(int child, int into) {
    child = Root(child);
    into = Root(into);
    if (child == into) return;
    num_nodes[into] += num_nodes[child];
    parent[child] = into;
    moves_only[into] = moves_only[into] && moves_only[child];
    if (has_anchor[child]) {
      has_anchor[into] = true;
      anchor[into] = anchor[child];
      pattern[into] = MaxKind(pattern[child], pattern[into]);
    }
  }
};

class Partitioner {
 public:
  Partitioner(const IndexedGraph& graph, int max_depth) : graph_(graph), max_depth_(max_depth) {
    size_t n = graph.size();
    groups_.parent.resize(n);
    groups_.num_nodes.assign(n, 0);
    groups_.pattern.resize(n);
    groups_.has_anchor.assign(n, false);
    groups_.anchor.assign(n, -1);
    groups_.moves_only.assign(n, true);
    for (size_t i = 0; i < n; ++i) {
      groups_.parent[i] = static_cast<int>(i);
      Kind k = NodePattern(graph.nodes()[i].ref);
      groups_.pattern[i] = k;
      groups_.has_anchor[i] = k == Kind::kOutEWiseFusable;
      if (k == Kind::kOutEWiseFusable) groups_.anchor[i] = static_cast<int>(i);
      groups_.moves_only[i] = MovesElementsOnly(graph.nodes()[i].ref);
      groups_.num_nodes[i] = graph.nodes()[i].ref.as<CallNode>() ? 1 : 0;
    }
    ComputeDomPatterns();
  }

  /// Runs the three phases and returns each node's group root.
  std::vector<int> Run() {
    for (int phase = 0; phase < 3; ++phase) {
      for (size_t i = 0; i < graph_.size(); ++i) RunNode(static_cast<int>(i), phase);
    }
    std::vector<int> roots(graph_.size());
    for (size_t i = 0; i < graph_.size(); ++i) roots[i] = groups_.Root(static_cast<int>(i));
    return roots;
  }

 private:
  /// Pattern of the path from each node to its immediate post-dominator (max over the
  /// edges and tree steps on the way, as TVM's dominator tree computes it).
  void ComputeDomPatterns() {
    const auto& nodes = graph_.nodes();
    dom_pattern_.assign(nodes.size(), Kind::kElemwise);
    for (int i = static_cast<int>(nodes.size()) - 1; i >= 0; --i) {
      const auto& n = nodes[i];
      if (n.is_external || n.outputs.empty() || n.ipdom < 0) {
        dom_pattern_[i] = Kind::kOpaque;
        continue;
      }
      Kind k = Kind::kElemwise;
      for (int o : n.outputs) k = MaxKind(k, EdgePattern(n.ref, nodes[o].ref));
      // Climb from every consumer to the ipdom, combining the tree edges passed.
      for (int o : n.outputs)
        for (int cur = o; cur != n.ipdom && cur >= 0; cur = nodes[cur].ipdom)
          k = MaxKind(k, dom_pattern_[cur]);
      dom_pattern_[i] = k;
    }
  }

  void RunNode(int i, int phase) {
    const auto& node = graph_.nodes()[i];
    int dom = node.ipdom;
    // As in TVM, a node's own group record decides (it holds the anchor's pattern once
    // a conv2d-like op has been merged into it); paths are checked on group roots.
    Kind kind = groups_.pattern[i];
    if (kind == Kind::kOpaque || dom < 0) return;
    int dom_root = groups_.Root(dom);
    if (phase == 2) {
      // Fuse injective ops into tuples already fused into injective consumers.
      if (kind > Kind::kInjective || groups_.pattern[dom_root] == Kind::kTuple) return;
      if (groups_.pattern[dom] == Kind::kTuple && groups_.pattern[dom_root] <= Kind::kInjective)
        TryFuse(i, dom, [](Kind k, bool, int) { return k <= Kind::kInjective; });
      return;
    }
    if (groups_.Root(i) == dom_root) return;
    if (groups_.pattern[dom] == Kind::kTuple) return;  // no fusing into tuples yet
    if (kind == Kind::kOutEWiseFusable) {
      if (phase != 0) return;
      if (dom_pattern_[i] == Kind::kElemwise)
        TryFuse(i, dom, [](Kind k, bool, int) { return k <= Kind::kBroadcast; });
    } else if (kind <= Kind::kBroadcast) {
      if (dom_pattern_[i] <= Kind::kInjective || dom_pattern_[i] == Kind::kCommReduce) {
        TryFuse(i, dom, [](Kind k, bool is_sink, int) {
          if (!is_sink) return k <= Kind::kInjective;
          return k <= Kind::kBroadcast || k == Kind::kCommReduce || k == Kind::kInjective ||
                 k == Kind::kOutEWiseFusable;
        });
      }
    } else if (kind == Kind::kInjective || kind == Kind::kTuple) {
      if (phase != 1) return;
      bool into_product = kind == Kind::kInjective && groups_.moves_only[groups_.Root(i)] &&
                          ReadsOperandsInPlace(groups_.anchor[dom_root]);
      TryFuse(i, dom, [this, into_product](Kind k, bool is_sink, int n) {
        if (!into_product) return k <= Kind::kInjective;
        if (is_sink) return k <= Kind::kInjective || k == Kind::kOutEWiseFusable;
        return k <= Kind::kInjective && groups_.moves_only[groups_.Root(n)];
      });
    }
  }

  /// Whether node `anchor` is a matrix product whose operands may be computed by fused
  /// ops that only move elements (MovesElementsOnly): the GEMM template reads each operand
  /// element through its index expression (packing the right one), so a transformer's
  /// head split and merge cost no kernel of their own, nor a pass over memory. Products
  /// with fewer than 4 rows (the GEMM template's kGemmPackRows) are left alone: they take
  /// dot products that need their left operand as it is stored.
  bool ReadsOperandsInPlace(int anchor) const {
    if (anchor < 0) return false;
    const auto* call = graph_.nodes()[anchor].ref.as<CallNode>();
    if (!call || !call->op()) return false;
    const std::string& op = call->op()->name;
    if (op != "nn.dense" && op != "nn.matmul" && op != "nn.batch_matmul") return false;
    const auto* t = call->checked_type_or_null().as<TensorTypeNode>();
    if (!t || t->shape.size() < 2) return false;
    int64_t rows = t->shape[t->shape.size() - 2];
    if (op != "nn.batch_matmul")
      for (size_t d = 0; d + 2 < t->shape.size(); ++d) rows *= t->shape[d];
    return rows >= 4;
  }

  /// Every node on a path from `src` (exclusive) to `sink` (inclusive); false when a
  /// node fails `cond(its group's pattern, whether it is the sink, the node)` (iterative DFS).
  template <typename Cond>
  bool CollectPath(int src, int sink, Cond cond, std::vector<int>* path) {
    // A generation stamp instead of a fresh visited array keeps each call proportional
    // to the path, not the graph (long chains call this once per node).
    if (visit_stamp_.size() != graph_.size()) visit_stamp_.assign(graph_.size(), 0);
    ++generation_;
    std::vector<int> stack(graph_.nodes()[src].outputs.begin(), graph_.nodes()[src].outputs.end());
    while (!stack.empty()) {
      int n = stack.back();
      stack.pop_back();
      if (visit_stamp_[n] == generation_) continue;
      visit_stamp_[n] = generation_;
      if (!cond(groups_.pattern[groups_.Root(n)], n == sink, n)) return false;
      path->push_back(n);
      if (n == sink) continue;
      if (n > sink) return false;  // walked past the sink: not post-dominated (defensive)
      for (int o : graph_.nodes()[n].outputs) stack.push_back(o);
    }
    return true;
  }

  template <typename Cond>
  void TryFuse(int src, int sink, Cond cond) {
    std::vector<int> path;
    if (!CollectPath(src, sink, cond, &path)) return;
    // The fused group's op count must stay within max_depth.
    int target = groups_.Root(sink);
    std::vector<int> roots{groups_.Root(src)};
    for (int n : path) roots.push_back(groups_.Root(n));
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    int count = 0;
    for (int r : roots) count += groups_.num_nodes[r];
    if (std::find(roots.begin(), roots.end(), target) == roots.end())
      count += groups_.num_nodes[target];
    if (count > max_depth_) return;
    groups_.Merge(src, sink);
    for (int n : path) groups_.Merge(n, sink);
  }

  const IndexedGraph& graph_;
  int max_depth_;
  Groups groups_;
  std::vector<Kind> dom_pattern_;
  std::vector<uint32_t> visit_stamp_;
  uint32_t generation_ = 0;
};

/// Rebuilds a function body with each fused group outlined as a Primitive function.
Function Rewrite(const Function& func, const IndexedGraph& graph, const std::vector<int>& roots) {
  const auto& nodes = graph.nodes();
  size_t n = nodes.size();
  // A group becomes a function when it contains an op call; its output is its last node.
  std::vector<int> group_output(n, -1);
  std::vector<bool> has_op(n, false);
  for (size_t i = 0; i < n; ++i) {
    group_output[roots[i]] = static_cast<int>(i);
    // call_tir already names its kernel (its @PrimFunc argument must stay a global), so
    // it is left in place rather than outlined.
    if (auto* call = nodes[i].ref.as<CallNode>();
        call && call->op() && call->op()->name != kCallTirOp)
      has_op[roots[i]] = true;
  }
  auto in_function = [&](size_t i) { return has_op[roots[i]]; };
  std::vector<std::vector<int>> members_of(n);
  for (size_t i = 0; i < n; ++i)
    if (has_op[roots[i]]) members_of[roots[i]].push_back(static_cast<int>(i));

  std::vector<Expr> outer(n);  // the expression for node i in the rewritten body
  auto rebuild = [&](size_t i, const std::function<Expr(int)>& input) -> Expr {
    const Expr& e = nodes[i].ref;
    const auto& in = nodes[i].inputs;
    if (auto* call = e.as<CallNode>()) {
      size_t first_arg = call->args.size() == in.size() ? 0 : 1;
      Expr callee = first_arg ? input(in[0]) : call->callee;
      std::vector<Expr> args;
      for (size_t k = first_arg; k < in.size(); ++k) args.push_back(input(in[k]));
      return MakeCall(callee, args, call->attrs, call->type_args);
    }
    if (auto* t = e.as<TupleNode>()) {
      std::vector<Expr> fields;
      for (int k : in) fields.push_back(input(k));
      (void)t;
      return MakeTuple(fields);
    }
    if (auto* g = e.as<TupleGetItemNode>()) return MakeTupleGetItem(input(in[0]), g->index);
    return e;  // vars, constants, ops, globals, nested functions: unchanged
  };

  int fused_count = 0;
  for (size_t i = 0; i < n; ++i) {
    int root = roots[i];
    if (!in_function(i)) {
      outer[i] =
          nodes[i].inputs.empty() ? nodes[i].ref : rebuild(i, [&](int k) { return outer[k]; });
      continue;
    }
    if (group_output[root] != static_cast<int>(i)) continue;  // built with its group's output
    // Outline the group: members in index order; outside inputs become parameters.
    const std::vector<int>& members = members_of[root];
    std::unordered_map<int, Expr> inner;
    std::vector<Var> params;
    std::vector<Expr> args;
    for (int m : members) {
      for (int k : nodes[m].inputs) {
        if (roots[k] == root || inner.count(k)) continue;
        const Expr& src = nodes[k].ref;
        if (IsScalarConstant(src) || src.as<OpNode>()) {
          inner[k] = src;
          continue;
        }
        Var p = MakeVar("p" + std::to_string(params.size()), src->checked_type_or_null());
        params.push_back(p);
        args.push_back(outer[k]);
        inner[k] = p;
      }
      inner[m] = rebuild(m, [&](int k) { return inner.at(k); });
    }
    Function fn =
        MakeFunction(params, inner.at(static_cast<int>(i)), nodes[i].ref->checked_type_or_null(),
                     Attrs{{attr::kPrimitive, AttrValue(int64_t{1})}});
    outer[i] = MakeCall(fn, args);
    ++fused_count;
  }
  LogDebug("FuseOps: " + std::to_string(fused_count) + " primitive functions");
  int body = graph.IndexOf(func->body.get());
  return MakeFunction(func->params, outer[body], func->ret_type, func->attrs);
}

}  // namespace

Pass FuseOps(int max_depth) {
  if (max_depth < 1) TS_THROW(kValue) << "FuseOps: max_depth must be at least 1, got " << max_depth;
  return CreateModulePass(
      [max_depth](IRModule mod, const PassContext& ctx) {
        mod = InferTypes(mod);
        int depth = ctx.opt_level() == 0 ? 1 : max_depth;
        return InferTypes(MapOptimizableFunctions(mod, [depth](const Function& func) -> Expr {
          IndexedGraph graph(func);
          for (const auto& node : graph.nodes()) {
            if (!node.ref.as<LetNode>()) continue;
            LogWarn("FuseOps: a function with let bindings is left unfused (graph form needed)");
            return func;
          }
          std::vector<int> roots = Partitioner(graph, depth).Run();
          return Rewrite(func, graph, roots);
        }));
      },
      PassInfo{"FuseOps", 0, {}});
}

PassRegistration FuseOpsRegistration() {
  return {"FuseOps",
          "fuse ops into Primitive functions by pattern kind and post-dominance",
          {{"max_depth", AttrValue::Kind::kInt, AttrValue(int64_t{256}),
            "maximum number of ops in one fused function"}},
          [](const Attrs& o) { return FuseOps(static_cast<int>(o.GetInt("max_depth"))); }};
}

}  // namespace tessera
