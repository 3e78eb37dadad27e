// The C API's Collage partition and combiner rules, and helpers the Collage C API files
// share (limits, rules).
#include <algorithm>
#include <string>
#include <vector>

#include "c_api_collage_internal.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/ir/op.h"

using namespace tessera::capi;
using namespace tessera::collage;
using tessera::Attrs;
using tessera::Expr;
using tessera::OpPatternKind;

namespace tessera::capi {

size_t LimitFromC(int64_t value, const char* what, const char* which) {
  if (value < 0)
    TS_THROW(kValue) << what << ": " << which << " must be >= 0 (0: no limit), got " << value;
  return static_cast<size_t>(value);
}

PartitionRulePtr RuleOf(TsPartitionRule rule, const char* what) {
  if (!rule) TS_THROW(kValue) << what << ": a rule is NULL";
  return rule->rule;
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

}  // namespace

extern "C" {

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

TsStatus TsPartitionRuleOpPredicateCallbackCreate(const char* name, TsPatternPredicate predicate,
                                                  void* user_data, TsUserDataDestroy destroy,
                                                  const char* description, TsPartitionRule* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(predicate);
  TS_REQUIRE(out);
  return GiveRule(out, [&]() -> PartitionRulePtr {
    auto fn = PredicateFromC(predicate, data, std::string("collage rule '") + name + "' predicate");
    auto on_call = [fn](const tessera::CallNode& call) { return fn(Expr(&call)); };
    return std::make_shared<OpPredicatePartitionRule>(name, on_call,
                                                      description ? description : "");
  });
}

TsStatus TsPartitionRuleDFPatternCreate(const char* name, TsPattern pattern,
                                        TsPatternPredicate predicate, void* user_data,
                                        TsUserDataDestroy destroy, TsPartitionRule* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
  TS_REQUIRE(name);
  TS_REQUIRE(pattern);
  TS_REQUIRE(out);
  return GiveRule(out, [&]() -> PartitionRulePtr {
    tessera::DFPattern pat = BorrowPattern(pattern, "TsPartitionRuleDFPatternCreate's pattern");
    auto pred =
        PredicateFromC(predicate, data, std::string("collage rule '") + name + "' predicate");
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

}  // extern "C"
