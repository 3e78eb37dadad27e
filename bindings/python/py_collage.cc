// Bindings of Collage's candidate search (tessera._core.collage): rule trees built from
// the primitive rules, run on a module, candidates as index sets, labels, kinds and
// extracted functions; and the PartitionForTesting pass.
#include <pybind11/functional.h>

#include "bindings.h"
#include "py_pattern_convert.h"
#include "tessera/collage/combiner_rule.h"
#include "tessera/collage/partition_for_testing.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/ir/module.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass.h"

namespace tessera::python {

namespace {

using namespace tessera::collage;

/// Python handles of immutable rules (pybind11 holders cannot hold pointers to const).
struct PyRule {
  PartitionRulePtr rule;
};
struct PyCombiner {
  CombinerRulePtr rule;
};

OpPatternKind KindFromPy(const std::string& text) {
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
  for (const auto& [name, kind] : kKinds)
    if (text == name) return kind;
  TS_THROW(kValue) << "collage: unknown pattern kind '" << text
                   << "' (use E, B, I, R, A, T, O or a kind name such as 'broadcast')";
}

/// Nested sub-graphs as a list of (indexes, attrs, nested) tuples, recursively (a
/// library kernel's Composite functions are nested inside its Primitive one).
py::list NestedToPy(const std::vector<NestedSubGraph>& nested) {
  py::list out;
  for (const NestedSubGraph& n : nested)
    out.append(py::make_tuple(n.sub_graph.inside().ToVector(), AttrsToPy(n.attrs),
                              NestedToPy(n.sub_graph.nested_sub_graphs())));
  return out;
}

/// A predicate's result as a bool: Python and NumPy bools only, so a mistaken return
/// value ("no", None, a list) is an error instead of silently true or false.
bool PredicateResult(const py::object& result, const char* what) {
  if (py::isinstance<py::bool_>(result)) return result.cast<bool>();
  py::object numpy_bool = py::module_::import("numpy").attr("bool_");
  if (py::isinstance(result, numpy_bool)) return result.attr("__bool__")().cast<bool>();
  TS_THROW(kType) << what << " must return a bool, got "
                  << py::str(py::type::handle_of(result).attr("__name__")).cast<std::string>();
}

/// A depth limit from Python: 0 means no limit; negative is an error.
size_t DepthFromPy(int64_t depth, const char* what) {
  if (depth < 0)
    TS_THROW(kValue) << what << ": max_depth must be >= 0 (0: no limit), got " << depth;
  return static_cast<size_t>(depth);
}

/// One candidate as a Python dict.
py::dict CandidateToPy(const DataflowGraph& graph, const CandidatePartition& c) {
  py::dict d;
  d["indexes"] = c.sub_graph.inside().ToVector();
  d["label"] = c.sub_graph.label();
  d["kind"] = std::string(OpPatternKindName(c.sub_graph.kind()));
  d["rule_name"] = c.rule_name;
  d["spec"] = c.spec_name();
  d["depth"] = c.sub_graph.depth();
  d["entries"] = c.sub_graph.entry().ToVector();
  d["exits"] = c.sub_graph.exit().ToVector();
  d["inputs"] = c.sub_graph.input().ToVector();
  d["outputs"] = c.sub_graph.output().ToVector();
  d["nested"] = NestedToPy(c.sub_graph.nested_sub_graphs());
  // The host's candidate for the function node itself has no standalone function.
  if (c.sub_graph.inside()[graph.size() - 1])
    d["function"] = py::none();
  else
    d["function"] = Extract(graph, c.sub_graph).function;
  return d;
}

Function MainOf(const IRModule& mod) {
  return InferTypes(mod).LookupFunction("main");
}

}  // namespace

void BindCollage(py::module_& parent) {
  py::module_ m = parent.def_submodule("collage", "Collage candidate partitions");
  // The tree without its final newline, so print(rule) shows no blank line.
  auto tree = [](const PyRule& r) {
    std::string text = r.rule->ToString();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  };
  py::class_<PyRule>(m, "PartitionRule", "An immutable partition rule (a tree of rules).")
      .def_property_readonly("name", [](const PyRule& r) { return r.rule->rule_name(); })
      .def("__str__", tree)
      .def("__repr__", tree);
  py::class_<PyCombiner>(m, "CombinerRule", "An immutable combiner rule.")
      .def("__str__", [](const PyCombiner& r) { return r.rule->ToString(); })
      .def("__repr__", [](const PyCombiner& r) { return r.rule->ToString(); });

  m.def(
      "op_predicate",
      [](std::string name, py::object predicate, std::string description) {
        OpPredicatePartitionRule::Predicate fn;
        if (py::isinstance<py::str>(predicate) || py::isinstance<py::list>(predicate) ||
            py::isinstance<py::tuple>(predicate) || py::isinstance<py::set>(predicate)) {
          std::vector<std::string> ops;
          if (py::isinstance<py::str>(predicate))
            ops.push_back(predicate.cast<std::string>());
          else
            for (py::handle h : predicate) ops.push_back(h.cast<std::string>());
          for (const std::string& op : ops) OpRegistry::Global().Get(op);  // unknown: error
          if (description.empty()) {
            for (const auto& op : ops) description += (description.empty() ? "op in " : ", ") + op;
          }
          fn = [ops](const CallNode& call) {
            return std::find(ops.begin(), ops.end(), call.op()->name) != ops.end();
          };
        } else {
          if (!PyCallable_Check(predicate.ptr()))
            TS_THROW(kType) << "collage.op_predicate: predicate must be an op name, a list of "
                               "op names or a callable taking a Call";
          auto shared = SharePy(predicate);
          fn = [shared](const CallNode& call) {
            py::gil_scoped_acquire gil;
            Expr e(&call);
            return PredicateResult((*shared)(e), "collage.op_predicate: the predicate");
          };
        }
        return PyRule{std::make_shared<OpPredicatePartitionRule>(name, fn, description)};
      },
      py::arg("name"), py::arg("predicate"), py::arg("description") = "",
      "One candidate per op call the predicate accepts (op names or a callable(Call) -> bool).");
  m.def(
      "dfpattern",
      [](std::string name, py::object pattern, py::object predicate) {
        DFPattern pat = PatternOf(pattern, "collage.dfpattern: pattern");
        PatternPredicate pred;
        if (!predicate.is_none()) {
          if (!PyCallable_Check(predicate.ptr()))
            TS_THROW(kType)
                << "collage.dfpattern: predicate must be None or a callable taking "
                   "the match's root Call, got "
                << py::str(py::type::handle_of(predicate).attr("__name__")).cast<std::string>();
          auto shared = SharePy(std::move(predicate));
          pred = [shared](const Expr& root) {
            py::gil_scoped_acquire gil;
            return PredicateResult((*shared)(root), "collage.dfpattern: the predicate");
          };
        }
        return PyRule{std::make_shared<DFPatternPartitionRule>(name, pat, pred)};
      },
      py::arg("name"), py::arg("pattern"), py::arg("predicate") = py::none(),
      "One candidate per match of a DFPattern (tried at every node; matches may overlap) "
      "whose root passes `predicate` (a callable taking the root Call, returning a bool); "
      "wildcard matches and inlinable nodes stay outside.");
  m.def(
      "byoc",
      [](std::string compiler, int64_t max_depth, std::string fusion) {
        ByocFusionStyle style = ParseByocFusionStyle(fusion, "collage.byoc");
        return PyRule{
            MakeByocPartitionRule(compiler, DepthFromPy(max_depth, "collage.byoc"), style)};
      },
      py::arg("compiler"), py::arg("max_depth") = 4, py::arg("fusion") = "arbitrary",
      "A library backend's rule from its registered pattern table and supported ops.");
  m.def(
      "op_call_by_kind",
      [](std::string name) { return PyRule{std::make_shared<OpCallByKindPartitionRule>(name)}; },
      py::arg("name") = "op_call_by_kind");
  m.def(
      "composite",
      [](std::string name, const PyRule& sub) {
        return PyRule{std::make_shared<CompositePartitionRule>(name, sub.rule)};
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "primitive",
      [](std::string name, const PyRule& sub) {
        return PyRule{std::make_shared<PrimitivePartitionRule>(name, sub.rule)};
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "union",
      [](std::string name, const std::vector<PyRule>& subs) {
        std::vector<PartitionRulePtr> rules;
        for (const PyRule& r : subs) rules.push_back(r.rule);
        return PyRule{std::make_shared<UnionPartitionRule>(name, rules)};
      },
      py::arg("name"), py::arg("sub_rules"));
  m.def(
      "combine",
      [](std::string name, const PyRule& sub, const std::vector<PyCombiner>& combiners,
         int64_t max_depth) {
        std::vector<CombinerRulePtr> rules;
        for (const PyCombiner& c : combiners) rules.push_back(c.rule);
        return PyRule{std::make_shared<CombinePartitionRule>(
            name, sub.rule, rules, DepthFromPy(max_depth, "collage.combine"))};
      },
      py::arg("name"), py::arg("sub_rule"), py::arg("combiners"), py::arg("max_depth"));
  m.def(
      "only_valid",
      [](std::string name, const PyRule& sub, int64_t max_exits, bool allow_taps,
         int64_t max_depth) {
        if (max_exits < 0)
          TS_THROW(kValue) << "collage.only_valid: max_exits must be >= 0 (0: no limit), got "
                           << max_exits;
        return PyRule{std::make_shared<OnlyValidPartitionRule>(
            name, sub.rule,
            SubGraphConfig{static_cast<size_t>(max_exits), allow_taps,
                           DepthFromPy(max_depth, "collage.only_valid")})};
      },
      py::arg("name"), py::arg("sub_rule"), py::arg("max_exits") = 1, py::arg("allow_taps") = false,
      py::arg("max_depth") = 0);
  m.def(
      "host", [](std::string name) { return PyRule{std::make_shared<HostPartitionRule>(name)}; },
      py::arg("name") = "host");
  m.def(
      "max_coalesce",
      [](std::string name, const PyRule& sub) {
        return PyRule{std::make_shared<MaxCoalescePartitionRule>(name, sub.rule)};
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "fuse_ops_like",
      [](int64_t max_depth) {
        return PyRule{MakeFuseOpsLikeRule(DepthFromPy(max_depth, "collage.fuse_ops_like"))};
      },
      py::arg("max_depth") = 4, "The native spec's rule: FuseOps's fusions, all combinations.");

  m.def(
      "all_simple",
      [](std::string name, const std::vector<std::pair<std::string, std::string>>& kinds) {
        std::vector<SimpleCombinerRulePtr> rules;
        for (const auto& [up, down] : kinds)
          rules.push_back(
              std::make_shared<ByKindSimpleCombinerRule>(KindFromPy(up), KindFromPy(down)));
        return PyCombiner{std::make_shared<AllSimpleCombinerRule>(name, rules)};
      },
      py::arg("name"), py::arg("kinds"),
      "Union touching pairs (upstream kind <= k1, downstream kind <= k2), e.g. [('A','B')].");
  m.def(
      "tuple_arg",
      [](std::string name) { return PyCombiner{std::make_shared<TupleArgCombinerRule>(name)}; },
      py::arg("name") = "tuple_arg");
  m.def(
      "tuple_proj",
      [](std::string name) { return PyCombiner{std::make_shared<TupleProjCombinerRule>(name)}; },
      py::arg("name") = "tuple_proj");
  m.def(
      "constant",
      [](std::string name) { return PyCombiner{std::make_shared<ConstantCombinerRule>(name)}; },
      py::arg("name") = "constant");

  m.def(
      "candidates",
      [](const PyRule& rule, const IRModule& mod, std::string spec_name, std::string target,
         std::string compiler) {
        DataflowGraph graph(MainOf(mod));
        PartitionSpecPtr spec =
            MakePartitionSpec(spec_name, Target::Parse(target), rule.rule, compiler);
        py::list out;
        for (const CandidatePartition& c : PartitionSpec::AllCandidates(spec, graph))
          out.append(CandidateToPy(graph, c));
        return out;
      },
      py::arg("rule"), py::arg("mod"), py::arg("spec_name") = "spec", py::arg("target") = "native",
      py::arg("compiler") = "", "Runs `rule` on @main and returns the candidates as dicts.");
  m.def(
      "target_candidates",
      [](const IRModule& mod, const std::vector<std::string>& targets, int64_t max_depth,
         bool host) {
        DataflowGraph graph(MainOf(mod));
        std::vector<Target> ts;
        for (const std::string& t : targets) ts.push_back(Target::Parse(t));
        py::dict out;
        for (const PartitionSpecPtr& spec :
             GatherPartitionSpecs(ts, DepthFromPy(max_depth, "collage.target_candidates"), host)) {
          py::list list;
          for (const CandidatePartition& c : PartitionSpec::AllCandidates(spec, graph))
            list.append(CandidateToPy(graph, c));
          out[py::str(spec->name)] = list;
        }
        return out;
      },
      py::arg("mod"), py::arg("targets"), py::arg("max_depth") = 4, py::arg("host") = false);
  m.def(
      "candidate_counts",
      [](const IRModule& mod, const std::vector<std::string>& targets, int64_t max_depth,
         bool host) {
        std::vector<Target> ts;
        for (const std::string& t : targets) ts.push_back(Target::Parse(t));
        auto specs =
            GatherPartitionSpecs(ts, DepthFromPy(max_depth, "collage.candidate_counts"), host);
        Function main = MainOf(mod);
        py::gil_scoped_release release;  // pure C++ from here: graph + enumeration
        DataflowGraph graph(main);
        std::vector<std::pair<std::string, size_t>> counts;
        for (const PartitionSpecPtr& spec : specs)
          counts.emplace_back(spec->name, PartitionSpec::AllCandidates(spec, graph).size());
        return counts;
      },
      py::arg("mod"), py::arg("targets"), py::arg("max_depth") = 4, py::arg("host") = false,
      "(spec, number of candidates) per spec, without building Python objects (for timing).");
  m.def(
      "node_labels",
      [](const IRModule& mod) {
        DataflowGraph graph(MainOf(mod));
        std::vector<std::string> labels;
        for (size_t i = 0; i < graph.size(); ++i) labels.push_back(graph.NodeLabel(i));
        return labels;
      },
      py::arg("mod"), "The label of every post-DFS index of @main.");
  m.def(
      "rewrite",
      [](const IRModule& mod, const std::vector<std::pair<std::vector<size_t>, py::dict>>& parts) {
        DataflowGraph graph(MainOf(mod));
        std::vector<NestedSubGraph> nested;
        IndexSet taken = graph.EmptySet();
        for (const auto& [indexes, attrs] : parts) {
          IndexSet set = IndexSetFromUser(graph, indexes, "collage.rewrite");
          if (set.Intersects(taken))
            TS_THROW(kValue) << "collage.rewrite: part " << set.ToString()
                             << " overlaps an earlier part (parts must be disjoint)";
          taken |= set;
          SubGraph sub_graph(graph, set);
          std::string why = sub_graph.InvalidReason(graph, SubGraphConfig{0, true, 0});
          if (!why.empty())
            TS_THROW(kValue) << "collage.rewrite: part " << set.ToString()
                             << " cannot become one function: " << why;
          nested.push_back(NestedSubGraph{sub_graph, AttrsFromPy(attrs, "attrs")});
        }
        return InferTypes(mod.WithFunction("main", ParallelRewrite(graph, nested)));
      },
      py::arg("mod"), py::arg("parts"),
      "Rewrites @main with each (indexes, attrs) part turned into a function.");
  m.def(
      "partition_for_testing",
      [](int64_t max_exits, bool allow_taps, std::string compiler, std::vector<size_t> indexes,
         std::vector<std::string> labels) {
        if (max_exits < 0)
          TS_THROW(kValue) << "PartitionForTesting: max_exits must be >= 0 (0: no limit), got "
                           << max_exits;
        return PartitionForTesting(static_cast<size_t>(max_exits), allow_taps, compiler, indexes,
                                   labels);
      },
      py::arg("max_exits"), py::arg("allow_taps"), py::arg("compiler"), py::arg("indexes"),
      py::arg("labels") = std::vector<std::string>{});
  BindCollageSearch(m);
  BindCostDatabase(m);
}

}  // namespace tessera::python
