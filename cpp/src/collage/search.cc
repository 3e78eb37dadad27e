// Collage's search: Dijkstra over covered sets with a binary heap and lazy deletion.
#include "tessera/collage/search.h"

#include <algorithm>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/support/error.h"

namespace tessera::collage {

namespace {

/// Unknown costs sort after every measured one but stay usable.
constexpr double kUnknownCostStandIn = 1e6;

double EdgeCost(double cost) { return IsUnknownCost(cost) ? kUnknownCostStandIn : cost; }

struct State {
  IndexSet covered;
  double cost = kInvalidCost;
  size_t pred = 0;       // the state this one was reached from
  size_t candidate = 0;  // the candidate added on that step
  bool done = false;
};

/// What a failed search says about node `index`.
[[noreturn]] void ThrowUncovered(const DataflowGraph& graph,
                                 const std::vector<CandidatePartition>& candidates,
                                 const std::vector<double>& costs,
                                 const std::vector<std::string>& reasons,
                                 const std::vector<std::string>& spec_names, size_t index,
                                 bool stuck) {
  std::set<std::string> specs(spec_names.begin(), spec_names.end());
  std::vector<std::string> invalid;
  std::set<std::string> seen_reasons;
  for (size_t i = 0; i < candidates.size(); ++i) {
    specs.insert(candidates[i].spec_name());
    if (!candidates[i].sub_graph.inside()[index] || !IsInvalidCost(costs[i])) continue;
    std::string why = i < reasons.size() && !reasons[i].empty() ? reasons[i] : "invalid";
    if (!seen_reasons.insert(candidates[i].spec_name() + why).second) continue;  // said once
    invalid.push_back(candidates[i].spec_name() + " " + candidates[i].sub_graph.inside().ToString() +
                      " (" + candidates[i].rule_name + "): " + why);
  }
  std::string tried;
  for (const std::string& s : specs) tried += (tried.empty() ? "" : ", ") + s;
  std::ostringstream err;
  err << "collage: ";
  if (stuck)
    err << "no combination of disjoint candidates covers node " << index << " ("
        << graph.NodeLabel(index) << ")";
  else if (invalid.empty())
    err << "no candidate covers node " << index << " (" << graph.NodeLabel(index)
        << "): none of the specs tried (" << (tried.empty() ? "none" : tried)
        << ") offers a kernel for it";
  else
    err << "every candidate holding node " << index << " (" << graph.NodeLabel(index)
        << ") is invalid (specs tried: " << tried << ")";
  if (!invalid.empty()) {
    err << (stuck ? "; invalid candidates holding it:" : ":");
    for (size_t k = 0; k < invalid.size() && k < 5; ++k) err << "\n  " << invalid[k];
    if (invalid.size() > 5) err << "\n  ... and " << invalid.size() - 5 << " more";
  }
  throw Error(ErrorKind::kValue, err.str());
}

}  // namespace

std::vector<size_t> SearchCheapestCover(const DataflowGraph& graph,
                                        const std::vector<CandidatePartition>& candidates,
                                        const std::vector<double>& costs,
                                        const std::vector<std::string>& invalid_reasons,
                                        const std::vector<std::string>& spec_names) {
  TS_ICHECK(costs.size() == candidates.size()) << "one cost per candidate";
  const size_t n = graph.size();
  // Candidates by their first node: a path adds candidates in order of first node, so
  // each set of candidates is reached along one canonical order.
  std::vector<std::vector<size_t>> by_first(n + 1);
  IndexSet coverable = graph.EmptySet();
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (IsInvalidCost(costs[i])) continue;
    by_first[candidates[i].sub_graph.first_inside_index()].push_back(i);
    coverable |= candidates[i].sub_graph.inside();
  }
  size_t missing = coverable.FirstOutsideIndex();
  if (missing < n) ThrowUncovered(graph, candidates, costs, invalid_reasons, spec_names, missing, false);

  std::vector<State> states;
  std::unordered_map<IndexSet, size_t, IndexSetHash> state_of;
  auto later = [&](const std::pair<double, size_t>& a, const std::pair<double, size_t>& b) {
    if (a.first != b.first) return a.first > b.first;
    return states[b.second].covered < states[a.second].covered;
  };
  std::priority_queue<std::pair<double, size_t>, std::vector<std::pair<double, size_t>>,
                      decltype(later)>
      heap(later);
  states.push_back(State{graph.EmptySet(), 0.0, 0, 0, false});
  state_of.emplace(states[0].covered, 0);
  heap.push({0.0, 0});
  size_t furthest = 0;
  while (!heap.empty()) {
    auto [cost, id] = heap.top();
    heap.pop();
    if (states[id].done || cost != states[id].cost) continue;  // stale entry
    states[id].done = true;
    size_t next = states[id].covered.FirstOutsideIndex();
    if (next >= n) {
      std::vector<size_t> path;
      for (size_t s = id; s != 0; s = states[s].pred) path.push_back(states[s].candidate);
      std::reverse(path.begin(), path.end());
      return path;
    }
    furthest = std::max(furthest, next);
    for (size_t c : by_first[next]) {
      const IndexSet& inside = candidates[c].sub_graph.inside();
      if (inside.Intersects(states[id].covered)) continue;
      IndexSet covered = states[id].covered | inside;
      double new_cost = states[id].cost + EdgeCost(costs[c]);
      auto [it, fresh] = state_of.emplace(covered, states.size());
      if (fresh) {
        states.push_back(State{std::move(covered), new_cost, id, c, false});
        heap.push({new_cost, it->second});
      } else if (new_cost < states[it->second].cost && !states[it->second].done) {
        // Strictly cheaper only: on a tie the first relaxation keeps the state.
        State& s = states[it->second];
        s.cost = new_cost;
        s.pred = id;
        s.candidate = c;
        heap.push({new_cost, it->second});
      }
    }
  }
  ThrowUncovered(graph, candidates, costs, invalid_reasons, spec_names, furthest, true);
}

}  // namespace tessera::collage
