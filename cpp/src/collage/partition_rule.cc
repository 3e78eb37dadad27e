// The leaf and wrapper partition rules, and the printing of rule trees.
#include "tessera/collage/partition_rule.h"

#include <sstream>

namespace tessera::collage {

std::string PartitionRule::ToString() const {
  std::string out;
  Print(out, 0);
  return out;
}

void PartitionRule::Print(std::string& out, int indent) const {
  out += std::string(static_cast<size_t>(indent) * 2, ' ') + Describe() + "\n";
  for (const PartitionRulePtr& sub : SubRules()) sub->Print(out, indent + 1);
}

namespace {

CandidatePartition Singleton(const DataflowGraph& graph, size_t index, const std::string& rule,
                             const PartitionSpecPtr& spec) {
  IndexSet inside = graph.EmptySet();
  inside.Add(index);
  return CandidatePartition{rule, SubGraph(graph, inside), spec};
}

/// The sub-rule's candidates with each sub-graph wrapped in one function with `attrs`.
std::vector<CandidatePartition> WithAttrs(const DataflowGraph& graph,
                                          std::vector<CandidatePartition> candidates,
                                          const std::string& rule_name, const Attrs& attrs) {
  for (CandidatePartition& c : candidates) {
    c.sub_graph = c.sub_graph.WithAttrs(graph, attrs);
    c.rule_name = NestLabels(rule_name, c.rule_name);
  }
  return candidates;
}

}  // namespace

// ---- DFPattern ---------------------------------------------------------------------

DFPatternPartitionRule::DFPatternPartitionRule(std::string rule_name, DFPattern pattern,
                                               PatternPredicate predicate)
    : PartitionRule(std::move(rule_name)),
      pattern_(std::move(pattern)),
      predicate_(std::move(predicate)) {}

std::vector<CandidatePartition> DFPatternPartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  DFPatternMatcher matcher(&graph.indexed_graph());
  for (size_t i = 0; i < graph.size(); ++i) {
    const Expr& root = graph.expr(i);
    if (!matcher.Match(pattern_, root) || (predicate_ && !predicate_(root))) continue;
    // Computation and is_constant-matched constants belong to the candidate; wildcard
    // matches are its inputs, and inlinable nodes are copied into whoever uses them.
    IndexSet inside = graph.EmptySet();
    for (const std::vector<Expr>* part : {&matcher.internal(), &matcher.embedded()})
      for (const Expr& e : *part) {
        int index = graph.IndexOf(e);
        if (index >= 0 && !graph.CanInline(static_cast<size_t>(index)))
          inside.Add(static_cast<size_t>(index));
      }
    if (inside.IsZero()) continue;
    result.push_back(CandidatePartition{rule_name(), SubGraph(graph, inside), spec});
  }
  return result;
}

std::string DFPatternPartitionRule::Describe() const {
  return "DFPattern(" + (rule_name().empty() ? "" : rule_name() + ": ") + pattern_.ToString() + ")";
}

// ---- OpPredicate -------------------------------------------------------------------

OpPredicatePartitionRule::OpPredicatePartitionRule(std::string rule_name, Predicate predicate,
                                                   std::string description)
    : PartitionRule(std::move(rule_name)),
      predicate_(std::move(predicate)),
      description_(std::move(description)) {}

std::vector<CandidatePartition> OpPredicatePartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  for (size_t i = 0; i < graph.size(); ++i) {
    auto* call = graph.expr(i).as<CallNode>();
    if (call && call->op() && predicate_(*call))
      result.push_back(Singleton(graph, i, rule_name(), spec));
  }
  return result;
}

std::string OpPredicatePartitionRule::Describe() const {
  return "OpPredicate(" + rule_name() + (description_.empty() ? "" : ": " + description_) + ")";
}

// ---- OpCallByKind ------------------------------------------------------------------

std::vector<CandidatePartition> OpCallByKindPartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  for (size_t i = 0; i < graph.size(); ++i)
    if (graph.expr(i).as<CallNode>() && graph.NodeKind(i) <= OpPatternKind::kOutEWiseFusable)
      result.push_back(Singleton(graph, i, rule_name(), spec));
  return result;
}

std::string OpCallByKindPartitionRule::Describe() const {
  return "OpCallByKind(" + rule_name() + ")";
}

// ---- Composite / Primitive ---------------------------------------------------------

CompositePartitionRule::CompositePartitionRule(std::string rule_name, PartitionRulePtr sub_rule)
    : PartitionRule(std::move(rule_name)), sub_rule_(std::move(sub_rule)) {}

std::vector<CandidatePartition> CompositePartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  return WithAttrs(graph, sub_rule_->AllCandidates(graph, spec), rule_name(),
                   Attrs{{attr::kComposite, AttrValue(rule_name())}});
}

std::string CompositePartitionRule::Describe() const {
  return "Composite(" + rule_name() + ")";
}

PrimitivePartitionRule::PrimitivePartitionRule(std::string rule_name, PartitionRulePtr sub_rule)
    : PartitionRule(std::move(rule_name)), sub_rule_(std::move(sub_rule)) {}

std::vector<CandidatePartition> PrimitivePartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  Attrs attrs{{attr::kPrimitive, AttrValue(int64_t{1})}};
  if (spec && !spec->compiler.empty()) attrs.Set(attr::kCompiler, AttrValue(spec->compiler));
  return WithAttrs(graph, sub_rule_->AllCandidates(graph, spec), rule_name(), attrs);
}

std::string PrimitivePartitionRule::Describe() const {
  return "Primitive(" + rule_name() + ")";
}

// ---- Union -------------------------------------------------------------------------

UnionPartitionRule::UnionPartitionRule(std::string rule_name,
                                       std::vector<PartitionRulePtr> sub_rules)
    : PartitionRule(std::move(rule_name)), sub_rules_(std::move(sub_rules)) {}

std::vector<CandidatePartition> UnionPartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  for (const PartitionRulePtr& sub : sub_rules_)
    for (CandidatePartition& c : sub->AllCandidates(graph, spec)) {
      c.rule_name = NestLabels(rule_name(), c.rule_name);
      result.push_back(std::move(c));
    }
  return result;
}

std::string UnionPartitionRule::Describe() const {
  return "Union(" + rule_name() + ")";
}

// ---- OnlyValid ---------------------------------------------------------------------

OnlyValidPartitionRule::OnlyValidPartitionRule(std::string rule_name, PartitionRulePtr sub_rule,
                                               SubGraphConfig config)
    : PartitionRule(std::move(rule_name)), sub_rule_(std::move(sub_rule)), config_(config) {}

std::vector<CandidatePartition> OnlyValidPartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  for (CandidatePartition& c : sub_rule_->AllCandidates(graph, spec))
    if (c.sub_graph.IsValid(graph, config_)) {
      c.rule_name = NestLabels(rule_name(), c.rule_name);
      result.push_back(std::move(c));
    }
  return result;
}

std::string OnlyValidPartitionRule::Describe() const {
  return "OnlyValid(" + rule_name() + ", " + config_.ToString() + ")";
}

// ---- Host --------------------------------------------------------------------------

bool MustBeLowered(const DataflowGraph& graph, size_t index) {
  auto* call = graph.expr(index).as<CallNode>();
  if (!call) return false;
  if (const OpNode* op = call->op())
    return op->name != "shape_of" && op->name != "device_copy";  // host-side ops
  if (auto* fn = call->callee.as<FunctionNode>()) return GetIntAttr(fn, attr::kPrimitive) != 0;
  return false;
}

std::vector<CandidatePartition> HostPartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result;
  for (size_t i = 0; i < graph.size(); ++i)
    if (!MustBeLowered(graph, i)) {
      result.push_back(Singleton(graph, i, rule_name(), spec));
      result.back().cost = 0;
    }
  return result;
}

std::string HostPartitionRule::Describe() const {
  return "Host(" + rule_name() + ")";
}

// ---- MaxCoalesce -------------------------------------------------------------------

MaxCoalescePartitionRule::MaxCoalescePartitionRule(std::string rule_name, PartitionRulePtr sub_rule)
    : PartitionRule(std::move(rule_name)), sub_rule_(std::move(sub_rule)) {}

std::vector<CandidatePartition> MaxCoalescePartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  std::vector<CandidatePartition> result =
      MaxCoalesce(graph, sub_rule_->AllCandidates(graph, spec));
  for (CandidatePartition& c : result) c.rule_name = NestLabels(rule_name(), c.rule_name);
  return result;
}

std::string MaxCoalescePartitionRule::Describe() const {
  return "MaxCoalesce(" + rule_name() + ")";
}

}  // namespace tessera::collage
