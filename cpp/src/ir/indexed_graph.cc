// IndexedGraph construction: iterative post-DFS numbering and post-dominators.
#include "tessera/ir/indexed_graph.h"

#include <algorithm>
#include <unordered_map>

#include "tessera/support/error.h"

namespace tessera {

/// The dataflow inputs of a node: a call's args (and a non-op callee expression other
/// than a Function literal or global), a tuple's fields, a projection's tuple, a let's
/// value and body. Nested functions are leaves.
static std::vector<Expr> DataflowInputs(const Expr& e) {
  if (auto* call = e.as<CallNode>()) {
    std::vector<Expr> in;
    if (!call->callee.as<OpNode>() && !call->callee.as<FunctionNode>() &&
        !call->callee.as<GlobalVarNode>())
      in.push_back(call->callee);
    if (call->callee.as<FunctionNode>()) in.push_back(call->callee);
    in.insert(in.end(), call->args.begin(), call->args.end());
    return in;
  }
  if (auto* t = e.as<TupleNode>()) return t->fields;
  if (auto* g = e.as<TupleGetItemNode>()) return {g->tuple};
  if (auto* l = e.as<LetNode>()) return {l->var, l->value, l->body};
  return {};
}

/// Collage numbering (TVM's): the callee is always an input visited first, and a let
/// is visited as value, var, body; `let_value` maps each let var to its value.
static std::vector<Expr> CollageVisitOrder(const Expr& e) {
  if (auto* call = e.as<CallNode>()) {
    std::vector<Expr> in{call->callee};
    in.insert(in.end(), call->args.begin(), call->args.end());
    return in;
  }
  if (auto* l = e.as<LetNode>()) return {l->value, l->var, l->body};
  return DataflowInputs(e);
}

IndexedGraph::IndexedGraph(const Function& func, Options options) {
  std::unordered_map<const ExprNode*, int> index;
  std::unordered_map<const VarNode*, Expr> let_value;
  auto add = [&](const Expr& e) {
    index[e.get()] = static_cast<int>(nodes_.size());
    nodes_.push_back(Node{e, {}, {}, false, -1, 0});
  };
  auto visit_order = [&](const Expr& e) {
    if (!options.callee_nodes) return DataflowInputs(e);
    if (auto* l = e.as<LetNode>()) let_value[l->var.get()] = l->value;
    return CollageVisitOrder(e);
  };
  for (const Var& p : func->params) add(p);
  // Iterative post-order: a node is numbered after all its inputs.
  std::vector<std::pair<Expr, bool>> stack{{func->body, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (index.count(e.get())) continue;
    if (expanded) {
      add(e);
      continue;
    }
    stack.emplace_back(e, true);
    std::vector<Expr> inputs = visit_order(e);
    for (auto it = inputs.rbegin(); it != inputs.rend(); ++it)
      if (!index.count(it->get())) stack.emplace_back(*it, false);
  }
  if (options.function_node) add(func);
  for (Node& n : nodes_) {
    std::vector<Expr> inputs;
    if (n.ref.get() == func.get())
      inputs = {func->body};
    else if (!options.callee_nodes)
      inputs = DataflowInputs(n.ref);
    else if (auto* l = n.ref.as<LetNode>())
      inputs = {l->body};
    else if (auto* v = n.ref.as<VarNode>()) {
      auto it = let_value.find(v);
      if (it != let_value.end()) inputs = {it->second};
    } else
      inputs = CollageVisitOrder(n.ref);
    for (const Expr& in : inputs) n.inputs.push_back(index.at(in.get()));
  }
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (int in : nodes_[i].inputs) nodes_[in].outputs.push_back(static_cast<int>(i));
  for (Node& n : nodes_) {
    std::sort(n.outputs.begin(), n.outputs.end());
    n.outputs.erase(std::unique(n.outputs.begin(), n.outputs.end()), n.outputs.end());
  }
  nodes_[options.function_node ? nodes_.size() - 1 : index.at(func->body.get())].is_external = true;

  // Dominators, in post-DFS order (producers first): the closest common dominator of a
  // node's inputs; sources have none.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    Node& n = nodes_[i];
    if (n.inputs.empty()) continue;
    int lca = n.inputs[0];
    for (size_t k = 1; k < n.inputs.size() && lca >= 0; ++k)
      lca = LeastCommonDominator(lca, n.inputs[k]);
    n.idom = lca;
    n.dom_depth = lca >= 0 ? nodes_[lca].dom_depth + 1 : 0;
  }

  // Post-dominators, in reverse post-DFS order (consumers are numbered later, so they are
  // done first). A node with no consumers, or the external result, has no ipdom.
  for (int i = static_cast<int>(nodes_.size()) - 1; i >= 0; --i) {
    Node& n = nodes_[i];
    if (n.is_external || n.outputs.empty()) {
      n.ipdom = -1;
      n.depth = 0;
      continue;
    }
    int lca = n.outputs[0];
    for (size_t k = 1; k < n.outputs.size() && lca >= 0; ++k)
      lca = LeastCommonPostDominator(lca, n.outputs[k]);
    n.ipdom = lca;
    n.depth = lca >= 0 ? nodes_[lca].depth + 1 : 0;
  }
  index_.assign(index.begin(), index.end());
  std::sort(index_.begin(), index_.end());
}

int IndexedGraph::IndexOf(const ExprNode* expr) const {
  auto it = std::lower_bound(index_.begin(), index_.end(), std::make_pair(expr, -1));
  return it != index_.end() && it->first == expr ? it->second : -1;
}

int IndexedGraph::LeastCommonPostDominator(int a, int b) const {
  while (a != b) {
    if (a < 0 || b < 0) return -1;
    if (nodes_[a].depth < nodes_[b].depth)
      b = nodes_[b].ipdom;
    else if (nodes_[a].depth > nodes_[b].depth)
      a = nodes_[a].ipdom;
    else {
      a = nodes_[a].ipdom;
      b = nodes_[b].ipdom;
    }
  }
  return a;
}

int IndexedGraph::LeastCommonDominator(int a, int b) const {
  while (a != b) {
    if (a < 0 || b < 0) return -1;
    if (nodes_[a].dom_depth < nodes_[b].dom_depth)
      b = nodes_[b].idom;
    else if (nodes_[a].dom_depth > nodes_[b].dom_depth)
      a = nodes_[a].idom;
    else {
      a = nodes_[a].idom;
      b = nodes_[b].idom;
    }
  }
  return a;
}

}  // namespace tessera
