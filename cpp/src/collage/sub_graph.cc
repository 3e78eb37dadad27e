// SubGraph: derived sets, depth, validity, unions and touching.
#include "tessera/collage/sub_graph.h"

#include <algorithm>
#include <sstream>

#include "tessera/support/error.h"
#include "tessera/support/hash.h"

namespace tessera::collage {

/// The shared, immutable state of a SubGraph.
class SubGraphNode {
 public:
  IndexSet inside, entry, exit, input, output;
  size_t depth = 0;
  OpPatternKind kind = OpPatternKind::kElemwise;
  std::string label;
  std::vector<NestedSubGraph> nested;
};

std::string SubGraphConfig::ToString() const {
  std::ostringstream os;
  os << "{max_exits=" << max_exits << ", allow_taps=" << (allow_taps ? "true" : "false")
     << ", max_depth=" << max_depth << "}";
  return os.str();
}

static bool NestedLess(const NestedSubGraph& a, const NestedSubGraph& b) {
  return a.sub_graph < b.sub_graph;
}

SubGraph::SubGraph(const DataflowGraph& graph, IndexSet inside)
    : SubGraph(graph, std::move(inside), std::vector<NestedSubGraph>{}) {}

SubGraph::SubGraph(const DataflowGraph& graph, IndexSet inside, OpPatternKind kind,
                   std::string label)
    : SubGraph(graph, std::move(inside), kind, std::move(label), std::vector<NestedSubGraph>{}) {}

SubGraph::SubGraph(const DataflowGraph& graph, IndexSet inside,
                   std::vector<NestedSubGraph> nested) {
  OpPatternKind kind = OpPatternKind::kElemwise;
  std::string label;
  for (size_t i : inside) {
    kind = std::max(kind, graph.NodeKind(i));
    label += (label.empty() ? "" : "+") + graph.NodeLabel(i);
  }
  *this = SubGraph(graph, std::move(inside), kind, std::move(label), std::move(nested));
}

SubGraph::SubGraph(const DataflowGraph& graph, IndexSet inside, OpPatternKind kind,
                   std::string label, std::vector<NestedSubGraph> nested) {
  if (inside.end_index() != graph.size())
    TS_THROW(kInternal) << "SubGraph: an index set over " << inside.end_index()
                        << " nodes used with a graph of " << graph.size();
  auto n = std::make_shared<SubGraphNode>();
  n->entry = n->exit = n->input = n->output = graph.EmptySet();
  // Longest path of inside nodes ending at each inside node; indices are topological,
  // so one ascending sweep suffices (no recursion).
  std::vector<size_t> nodes = inside.ToVector();
  std::vector<size_t> len(nodes.size(), 1);
  for (size_t k = 0; k < nodes.size(); ++k) {
    size_t i = nodes[k];
    const auto& node = graph.node(i);
    for (int in : node.inputs) {
      if (inside[in]) {
        size_t j =
            std::lower_bound(nodes.begin(), nodes.end(), static_cast<size_t>(in)) - nodes.begin();
        len[k] = std::max(len[k], len[j] + 1);
      } else if (!graph.CanInline(in)) {
        n->entry.Add(i);
        n->input.Add(in);
      }
    }
    for (int out : node.outputs)
      if (!inside[out]) {
        n->exit.Add(i);
        n->output.Add(out);
      }
    if (node.is_external) n->exit.Add(i);
    n->depth = std::max(n->depth, len[k]);
  }
  n->inside = std::move(inside);
  n->kind = kind;
  n->label = std::move(label);
  std::sort(nested.begin(), nested.end(), NestedLess);
  n->nested = std::move(nested);
  node_ = std::move(n);
}

const IndexSet& SubGraph::inside() const {
  return node_->inside;
}
const IndexSet& SubGraph::entry() const {
  return node_->entry;
}
const IndexSet& SubGraph::exit() const {
  return node_->exit;
}
const IndexSet& SubGraph::input() const {
  return node_->input;
}
const IndexSet& SubGraph::output() const {
  return node_->output;
}
size_t SubGraph::depth() const {
  return node_->depth;
}
OpPatternKind SubGraph::kind() const {
  return node_->kind;
}
const std::string& SubGraph::label() const {
  return node_->label;
}
const std::vector<NestedSubGraph>& SubGraph::nested_sub_graphs() const {
  return node_->nested;
}

std::string SubGraph::InvalidReason(const DataflowGraph& graph,
                                    const SubGraphConfig& config) const {
  std::ostringstream why;
  size_t exits = exit().PopCount();
  if (config.max_exits > 0 && exits > config.max_exits) {
    why << exits << " exits, more than " << config.max_exits;
    return why.str();
  }
  if (config.max_depth > 0 && depth() > config.max_depth) {
    why << "depth " << depth() << ", more than " << config.max_depth;
    return why.str();
  }
  int block = -1;
  for (size_t i : inside()) {
    if (block >= 0 && graph.BasicBlock(i) != block) return "nodes from several basic blocks";
    block = graph.BasicBlock(i);
  }
  IndexSet seen = graph.EmptySet();
  for (const NestedSubGraph& n : nested_sub_graphs()) {
    if (!n.sub_graph.inside().IsSubset(inside())) return "a nested sub-graph is not inside";
    if (n.sub_graph.inside().Intersects(seen)) return "nested sub-graphs overlap";
    seen |= n.sub_graph.inside();
  }
  if (!config.allow_taps)
    for (size_t e : exit())
      for (int out : graph.node(e).outputs)
        if (inside()[out]) {
          why << "node " << e << " is a tap (an exit that also feeds node " << out << ")";
          return why.str();
        }
  if (graph.Reaches(output(), entry(), inside()))
    return "an output flows back into an entry (a cycle through outside nodes)";
  return "";
}

SubGraph SubGraph::WithAttrs(const DataflowGraph& graph, const Attrs& attrs) const {
  return SubGraph(graph, inside(), kind(), label(), {NestedSubGraph{*this, attrs}});
}

static bool TriviallyUnionable(const NestedSubGraph& a, const NestedSubGraph& b) {
  return a.attrs == b.attrs && !a.attrs.Has(attr::kComposite);
}

SubGraph SubGraph::DisjointUnion(const DataflowGraph& graph, const SubGraph& that) const {
  if (!inside().AreDisjoint(that.inside()))
    TS_THROW(kInternal) << "SubGraph::DisjointUnion: " << inside().ToString() << " and "
                        << that.inside().ToString() << " overlap";
  std::vector<NestedSubGraph> nested = nested_sub_graphs();
  size_t own = nested.size();
  for (const NestedSubGraph& n : that.nested_sub_graphs()) {
    size_t k = 0;
    while (k < own && !TriviallyUnionable(nested[k], n)) ++k;
    if (k < own)
      nested[k] = NestedSubGraph{nested[k].sub_graph.DisjointUnion(graph, n.sub_graph), n.attrs};
    else
      nested.push_back(n);
  }
  std::string label = this->label();
  if (label.empty())
    label = that.label();
  else if (!that.label().empty())
    label += "+" + that.label();
  return SubGraph(graph, inside() | that.inside(), std::max(kind(), that.kind()), label,
                  std::move(nested));
}

bool SubGraph::AreTouching(const DataflowGraph& graph, const SubGraph& that) const {
  if (!inside().AreDisjoint(that.inside())) return false;
  if (!output().Intersects(that.entry())) return false;
  IndexSet none = graph.EmptySet();
  // Leaving one and re-entering the other through an outside path would make the union
  // cyclic.
  if (graph.Reaches(output() - that.inside(), that.entry(), none)) return false;
  if (graph.Reaches(that.output() - inside(), entry(), none)) return false;
  return true;
}

SubGraph SubGraph::Subst(const DataflowGraph& new_graph, const std::vector<size_t>& map) const {
  std::vector<NestedSubGraph> nested;
  for (const NestedSubGraph& n : nested_sub_graphs())
    nested.push_back(NestedSubGraph{n.sub_graph.Subst(new_graph, map), n.attrs});
  return SubGraph(new_graph, inside().Subst(new_graph.size(), map), kind(), label(),
                  std::move(nested));
}

std::string SubGraph::ToString() const {
  std::ostringstream os;
  os << inside().ToString() << " " << (label().empty() ? "\"\"" : label()) << " ("
     << OpPatternKindName(kind()) << ")";
  for (const NestedSubGraph& n : nested_sub_graphs()) {
    os << " [";
    bool first = true;
    for (const auto& [k, v] : n.attrs.items()) {
      os << (first ? "" : ", ") << k << "=" << v.ToString();
      first = false;
    }
    os << ": " << n.sub_graph.ToString() << "]";
  }
  return os.str();
}

size_t SubGraph::Hash() const {
  size_t h = inside().Hash();
  for (const NestedSubGraph& n : nested_sub_graphs())
    h = HashCombine(HashCombine(h, n.sub_graph.Hash()), n.attrs.Hash());
  return h;
}

bool operator==(const SubGraph& a, const SubGraph& b) {
  return a.node_ == b.node_ ||
         (a.inside() == b.inside() && a.nested_sub_graphs() == b.nested_sub_graphs());
}

bool operator<(const SubGraph& a, const SubGraph& b) {
  if (a.first_inside_index() != b.first_inside_index())
    return a.first_inside_index() < b.first_inside_index();
  if (a.inside() != b.inside()) return a.inside() < b.inside();
  const auto &x = a.nested_sub_graphs(), &y = b.nested_sub_graphs();
  if (x.size() != y.size()) return x.size() < y.size();
  for (size_t k = 0; k < x.size(); ++k) {
    if (x[k].sub_graph != y[k].sub_graph) return x[k].sub_graph < y[k].sub_graph;
    if (!(x[k].attrs == y[k].attrs)) return x[k].attrs.Hash() < y[k].attrs.Hash();
  }
  return false;
}

}  // namespace tessera::collage
