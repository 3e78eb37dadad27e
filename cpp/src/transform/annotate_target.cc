// AnnotateTarget: wraps the inputs and outputs of calls an external compiler supports
// in compiler_begin / compiler_end annotations.
#include <unordered_map>
#include "builtin_passes.h"
#include "pass_util.h"

#include "byoc_regions.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

namespace {

using byoc::Begin;
using byoc::End;

class Annotator : public ExprMutator {
 public:
  Annotator(const std::vector<std::string>& compilers, bool non_call_ops)
      : compilers_(compilers), non_call_ops_(non_call_ops) {}

  /// The annotated body (its result ends any region it belongs to).
  Expr Run(const Expr& body) {
    Expr out = Mutate(body);
    const std::string& t = TargetOf(body);
    return t.empty() ? out : EndOf(out, t);
  }

 protected:
  bool SkipChildren(const Expr& e) override { return e.as<FunctionNode>() != nullptr; }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    if (byoc::AnnotationCompiler(original, byoc::kBegin) ||
        byoc::AnnotationCompiler(original, byoc::kEnd))
      TS_THROW(kValue) << "AnnotateTarget: the function is already annotated";
    if (!byoc::IsCompute(original) && !original.as<LetNode>()) return rebuilt;
    std::string target = Choose(original);
    targets_[original.get()] = target;
    // Wrap operands: the callee (children[0] of a call) and let vars are left alone.
    std::vector<Expr> originals = ExprChildren(original), children = ExprChildren(rebuilt);
    size_t first = original.as<CallNode>() ? 1 : 0;
    for (size_t i = first; i < children.size(); ++i) {
      if (original.as<LetNode>() && i == 0) continue;
      const std::string& from = TargetOf(originals[i]);
      Expr arg = children[i];
      if (!from.empty()) arg = EndOf(arg, from);
      if (!target.empty() && !originals[i].as<ConstantNode>()) arg = Begin(arg, target);
      children[i] = arg;
    }
    return WithChildren(rebuilt, children);
  }

 private:
  /// The compiler of an already visited original node ("" when none).
  const std::string& TargetOf(const Expr& e) const {
    static const std::string kNone;
    auto it = targets_.find(e.get());
    return it == targets_.end() ? kNone : it->second;
  }

  /// One end annotation per producer (so sharing is kept).
  Expr EndOf(const Expr& x, const std::string& compiler) {
    auto it = ends_.find(x.get());
    if (it != ends_.end()) return it->second;
    keep_.push_back(x);
    return ends_[x.get()] = End(x, compiler);
  }

  std::string Choose(const Expr& e) const {
    if (auto* call = e.as<CallNode>()) {
      for (const std::string& c : compilers_)
        if (IsSupportedBy(c, *call)) return c;
      return "";
    }
    if (!non_call_ops_) return "";
    if (auto* g = e.as<TupleGetItemNode>()) return TargetOf(g->tuple);
    if (auto* t = e.as<TupleNode>()) {
      std::string common;
      for (const Expr& f : t->fields) {
        if (f.as<ConstantNode>()) continue;
        const std::string& ft = TargetOf(f);
        if (ft.empty() || (!common.empty() && ft != common)) return "";
        common = ft;
      }
      return common;
    }
    return "";
  }

  const std::vector<std::string>& compilers_;
  bool non_call_ops_;
  std::unordered_map<const ExprNode*, std::string> targets_;
  std::unordered_map<const ExprNode*, Expr> ends_;
  std::vector<Expr> keep_;  // keeps keys of ends_ alive
};

}  // namespace

Pass AnnotateTarget(std::vector<std::string> compilers, bool include_non_call_ops) {
  if (compilers.empty()) TS_THROW(kValue) << "AnnotateTarget needs at least one compiler";
  for (const std::string& c : compilers)
    if (!PatternTableRegistry::Global().HasCompiler(c))
      PatternTableRegistry::Global().GetPatterns(c);  // throws, listing the known ones
  return CreateModulePass(
      [compilers, include_non_call_ops](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        IRModule out = mod;
        for (const auto& [name, base] : mod.functions()) {
          auto* fn = base.as<FunctionNode>();
          if (!fn || GetIntAttr(fn, attr::kPrimitive) || fn->attrs.Has(attr::kCompiler) ||
              GetIntAttr(fn, attr::kSkipOptimization))
            continue;
          Annotator annotator(compilers, include_non_call_ops);
          Expr body = annotator.Run(fn->body);
          if (body.same_as(fn->body)) continue;
          out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
        }
        return out;
      },
      PassInfo{"AnnotateTarget", 0, {}});
}

PassRegistration AnnotateTargetRegistration() {
  return {"AnnotateTarget",
          "annotate the regions external compilers support",
          {{"compilers", AttrValue::Kind::kString, AttrValue("dnnl"),
            "comma-separated compilers, first wins"},
           {"include_non_call_ops", AttrValue::Kind::kBool, AttrValue(true),
            "let tuples and projections join their operands' compiler"}},
          [](const Attrs& o) {
            return AnnotateTarget(SplitCompilerNames(o.GetString("compilers"), "AnnotateTarget"),
                                  o.GetBool("include_non_call_ops"));
          }};
}

}  // namespace tessera
