// Extraction of a sub-graph as a function, and the one-pass parallel rewrite of many
// disjoint sub-graphs into the body. Both are iterative (deep graphs are fine).
#include <algorithm>
#include <unordered_map>

#include "tessera/collage/sub_graph.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"

namespace tessera::collage {

namespace {

/// Copies the inferred type of `original` onto `rebuilt` when it is a new node, so
/// extracted bodies stay typed (nested extraction types its parameters from them).
Expr KeepType(const Expr& original, Expr rebuilt) {
  if (!rebuilt.same_as(original) && !rebuilt->checked_type_or_null().defined())
    rebuilt->set_checked_type(original->checked_type_or_null());
  return rebuilt;
}

/// The graph-node children of node `index` (none for leaves and nested functions).
std::vector<Expr> NodeChildren(const DataflowGraph& graph, size_t index) {
  const Expr& e = graph.expr(index);
  if (e.as<FunctionNode>() && index + 1 != graph.size()) return {};
  return ExprChildren(e);
}

size_t IndexOfChild(const DataflowGraph& graph, const Expr& child) {
  int i = graph.IndexOf(child);
  if (i < 0) TS_THROW(kInternal) << "collage: a sub-expression is not a node of the graph";
  return static_cast<size_t>(i);
}

Type TypeOfValues(const std::vector<Expr>& values) {
  if (values.size() == 1) return values[0]->checked_type_or_null();
  std::vector<Type> fields;
  for (const Expr& v : values) {
    if (!v->checked_type_or_null().defined()) return nullptr;
    fields.push_back(v->checked_type_or_null());
  }
  return MakeTupleType(std::move(fields));
}

}  // namespace

ExtractedFunction Extract(const DataflowGraph& graph, const SubGraph& sub_graph,
                          const Attrs& attrs) {
  const IndexSet& inside = sub_graph.inside();
  if (inside.IsZero()) TS_THROW(kInternal) << "collage: cannot extract an empty sub-graph";
  if (inside[graph.size() - 1])
    TS_THROW(kInternal) << "collage: a sub-graph may not hold the function node itself";
  ExtractedFunction result;
  result.exits = sub_graph.exit().ToVector();
  std::unordered_map<size_t, Expr> memo;
  std::vector<Var> params;
  // Depth-first from each exit, last exit first, children left to right: parameters
  // are numbered in the order their argument nodes are first met (TVM's order).
  for (auto exit = result.exits.rbegin(); exit != result.exits.rend(); ++exit) {
    std::vector<std::pair<size_t, bool>> stack{{*exit, false}};
    while (!stack.empty()) {
      auto [i, expanded] = stack.back();
      stack.pop_back();
      if (memo.count(i)) continue;
      const Expr& e = graph.expr(i);
      if (!inside[i]) {
        if (graph.CanInline(i) || (e.as<VarNode>() && !graph.node(i).inputs.empty())) {
          memo[i] = e;  // ops, scalars, function literals (and let vars) are copied in
        } else {
          Type type = e->checked_type_or_null();
          if (auto* v = e.as<VarNode>(); v && !type.defined()) type = v->type_annotation;
          Var p = MakeVar("FunctionVar_" + std::to_string(params.size()), type);
          if (type.defined()) p->set_checked_type(type);
          params.push_back(p);
          result.args.push_back(i);
          memo[i] = p;
        }
        continue;
      }
      std::vector<Expr> children = NodeChildren(graph, i);
      if (!expanded) {
        stack.emplace_back(i, true);
        for (auto c = children.rbegin(); c != children.rend(); ++c) {
          size_t ci = IndexOfChild(graph, *c);
          if (!memo.count(ci)) stack.emplace_back(ci, false);
        }
        continue;
      }
      for (Expr& c : children) c = memo.at(IndexOfChild(graph, c));
      memo[i] = KeepType(e, WithChildren(e, children));
    }
  }
  std::vector<Expr> exit_values;
  for (size_t e : result.exits) exit_values.push_back(memo.at(e));
  Expr body = exit_values.size() == 1 ? exit_values[0] : Expr(MakeTuple(exit_values));
  if (exit_values.size() > 1) body->set_checked_type(TypeOfValues(exit_values));
  Type ret = TypeOfValues(exit_values);

  if (!sub_graph.nested_sub_graphs().empty()) {
    // Rewrite the nested sub-graphs inside the new body: index them in the body's own
    // graph through the memo, then rewrite them all at once.
    Function inner = MakeFunction(params, body, ret);
    DataflowGraph inner_graph(inner);
    std::vector<size_t> map(graph.size(), inner_graph.size());
    for (size_t i : inside) {
      auto it = memo.find(i);
      if (it == memo.end())
        TS_THROW(kInternal) << "collage: node " << i << " of a sub-graph reaches no exit";
      int j = inner_graph.IndexOf(it->second);
      if (j >= 0) map[i] = static_cast<size_t>(j);
    }
    std::vector<NestedSubGraph> nested;
    for (const NestedSubGraph& n : sub_graph.nested_sub_graphs())
      nested.push_back(NestedSubGraph{n.sub_graph.Subst(inner_graph, map), n.attrs});
    body = ParallelRewrite(inner_graph, nested)->body;
  }
  result.function = MakeFunction(std::move(params), body, ret, attrs);
  return result;
}

IndexSet IndexSetFromUser(const DataflowGraph& graph, const std::vector<size_t>& indexes,
                          const std::string& what) {
  if (indexes.empty()) TS_THROW(kValue) << what << ": no indexes given";
  IndexSet set = graph.EmptySet();
  for (size_t i : indexes) {
    if (i + 1 >= graph.size())
      TS_THROW(kValue) << what << ": index " << i
                       << " is not a sub-expression of @main (valid: 0 to " << graph.size() - 2
                       << "; " << graph.size() - 1 << " is the function itself)";
    const Expr& e = graph.expr(i);
    if (e.as<OpNode>() || e.as<GlobalVarNode>() || e.as<FunctionNode>()) {
      std::string use;
      for (int out : graph.node(i).outputs) use += (use.empty() ? "" : ", ") + std::to_string(out);
      std::string node = e.as<OpNode>()          ? "op '" + e.as<OpNode>()->name + "'"
                         : e.as<GlobalVarNode>() ? "global @" + e.as<GlobalVarNode>()->name
                                                 : std::string("function literal");
      TS_THROW(kValue) << what << ": index " << i << " is the " << node
                       << " itself (a callee, copied into every function that calls it), not a "
                          "call; name its call"
                       << (use.empty() ? "" : " (index " + use + ")") << " instead";
    }
    set.Add(i);
  }
  return set;
}

Function ParallelRewrite(const DataflowGraph& graph, const std::vector<NestedSubGraph>& nested) {
  const size_t n = graph.size();
  constexpr int kNone = -1;
  std::vector<int> group(n, kNone);
  for (size_t g = 0; g < nested.size(); ++g)
    for (size_t i : nested[g].sub_graph.inside()) {
      if (group[i] != kNone)
        TS_THROW(kValue) << "ParallelRewrite: node " << i << " is in two sub-graphs";
      if (i + 1 == n) TS_THROW(kValue) << "ParallelRewrite: a sub-graph holds the function";
      group[i] = static_cast<int>(g);
    }
  // A sub-graph whose output flows back into it through outside nodes cannot become
  // one call (and two sub-graphs can only form a cycle if one of them is such).
  for (const NestedSubGraph& part : nested) {
    const SubGraph& sg = part.sub_graph;
    if (graph.Reaches(sg.output(), sg.entry(), sg.inside()))
      TS_THROW(kValue) << "ParallelRewrite: sub-graph " << sg.inside().ToString()
                       << " is not convex: an output flows back into it through nodes "
                          "outside it, so it cannot become one call";
  }
  std::vector<Expr> value(n);  // the rewritten value of each node
  std::vector<ExtractedFunction> extracted(nested.size());
  std::vector<char> group_done(nested.size(), 0), group_open(nested.size(), 0);
  // Items: a node index (>= 0) outside every group, or a group g encoded as -(g + 1).
  auto item_of = [&](size_t i) -> long { return group[i] == kNone ? long(i) : -(group[i] + 1L); };
  auto inputs_of = [&](long item) {
    std::vector<size_t> in;
    if (item >= 0) {
      for (const Expr& c : NodeChildren(graph, static_cast<size_t>(item)))
        in.push_back(IndexOfChild(graph, c));
    } else {
      size_t g = static_cast<size_t>(-item - 1);
      if (!group_open[g]) {
        extracted[g] = Extract(graph, nested[g].sub_graph, nested[g].attrs);
        group_open[g] = 1;
      }
      in = extracted[g].args;
    }
    return in;
  };
  auto done = [&](long item) {
    return item >= 0 ? value[item].defined() : group_done[-item - 1] != 0;
  };
  std::vector<std::pair<long, bool>> stack{{item_of(n - 1), false}};
  while (!stack.empty()) {
    auto [item, expanded] = stack.back();
    stack.pop_back();
    if (done(item)) continue;
    std::vector<size_t> in = inputs_of(item);
    if (!expanded) {
      stack.emplace_back(item, true);
      for (auto c = in.rbegin(); c != in.rend(); ++c)
        if (!done(item_of(*c))) stack.emplace_back(item_of(*c), false);
      continue;
    }
    if (item >= 0) {
      const Expr& e = graph.expr(item);
      std::vector<Expr> children = NodeChildren(graph, item);
      for (Expr& c : children) c = value[IndexOfChild(graph, c)];
      value[item] = children.empty() ? e : KeepType(e, WithChildren(e, children));
      continue;
    }
    size_t g = static_cast<size_t>(-item - 1);
    const ExtractedFunction& f = extracted[g];
    std::vector<Expr> args;
    for (size_t a : f.args) args.push_back(value[a]);
    Call call = MakeCall(f.function, args);
    call->set_checked_type(f.function->ret_type);
    if (f.exits.size() == 1) {
      value[f.exits[0]] = call;
    } else {
      for (size_t k = 0; k < f.exits.size(); ++k) {
        Expr proj = MakeTupleGetItem(call, static_cast<int>(k));
        proj->set_checked_type(graph.expr(f.exits[k])->checked_type_or_null());
        value[f.exits[k]] = proj;
      }
    }
    group_done[g] = 1;
  }
  return Function(value[n - 1].as<FunctionNode>());
}

}  // namespace tessera::collage
