// The graph-level refinement: neighbour moves of a cover and the hill climb over them.
#include "refine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "candidate_shaping.h"

namespace tessera::collage {

namespace {

std::vector<size_t> Elements(const IndexSet& s) {
  std::vector<size_t> out;
  for (size_t i : s) out.push_back(i);
  return out;
}

/// "nn.conv2d+nn.relu@12 on dnnl": its ops, its first node (labels repeat) and its spec.
std::string Describe(const CandidatePartition& c) {
  return c.sub_graph.label() + "@" + std::to_string(c.sub_graph.first_inside_index()) + " on " +
         c.spec_name();
}

}  // namespace

std::vector<RefineMove> NeighbourMoves(const std::vector<CandidatePartition>& cands,
                                       const std::vector<double>& edge,
                                       const std::vector<size_t>& winners) {
  auto usable = [&](size_t i) { return std::isfinite(edge[i]) && !IsHost(cands[i]); };
  // Candidates by the nodes they cover.
  std::map<std::vector<size_t>, std::vector<size_t>> by_nodes;
  for (size_t i = 0; i < cands.size(); ++i)
    if (usable(i)) by_nodes[Elements(cands[i].sub_graph.inside())].push_back(i);
  double total = 0;
  for (size_t w : winners) total += edge[w];
  std::vector<RefineMove> moves;
  std::set<std::vector<size_t>> seen{winners};
  auto add = [&](std::vector<size_t> removed, std::vector<size_t> added, std::string what) {
    std::vector<size_t> next;
    for (size_t w : winners)
      if (std::find(removed.begin(), removed.end(), w) == removed.end()) next.push_back(w);
    next.insert(next.end(), added.begin(), added.end());
    std::sort(next.begin(), next.end());
    if (!seen.insert(next).second) return;
    double estimated = total;
    for (size_t r : removed) estimated -= edge[r];
    for (size_t a : added) estimated += edge[a];
    moves.push_back(RefineMove{std::move(next), std::move(what), estimated});
  };
  std::vector<size_t> kernels;
  for (size_t w : winners)
    if (!IsHost(cands[w])) kernels.push_back(w);
  for (size_t w : kernels) {
    const IndexSet& inside = cands[w].sub_graph.inside();
    // Another backend over the same nodes.
    auto same = by_nodes.find(Elements(inside));
    if (same != by_nodes.end())
      for (size_t c : same->second)
        if (cands[c].spec_name() != cands[w].spec_name())
          add({w}, {c}, "move " + Describe(cands[w]) + " to " + cands[c].spec_name());
    // Split in two: a candidate inside it and one over the rest.
    for (size_t c = 0; c < cands.size(); ++c) {
      if (!usable(c) || !cands[c].sub_graph.inside().IsSubset(inside) ||
          cands[c].sub_graph.inside() == inside)
        continue;
      auto rest = by_nodes.find(Elements(inside - cands[c].sub_graph.inside()));
      if (rest == by_nodes.end()) continue;
      for (size_t d : rest->second)
        add({w}, {c, d}, "split " + Describe(cands[w]) + " into " + Describe(cands[c]) + " and " +
                             Describe(cands[d]));
    }
  }
  // Merge two into one candidate over their union.
  for (size_t a = 0; a < kernels.size(); ++a)
    for (size_t b = a + 1; b < kernels.size(); ++b) {
      auto both = by_nodes.find(
          Elements(cands[kernels[a]].sub_graph.inside() | cands[kernels[b]].sub_graph.inside()));
      if (both == by_nodes.end()) continue;
      for (size_t c : both->second)
        add({kernels[a], kernels[b]}, {c},
            "merge " + Describe(cands[kernels[a]]) + " and " + Describe(cands[kernels[b]]) +
                " into " + Describe(cands[c]));
    }
  std::stable_sort(moves.begin(), moves.end(),
                   [](const RefineMove& x, const RefineMove& y) { return x.estimated < y.estimated; });
  return moves;
}

RefineResult RefineCover(const std::map<std::string, RefineFunction>& functions, const Cover& start,
                         const CoverTimer& time, double budget_s) {
  using json = nlohmann::ordered_json;
  auto begin = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  };
  RefineResult result{start, {{"budget_s", budget_s}}};
  std::string why;
  const double start_ms = time(start, false, &why);
  if (!std::isfinite(start_ms)) {
    result.summary["skipped"] = "the search's program could not be timed: " + why;
    return result;
  }
  double best_ms = start_ms;
  std::set<std::pair<std::string, std::vector<size_t>>> visited;
  for (const auto& [name, chosen] : start) {
    std::vector<size_t> sorted = chosen;
    std::sort(sorted.begin(), sorted.end());
    visited.insert({name, sorted});
  }
  json tried = json::array(), changes = json::array();
  size_t evaluated = 0;
  for (bool improved = true; improved && elapsed() < budget_s;) {
    improved = false;
    for (const auto& [fname, chosen] : result.cover) {
      const RefineFunction& f = functions.at(fname);
      for (const RefineMove& move : NeighbourMoves(*f.cands, *f.edge, chosen)) {
        if (elapsed() >= budget_s) break;
        if (!visited.insert({fname, move.winners}).second) continue;
        Cover next = result.cover;
        next[fname] = move.winners;
        json entry = {{"function", fname}, {"move", move.what}, {"estimated_us", move.estimated * 1e6}};
        double ms = time(next, false, &why);
        ++evaluated;
        if (std::isfinite(ms))
          entry["measured_ms"] = ms;
        else
          entry["error"] = why;
        if (ms < best_ms * 0.98) {
          // Timed again, with the current best, so that noise is not taken for a gain.
          double again = time(next, true, &why);
          double best_again = time(result.cover, true, &why);
          entry["confirmed_ms"] = again;
          entry["best_again_ms"] = best_again;
          if (again < best_again * 0.98) {
            result.cover = next;
            best_ms = ms;
            changes.push_back(entry);
            improved = true;
          }
        }
        if (tried.size() < 100) tried.push_back(entry);
        if (improved) break;
      }
      if (improved) break;
    }
  }
  result.summary["seconds"] = elapsed();
  result.summary["evaluated"] = evaluated;
  result.summary["search_ms"] = start_ms;
  result.summary["refined_ms"] = best_ms;
  result.summary["speedup"] = start_ms / best_ms;
  result.summary["changes"] = changes;
  result.summary["tried"] = tried;
  return result;
}

}  // namespace tessera::collage
