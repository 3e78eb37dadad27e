// Region analysis of annotated function bodies (see byoc_regions.h).
#include "byoc_regions.h"

#include <unordered_set>

#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera::byoc {

const std::string* AnnotationCompiler(const Expr& e, const char* which) {
  auto* call = e.as<CallNode>();
  if (!call || !call->op() || call->op()->name != which) return nullptr;
  const AttrValue* v = call->attrs.Find("compiler");
  return v && v->is_string() ? &v->AsString() : nullptr;
}

Expr StripAnnotations(Expr e) {
  while (AnnotationCompiler(e, kBegin) || AnnotationCompiler(e, kEnd))
    e = e.as<CallNode>()->args[0];
  return e;
}

Expr Begin(Expr x, const std::string& compiler) {
  return MakeOpCall(kBegin, {std::move(x)}, Attrs{{"compiler", compiler}});
}

Expr End(Expr x, const std::string& compiler) {
  return MakeOpCall(kEnd, {std::move(x)}, Attrs{{"compiler", compiler}});
}

bool IsCompute(const Expr& e) {
  if (auto* call = e.as<CallNode>()) {
    const OpNode* op = call->op();
    return !op || (op->name != kBegin && op->name != kEnd);
  }
  return e.as<TupleNode>() || e.as<TupleGetItemNode>();
}

std::vector<Expr> Operands(const Expr& e) {
  if (auto* c = e.as<CallNode>()) return c->args;
  if (auto* t = e.as<TupleNode>()) return t->fields;
  if (auto* g = e.as<TupleGetItemNode>()) return {g->tuple};
  if (auto* l = e.as<LetNode>()) return {l->value, l->body};
  return {};
}

int Regions::Find(int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

Regions AnalyseRegions(const Expr& body) {
  Regions r;
  // Iterative post-order over dataflow operands (annotations included, functions not).
  std::vector<Expr> order;
  {
    std::unordered_set<const ExprNode*> seen{body.get()};
    std::vector<std::pair<Expr, size_t>> stack{{body, 0}};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      std::vector<Expr> ops = Operands(node);
      if (next < ops.size()) {
        Expr child = ops[next++];
        if (seen.insert(child.get()).second) stack.push_back({child, 0});
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  }
  for (const Expr& e : order) {
    if (!IsCompute(e)) continue;
    r.index[e.get()] = static_cast<int>(r.nodes.size());
    r.nodes.push_back(e);
  }
  size_t n = r.nodes.size();
  r.parent.resize(n);
  for (size_t i = 0; i < n; ++i) r.parent[i] = static_cast<int>(i);
  r.target.assign(n, "");
  r.consumers.assign(n, {});
  r.producers.assign(n, {});
  auto set_target = [&](int i, const std::string& c) {
    if (!r.target[i].empty() && r.target[i] != c)
      TS_THROW(kValue) << "an expression is annotated for both '" << r.target[i] << "' and '" << c
                       << "'";
    r.target[i] = c;
  };
  for (size_t i = 0; i < n; ++i) {
    for (const Expr& op : Operands(r.nodes[i])) {
      if (const std::string* c = AnnotationCompiler(op, kBegin))
        set_target(static_cast<int>(i), *c);
      Expr producer = StripAnnotations(op);
      auto it = r.index.find(producer.get());
      if (it == r.index.end()) continue;
      r.producers[i].push_back(it->second);
      r.consumers[it->second].push_back(static_cast<int>(i));
      if (producer.same_as(op)) r.Union(it->second, static_cast<int>(i));  // direct edge
    }
  }
  for (const Expr& e : order) {
    const std::string* c = AnnotationCompiler(e, kEnd);
    if (!c) continue;
    auto it = r.index.find(StripAnnotations(e).get());
    if (it != r.index.end()) set_target(it->second, *c);
  }
  // Every region must have one compiler.
  std::unordered_map<int, std::string> region_target;
  for (size_t i = 0; i < n; ++i) {
    if (r.target[i].empty()) continue;
    auto [it, fresh] = region_target.emplace(r.Find(static_cast<int>(i)), r.target[i]);
    if (!fresh && it->second != r.target[i])
      TS_THROW(kValue) << "one region mixes compilers '" << it->second << "' and '" << r.target[i]
                       << "'";
  }
  return r;
}

}  // namespace tessera::byoc
