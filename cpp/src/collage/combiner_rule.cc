// Combiner rules and CombinePartitionRule: growing candidates by unions, round by round.
#include "tessera/collage/combiner_rule.h"

#include <algorithm>
#include <sstream>

namespace tessera::collage {

char OpPatternKindLetter(OpPatternKind kind) {
  switch (kind) {
    case OpPatternKind::kElemwise:
      return 'E';
    case OpPatternKind::kBroadcast:
      return 'B';
    case OpPatternKind::kInjective:
      return 'I';
    case OpPatternKind::kCommReduce:
      return 'R';
    case OpPatternKind::kOutEWiseFusable:
      return 'A';
    case OpPatternKind::kTuple:
      return 'T';
    case OpPatternKind::kOpaque:
      return 'O';
  }
  return '?';
}

// ---- CandidateSet ------------------------------------------------------------------

CandidateSet::CandidateSet(std::vector<CandidatePartition> initial) {
  for (CandidatePartition& c : initial) Add(std::move(c));
  PrepareForNextRound();
  first_new_index_ = 0;
}

void CandidateSet::Add(CandidatePartition candidate) {
  if (seen_.insert(candidate).second) to_add_.push_back(std::move(candidate));
}

bool CandidateSet::PrepareForNextRound() {
  first_new_index_ = current_.size();
  if (to_add_.empty()) return false;
  for (CandidatePartition& c : to_add_) current_.push_back(std::move(c));
  to_add_.clear();
  return true;
}

std::vector<CandidatePartition> CandidateSet::MovedCurrentCandidates() {
  std::vector<CandidatePartition> result = std::move(current_);
  current_.clear();
  std::sort(result.begin(), result.end());
  return result;
}

// ---- Simple rules ------------------------------------------------------------------

bool ByKindSimpleCombinerRule::Fires(const DataflowGraph&, const CandidatePartition& upstream,
                                     const CandidatePartition& downstream) const {
  return upstream.sub_graph.kind() <= upstream_kind_ &&
         downstream.sub_graph.kind() <= downstream_kind_;
}

std::string ByKindSimpleCombinerRule::ToString() const {
  return std::string(1, OpPatternKindLetter(upstream_kind_)) + "->" +
         OpPatternKindLetter(downstream_kind_);
}

namespace {

/// For each node, the current candidates having it as an entry (or exit).
std::vector<std::vector<size_t>> IndexBy(const DataflowGraph& graph,
                                         const std::vector<CandidatePartition>& candidates,
                                         bool by_exit) {
  std::vector<std::vector<size_t>> index(graph.size());
  for (size_t j = 0; j < candidates.size(); ++j) {
    const SubGraph& s = candidates[j].sub_graph;
    for (size_t n : by_exit ? s.exit() : s.entry()) index[n].push_back(j);
  }
  return index;
}

bool FitsDepth(size_t max_depth, size_t depth) {
  return max_depth == 0 || depth <= max_depth;
}

}  // namespace

AllSimpleCombinerRule::AllSimpleCombinerRule(std::string name,
                                             std::vector<SimpleCombinerRulePtr> rules)
    : CombinerRule(std::move(name)), rules_(std::move(rules)) {}

void AllSimpleCombinerRule::AppendAllResults(CombinerContext& context) const {
  const auto& current = context.candidates.current();
  const size_t first_new = context.candidates.first_new_index();
  const auto by_entry = IndexBy(context.graph, current, false);
  for (size_t i = 0; i < current.size(); ++i) {
    const CandidatePartition& up = current[i];
    std::vector<size_t> partners;
    for (size_t o : up.sub_graph.output())
      for (size_t j : by_entry[o]) partners.push_back(j);
    std::sort(partners.begin(), partners.end());
    partners.erase(std::unique(partners.begin(), partners.end()), partners.end());
    for (size_t j : partners) {
      // Pairs of two old candidates were tried in an earlier round.
      if (j == i || (i < first_new && j < first_new)) continue;
      const CandidatePartition& down = current[j];
      if (!FitsDepth(context.max_depth, up.sub_graph.depth() + down.sub_graph.depth())) continue;
      if (!up.sub_graph.AreTouching(context.graph, down.sub_graph)) continue;
      for (const SimpleCombinerRulePtr& rule : rules_)
        if (rule->Fires(context.graph, up, down)) {
          context.candidates.Add(DisjointUnion(context.graph, up, down));
          break;
        }
    }
  }
}

std::string AllSimpleCombinerRule::ToString() const {
  std::string out = "AllSimple(";
  for (size_t k = 0; k < rules_.size(); ++k) out += (k ? ", " : "") + rules_[k]->ToString();
  return out + ")";
}

// ---- TupleArg ----------------------------------------------------------------------

void TupleArgCombinerRule::AppendAllResults(CombinerContext& context) const {
  // Bounds the cartesian product per tuple, so wide tuples cannot explode.
  constexpr size_t kMaxCombinations = 4096;
  const DataflowGraph& graph = context.graph;
  const auto& current = context.candidates.current();
  const size_t first_new = context.candidates.first_new_index();
  const auto by_exit = IndexBy(graph, current, true);
  for (size_t ci = 0; ci < current.size(); ++ci) {
    const CandidatePartition& consumer = current[ci];
    if (consumer.sub_graph.kind() > OpPatternKind::kInjective) continue;
    for (size_t t : consumer.sub_graph.input()) {
      if (!graph.expr(t).as<TupleNode>()) continue;
      std::vector<std::vector<size_t>> options;
      for (int field : graph.node(t).inputs) {
        std::vector<size_t> fits;
        for (size_t k : by_exit[field])
          if (k != ci && current[k].sub_graph.kind() <= OpPatternKind::kInjective)
            fits.push_back(k);
        if (fits.empty()) break;
        options.push_back(std::move(fits));
      }
      if (options.size() != graph.node(t).inputs.size() || options.empty()) continue;
      IndexSet tuple_set = graph.EmptySet();
      tuple_set.Add(t);
      CandidatePartition tuple{consumer.rule_name, SubGraph(graph, tuple_set), consumer.spec, 0};
      std::vector<size_t> choice(options.size(), 0);
      for (size_t n = 0; n < kMaxCombinations; ++n) {
        bool any_new = ci >= first_new;
        for (size_t f = 0; f < options.size(); ++f) any_new |= options[f][choice[f]] >= first_new;
        if (any_new) {
          CandidatePartition result = DisjointUnion(graph, consumer, tuple);
          bool ok = true;
          std::vector<size_t> used;
          for (size_t f = 0; f < options.size() && ok; ++f) {
            size_t k = options[f][choice[f]];
            if (std::find(used.begin(), used.end(), k) != used.end()) continue;  // repeated field
            used.push_back(k);
            if (!current[k].sub_graph.inside().AreDisjoint(result.sub_graph.inside()))
              ok = false;
            else
              result = DisjointUnion(graph, result, current[k]);
          }
          if (ok && FitsDepth(context.max_depth, result.sub_graph.depth()))
            context.candidates.Add(std::move(result));
        }
        size_t f = 0;  // next combination (odometer)
        while (f < options.size() && ++choice[f] == options[f].size()) choice[f++] = 0;
        if (f == options.size()) break;
      }
    }
  }
}

// ---- TupleProj / Constant ------------------------------------------------------------

void TupleProjCombinerRule::AppendAllResults(CombinerContext& context) const {
  const DataflowGraph& graph = context.graph;
  const auto& current = context.candidates.current();
  for (size_t i = context.candidates.first_new_index(); i < current.size(); ++i) {
    for (size_t o : current[i].sub_graph.output()) {
      if (!graph.expr(o).as<TupleGetItemNode>()) continue;
      IndexSet proj = graph.EmptySet();
      proj.Add(o);
      CandidatePartition result = DisjointUnion(
          graph, current[i],
          CandidatePartition{current[i].rule_name, SubGraph(graph, proj), current[i].spec, 0});
      if (FitsDepth(context.max_depth, result.sub_graph.depth()))
        context.candidates.Add(std::move(result));
    }
  }
}

void ConstantCombinerRule::AppendAllResults(CombinerContext& context) const {
  const DataflowGraph& graph = context.graph;
  const auto& current = context.candidates.current();
  for (size_t i = context.candidates.first_new_index(); i < current.size(); ++i) {
    IndexSet constants = graph.EmptySet();
    for (size_t in : current[i].sub_graph.input())
      if (graph.expr(in).as<ConstantNode>()) constants.Add(in);
    if (constants.IsZero()) continue;
    context.candidates.Add(DisjointUnion(
        graph, current[i],
        CandidatePartition{current[i].rule_name, SubGraph(graph, constants), current[i].spec, 0}));
  }
}

// ---- CombinePartitionRule ----------------------------------------------------------

CombinePartitionRule::CombinePartitionRule(std::string rule_name, PartitionRulePtr sub_rule,
                                           std::vector<CombinerRulePtr> combiners, size_t max_depth)
    : PartitionRule(std::move(rule_name)),
      sub_rule_(std::move(sub_rule)),
      combiners_(std::move(combiners)),
      max_depth_(max_depth) {}

std::vector<CandidatePartition> CombinePartitionRule::AllCandidates(
    const DataflowGraph& graph, const PartitionSpecPtr& spec) const {
  CandidateSet set(sub_rule_->AllCandidates(graph, spec));
  CombinerContext context{graph, max_depth_, set};
  do {
    for (const CombinerRulePtr& combiner : combiners_) combiner->AppendAllResults(context);
  } while (set.PrepareForNextRound());
  std::vector<CandidatePartition> result = set.MovedCurrentCandidates();
  for (CandidatePartition& c : result) c.rule_name = NestLabels(rule_name(), c.rule_name);
  return result;
}

std::string CombinePartitionRule::Describe() const {
  std::ostringstream os;
  os << "Combine(" << rule_name() << ", max_depth=" << max_depth_ << ", [";
  for (size_t k = 0; k < combiners_.size(); ++k) os << (k ? ", " : "") << combiners_[k]->ToString();
  os << "])";
  return os.str();
}

}  // namespace tessera::collage
