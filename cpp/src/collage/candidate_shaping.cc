// Shaping Collage's candidate set before the search (see candidate_shaping.h).
#include "candidate_shaping.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_set>

#include "tessera/collage/partition_rule.h"
#include "tessera/ir/op.h"

namespace tessera::collage {

/// A kernel name's label: the first two ops and how many there are in all
/// ("nn.conv2d+add+nn.relu+nn.conv2d" -> "nn.conv2d+add+4ops"), so names stay short.
std::string ShortLabel(const std::string& label) {
  size_t ops = 1, second = std::string::npos;
  for (size_t i = 0; i < label.size(); ++i)
    if (label[i] == '+' && ++ops == 3) second = i;
  if (ops <= 3) return label;
  return label.substr(0, second) + "+" + std::to_string(ops) + "ops";
}

/// Native specs also take opaque op calls (softmax, ...) as single kernels: the native
/// code generator lowers any op, so no op is left without a candidate.
std::vector<PartitionSpecPtr> WithOpaqueSingles(std::vector<PartitionSpecPtr> specs) {
  for (PartitionSpecPtr& spec : specs) {
    if (!spec->compiler.empty() || spec->name == "host") continue;
    auto opaque = std::make_shared<OpPredicatePartitionRule>(
        "opaque_op",
        [](const CallNode& call) {
          return call.op() && call.op()->def->pattern == OpPatternKind::kOpaque &&
                 call.op()->name != kCallTirOp && call.op()->name.rfind("annotation.", 0) != 0;
        },
        "opaque op calls");
    auto rule = std::make_shared<UnionPartitionRule>(
        "", std::vector<PartitionRulePtr>{spec->rule, opaque});
    spec = MakePartitionSpec(spec->name, spec->target, rule, spec->compiler, spec->validator);
  }
  return specs;
}

/// TVM's pruning heuristic, keyed on (spec, sub-graph): keep the candidates no other
/// candidate of the same spec contains; then set aside the kept ones that overlap another
/// kept one (with other nodes), which lets the candidates they contained become maximal
/// in the next round; until no round keeps anything new. Host candidates all stay.
std::vector<CandidatePartition> Prune(std::vector<CandidatePartition> candidates) {
  std::vector<CandidatePartition> host, pruned, rest;
  for (CandidatePartition& c : candidates) (IsHost(c) ? host : rest).push_back(std::move(c));
  auto contains = [](const CandidatePartition& a, const CandidatePartition& b) {
    return a.spec_name() == b.spec_name() && b.sub_graph.inside().IsSubset(a.sub_graph.inside()) &&
           a.sub_graph.inside() != b.sub_graph.inside();
  };
  auto kept = [&](const CandidatePartition& c) {
    return std::find(pruned.begin(), pruned.end(), c) != pruned.end();
  };
  while (true) {
    size_t before = pruned.size();
    for (const CandidatePartition& c : rest)
      if (!kept(c) && std::none_of(rest.begin(), rest.end(),
                                   [&](const CandidatePartition& d) { return contains(d, c); }))
        pruned.push_back(c);
    if (pruned.size() == before) break;
    std::vector<CandidatePartition> next;
    for (const CandidatePartition& c : rest) {
      bool overlaps_kept = kept(c) && std::any_of(pruned.begin(), pruned.end(),
                                                  [&](const CandidatePartition& p) {
                                                    return p.sub_graph.inside().Intersects(
                                                               c.sub_graph.inside()) &&
                                                           p.sub_graph.inside() !=
                                                               c.sub_graph.inside();
                                                  });
      if (!overlaps_kept) next.push_back(c);
    }
    rest = std::move(next);
  }
  pruned.insert(pruned.end(), host.begin(), host.end());
  std::sort(pruned.begin(), pruned.end());
  return pruned;
}

/// Adds, per library, its largest regions as candidates: a greedy disjoint choice of
/// its candidates (largest first at each node), merged where they touch (MaxCoalesce),
/// as its classic partitioning would make them. A library's layouts (oneDNN's blocked
/// formats) pay off over long chains, which candidates measured one by one, each
/// converting at its edges, cannot show; a region measured whole can.
void AddLibraryRegions(const DataflowGraph& graph, std::vector<CandidatePartition>& cands) {
  std::map<std::string, std::vector<const CandidatePartition*>> by_library;
  for (const CandidatePartition& c : cands)
    if (IsLibrary(c)) by_library[c.spec_name()].push_back(&c);
  std::vector<CandidatePartition> regions;
  for (auto& [library, list] : by_library) {
    std::stable_sort(list.begin(), list.end(), [](const CandidatePartition* a,
                                                  const CandidatePartition* b) {
      if (a->sub_graph.first_inside_index() != b->sub_graph.first_inside_index())
        return a->sub_graph.first_inside_index() < b->sub_graph.first_inside_index();
      return a->sub_graph.inside().PopCount() > b->sub_graph.inside().PopCount();
    });
    IndexSet taken = graph.EmptySet();
    std::vector<CandidatePartition> picked;
    for (const CandidatePartition* c : list) {
      if (c->sub_graph.inside().Intersects(taken)) continue;
      taken |= c->sub_graph.inside();
      picked.push_back(*c);
    }
    std::unordered_set<IndexSet, IndexSetHash> singles;
    for (const CandidatePartition& c : picked) singles.insert(c.sub_graph.inside());
    for (CandidatePartition& merged : MaxCoalesce(graph, std::move(picked))) {
      if (singles.count(merged.sub_graph.inside())) continue;  // nothing merged into it
      merged.rule_name = library + ".region";
      merged.cost = std::numeric_limits<double>::quiet_NaN();
      regions.push_back(std::move(merged));
    }
  }
  for (CandidatePartition& r : regions)
    if (std::find(cands.begin(), cands.end(), r) == cands.end()) cands.push_back(std::move(r));
  std::sort(cands.begin(), cands.end());
}

/// Calls of inline Primitive functions are kernels already (FuseOps or an earlier
/// Collage run made them): they stay as they are, at no cost to the search.
void AddPremadeKernels(const DataflowGraph& graph, const PartitionSpecPtr& host,
                       std::vector<CandidatePartition>& cands) {
  bool added = false;
  for (size_t i = 0; i < graph.size(); ++i) {
    const auto* call = graph.expr(i).as<CallNode>();
    const auto* fn = call ? call->callee.as<FunctionNode>() : nullptr;
    if (!fn || GetIntAttr(fn, attr::kPrimitive) == 0) continue;
    IndexSet inside = graph.EmptySet();
    inside.Add(i);
    int callee = graph.IndexOf(call->callee);
    if (callee >= 0) inside.Add(static_cast<size_t>(callee));
    cands.push_back(CandidatePartition{"host.premade", SubGraph(graph, inside), host, 0.0});
    added = true;
  }
  if (added) std::sort(cands.begin(), cands.end());
}

}  // namespace tessera::collage
