// The report's entry for one partitioned function: its kernels (ops, backend, cost, the
// cheapest other kernel from the same first node), rejected candidates and its graph.
#include "choice_report.h"

#include "candidate_shaping.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/ir/type.h"

namespace tessera::collage {

namespace {

nlohmann::ordered_json Indexes(const IndexSet& set) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (size_t i : set) out.push_back(i);
  return out;
}

double Micros(double seconds) { return IsUnknownCost(seconds) || IsInvalidCost(seconds) ? -1 : seconds * 1e6; }

}  // namespace

nlohmann::ordered_json DescribeChoice(const std::string& fname, const DataflowGraph& graph,
                    const std::vector<CandidatePartition>& cands, const std::vector<double>& edge,
                    const std::vector<std::string>& reasons, const std::vector<size_t>& winners,
                    const std::vector<std::pair<IndexSet, std::string>>& lib_names,
                    const std::map<std::string, double>& penalty) {
  using json = nlohmann::ordered_json;
  json f;
  f["name"] = fname;
  std::vector<int> kernel_of(graph.size(), -1);
  json kernels = json::array();
  double total = 0;
  for (size_t w : winners) {
    const CandidatePartition& c = cands[w];
    if (IsHost(c)) continue;
    json k;
    k["name"] = "";
    for (const auto& [set, name] : lib_names)
      if (c.sub_graph.inside().IsSubset(set)) k["name"] = name;
    k["spec"] = c.spec_name();
    k["backend"] = c.spec->target.kind();
    k["label"] = c.sub_graph.label();
    k["rule"] = c.rule_name;
    k["indexes"] = Indexes(c.sub_graph.inside());
    json ops = json::array();
    for (size_t i : c.sub_graph.inside()) ops.push_back(graph.NodeLabel(i));
    k["ops"] = ops;
    k["cost_us"] = Micros(c.cost);
    k["penalty_us"] = penalty.at(c.spec_name()) * 1e6;
    total += IsUnknownCost(c.cost) ? 0.0 : edge[w];
    // The cheapest rejected alternative starting at the same node.
    int best = -1;
    size_t first = c.sub_graph.first_inside_index();
    for (size_t i = 0; i < cands.size(); ++i) {
      if (i == w || IsHost(cands[i]) || cands[i].sub_graph.first_inside_index() != first) continue;
      // The same nodes on the same backend (another rule's twin) is no alternative.
      if (cands[i].spec_name() == c.spec_name() &&
          cands[i].sub_graph.inside() == c.sub_graph.inside())
        continue;
      if (IsInvalidCost(edge[i]) || IsUnknownCost(edge[i])) continue;
      if (best < 0 || edge[i] < edge[best]) best = static_cast<int>(i);
    }
    if (best >= 0) {
      const CandidatePartition& a = cands[best];
      k["alternative"] = {{"spec", a.spec_name()},
                          {"backend", a.spec->target.kind()},
                          {"label", a.sub_graph.label()},
                          {"indexes", Indexes(a.sub_graph.inside())},
                          {"cost_us", Micros(a.cost)}};
    } else {
      k["alternative"] = nullptr;
    }
    for (size_t i : c.sub_graph.inside()) kernel_of[i] = static_cast<int>(kernels.size());
    kernels.push_back(std::move(k));
  }
  f["kernels"] = std::move(kernels);
  f["estimated_total_us"] = total * 1e6;
  json rejected = json::array();
  for (size_t i = 0; i < cands.size(); ++i) {
    if (reasons[i].empty()) continue;
    rejected.push_back({{"spec", cands[i].spec_name()},
                        {"label", cands[i].sub_graph.label()},
                        {"indexes", Indexes(cands[i].sub_graph.inside())},
                        {"reason", reasons[i]}});
  }
  f["rejected"] = std::move(rejected);
  // The graph, for pictures: every node but ops (copied into their calls) and the
  // function itself.
  json nodes = json::array();
  for (size_t i = 0; i + 1 < graph.size(); ++i) {
    std::string label = graph.NodeLabel(i);
    if (label == "op") continue;
    json inputs = json::array();
    for (int in : graph.node(i).inputs)
      if (graph.NodeLabel(static_cast<size_t>(in)) != "op") inputs.push_back(in);
    nodes.push_back({{"index", i},
                     {"label", label},
                     {"type", TypeToString(graph.expr(i)->checked_type_or_null())},
                     {"inputs", inputs},
                     {"kernel", kernel_of[i]}});
  }
  f["nodes"] = std::move(nodes);
  return f;
}

}  // namespace tessera::collage
