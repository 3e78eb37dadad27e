// MergeComposite: pattern-table matches become Composite-labelled local functions.
#include "builtin_passes.h"
#include "pass_util.h"
#include "tessera/ir/infer_type.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"

namespace tessera {

Pass MergeComposite(std::vector<PatternTableEntry> table) {
  for (const PatternTableEntry& e : table)
    if (!e.pattern.defined() || e.label.empty())
      TS_THROW(kValue) << "MergeComposite: every entry needs a label and a pattern";
  return CreateModulePass(
      [table](IRModule mod, const PassContext&) {
        mod = InferTypes(mod);
        for (const PatternTableEntry& entry : table) {
          IRModule next = mod;
          for (const auto& [name, base] : mod.functions()) {
            auto* fn = base.as<FunctionNode>();
            if (!fn || GetIntAttr(fn, attr::kPrimitive) || fn->attrs.Has(attr::kCompiler) ||
                GetIntAttr(fn, attr::kSkipOptimization))
              continue;
            Function func(fn);
            Function out = PartitionPattern(entry.pattern, entry.label, func, entry.predicate);
            if (!out.same_as(func)) next = next.WithFunction(name, out);
          }
          // Later entries (and their type predicates) see typed composites.
          if (!next.same_as(mod)) mod = InferTypes(next);
        }
        return mod;
      },
      PassInfo{"MergeComposite", 0, {}});
}

Pass MergeComposite(const std::vector<std::string>& compilers) {
  std::vector<PatternTableEntry> table;
  for (const std::string& c : compilers)
    for (const PatternTableEntry& e : GetPatternTable(c)) table.push_back(e);
  return MergeComposite(std::move(table));
}

PassRegistration MergeCompositeRegistration() {
  return {"MergeComposite",
          "turn pattern-table matches into Composite functions",
          {{"compilers", AttrValue::Kind::kString, AttrValue("dnnl"),
            "comma-separated compilers whose pattern tables to apply"}},
          [](const Attrs& o) {
            return MergeComposite(SplitCompilerNames(o.GetString("compilers"), "MergeComposite"));
          }};
}

}  // namespace tessera
