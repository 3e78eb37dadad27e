// The C API's Collage candidate search: dataflow graphs, partition and combiner rules,
// candidates and their sub-graphs, rewriting, and the PartitionForTesting pass.
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
using tessera::OpPatternKind;

namespace tessera::capi {

std::function<bool(const Expr&)> ExprPredicateFromC(TsCollageExprPredicate fn, UserDataPtr data,
                                                    std::string where) {
  if (!fn) return nullptr;
  return [fn, data, where](const Expr& expr) {
    int result = 0;
    TsStatus status = fn(Lend<TsExpr>(expr.get()), &result, data->data);
    if (status != TS_OK) ThrowCallbackError(status, where);
    return result != 0;
  };
}

size_t LimitFromC(int64_t value, const char* what, const char* which) {
  if (value < 0)
    TS_THROW(kValue) << what << ": " << which << " must be >= 0 (0: no limit), got " << value;
  return static_cast<size_t>(value);
}

PartitionRulePtr RuleOf(TsPartitionRule rule, const char* what) {
  if (!rule) TS_THROW(kValue) << what << ": a rule is NULL";
  return rule->rule;
}

std::vector<Target> TargetsFromC(const TsTarget* targets, size_t num_targets, const char* what) {
  if (num_targets && !targets) TS_THROW(kValue) << what << ": targets are NULL";
  std::vector<Target> out;
  for (size_t i = 0; i < num_targets; ++i) {
    if (!targets[i]) TS_THROW(kValue) << what << ": target " << i << " is NULL";
    out.push_back(targets[i]->target);
  }
  return out;
}

}  // namespace tessera::capi

namespace {

OpPatternKind KindFromC(const char* text) {
  static const std::pair<const char*, OpPatternKind> kKinds[] = {
      {"E", OpPatternKind::kElemwise},
      {"elemwise", OpPatternKind::kElemwise},
      {"B", OpPatternKind::kBroadcast},
      {"broadcast", OpPatternKind::kBroadcast},
      {"I", OpPatternKind::kInjective},
      {"injective", OpPatternKind::kInjective},
      {"R", OpPatternKind::kCommReduce},
      {"comm_reduce", OpPatternKind::kCommReduce},
      {"A", OpPatternKind::kOutEWiseFusable},
      {"out_elemwise_fusable", OpPatternKind::kOutEWiseFusable},
      {"T", OpPatternKind::kTuple},
      {"tuple", OpPatternKind::kTuple},
      {"O", OpPatternKind::kOpaque},
      {"opaque", OpPatternKind::kOpaque}};
  if (!text) TS_THROW(kValue) << "collage: a pattern kind is NULL";
  for (const auto& [name, kind] : kKinds)
    if (std::string(text) == name) return kind;
  TS_THROW(kValue) << "collage: unknown pattern kind '" << text
                   << "' (use E, B, I, R, A, T, O or a kind name such as 'broadcast')";
}

/// Hands `rule` to C.
TsStatus GiveRule(TsPartitionRule* out, std::function<PartitionRulePtr()> make) {
  return Guard([&] { *out = new TsPartitionRule_{make()}; });
}

TsStringRef StaticRef(const char* text) {
  return TsStringRef{text, std::char_traits<char>::length(text)};
}

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

std::string Text(const char* s, const char* fallback) {
  return s && *s ? s : fallback;
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
    if (index >= graph->labels.size())
      TS_THROW(kValue) << "TsDataflowGraphGetNodeLabel: index " << index
                       << " out of range (the graph has " << graph->labels.size() << " nodes)";
    *out = RefOf(graph->labels[index]);
  });
}

TsStatus TsDataflowGraphGetNode(TsDataflowGraph graph, size_t index, TsExpr* out) {
  TS_REQUIRE(graph);
  TS_REQUIRE(out);
  return Guard([&] {
    if (index >= graph->graph->size())
      TS_THROW(kValue) << "TsDataflowGraphGetNode: index " << index
                       << " out of range (the graph has " << graph->graph->size() << " nodes)";
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

/* ---- Partition rules ---- */

TsStatus TsPartitionRuleOpPredicateCreate(const char* name, const char* const* ops, size_t num_ops,
                                          const char* description, TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return GiveRule(out, [&]() -> PartitionRulePtr {
    if (num_ops && !ops) TS_THROW(kValue) << "TsPartitionRuleOpPredicateCreate: ops are NULL";
    std::vector<std::string> names;
    for (size_t i = 0; i < num_ops; ++i) {
      if (!ops[i]) TS_THROW(kValue) << "TsPartitionRuleOpPredicateCreate: op " << i << " is NULL";
      tessera::OpRegistry::Global().Get(ops[i]);  // an unknown op is an error
      names.push_back(ops[i]);
    }
    std::string desc = description ? description : "";
    if (desc.empty())
      for (const std::string& op : names) desc += (desc.empty() ? "op in " : ", ") + op;
    auto fn = [names](const tessera::CallNode& call) {
      return std::find(names.begin(), names.end(), call.op()->name) != names.end();
    };
    return std::make_shared<OpPredicatePartitionRule>(name, fn, desc);
  });
}

TsStatus TsPartitionRuleOpPredicateCallbackCreate(const char* name,
                                                  TsCollageExprPredicate predicate, void* user_data,
                                                  TsUserDataDestroy destroy,
                                                  const char* description, TsPartitionRule* out) {
  UserDataPtr data = HoldUserData(user_data, destroy);
  TS_REQUIRE(name);
  TS_REQUIRE(predicate);
  TS_REQUIRE(out);
  return GiveRule(out, [&]() -> PartitionRulePtr {
    auto fn =
        ExprPredicateFromC(predicate, data, std::string("collage rule '") + name + "' predicate");
    auto on_call = [fn](const tessera::CallNode& call) { return fn(Expr(&call)); };
    return std::make_shared<OpPredicatePartitionRule>(name, on_call,
                                                      description ? description : "");
  });
}

TsStatus TsPartitionRuleDFPatternCreate(const char* name, TsPattern pattern,
                                        TsCollageExprPredicate predicate, void* user_data,
                                        TsUserDataDestroy destroy, TsPartitionRule* out) {
  UserDataPtr data = HoldUserData(user_data, destroy);
  TS_REQUIRE(name);
  TS_REQUIRE(pattern);
  TS_REQUIRE(out);
  return GiveRule(out, [&]() -> PartitionRulePtr {
    tessera::DFPattern pat = PatternOf(pattern, "TsPartitionRuleDFPatternCreate");
    auto pred =
        ExprPredicateFromC(predicate, data, std::string("collage rule '") + name + "' predicate");
    return std::make_shared<DFPatternPartitionRule>(name, pat, pred);
  });
}

TsStatus TsPartitionRuleByocCreate(const char* compiler, int64_t max_depth, const char* fusion,
                                   TsPartitionRule* out) {
  TS_REQUIRE(compiler);
  TS_REQUIRE(out);
  return GiveRule(out, [&] {
    ByocFusionStyle style =
        ParseByocFusionStyle(Text(fusion, "arbitrary"), "TsPartitionRuleByocCreate");
    return MakeByocPartitionRule(compiler, LimitFromC(max_depth, "TsPartitionRuleByocCreate"),
                                 style);
  });
}

TsStatus TsPartitionRuleOpCallByKindCreate(const char* name, TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return GiveRule(out, [&] { return std::make_shared<OpCallByKindPartitionRule>(name); });
}

TsStatus TsPartitionRuleCompositeCreate(const char* name, TsPartitionRule sub_rule,
                                        TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(sub_rule);
  TS_REQUIRE(out);
  return GiveRule(out,
                  [&] { return std::make_shared<CompositePartitionRule>(name, sub_rule->rule); });
}

TsStatus TsPartitionRulePrimitiveCreate(const char* name, TsPartitionRule sub_rule,
                                        TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(sub_rule);
  TS_REQUIRE(out);
  return GiveRule(out,
                  [&] { return std::make_shared<PrimitivePartitionRule>(name, sub_rule->rule); });
}

TsStatus TsPartitionRuleUnionCreate(const char* name, const TsPartitionRule* sub_rules,
                                    size_t num_sub_rules, TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return GiveRule(out, [&] {
    if (num_sub_rules && !sub_rules)
      TS_THROW(kValue) << "TsPartitionRuleUnionCreate: sub_rules are NULL";
    std::vector<PartitionRulePtr> rules;
    for (size_t i = 0; i < num_sub_rules; ++i)
      rules.push_back(RuleOf(sub_rules[i], "TsPartitionRuleUnionCreate"));
    return std::make_shared<UnionPartitionRule>(name, rules);
  });
}

TsStatus TsPartitionRuleCombineCreate(const char* name, TsPartitionRule sub_rule,
                                      const TsCombinerRule* combiners, size_t num_combiners,
                                      int64_t max_depth, TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(sub_rule);
  TS_REQUIRE(out);
  return GiveRule(out, [&] {
    if (num_combiners && !combiners)
      TS_THROW(kValue) << "TsPartitionRuleCombineCreate: combiners are NULL";
    std::vector<CombinerRulePtr> rules;
    for (size_t i = 0; i < num_combiners; ++i) {
      if (!combiners[i])
        TS_THROW(kValue) << "TsPartitionRuleCombineCreate: combiner " << i << " is NULL";
      rules.push_back(combiners[i]->rule);
    }
    return std::make_shared<CombinePartitionRule>(
        name, sub_rule->rule, rules, LimitFromC(max_depth, "TsPartitionRuleCombineCreate"));
  });
}

TsStatus TsPartitionRuleOnlyValidCreate(const char* name, TsPartitionRule sub_rule,
                                        int64_t max_exits, int allow_taps, int64_t max_depth,
                                        TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(sub_rule);
  TS_REQUIRE(out);
  return GiveRule(out, [&] {
    SubGraphConfig config{LimitFromC(max_exits, "TsPartitionRuleOnlyValidCreate", "max_exits"),
                          allow_taps != 0, LimitFromC(max_depth, "TsPartitionRuleOnlyValidCreate")};
    return std::make_shared<OnlyValidPartitionRule>(name, sub_rule->rule, config);
  });
}

TsStatus TsPartitionRuleHostCreate(const char* name, TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return GiveRule(out, [&] { return std::make_shared<HostPartitionRule>(name); });
}

TsStatus TsPartitionRuleMaxCoalesceCreate(const char* name, TsPartitionRule sub_rule,
                                          TsPartitionRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(sub_rule);
  TS_REQUIRE(out);
  return GiveRule(out,
                  [&] { return std::make_shared<MaxCoalescePartitionRule>(name, sub_rule->rule); });
}

TsStatus TsPartitionRuleFuseOpsLikeCreate(int64_t max_depth, TsPartitionRule* out) {
  TS_REQUIRE(out);
  return GiveRule(out, [&] {
    return MakeFuseOpsLikeRule(LimitFromC(max_depth, "TsPartitionRuleFuseOpsLikeCreate"));
  });
}

TsStringRef TsPartitionRuleGetName(TsPartitionRule rule) {
  return rule ? RefOf(rule->rule->rule_name()) : TsStringRef{nullptr, 0};
}

TsStatus TsPartitionRulePrint(TsPartitionRule rule, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(rule);
  TS_REQUIRE(callback);
  return Guard([&] {
    std::string text = rule->rule->ToString();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    Emit(text, callback, user_data);
  });
}

void TsPartitionRuleDestroy(TsPartitionRule rule) {
  delete rule;
}

TsStatus TsCombinerRuleAllSimpleCreate(const char* name, const char* const* upstream_kinds,
                                       const char* const* downstream_kinds, size_t num_pairs,
                                       TsCombinerRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_pairs && (!upstream_kinds || !downstream_kinds))
      TS_THROW(kValue) << "TsCombinerRuleAllSimpleCreate: kinds are NULL";
    std::vector<SimpleCombinerRulePtr> rules;
    for (size_t i = 0; i < num_pairs; ++i)
      rules.push_back(std::make_shared<ByKindSimpleCombinerRule>(KindFromC(upstream_kinds[i]),
                                                                 KindFromC(downstream_kinds[i])));
    *out = new TsCombinerRule_{std::make_shared<AllSimpleCombinerRule>(name, rules)};
  });
}

TsStatus TsCombinerRuleTupleArgCreate(const char* name, TsCombinerRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsCombinerRule_{std::make_shared<TupleArgCombinerRule>(name)}; });
}

TsStatus TsCombinerRuleTupleProjCreate(const char* name, TsCombinerRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsCombinerRule_{std::make_shared<TupleProjCombinerRule>(name)}; });
}

TsStatus TsCombinerRuleConstantCreate(const char* name, TsCombinerRule* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsCombinerRule_{std::make_shared<ConstantCombinerRule>(name)}; });
}

TsStatus TsCombinerRulePrint(TsCombinerRule rule, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(rule);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(rule->rule->ToString(), callback, user_data); });
}

void TsCombinerRuleDestroy(TsCombinerRule rule) {
  delete rule;
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
    if (index >= list->candidates.size())
      TS_THROW(kValue) << "TsCandidateListGetCandidate: index " << index
                       << " out of range (the list has " << list->candidates.size()
                       << " candidates)";
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
    if (index >= list->specs.size())
      TS_THROW(kValue) << "TsCandidateListGetSpec: index " << index
                       << " out of range (the list has " << list->specs.size() << " specs)";
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
    if (i >= indexes.size())
      TS_THROW(kValue) << "TsSubGraphGetIndex: index " << i << " out of range (the set has "
                       << indexes.size() << " indexes)";
    *out = indexes[i];
  });
}

TsStringRef TsSubGraphGetLabel(TsSubGraph sub_graph) {
  return sub_graph ? RefOf(sub_graph->sub_graph.label()) : TsStringRef{nullptr, 0};
}

TsStringRef TsSubGraphGetKind(TsSubGraph sub_graph) {
  return sub_graph ? StaticRef(tessera::OpPatternKindName(sub_graph->sub_graph.kind()))
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
    if (i >= nested.size())
      TS_THROW(kValue) << "TsSubGraphGetNested: index " << i << " out of range (the sub-graph has "
                       << nested.size() << " nested sub-graphs)";
    *out = new TsSubGraph_{sub_graph->graph, nested[i].sub_graph, nested[i].attrs};
  });
}

size_t TsSubGraphGetNumAttributes(TsSubGraph sub_graph) {
  return sub_graph ? sub_graph->attrs.size() : 0;
}

TsStatus TsSubGraphGetAttribute(TsSubGraph sub_graph, size_t i, TsNamedAttribute* out) {
  TS_REQUIRE(sub_graph);
  TS_REQUIRE(out);
  return Guard([&] {
    const auto& items = sub_graph->attrs.items();
    if (i >= items.size())
      TS_THROW(kValue) << "TsSubGraphGetAttribute: index " << i
                       << " out of range (the sub-graph has " << items.size() << " attributes)";
    *out = TsNamedAttribute{RefOf(items[i].first), GiveAttr(items[i].second)};
  });
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
