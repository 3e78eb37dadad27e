// Combining candidates: the CandidateSet worklist, combiner rules (by-kind pairs,
// tuple arguments, tuple projections, constants) and CombinePartitionRule.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "tessera/collage/partition_rule.h"

namespace tessera::collage {

/// The growing set of candidates a CombinePartitionRule works on, in rounds: combiners
/// read `current()` and `Add` unions; `PrepareForNextRound` makes the additions current.
/// Candidates at index >= first_new_index() were added in the last round.
class CandidateSet {
 public:
  explicit CandidateSet(std::vector<CandidatePartition> initial);
  const std::vector<CandidatePartition>& current() const { return current_; }
  size_t first_new_index() const { return first_new_index_; }
  /// Queues `candidate` unless an equal one was ever seen.
  void Add(CandidatePartition candidate);
  /// Moves the queued candidates into current(); false when there were none.
  bool PrepareForNextRound();
  /// Every candidate, sorted.
  std::vector<CandidatePartition> MovedCurrentCandidates();

 private:
  struct Hash {
    size_t operator()(const CandidatePartition& c) const { return c.Hash(); }
  };
  std::vector<CandidatePartition> current_, to_add_;
  std::unordered_set<CandidatePartition, Hash> seen_;
  size_t first_new_index_ = 0;
};

/// What a combiner sees in one round.
struct CombinerContext {
  const DataflowGraph& graph;
  size_t max_depth;  ///< 0: no limit
  CandidateSet& candidates;
};

/// Base of combiner rules: each round, add unions of current candidates, at least one
/// of them new in the last round (older pairs were tried before).
class CombinerRule {
 public:
  explicit CombinerRule(std::string name) : name_(std::move(name)) {}
  virtual ~CombinerRule() = default;
  const std::string& name() const { return name_; }
  virtual void AppendAllResults(CombinerContext& context) const = 0;
  /// e.g. "AllSimple(A->B, B->R)".
  virtual std::string ToString() const = 0;

 private:
  std::string name_;
};
using CombinerRulePtr = std::shared_ptr<const CombinerRule>;

/// A test on an (upstream, downstream) pair of touching candidates.
class SimpleCombinerRule {
 public:
  virtual ~SimpleCombinerRule() = default;
  virtual bool Fires(const DataflowGraph& graph, const CandidatePartition& upstream,
                     const CandidatePartition& downstream) const = 0;
  virtual std::string ToString() const = 0;
};
using SimpleCombinerRulePtr = std::shared_ptr<const SimpleCombinerRule>;

/// Fires when upstream.kind <= upstream_kind and downstream.kind <= downstream_kind;
/// printed "A->B" with the kinds' letters (E B I R A T O).
class ByKindSimpleCombinerRule : public SimpleCombinerRule {
 public:
  ByKindSimpleCombinerRule(OpPatternKind upstream_kind, OpPatternKind downstream_kind)
      : upstream_kind_(upstream_kind), downstream_kind_(downstream_kind) {}
  bool Fires(const DataflowGraph& graph, const CandidatePartition& upstream,
             const CandidatePartition& downstream) const override;
  std::string ToString() const override;

 private:
  OpPatternKind upstream_kind_, downstream_kind_;
};

/// Unions every candidate i with every candidate j that has one of i's outputs as an
/// entry, when they touch, the sum of their depths fits max_depth and some simple rule
/// fires. Unlike TVM, pairs of an old upstream with a new downstream are tried too
/// (TVM skipped them after the first round and so missed such combinations).
class AllSimpleCombinerRule : public CombinerRule {
 public:
  AllSimpleCombinerRule(std::string name, std::vector<SimpleCombinerRulePtr> rules);
  void AppendAllResults(CombinerContext& context) const override;
  std::string ToString() const override;

 private:
  std::vector<SimpleCombinerRulePtr> rules_;
};

/// For each candidate C of kind <= injective fed by a tuple T whose every field is the
/// exit of some other candidate of kind <= injective, adds C + T + one such candidate
/// per field, for every choice that is disjoint (TVM did not check, and failed) and
/// fits max_depth.
class TupleArgCombinerRule : public CombinerRule {
 public:
  using CombinerRule::CombinerRule;
  void AppendAllResults(CombinerContext& context) const override;
  std::string ToString() const override { return "TupleArg"; }
};

/// For each new candidate and each tuple projection among its outputs, adds the
/// candidate plus the projection.
class TupleProjCombinerRule : public CombinerRule {
 public:
  using CombinerRule::CombinerRule;
  void AppendAllResults(CombinerContext& context) const override;
  std::string ToString() const override { return "TupleProj"; }
};

/// For each new candidate with (non-scalar) constant arguments, adds the candidate plus
/// those constants.
class ConstantCombinerRule : public CombinerRule {
 public:
  using CombinerRule::CombinerRule;
  void AppendAllResults(CombinerContext& context) const override;
  std::string ToString() const override { return "Constant"; }
};

/// Seeds a CandidateSet with the sub-rule's candidates and runs the combiners round
/// after round until nothing new appears; returns every candidate (valid or not: wrap
/// in OnlyValidPartitionRule to filter).
class CombinePartitionRule : public PartitionRule {
 public:
  CombinePartitionRule(std::string rule_name, PartitionRulePtr sub_rule,
                       std::vector<CombinerRulePtr> combiners, size_t max_depth);
  std::vector<CandidatePartition> AllCandidates(const DataflowGraph& graph,
                                                const PartitionSpecPtr& spec) const override;

 protected:
  std::string Describe() const override;
  std::vector<PartitionRulePtr> SubRules() const override { return {sub_rule_}; }

 private:
  PartitionRulePtr sub_rule_;
  std::vector<CombinerRulePtr> combiners_;
  size_t max_depth_;
};

/// One letter per kind: E B I R A T O.
char OpPatternKindLetter(OpPatternKind kind);

}  // namespace tessera::collage
