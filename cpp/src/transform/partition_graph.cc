// PartitionGraph: outlines each annotated region into a global Compiler function.
#include <map>
#include <unordered_map>
#include <unordered_set>
#include "builtin_passes.h"

#include "byoc_regions.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

namespace {

/// One region to outline.
struct Region {
  std::string compiler;
  std::vector<int> members;  // positions in Regions::nodes, post-order
  std::vector<Expr> inputs;  // outside expressions, in first-use order
  std::vector<int> outputs;  // members used outside, post-order
  std::string symbol;
  Expr call;  // the call in the caller, once built
};

class Partitioner {
 public:
  Partitioner(const std::string& func_name, IRModule& mod, std::map<std::string, int>& counters)
      : func_name_(func_name), mod_(mod), counters_(counters) {}

  Expr Run(const Expr& body) {
    r_ = byoc::AnalyseRegions(body);
    CollectRegions(body);
    if (regions_.empty()) return body;
    for (Region& region : regions_) Outline(region);
    return Rewrite(body);
  }

 private:
  void CollectRegions(const Expr& body) {
    std::unordered_map<int, int> by_root;  // region root -> index in regions_
    size_t n = r_.nodes.size();
    std::unordered_map<int, std::string> target;
    for (size_t i = 0; i < n; ++i)
      if (!r_.target[i].empty()) target[r_.Find(static_cast<int>(i))] = r_.target[i];
    region_of_.assign(n, -1);
    for (size_t i = 0; i < n; ++i) {
      int root = r_.Find(static_cast<int>(i));
      auto t = target.find(root);
      if (t == target.end()) continue;
      auto [it, fresh] = by_root.emplace(root, static_cast<int>(regions_.size()));
      if (fresh) {
        regions_.emplace_back();
        regions_.back().compiler = t->second;
      }
      regions_[it->second].members.push_back(static_cast<int>(i));
      region_of_[i] = it->second;
    }
    // Outputs: members used by anything outside their region (or the body's result).
    std::unordered_set<const ExprNode*> used_outside;
    used_outside.insert(byoc::StripAnnotations(body).get());
    PostOrderVisitBody(body, [&](const Expr& e) {
      auto self = r_.index.find(e.get());
      for (const Expr& op : byoc::Operands(e)) {
        Expr producer = byoc::StripAnnotations(op);
        auto it = r_.index.find(producer.get());
        if (it == r_.index.end() || region_of_[it->second] < 0) continue;
        bool same = self != r_.index.end() && region_of_[self->second] == region_of_[it->second];
        if (!same) used_outside.insert(producer.get());
      }
    });
    for (Region& region : regions_)
      for (int m : region.members)
        if (used_outside.count(r_.nodes[m].get())) region.outputs.push_back(m);
  }

  /// Visits the body's dataflow nodes (annotations included, not nested functions).
  void PostOrderVisitBody(const Expr& body, const std::function<void(const Expr&)>& fn) {
    std::unordered_set<const ExprNode*> seen{body.get()};
    std::vector<std::pair<Expr, size_t>> stack{{body, 0}};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      std::vector<Expr> ops = byoc::Operands(node);
      if (next < ops.size()) {
        Expr child = ops[next++];
        if (seen.insert(child.get()).second) stack.push_back({child, 0});
        continue;
      }
      Expr done = node;
      stack.pop_back();
      fn(done);
    }
  }

  void Outline(Region& region) {
    int& k = counters_[region.compiler];
    do {
      region.symbol = region.compiler + "_" + func_name_ + "_" + std::to_string(k++);
    } while (mod_.Contains(region.symbol));
    std::unordered_map<const ExprNode*, Expr> copied;  // member or input -> body expr
    std::vector<Var> params;
    auto input = [&](const Expr& outside) -> Expr {
      if (auto it = copied.find(outside.get()); it != copied.end()) return it->second;
      Var p = MakeVar(region.symbol + "_i" + std::to_string(params.size()),
                      outside->checked_type_or_null());
      params.push_back(p);
      region.inputs.push_back(outside);
      return copied[outside.get()] = p;
    };
    int self = region_of_[region.members[0]];
    for (int m : region.members) {
      const Expr& node = r_.nodes[m];
      std::vector<Expr> children = ExprChildren(node);
      size_t first = node.as<CallNode>() ? 1 : 0;
      for (size_t c = first; c < children.size(); ++c) {
        const Expr& op = children[c];
        Expr producer = byoc::StripAnnotations(op);
        auto it = r_.index.find(producer.get());
        if (it != r_.index.end() && region_of_[it->second] == self) {
          children[c] = copied.at(producer.get());
        } else if (producer.as<ConstantNode>()) {
          children[c] = producer;  // constants stay inside (backends preprocess them)
        } else {
          children[c] = input(producer);
        }
      }
      copied[node.get()] = WithChildren(node, children);
    }
    Expr body;
    if (region.outputs.size() == 1) {
      body = copied.at(r_.nodes[region.outputs[0]].get());
    } else {
      std::vector<Expr> fields;
      for (int o : region.outputs) fields.push_back(copied.at(r_.nodes[o].get()));
      body = MakeTuple(std::move(fields));
    }
    Attrs attrs{{attr::kPrimitive, int64_t{1}},
                {attr::kCompiler, region.compiler},
                {attr::kGlobalSymbol, region.symbol}};
    mod_ = mod_.WithFunction(region.symbol, MakeFunction(params, body, nullptr, attrs));
  }

  Expr Rewrite(const Expr& body) {
    class Rewriter : public ExprMutator {
     public:
      explicit Rewriter(Partitioner& p) : p_(p) {}

     protected:
      bool SkipChildren(const Expr& e) override { return e.as<FunctionNode>() != nullptr; }
      Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
        if (byoc::AnnotationCompiler(original, byoc::kBegin) ||
            byoc::AnnotationCompiler(original, byoc::kEnd))
          return Mutate(original.as<CallNode>()->args[0]);
        auto it = p_.r_.index.find(original.get());
        if (it == p_.r_.index.end() || p_.region_of_[it->second] < 0) return rebuilt;
        Region& region = p_.regions_[p_.region_of_[it->second]];
        for (size_t o = 0; o < region.outputs.size(); ++o) {
          if (region.outputs[o] != it->second) continue;
          if (!region.call.defined()) {
            std::vector<Expr> args;
            for (const Expr& in : region.inputs) args.push_back(Mutate(in));
            region.call = MakeCall(MakeGlobalVar(region.symbol), std::move(args));
          }
          if (region.outputs.size() == 1) return region.call;
          return MakeTupleGetItem(region.call, static_cast<int>(o));
        }
        return rebuilt;  // an inner node: unused once its outputs are replaced
      }

     private:
      Partitioner& p_;
    };
    Rewriter rewriter(*this);
    return rewriter.Mutate(body);
  }

  std::string func_name_;
  IRModule& mod_;
  std::map<std::string, int>& counters_;
  byoc::Regions r_;
  std::vector<Region> regions_;
  std::vector<int> region_of_;
};

}  // namespace

Pass PartitionGraph() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        IRModule out = mod;
        std::map<std::string, int> counters;
        for (const auto& [name, base] : mod.functions()) {
          auto* fn = base.as<FunctionNode>();
          if (!fn || GetIntAttr(fn, attr::kPrimitive) || fn->attrs.Has(attr::kCompiler)) continue;
          Partitioner partitioner(name, out, counters);
          Expr body = partitioner.Run(fn->body);
          if (body.same_as(fn->body)) continue;
          out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
        }
        return InferTypes(out);
      },
      PassInfo{"PartitionGraph", 0, {}});
}

PassRegistration PartitionGraphRegistration() {
  return {
      "PartitionGraph", "outline annotated regions into Compiler functions", {}, [](const Attrs&) {
        return PartitionGraph();
      }};
}

}  // namespace tessera
