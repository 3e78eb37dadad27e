// DataflowGraph: node kinds, labels and bounded reachability over an IndexedGraph.
#include "tessera/collage/dataflow_graph.h"

#include <algorithm>
#include <vector>

namespace tessera::collage {

DataflowGraph::DataflowGraph(Function func)
    : func_(std::move(func)), graph_(func_, IndexedGraph::Options{true, true}) {}

bool DataflowGraph::CanInline(size_t index) const {
  const Expr& e = expr(index);
  if (e.as<OpNode>() || e.as<FunctionNode>() || e.as<GlobalVarNode>()) return true;
  if (auto* c = e.as<ConstantNode>()) return c->data.ndim() == 0;
  return false;
}

IndexSet DataflowGraph::DownstreamOf(size_t index) const {
  IndexSet result = EmptySet();
  std::vector<size_t> work{index};
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    for (int o : node(i).outputs)
      if (!result[o]) {
        result.Add(o);
        work.push_back(o);
      }
  }
  return result;
}

bool DataflowGraph::Reaches(const IndexSet& from, const IndexSet& to,
                            const IndexSet& through_excluded) const {
  if (from.IsZero() || to.IsZero()) return false;
  size_t limit = to.LastInsideIndex();
  IndexSet seen = from;
  std::vector<size_t> work(from.begin(), from.end());
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    for (int o : node(i).outputs) {
      size_t out = static_cast<size_t>(o);
      if (out > limit) break;  // outputs are ascending, and indices only grow along paths
      if (to[out]) return true;
      if (through_excluded[out] || seen[out]) continue;
      seen.Add(out);
      work.push_back(out);
    }
  }
  return false;
}

static bool IsTensor(const Type& t) {
  return t.defined() && t.as<TensorTypeNode>();
}

OpPatternKind DataflowGraph::NodeKind(size_t index) const {
  const Expr& e = expr(index);
  if (auto* call = e.as<CallNode>()) {
    if (const OpNode* op = call->op()) return op->def->pattern;
    if (auto* fn = call->callee.as<FunctionNode>()) {
      if (const AttrValue* v = fn->attrs.Find("TOpPattern"); v && v->is_int())
        return static_cast<OpPatternKind>(v->AsInt());
    }
    return OpPatternKind::kOpaque;
  }
  if (e.as<ConstantNode>()) return OpPatternKind::kElemwise;
  if (auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields)
      if (!IsTensor(f->checked_type_or_null())) return OpPatternKind::kOpaque;
    return OpPatternKind::kInjective;
  }
  if (auto* g = e.as<TupleGetItemNode>()) {
    auto* tt = g->tuple->checked_type_or_null().as<TupleTypeNode>();
    if (!tt) return OpPatternKind::kOpaque;
    for (const Type& f : tt->fields)
      if (!IsTensor(f)) return OpPatternKind::kOpaque;
    return OpPatternKind::kInjective;
  }
  return OpPatternKind::kOpaque;
}

std::string DataflowGraph::NodeLabel(size_t index) const {
  const Expr& e = expr(index);
  if (auto* call = e.as<CallNode>()) {
    if (const OpNode* op = call->op()) return op->name;
    if (auto* fn = call->callee.as<FunctionNode>()) {
      if (const AttrValue* v = fn->attrs.Find(attr::kComposite); v && v->is_string())
        return v->AsString();
      return "fn";
    }
    if (auto* g = call->callee.as<GlobalVarNode>()) return g->name;
    return "call";
  }
  if (e.as<ConstantNode>()) return "const";
  if (e.as<TupleNode>()) return "tuple";
  if (e.as<TupleGetItemNode>()) return "proj";
  if (e.as<VarNode>()) return "var";
  if (e.as<FunctionNode>()) return "fn";
  if (e.as<LetNode>()) return "let";
  if (e.as<GlobalVarNode>()) return "global";
  if (e.as<OpNode>()) return "op";
  return "expr";
}

}  // namespace tessera::collage
