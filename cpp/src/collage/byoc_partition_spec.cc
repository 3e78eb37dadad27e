// Library backends' partition specs, built from their registered pattern tables and
// op-support predicates, and GatherPartitionSpecs: the specs of a list of targets.
#include <algorithm>
#include <map>
#include <set>

#include "tessera/collage/combiner_rule.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera::collage {

ByocFusionStyle ParseByocFusionStyle(const std::string& name, const std::string& what) {
  if (name == "NoFusion" || name == "none") return ByocFusionStyle::kNoFusion;
  if (name == "TVMFusion" || name == "tvm") return ByocFusionStyle::kTVMFusion;
  if (name == "ArbitraryFusion" || name == "arbitrary") return ByocFusionStyle::kArbitraryFusion;
  TS_THROW(kValue) << what << ": unknown fusion style '" << name
                   << "' (use NoFusion, TVMFusion or ArbitraryFusion; or none, tvm, arbitrary)";
}

namespace {

/// One candidate per op call `compiler` supports by itself (its op-support predicates).
PartitionRulePtr SupportedOpsRule(const std::string& compiler) {
  std::vector<std::string> ops = PatternTableRegistry::Global().SupportedOps(compiler);
  std::string description;
  for (const std::string& op : ops) description += (description.empty() ? "" : ", ") + op;
  auto predicate = [compiler](const CallNode& call) {
    const OpSupportPredicate* supported =
        PatternTableRegistry::Global().FindOpSupport(compiler, call.op()->name);
    return supported && (*supported)(call);
  };
  return std::make_shared<OpPredicatePartitionRule>("ops", predicate, description);
}

std::vector<CombinerRulePtr> FusionRules(ByocFusionStyle style) {
  using K = OpPatternKind;
  std::vector<SimpleCombinerRulePtr> simple;
  if (style == ByocFusionStyle::kTVMFusion) {
    simple = {std::make_shared<ByKindSimpleCombinerRule>(K::kOutEWiseFusable, K::kBroadcast),
              std::make_shared<ByKindSimpleCombinerRule>(K::kBroadcast, K::kCommReduce),
              std::make_shared<ByKindSimpleCombinerRule>(K::kInjective, K::kInjective)};
  } else if (style == ByocFusionStyle::kArbitraryFusion) {
    simple = {std::make_shared<ByKindSimpleCombinerRule>(K::kOutEWiseFusable, K::kOutEWiseFusable)};
  }
  if (simple.empty()) return {};
  return {std::make_shared<AllSimpleCombinerRule>("all_simple", simple)};
}

/// The offload options of a target, in the order Build applies them.
constexpr const char* kOffloadOptions[] = {"compiler", "libs"};

}  // namespace

PartitionRulePtr MakeByocPartitionRule(const std::string& compiler, size_t max_depth,
                                       ByocFusionStyle style) {
  const PatternTableRegistry& registry = PatternTableRegistry::Global();
  if (!registry.HasCompiler(compiler)) {
    std::string known;
    for (const std::string& name : registry.ListCompilers())
      known += (known.empty() ? "" : ", ") + name;
    TS_THROW(kNotFound) << "collage: no pattern table or supported ops registered for library '"
                        << compiler << "' (registered: " << (known.empty() ? "none" : known) << ")";
  }
  std::vector<PartitionRulePtr> entries;
  for (const PatternTableEntry& entry : registry.GetPatterns(compiler))
    entries.push_back(std::make_shared<CompositePartitionRule>(
        entry.label, std::make_shared<DFPatternPartitionRule>("", entry.pattern, entry.predicate)));
  if (!registry.SupportedOps(compiler).empty()) entries.push_back(SupportedOpsRule(compiler));
  if (entries.empty())
    TS_THROW(kNotFound) << "collage: library '" << compiler
                        << "' has an empty pattern table and no supported ops";
  PartitionRulePtr rule = std::make_shared<UnionPartitionRule>("", std::move(entries));
  std::vector<CombinerRulePtr> combiners = FusionRules(style);
  if (!combiners.empty())
    rule = std::make_shared<CombinePartitionRule>("combine", rule, combiners, max_depth);
  rule =
      std::make_shared<OnlyValidPartitionRule>("valid", rule, SubGraphConfig{1, false, max_depth});
  return std::make_shared<PrimitivePartitionRule>("", rule);
}

PartitionSpecPtr MakeByocPartitionSpec(const Target& target, const std::string& compiler,
                                       size_t max_depth, ByocFusionStyle style) {
  return MakePartitionSpec(compiler, target, MakeByocPartitionRule(compiler, max_depth, style),
                           compiler);
}

std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   size_t max_depth, bool include_host) {
  SpecOptions options;
  options.native_max_depth = options.byoc_max_depth = max_depth;
  options.include_host = include_host;
  return GatherPartitionSpecs(targets, options);
}

std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   const SpecOptions& options) {
  std::vector<PartitionSpecPtr> specs;
  std::set<std::string> native_targets, libraries;
  std::map<std::string, int> per_kind;
  auto add_library = [&](const std::string& library, const Target& host) {
    if (!libraries.insert(library).second) return;
    auto style = options.fusion_styles.find(library);
    PartitionRulePtr rule = MakeByocPartitionRule(
        library, options.byoc_max_depth,
        style == options.fusion_styles.end() ? ByocFusionStyle::kArbitraryFusion : style->second);
    Target target(library);
    if (host.HasAttr("num_threads") && target.HasAttr("num_threads") &&
        host.attrs().count("num_threads"))
      target.Set("num_threads", std::to_string(host.GetInt("num_threads")));
    specs.push_back(MakePartitionSpec(library, target, rule, library));
  };
  for (const Target& target : targets) {
    if (!CompilesWholeModels(target.kind())) {  // e.g. "dnnl" given as a target of its own
      add_library(target.kind(), target);
      continue;
    }
    Target base = target;
    for (const char* option : kOffloadOptions) base = base.Without(option);
    if (native_targets.insert(base.ToString()).second) {
      int n = ++per_kind[base.kind()];
      std::string name = n == 1 ? base.kind() : base.kind() + "_" + std::to_string(n);
      specs.push_back(MakePartitionSpec(name, base, MakeFuseOpsLikeRule(options.native_max_depth)));
    }
    for (const char* option : kOffloadOptions)
      if (target.HasAttr(option))
        for (const std::string& library : target.GetStringList(option))
          add_library(library, target);
  }
  if (options.include_host)
    specs.push_back(
        MakePartitionSpec("host", Target("interp"), std::make_shared<HostPartitionRule>("host")));
  return specs;
}

}  // namespace tessera::collage
