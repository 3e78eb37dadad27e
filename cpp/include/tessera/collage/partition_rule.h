// Partition rules: composable producers of candidate partitions for a spec. Leaf rules
// pick nodes (by op predicate, by kind, host glue); wrapper rules label, union, filter
// and coalesce. Combining rules are in combiner_rule.h. Rules print as a tree.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/pattern/matcher.h"

namespace tessera::collage {

/// Base of all rules. A rule is immutable; `AllCandidates` may be called on many graphs.
class PartitionRule {
 public:
  explicit PartitionRule(std::string rule_name) : rule_name_(std::move(rule_name)) {}
  virtual ~PartitionRule() = default;

  /// The rule's own name (its candidates' names nest it: "outer.inner").
  const std::string& rule_name() const { return rule_name_; }
  /// Every candidate the rule finds on `graph` for `spec` (they may overlap).
  virtual std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                        const PartitionSpecPtr& spec) const = 0;
  /// The rule tree, one rule per line, children indented:
  ///   OnlyValid(native, {max_exits=1, ...})
  ///     Combine(combine, max_depth=4, [AllSimple(A->B, B->R, I->I), TupleArg, TupleProj])
  ///       OpCallByKind(op_call_by_kind)
  std::string ToString() const;

 protected:
  /// This rule's line (without children), e.g. "Composite(dnnl.conv2d)".
  virtual std::string Describe() const = 0;
  /// Sub-rules, printed below this one.
  virtual std::vector<PartitionRulePtr> SubRules() const { return {}; }

 private:
  void Print(std::string& out, int indent) const;
  std::string rule_name_;
};

/// One candidate per match of a DFPattern: the matcher is tried at every node (so
/// candidates may overlap) and a match is kept when `predicate` (given the typed root)
/// accepts it. The candidate holds the matched nodes except inlinable ones (ops,
/// functions, scalar constants) and nodes matched by wildcards; its kind and label
/// come from what remains.
class DFPatternPartitionRule : public PartitionRule {
 public:
  DFPatternPartitionRule(std::string rule_name, DFPattern pattern,
                         PatternPredicate predicate = nullptr);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;

 private:
  DFPattern pattern_;
  PatternPredicate predicate_;
};

/// One singleton per op call whose `predicate` holds (Collage's operator-predicate
/// rule: a backend lists which op calls it supports, e.g. by op name and attributes).
class OpPredicatePartitionRule : public PartitionRule {
 public:
  using Predicate = std::function<bool(const CallNode& call)>;
  OpPredicatePartitionRule(std::string rule_name, Predicate predicate, std::string description);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;

 private:
  Predicate predicate_;
  std::string description_;
};

/// One singleton per call of kind <= out_elemwise_fusable (opaque calls, tuples and
/// projections get none).
class OpCallByKindPartitionRule : public PartitionRule {
 public:
  using PartitionRule::PartitionRule;
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
};

/// The sub-rule's candidates, each to become a function with Composite=rule_name.
class CompositePartitionRule : public PartitionRule {
 public:
  CompositePartitionRule(std::string rule_name, PartitionRulePtr sub_rule);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return {sub_rule_}; }

 private:
  PartitionRulePtr sub_rule_;
};

/// The sub-rule's candidates, each to become a kernel: Primitive=1, plus
/// Compiler=spec.compiler for an external backend.
class PrimitivePartitionRule : public PartitionRule {
 public:
  PrimitivePartitionRule(std::string rule_name, PartitionRulePtr sub_rule);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return {sub_rule_}; }

 private:
  PartitionRulePtr sub_rule_;
};

/// The candidates of every sub-rule, in order.
class UnionPartitionRule : public PartitionRule {
 public:
  UnionPartitionRule(std::string rule_name, std::vector<PartitionRulePtr> sub_rules);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return sub_rules_; }

 private:
  std::vector<PartitionRulePtr> sub_rules_;
};

/// The sub-rule's candidates that satisfy SubGraph::IsValid(config).
class OnlyValidPartitionRule : public PartitionRule {
 public:
  OnlyValidPartitionRule(std::string rule_name, PartitionRulePtr sub_rule, SubGraphConfig config);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return {sub_rule_}; }

 private:
  PartitionRulePtr sub_rule_;
  SubGraphConfig config_;
};

/// A zero-cost singleton for every node the host evaluates without a kernel: vars,
/// constants, ops, tuples, projections, functions, lets and calls of globals or of
/// non-Primitive functions. Calls of ops and of Primitive functions must be lowered.
class HostPartitionRule : public PartitionRule {
 public:
  using PartitionRule::PartitionRule;
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
};

/// The sub-rule's candidates after MaxCoalesce (touching candidates merged).
class MaxCoalescePartitionRule : public PartitionRule {
 public:
  MaxCoalescePartitionRule(std::string rule_name, PartitionRulePtr sub_rule);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return {sub_rule_}; }

 private:
  PartitionRulePtr sub_rule_;
};

/// Whether the host must hand node `index` to a kernel (see HostPartitionRule).
bool MustBeLowered(const DataflowGraph& graph, size_t index);

}  // namespace tessera::collage
