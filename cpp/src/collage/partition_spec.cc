// PartitionSpec: running a spec's rule, and the native backend's FuseOps-like spec.
#include "tessera/collage/partition_spec.h"

#include <map>

#include "tessera/collage/combiner_rule.h"
#include "tessera/support/error.h"

namespace tessera::collage {

std::vector<CandidatePartition> PartitionSpec::AllCandidates(
    const std::shared_ptr<const PartitionSpec>& spec, const DataflowGraph& graph) {
  std::vector<CandidatePartition> result = spec->rule->AllCandidates(graph, spec);
  for (CandidatePartition& c : result) c.rule_name = NestLabels(spec->name, c.rule_name);
  return result;
}

std::string PartitionSpec::ToString() const {
  return "PartitionSpec(" + name + ", target=" + target.ToString() +
         (compiler.empty() ? "" : ", compiler=" + compiler) + ")\n" + rule->ToString();
}

PartitionSpecPtr MakePartitionSpec(std::string name, Target target, PartitionRulePtr rule,
                                   std::string compiler, SubGraphValidator validator) {
  return std::make_shared<const PartitionSpec>(PartitionSpec{std::move(name), std::move(target),
                                                             std::move(rule), std::move(compiler),
                                                             std::move(validator)});
}

PartitionRulePtr MakeFuseOpsLikeRule(size_t max_depth) {
  using K = OpPatternKind;
  std::vector<SimpleCombinerRulePtr> simple{
      std::make_shared<ByKindSimpleCombinerRule>(K::kOutEWiseFusable, K::kBroadcast),
      std::make_shared<ByKindSimpleCombinerRule>(K::kBroadcast, K::kCommReduce),
      std::make_shared<ByKindSimpleCombinerRule>(K::kInjective, K::kInjective)};
  std::vector<CombinerRulePtr> combiners{
      std::make_shared<AllSimpleCombinerRule>("all_simple", simple),
      std::make_shared<TupleArgCombinerRule>("tuple_arg"),
      std::make_shared<TupleProjCombinerRule>("tuple_proj")};
  auto combine = std::make_shared<CombinePartitionRule>(
      "combine", std::make_shared<OpCallByKindPartitionRule>("op_call_by_kind"), combiners,
      max_depth);
  return std::make_shared<OnlyValidPartitionRule>("valid", combine,
                                                  SubGraphConfig{1, false, max_depth});
}

PartitionSpecPtr MakeNativePartitionSpec(const Target& target, size_t max_depth) {
  return MakePartitionSpec(target.kind(), target, MakeFuseOpsLikeRule(max_depth));
}

std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   size_t max_depth, bool include_host) {
  std::vector<PartitionSpecPtr> specs;
  std::map<std::string, int> seen;
  for (const Target& target : targets) {
    if (target.HasAttr("compiler") && !target.GetStringList("compiler").empty())
      TS_THROW(kUnsupported) << "collage: target '" << target.ToString()
                             << "' offloads to an external backend, whose partition rules "
                                "are not registered yet";
    int n = ++seen[target.kind()];
    std::string name = n == 1 ? target.kind() : target.kind() + "_" + std::to_string(n);
    specs.push_back(MakePartitionSpec(name, target, MakeFuseOpsLikeRule(max_depth)));
  }
  if (include_host)
    specs.push_back(
        MakePartitionSpec("host", Target("interp"), std::make_shared<HostPartitionRule>("host")));
  return specs;
}

}  // namespace tessera::collage
