// MergeCompilerRegions: joins adjacent regions of one compiler when that cannot create
// a cycle, by removing the compiler_end/compiler_begin pairs between them.
#include <unordered_map>
#include <unordered_set>
#include "builtin_passes.h"

#include "byoc_regions.h"
#include "tessera/ir/visitor.h"
#include "tessera/transform/byoc.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

namespace {

/// True when some path from region `a` to region `b` leaves both (merging would then
/// make the merged region depend on itself).
bool PathThroughOthers(byoc::Regions& r, int a, int b) {
  int ra = r.Find(a), rb = r.Find(b);
  std::vector<int> stack;
  std::unordered_set<int> seen;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    if (r.Find(static_cast<int>(i)) != ra) continue;
    for (int c : r.consumers[i]) {
      int rc = r.Find(c);
      if (rc != ra && rc != rb && seen.insert(c).second) stack.push_back(c);
    }
  }
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    for (int c : r.consumers[n]) {
      if (r.Find(c) == rb) return true;
      if (seen.insert(c).second) stack.push_back(c);
    }
  }
  return false;
}

Expr MergeBody(const Expr& body) {
  byoc::Regions r = byoc::AnalyseRegions(body);
  std::unordered_map<int, std::string> target;  // by region root
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (!r.target[i].empty()) target[r.Find(static_cast<int>(i))] = r.target[i];
  auto target_of = [&](int i) {
    auto it = target.find(r.Find(i));
    return it == target.end() ? std::string() : it->second;
  };
  bool merged_any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      int n = static_cast<int>(i);
      std::string t = target_of(n);
      if (t.empty()) continue;
      for (int p : r.producers[n]) {
        if (r.Find(p) == r.Find(n) || target_of(p) != t || PathThroughOthers(r, p, n)) continue;
        r.Union(p, n);
        target[r.Find(n)] = t;
        changed = merged_any = true;
      }
    }
  }
  if (!merged_any) return body;
  // Drop the end/begin pairs between nodes of one region.
  class Merger : public ExprMutator {
   public:
    explicit Merger(byoc::Regions& r) : r_(r) {}

   protected:
    bool SkipChildren(const Expr& e) override { return e.as<FunctionNode>() != nullptr; }
    Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
      auto self = r_.index.find(original.get());
      if (self == r_.index.end()) return rebuilt;
      std::vector<Expr> originals = ExprChildren(original), children = ExprChildren(rebuilt);
      size_t first = original.as<CallNode>() ? 1 : 0;
      bool changed = false;
      for (size_t k = first; k < children.size(); ++k) {
        Expr producer = byoc::StripAnnotations(originals[k]);
        if (producer.same_as(originals[k])) continue;
        auto it = r_.index.find(producer.get());
        if (it == r_.index.end() || r_.Find(it->second) != r_.Find(self->second)) continue;
        children[k] = Mutate(producer);
        changed = true;
      }
      return changed ? WithChildren(rebuilt, children) : rebuilt;
    }

   private:
    byoc::Regions& r_;
  };
  Merger merger(r);
  return merger.Mutate(body);
}

}  // namespace

Pass MergeCompilerRegions() {
  return CreateModulePass(
      [](IRModule mod, const PassContext&) {
        IRModule out = mod;
        for (const auto& [name, base] : mod.functions()) {
          auto* fn = base.as<FunctionNode>();
          if (!fn || GetIntAttr(fn, attr::kPrimitive) || fn->attrs.Has(attr::kCompiler)) continue;
          Expr body = MergeBody(fn->body);
          if (body.same_as(fn->body)) continue;
          out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
        }
        return out;
      },
      PassInfo{"MergeCompilerRegions", 0, {}});
}

PassRegistration MergeCompilerRegionsRegistration() {
  return {"MergeCompilerRegions", "merge adjacent regions of one compiler", {}, [](const Attrs&) {
            return MergeCompilerRegions();
          }};
}

}  // namespace tessera
