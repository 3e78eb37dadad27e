// PartitionSpec: running a spec's rule, and the native backend's FuseOps-like spec.
// (Library backends' specs and GatherPartitionSpecs are in byoc_partition_spec.cc.)
#include "tessera/collage/partition_spec.h"

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

}  // namespace tessera::collage
