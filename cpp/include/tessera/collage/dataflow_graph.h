// DataflowGraph: Collage's view of one function as a post-DFS indexed dataflow graph
// (built on IndexedGraph), with per-node kinds and labels and reachability queries.
#pragma once

#include <string>

#include "tessera/collage/index_set.h"
#include "tessera/ir/indexed_graph.h"
#include "tessera/ir/op.h"

namespace tessera::collage {

/// Every sub-expression of a function gets a post-DFS index in TVM's numbering (params,
/// then for each call its callee before its args, the function itself last; see
/// IndexedGraph::Options), so if j > i then j never flows into i. Nested functions are
/// single nodes: all nodes live in one basic block.
class DataflowGraph {
 public:
  /// Builds the graph of `func` (type-inferred, so tuple kinds and parameter types of
  /// extracted functions are known). Iterative: deep graphs are fine.
  explicit DataflowGraph(Function func);

  const Function& function() const { return func_; }
  /// The number of nodes.
  size_t size() const { return graph_.size(); }
  /// Node `index`: its expression, inputs, outputs, (post-)dominators.
  const IndexedGraph::Node& node(size_t index) const { return graph_.nodes()[index]; }
  const Expr& expr(size_t index) const { return node(index).ref; }
  /// The index of `expr`, or -1 when it is not a node of this graph.
  int IndexOf(const Expr& expr) const { return graph_.IndexOf(expr.get()); }
  /// The underlying indexed graph.
  const IndexedGraph& indexed_graph() const { return graph_; }

  /// The empty set over this graph's indices.
  IndexSet EmptySet() const { return IndexSet(size()); }
  /// Whether node `index` is copied into every function that uses it rather than passed
  /// as an argument: ops, function literals, globals and scalar constants.
  bool CanInline(size_t index) const;
  /// The basic block of node `index` (always 0: nested functions are not entered).
  int BasicBlock(size_t /*index*/) const { return 0; }
  /// The nodes strictly downstream of `index` (computed on demand, not stored: storing
  /// them for every node would take size()^2 bits).
  IndexSet DownstreamOf(size_t index) const;
  /// Whether some node of `from` reaches some node of `to` along a path whose
  /// intermediate nodes are all outside `through_excluded`. Explores only indices up to
  /// to.LastInsideIndex(), so it is cheap for local sub-graphs.
  bool Reaches(const IndexSet& from, const IndexSet& to, const IndexSet& through_excluded) const;

  /// The fusion kind of node `index`: an op call its op's pattern kind; a call of a
  /// function its "TOpPattern" attribute (else opaque); a constant elemwise; a tuple or
  /// projection of tensors injective; anything else opaque.
  OpPatternKind NodeKind(size_t index) const;
  /// A short label: the op name of an op call, the Composite name of a call of a
  /// composite function, "const", "tuple", "proj", "var", "fn", "let", "global", "op".
  std::string NodeLabel(size_t index) const;

 private:
  Function func_;
  IndexedGraph graph_;
};

}  // namespace tessera::collage
