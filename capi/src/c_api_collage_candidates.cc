// The C API's Collage candidates: dataflow graphs, candidates of rules and of targets,
// their sub-graphs, rewriting, and the PartitionForTesting pass.
#include <algorithm>
#include <string>
#include <vector>

#include "c_api_collage_internal.h"
#include "tessera/collage/partition_for_testing.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"

using namespace tessera::capi;
using namespace tessera::collage;
using tessera::Attrs;
using tessera::Expr;

namespace {

const IndexSet& IndexesOf(const SubGraph& sub_graph, TsSubGraphIndexKind kind) {
  switch (kind) {
    case TS_SUB_GRAPH_INSIDE:
      return sub_graph.inside();
    case TS_SUB_GRAPH_ENTRIES:
      return sub_graph.entry();
    case TS_SUB_GRAPH_EXITS:
      return sub_graph.exit();
    case TS_SUB_GRAPH_INPUTS:
      return sub_graph.input();
    case TS_SUB_GRAPH_OUTPUTS:
      return sub_graph.output();
  }
  TS_THROW(kValue) << "unknown sub-graph index kind " << static_cast<int>(kind)
                   << " (TS_SUB_GRAPH_INSIDE .. TS_SUB_GRAPH_OUTPUTS)";
}

/// Appends `spec`'s candidates on the list's graph as one group.
void AppendSpec(TsCandidateList_& list, const PartitionSpecPtr& spec) {
  std::vector<CandidatePartition> found = PartitionSpec::AllCandidates(spec, *list.graph);
  list.specs.push_back({spec->name, list.candidates.size(), found.size()});
  for (CandidatePartition& c : found) list.candidates.push_back(std::move(c));
}

}  // namespace

extern "C" {

/* ---- Dataflow graphs ---- */

TsStatus TsDataflowGraphCreate(TsModule module, TsDataflowGraph* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    tessera::IRModule mod = BorrowModule(module);
    auto graph =
        std::make_shared<const DataflowGraph>(tessera::InferTypes(mod).LookupFunction("main"));
    auto* g = new TsDataflowGraph_{mod, graph, {}};
    for (size_t i = 0; i < graph->size(); ++i) g->labels.push_back(graph->NodeLabel(i));
    *out = g;
  });
}

size_t TsDataflowGraphGetNumNodes(TsDataflowGraph graph) {
  return graph ? graph->graph->size() : 0;
}

TsStatus TsDataflowGraphGetNodeLabel(TsDataflowGraph graph, size_t index, TsStringRef* out) {
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    CheckIndex(index, graph->labels.size(), "TsDataflowGraphGetNodeLabel: node");
    *out = RefOf(graph->labels[index]);
  });
}

TsStatus TsDataflowGraphGetNode(TsDataflowGraph graph, size_t index, TsExpr* out) {
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    CheckIndex(index, graph->graph->size(), "TsDataflowGraphGetNode: node");
    *out = Give<TsExpr>(tessera::Ref<const tessera::Object>(graph->graph->expr(index).get()));
  });
}

TsStatus TsDataflowGraphRewrite(TsDataflowGraph graph, const TsCollagePart* parts, size_t num_parts,
                                TsModule* out) {
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_parts && !parts) TS_THROW(kValue) << "TsDataflowGraphRewrite: parts are NULL";
    const DataflowGraph& g = *graph->graph;
    std::vector<NestedSubGraph> nested;
    IndexSet taken = g.EmptySet();
    for (size_t p = 0; p < num_parts; ++p) {
      if (parts[p].num_indexes && !parts[p].indexes)
        TS_THROW(kValue) << "TsDataflowGraphRewrite: part " << p << " has NULL indexes";
      std::vector<size_t> indexes(parts[p].indexes, parts[p].indexes + parts[p].num_indexes);
      IndexSet set = IndexSetFromUser(g, indexes, "TsDataflowGraphRewrite");
      if (set.Intersects(taken))
        TS_THROW(kValue) << "TsDataflowGraphRewrite: part " << set.ToString()
                         << " overlaps an earlier part (parts must be disjoint)";
      taken |= set;
      SubGraph sub_graph(g, set);
      std::string why = sub_graph.InvalidReason(g, SubGraphConfig{0, true, 0});
      if (!why.empty())
        TS_THROW(kValue) << "TsDataflowGraphRewrite: part " << set.ToString()
                         << " cannot become one function: " << why;
      nested.push_back(NestedSubGraph{
          sub_graph, AttrsFromC(parts[p].attrs, parts[p].num_attrs, "TsDataflowGraphRewrite")});
    }
    *out = GiveModule(
        tessera::InferTypes(graph->mod.WithFunction("main", ParallelRewrite(g, nested))));
  });
}

void TsDataflowGraphDestroy(TsDataflowGraph graph) {
  delete graph;
}

/* ---- Candidates ---- */

TsStatus TsPartitionRuleGetCandidates(TsPartitionRule rule, TsDataflowGraph graph,
                                      const char* spec_name, TsTarget target, const char* compiler,
                                      TsCandidateList* out) {
  TS_REQUIRE(rule);
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    tessera::Target t = target ? target->target : tessera::Target::Parse("native");
    auto list = std::make_unique<TsCandidateList_>();
    list->graph = graph->graph;
    AppendSpec(*list,
               MakePartitionSpec(Text(spec_name, "spec"), t, rule->rule, compiler ? compiler : ""));
    *out = list.release();
  });
}

TsStatus TsCollageTargetCandidates(TsDataflowGraph graph, const TsTarget* targets,
                                   size_t num_targets, int64_t max_depth, int include_host,
                                   TsCandidateList* out) {
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<tessera::Target> ts =
        TargetsFromC(targets, num_targets, "TsCollageTargetCandidates");
    auto list = std::make_unique<TsCandidateList_>();
    list->graph = graph->graph;
    for (const PartitionSpecPtr& spec : GatherPartitionSpecs(
             ts, LimitFromC(max_depth, "TsCollageTargetCandidates"), include_host != 0))
      AppendSpec(*list, spec);
    *out = list.release();
  });
}

size_t TsCandidateListGetNumCandidates(TsCandidateList list) {
  return list ? list->candidates.size() : 0;
}

TsStatus TsCandidateListGetCandidate(TsCandidateList list, size_t index, TsCandidate* out) {
  TS_REQUIRE(list);
  TS_REQUIRE(out);
  return Guard([&] {
    CheckIndex(index, list->candidates.size(), "TsCandidateListGetCandidate: candidate");
    *out = new TsCandidate_{list->graph, list->candidates[index]};
  });
}

size_t TsCandidateListGetNumSpecs(TsCandidateList list) {
  return list ? list->specs.size() : 0;
}

TsStatus TsCandidateListGetSpec(TsCandidateList list, size_t index, TsStringRef* name,
                                size_t* first, size_t* count) {
  TS_REQUIRE(list);
  return Guard([&] {
    CheckIndex(index, list->specs.size(), "TsCandidateListGetSpec: spec");
    const TsCandidateList_::Spec& spec = list->specs[index];
    if (name) *name = RefOf(spec.name);
    if (first) *first = spec.first;
    if (count) *count = spec.count;
  });
}

void TsCandidateListDestroy(TsCandidateList list) {
  delete list;
}

TsStringRef TsCandidateGetRuleName(TsCandidate candidate) {
  return candidate ? RefOf(candidate->candidate.rule_name) : TsStringRef{nullptr, 0};
}

TsStringRef TsCandidateGetSpecName(TsCandidate candidate) {
  return candidate ? RefOf(candidate->candidate.spec_name()) : TsStringRef{nullptr, 0};
}

TsStatus TsCandidateGetSubGraph(TsCandidate candidate, TsSubGraph* out) {
  TS_REQUIRE(candidate);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsSubGraph_{candidate->graph, candidate->candidate.sub_graph, Attrs()};
  });
}

TsStatus TsCandidateGetFunction(TsCandidate candidate, TsExpr* out) {
  TS_REQUIRE(candidate);
  TS_REQUIRE(out);
  return Guard([&] {
    const DataflowGraph& graph = *candidate->graph;
    const SubGraph& sub_graph = candidate->candidate.sub_graph;
    // The host's candidate for the function node itself has no standalone function.
    if (sub_graph.inside()[graph.size() - 1]) {
      *out = nullptr;
      return;
    }
    *out =
        Give<TsExpr>(tessera::Ref<const tessera::Object>(Extract(graph, sub_graph).function.get()));
  });
}

void TsCandidateDestroy(TsCandidate candidate) {
  delete candidate;
}

TsStatus TsSubGraphGetNumIndexes(TsSubGraph sub_graph, TsSubGraphIndexKind kind, size_t* out) {
  TS_REQUIRE(sub_graph);
  TS_REQUIRE(out);
  return Guard([&] { *out = IndexesOf(sub_graph->sub_graph, kind).PopCount(); });
}

TsStatus TsSubGraphGetIndex(TsSubGraph sub_graph, TsSubGraphIndexKind kind, size_t i, size_t* out) {
  TS_REQUIRE(sub_graph);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<size_t> indexes = IndexesOf(sub_graph->sub_graph, kind).ToVector();
    CheckIndex(i, indexes.size(), "TsSubGraphGetIndex: index");
    *out = indexes[i];
  });
}

TsStringRef TsSubGraphGetLabel(TsSubGraph sub_graph) {
  return sub_graph ? RefOf(sub_graph->sub_graph.label()) : TsStringRef{nullptr, 0};
}

TsStringRef TsSubGraphGetKind(TsSubGraph sub_graph) {
  return sub_graph ? TsStringRefFromC(tessera::OpPatternKindName(sub_graph->sub_graph.kind()))
                   : TsStringRef{nullptr, 0};
}

size_t TsSubGraphGetDepth(TsSubGraph sub_graph) {
  return sub_graph ? sub_graph->sub_graph.depth() : 0;
}

size_t TsSubGraphGetNumNested(TsSubGraph sub_graph) {
  return sub_graph ? sub_graph->sub_graph.nested_sub_graphs().size() : 0;
}

TsStatus TsSubGraphGetNested(TsSubGraph sub_graph, size_t i, TsSubGraph* out) {
  TS_REQUIRE(sub_graph);
  TS_REQUIRE(out);
  return Guard([&] {
    const std::vector<NestedSubGraph>& nested = sub_graph->sub_graph.nested_sub_graphs();
    CheckIndex(i, nested.size(), "TsSubGraphGetNested: nested sub-graph");
    *out = new TsSubGraph_{sub_graph->graph, nested[i].sub_graph, nested[i].attrs};
  });
}

size_t TsSubGraphGetNumAttributes(TsSubGraph sub_graph) {
  return sub_graph ? sub_graph->attrs.size() : 0;
}

TsStatus TsSubGraphGetAttribute(TsSubGraph sub_graph, size_t i, TsNamedAttribute* out) {
  TS_REQUIRE(sub_graph);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = NamedAttrOf(sub_graph->attrs, i, "TsSubGraphGetAttribute: attribute"); });
}

void TsSubGraphDestroy(TsSubGraph sub_graph) {
  delete sub_graph;
}

TsStatus TsCollagePartitionForTestingPassCreate(int64_t max_exits, int allow_taps,
                                                const char* compiler, const size_t* indexes,
                                                size_t num_indexes, const char* const* labels,
                                                size_t num_labels, TsPass* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_indexes && !indexes)
      TS_THROW(kValue) << "TsCollagePartitionForTestingPassCreate: indexes are NULL";
    if (num_labels && !labels)
      TS_THROW(kValue) << "TsCollagePartitionForTestingPassCreate: labels are NULL";
    std::vector<std::string> names;
    for (size_t i = 0; i < num_labels; ++i) names.push_back(labels[i] ? labels[i] : "");
    *out = new TsPass_{PartitionForTesting(
        LimitFromC(max_exits, "PartitionForTesting", "max_exits"), allow_taps != 0,
        compiler ? compiler : "", std::vector<size_t>(indexes, indexes + num_indexes), names)};
  });
}

}  // extern "C"
