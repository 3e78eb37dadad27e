// SubGraph: a set of dataflow nodes that may become one kernel, with its derived
// entry/exit/input/output sets, validity rules, unions, extraction to a function, and
// the rewrite of many disjoint (possibly nested) sub-graphs into the original body.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/collage/dataflow_graph.h"
#include "tessera/collage/index_set.h"
#include "tessera/ir/attrs.h"

namespace tessera::collage {

/// Limits a sub-graph must respect to become a kernel. 0 means no limit.
struct SubGraphConfig {
  size_t max_exits = 0;     ///< nodes whose values leave the sub-graph
  bool allow_taps = false;  ///< may an exit also feed a node inside?
  size_t max_depth = 0;     ///< nodes on the longest path from an entry to an exit
  /// "{max_exits=1, allow_taps=false, max_depth=3}".
  std::string ToString() const;
};

struct NestedSubGraph;
class SubGraphNode;

/// An immutable set of nodes of one DataflowGraph (cheap to copy) plus nested labelled
/// sub-graphs (each a subset of it, pairwise disjoint, sorted) that become functions of
/// their own inside it, e.g. `Composite` functions inside a `Primitive` one. It need
/// not be connected. Methods that derive new sub-graphs take the graph it belongs to.
class SubGraph {
 public:
  /// The sub-graph of `graph` holding `inside`; kind and label are derived from the
  /// nodes (max kind from elemwise up; op names joined by "+" in index order).
  SubGraph(const DataflowGraph& graph, IndexSet inside, std::vector<NestedSubGraph> nested);
  /// The same without nested sub-graphs. (Overloads, not a default argument: a default
  /// vector of the still incomplete NestedSubGraph does not compile with clang.)
  SubGraph(const DataflowGraph& graph, IndexSet inside);
  /// As above with an explicit kind and label (used by unions and substitution).
  SubGraph(const DataflowGraph& graph, IndexSet inside, OpPatternKind kind, std::string label,
           std::vector<NestedSubGraph> nested);
  /// The same without nested sub-graphs.
  SubGraph(const DataflowGraph& graph, IndexSet inside, OpPatternKind kind, std::string label);

  /// The nodes of the sub-graph.
  const IndexSet& inside() const;
  /// Inside nodes with an input outside that cannot be inlined.
  const IndexSet& entry() const;
  /// Inside nodes with an output outside, plus the graph's result node.
  const IndexSet& exit() const;
  /// Outside nodes that cannot be inlined and feed an inside node (the arguments).
  const IndexSet& input() const;
  /// Outside nodes fed by an inside node.
  const IndexSet& output() const;
  /// Nodes on the longest path of inside nodes (one op has depth 1).
  size_t depth() const;
  OpPatternKind kind() const;
  const std::string& label() const;
  const std::vector<NestedSubGraph>& nested_sub_graphs() const;
  size_t first_inside_index() const { return inside().FirstInsideIndex(); }
  size_t last_inside_index() const { return inside().LastInsideIndex(); }

  /// The first check that fails, in TVM's order: too many exits, too deep,
  /// more than one basic block, nested sub-graphs overlapping or not inside, a tap
  /// (an exit that also feeds an inside node) unless allowed, and a cycle (an output
  /// reaching an entry). Empty when the sub-graph is valid.
  std::string InvalidReason(const DataflowGraph& graph, const SubGraphConfig& config) const;
  /// Whether InvalidReason is empty.
  bool IsValid(const DataflowGraph& graph, const SubGraphConfig& config) const {
    return InvalidReason(graph, config).empty();
  }

  /// This sub-graph with its nested list replaced by one nested sub-graph: itself
  /// with `attrs` (so it will become one function with those attributes).
  SubGraph WithAttrs(const DataflowGraph& graph, const Attrs& attrs) const;
  /// The union with the disjoint `that` (an internal error when they overlap): larger
  /// kind, labels joined with "+", nested sub-graphs with equal attributes (and no
  /// Composite) merged, others kept.
  SubGraph DisjointUnion(const DataflowGraph& graph, const SubGraph& that) const;
  /// Whether the two are disjoint, an output of this one is an entry of `that`, and
  /// neither reaches the other through an outside path (which would make a cycle).
  bool AreTouching(const DataflowGraph& graph, const SubGraph& that) const;
  /// The same sub-graph over `new_graph`, index i becoming map[i].
  SubGraph Subst(const DataflowGraph& new_graph, const std::vector<size_t>& map) const;

  /// "{3,4,5}" with the label, kind and nested sub-graphs.
  std::string ToString() const;
  size_t Hash() const;
  /// Same inside and same nested sub-graphs (with attributes).
  friend bool operator==(const SubGraph& a, const SubGraph& b);
  friend bool operator!=(const SubGraph& a, const SubGraph& b) { return !(a == b); }
  /// By first inside index, then inside (IndexSet order), then nested sub-graphs.
  friend bool operator<(const SubGraph& a, const SubGraph& b);

 private:
  std::shared_ptr<const SubGraphNode> node_;
};

/// Nodes that become one function with `attrs` (e.g. {Composite: "dnnl.conv2d_relu"} or
/// {Primitive: 1, Compiler: "dnnl"}).
struct NestedSubGraph {
  SubGraph sub_graph;
  Attrs attrs;
  friend bool operator==(const NestedSubGraph& a, const NestedSubGraph& b) {
    return a.sub_graph == b.sub_graph && a.attrs == b.attrs;
  }
};

/// The index set of `indexes` as a partition a user asked for (PartitionForTesting,
/// tessera.collage.rewrite): non-empty, every index a sub-expression of the function (not
/// the function node), and none an op, global or function literal, which are copied into
/// every function using them (name the call instead). Throws a value error naming `what`.
IndexSet IndexSetFromUser(const DataflowGraph& graph, const std::vector<size_t>& indexes,
                          const std::string& what);

/// A sub-graph as a standalone function: `function` takes one fresh parameter per
/// argument node (`args`, in discovery order from the last exit backwards, as TVM
/// does) and returns the exit nodes' values (`exits`, ascending; a tuple for several).
struct ExtractedFunction {
  Function function;
  std::vector<size_t> args;
  std::vector<size_t> exits;
};

/// Extracts `sub_graph` with function attributes `attrs`; its nested sub-graphs become
/// functions inside. Scalar constants, ops and function literals are copied in.
ExtractedFunction Extract(const DataflowGraph& graph, const SubGraph& sub_graph,
                          const Attrs& attrs = {});

/// The graph's function with every nested sub-graph of `nested` (pairwise disjoint, not
/// holding the function node) replaced by a call of its extracted function; each exit
/// becomes the call or a projection of it. All are rewritten in one pass over the
/// graph in dataflow order (with each sub-graph contracted to one node), so any set of
/// valid disjoint sub-graphs works regardless of how they interleave. Iterative.
Function ParallelRewrite(const DataflowGraph& graph, const std::vector<NestedSubGraph>& nested);

}  // namespace tessera::collage
