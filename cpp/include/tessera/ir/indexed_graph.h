// IndexedGraph: a function body's dataflow graph with post-DFS indices, input/output
// edges and the post-dominator tree (used by FuseOps, and by Collage's DataflowGraph).
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera {

/// Every distinct sub-expression of a function body (not descending into nested
/// functions, which are single nodes) gets an index in post-DFS order: if node j can
/// flow into node i then j < i. Params come first in parameter order.
class IndexedGraph {
 public:
  /// How much of the function becomes nodes. FuseOps numbers only the body's values;
  /// Collage (TVM's numbering, which its tests' indices assume) also gives every callee
  /// (interned ops, globals, function literals) a node visited before the call's args,
  /// visits a let as value, var, body, and adds the function itself as the last node.
  struct Options {
    bool callee_nodes = false;   ///< callees are nodes feeding their calls
    bool function_node = false;  ///< the function is the last node, fed by its body
  };

  /// Per-node facts.
  struct Node {
    Expr ref;                  ///< the sub-expression
    std::vector<int> inputs;   ///< dataflow inputs, in argument order (may repeat)
    std::vector<int> outputs;  ///< consumers, ascending and unique
    bool is_external = false;  ///< the function's result (flows out of the body)
    int ipdom = -1;            ///< immediate post-dominator, -1 for none
    int depth = 0;             ///< depth in the post-dominator tree (root 0)
    int idom = -1;             ///< immediate dominator, -1 for none (a source node)
    int dom_depth = 0;         ///< depth in the dominator forest (sources 0)
  };

  /// Builds the graph of `func`'s body iteratively (deep graphs are fine).
  explicit IndexedGraph(const Function& func) : IndexedGraph(func, Options{}) {}
  /// Builds the graph with the given numbering.
  IndexedGraph(const Function& func, Options options);

  const std::vector<Node>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  /// The index of `expr`, or -1 when it is not a node of this graph.
  int IndexOf(const ExprNode* expr) const;
  /// The closest common post-dominator of nodes `a` and `b` (-1 when none).
  int LeastCommonPostDominator(int a, int b) const;
  /// The closest common dominator of nodes `a` and `b` (-1 when none).
  int LeastCommonDominator(int a, int b) const;

 private:
  std::vector<Node> nodes_;
  std::vector<std::pair<const ExprNode*, int>> index_;  // sorted by pointer for lookup
};

}  // namespace tessera
