// CandidatePartition: identity, unions, MaxCoalesce and the rewrite of chosen candidates.
#include "tessera/collage/candidate_partition.h"

#include <algorithm>
#include <sstream>

#include "tessera/collage/partition_spec.h"
#include "tessera/support/error.h"
#include "tessera/support/hash.h"

namespace tessera::collage {

const std::string& CandidatePartition::spec_name() const {
  static const std::string kNone;
  return spec ? spec->name : kNone;
}

std::string CandidatePartition::ToString() const {
  std::ostringstream os;
  os << sub_graph.ToString() << " by " << (rule_name.empty() ? "\"\"" : rule_name);
  if (cost == cost) os << " cost " << cost;
  return os.str();
}

bool operator==(const CandidatePartition& a, const CandidatePartition& b) {
  return a.spec_name() == b.spec_name() && a.sub_graph == b.sub_graph;
}

bool operator<(const CandidatePartition& a, const CandidatePartition& b) {
  if (a.sub_graph != b.sub_graph) return a.sub_graph < b.sub_graph;
  if (a.spec_name() != b.spec_name()) return a.spec_name() < b.spec_name();
  return a.rule_name < b.rule_name;
}

size_t CandidatePartition::Hash() const {
  return HashCombine(sub_graph.Hash(), std::hash<std::string>()(spec_name()));
}

CandidatePartition DisjointUnion(const DataflowGraph& graph, const CandidatePartition& a,
                                 const CandidatePartition& b) {
  if (a.spec_name() != b.spec_name())
    TS_THROW(kInternal) << "collage: cannot union candidates of specs '" << a.spec_name()
                        << "' and '" << b.spec_name() << "'";
  std::string name = a.rule_name == b.rule_name ? a.rule_name : a.rule_name + "+" + b.rule_name;
  return CandidatePartition{std::move(name), a.sub_graph.DisjointUnion(graph, b.sub_graph), a.spec,
                            a.cost + b.cost};
}

std::string NestLabels(const std::string& outer, const std::string& inner) {
  if (outer.empty()) return inner;
  if (inner.empty()) return outer;
  if (inner.rfind(outer + ".", 0) == 0) return inner;
  return outer + "." + inner;
}

std::vector<CandidatePartition> MaxCoalesce(const DataflowGraph& graph,
                                            std::vector<CandidatePartition> candidates) {
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<std::vector<size_t>> by_entry(graph.size());
    for (size_t j = 0; j < candidates.size(); ++j)
      for (size_t e : candidates[j].sub_graph.entry()) by_entry[e].push_back(j);
    std::vector<char> merged(candidates.size(), 0);
    std::vector<CandidatePartition> next;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (merged[i]) continue;
      // Merge i with at most one partner per round (the union's own neighbours are
      // considered next round, with the union's up-to-date sets).
      for (size_t o : candidates[i].sub_graph.output()) {
        for (size_t j : by_entry[o]) {
          if (j == i || merged[j] || candidates[i].spec_name() != candidates[j].spec_name())
            continue;
          if (!candidates[i].sub_graph.AreTouching(graph, candidates[j].sub_graph)) continue;
          next.push_back(DisjointUnion(graph, candidates[i], candidates[j]));
          merged[i] = merged[j] = 1;
          changed = true;
          break;
        }
        if (merged[i]) break;
      }
    }
    for (size_t i = 0; i < candidates.size(); ++i)
      if (!merged[i]) next.push_back(std::move(candidates[i]));
    candidates = std::move(next);
  }
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

Function ParallelRewrite(const DataflowGraph& graph,
                         const std::vector<CandidatePartition>& candidates) {
  std::vector<NestedSubGraph> nested;
  for (const CandidatePartition& c : candidates)
    for (const NestedSubGraph& n : c.sub_graph.nested_sub_graphs()) nested.push_back(n);
  return ParallelRewrite(graph, nested);
}

}  // namespace tessera::collage
