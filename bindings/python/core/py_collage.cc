// tessera._core.collage over the C API: partition and combiner rules, candidates on @main's
// dataflow graph as index sets, node labels, rewriting and the PartitionForTesting pass.
#include <pybind11/functional.h>

#include <string>
#include <utility>
#include <vector>

#include "core_glue.h"

namespace tessera_py {

namespace {

/// collage.PartitionRule: an immutable rule tree.
struct PyPartitionRule {
  Shared<TsPartitionRule, TsPartitionRuleDestroy> handle;
};
/// collage.CombinerRule: an immutable combiner for combine().
struct PyCombinerRule {
  Shared<TsCombinerRule, TsCombinerRuleDestroy> handle;
};

using Graph = Shared<TsDataflowGraph, TsDataflowGraphDestroy>;
using CandidateList = Shared<TsCandidateList, TsCandidateListDestroy>;
using Candidate = Shared<TsCandidate, TsCandidateDestroy>;
using SubGraph = Shared<TsSubGraph, TsSubGraphDestroy>;
using Target = Shared<TsTarget, TsTargetDestroy>;

/// A rule made by `create(&out)` (a C constructor's status).
template <typename F>
PyPartitionRule MakeRule(F&& create) {
  TsPartitionRule out = nullptr;
  Check(create(&out));
  PyPartitionRule rule;
  rule.handle = decltype(rule.handle)(out);
  return rule;
}

/// A combiner made by `create(&out)`.
template <typename F>
PyCombinerRule MakeCombiner(F&& create) {
  TsCombinerRule out = nullptr;
  Check(create(&out));
  PyCombinerRule rule;
  rule.handle = decltype(rule.handle)(out);
  return rule;
}

/// A depth or exit limit from Python: 0 means no limit; negative is a value error (checked
/// here too so the message names the Python function, as the old binding's did).
int64_t LimitFromPy(int64_t value, const std::string& what, const char* which = "max_depth") {
  if (value < 0)
    Raise(TS_ERROR_VALUE,
          what + ": " + which + " must be >= 0 (0: no limit), got " + std::to_string(value));
  return value;
}

/// A parsed target.
Target TargetOf(const std::string& text) {
  TsTarget out = nullptr;
  Check(TsTargetParse(text.c_str(), &out));
  return Target(out);
}

/// Parsed targets, and their borrowed handles for C arrays.
struct Targets {
  std::vector<Target> owned;
  std::vector<TsTarget> handles;
  explicit Targets(const std::vector<std::string>& texts) {
    for (const std::string& t : texts) {
      owned.push_back(TargetOf(t));
      handles.push_back(owned.back().get());
    }
  }
};

/// @main of `mod` (types inferred) as a dataflow graph.
Graph GraphOf(const PyModule& mod) {
  TsDataflowGraph out = nullptr;
  Check(TsDataflowGraphCreate(mod.handle.get(), &out));
  return Graph(out);
}

/// A Python predicate on expressions (a Call) called from C; `what` names it in errors.
struct Predicate {
  py::object fn;
  std::string what;
};


/// A predicate's result as a bool: Python and NumPy bools only, so a mistaken return value
/// ("no", None, a list) is an error instead of silently true or false.
bool PredicateResult(const py::object& result, const std::string& what) {
  if (py::isinstance<py::bool_>(result)) return result.cast<bool>();
  py::object numpy_bool = py::module_::import("numpy").attr("bool_");
  if (py::isinstance(result, numpy_bool)) return result.attr("__bool__")().cast<bool>();
  Raise(TS_ERROR_TYPE, what + " must return a bool, got " + TypeName(result));
}

/// The C predicate (TsCollageExprPredicate / TsPatternPredicate) calling a Predicate with
/// the (lent) expression.
TsStatus CallPredicate(TsExpr expr, int* result, void* user_data) {
  auto* predicate = static_cast<Predicate*>(user_data);
  return CallPython([&] {
    py::object r = predicate->fn(WrapExpr(TsExprRetain(expr)));
    *result = PredicateResult(r, predicate->what) ? 1 : 0;
  });
}

/// Index set `kind` of a sub-graph, ascending.
std::vector<size_t> IndexesOf(TsSubGraph sub_graph, TsSubGraphIndexKind kind) {
  size_t n = CountOf([&](size_t* out) { return TsSubGraphGetNumIndexes(sub_graph, kind, out); });
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) Check(TsSubGraphGetIndex(sub_graph, kind, i, &out[i]));
  return out;
}

/// Nested sub-graphs as a list of (indexes, attrs, nested) tuples, recursively (a library
/// kernel's Composite functions are nested inside its Primitive one).
py::list NestedToPy(TsSubGraph sub_graph) {
  py::list out;
  size_t n = TsSubGraphGetNumNested(sub_graph);
  for (size_t i = 0; i < n; ++i) {
    TsSubGraph raw = nullptr;
    Check(TsSubGraphGetNested(sub_graph, i, &raw));
    SubGraph nested(raw);
    py::dict attrs =
        AttrsToPy(TsSubGraphGetNumAttributes(nested.get()), [&](size_t j, TsNamedAttribute* named) {
          return TsSubGraphGetAttribute(nested.get(), j, named);
        });
    out.append(py::make_tuple(IndexesOf(nested.get(), TS_SUB_GRAPH_INSIDE), attrs,
                              NestedToPy(nested.get())));
  }
  return out;
}

/// Candidate `index` of `list` as a Python dict.
py::dict CandidateToPy(TsCandidateList list, size_t index) {
  TsCandidate raw = nullptr;
  Check(TsCandidateListGetCandidate(list, index, &raw));
  Candidate c(raw);
  TsSubGraph raw_sub = nullptr;
  Check(TsCandidateGetSubGraph(c.get(), &raw_sub));
  SubGraph sub(raw_sub);
  py::dict d;
  d["indexes"] = IndexesOf(sub.get(), TS_SUB_GRAPH_INSIDE);
  d["label"] = Str(TsSubGraphGetLabel(sub.get()));
  d["kind"] = Str(TsSubGraphGetKind(sub.get()));
  d["rule_name"] = Str(TsCandidateGetRuleName(c.get()));
  d["spec"] = Str(TsCandidateGetSpecName(c.get()));
  d["depth"] = TsSubGraphGetDepth(sub.get());
  d["entries"] = IndexesOf(sub.get(), TS_SUB_GRAPH_ENTRIES);
  d["exits"] = IndexesOf(sub.get(), TS_SUB_GRAPH_EXITS);
  d["inputs"] = IndexesOf(sub.get(), TS_SUB_GRAPH_INPUTS);
  d["outputs"] = IndexesOf(sub.get(), TS_SUB_GRAPH_OUTPUTS);
  d["nested"] = NestedToPy(sub.get());
  // NULL (None) for the host's candidate of the function node itself.
  TsExpr function = nullptr;
  Check(TsCandidateGetFunction(c.get(), &function));
  d["function"] = WrapExpr(function);
  return d;
}

/// The candidates [first, first + count) of `list` as dicts.
py::list CandidatesToPy(TsCandidateList list, size_t first, size_t count) {
  py::list out;
  for (size_t i = first; i < first + count; ++i) out.append(CandidateToPy(list, i));
  return out;
}

/// Candidates of every spec `targets` give on @main of `mod`. With `release_gil`, the graph
/// and the enumeration (pure C++, unless a Python predicate runs) run without the GIL.
CandidateList TargetCandidates(const PyModule& mod, const std::vector<std::string>& targets,
                               int64_t max_depth, bool host, const std::string& what,
                               bool release_gil) {
  Targets ts(targets);
  LimitFromPy(max_depth, what);
  TsDataflowGraph graph = nullptr;
  TsCandidateList list = nullptr;
  auto run = [&] {
    TsStatus status = TsDataflowGraphCreate(mod.handle.get(), &graph);
    if (status != TS_OK) return status;
    return TsCollageTargetCandidates(graph, ts.handles.data(), ts.handles.size(), max_depth,
                                     host ? 1 : 0, &list);
  };
  TsStatus status;
  if (release_gil) {
    py::gil_scoped_release release;
    status = run();
  } else {
    status = run();
  }
  Graph owned_graph(graph);
  CandidateList owned(list);
  Check(status);
  return owned;
}

/// The submodule `collage` of `parent`, made on first use (BindCollage, BindCollageSearch
/// and BindCostDatabase all fill it, in any order).
py::module_ CollageModule(py::module_& parent) {
  if (py::hasattr(parent, "collage")) return parent.attr("collage").cast<py::module_>();
  return parent.def_submodule("collage", "Collage candidate partitions");
}

void BindRules(py::module_& m) {
  auto tree = [](const PyPartitionRule& r) {
    return Text(
        [&](TsStringCallback cb, void* u) { return TsPartitionRulePrint(r.handle.get(), cb, u); });
  };
  auto combiner_text = [](const PyCombinerRule& r) {
    return Text(
        [&](TsStringCallback cb, void* u) { return TsCombinerRulePrint(r.handle.get(), cb, u); });
  };
  py::class_<PyPartitionRule>(m, "PartitionRule", "An immutable partition rule (a tree of rules).")
      .def_property_readonly(
          "name",
          [](const PyPartitionRule& r) { return StringOf(TsPartitionRuleGetName(r.handle.get())); })
      .def("__str__", tree)
      .def("__repr__", tree);
  py::class_<PyCombinerRule>(m, "CombinerRule", "An immutable combiner rule.")
      .def("__str__", combiner_text)
      .def("__repr__", combiner_text);

  m.def(
      "op_predicate",
      [](std::string name, py::object predicate, std::string description) {
        const char* what = "collage.op_predicate";
        if (py::isinstance<py::str>(predicate) || py::isinstance<py::list>(predicate) ||
            py::isinstance<py::tuple>(predicate) || py::isinstance<py::set>(predicate)) {
          std::vector<std::string> ops;
          if (py::isinstance<py::str>(predicate)) {
            ops.push_back(predicate.cast<std::string>());
          } else {
            for (py::handle h : predicate) {
              if (!py::isinstance<py::str>(h))
                Raise(TS_ERROR_TYPE,
                      std::string(what) + ": op names must be strings, got a " + TypeName(h));
              ops.push_back(h.cast<std::string>());
            }
          }
          std::vector<const char*> names = CStrings(ops);
          return MakeRule([&](TsPartitionRule* out) {
            return TsPartitionRuleOpPredicateCreate(name.c_str(), names.data(), names.size(),
                                                    description.c_str(), out);
          });
        }
        if (!PyCallable_Check(predicate.ptr()))
          Raise(TS_ERROR_TYPE, std::string(what) +
                                   ": predicate must be an op name, a list of op names or a "
                                   "callable taking a Call");
        auto* data = new Predicate{predicate, std::string(what) + ": the predicate"};
        // The C call owns `data` from here, also when it fails.
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleOpPredicateCallbackCreate(
              name.c_str(), &CallPredicate, data, &DestroyUnderGil<Predicate>, description.c_str(), out);
        });
      },
      py::arg("name"), py::arg("predicate"), py::arg("description") = "",
      "One candidate per op call the predicate accepts (op names or a callable(Call) -> bool).");
  m.def(
      "dfpattern",
      [](std::string name, py::object pattern, py::object predicate) {
        TsPattern pat = PatternOf(pattern, "collage.dfpattern: pattern");
        Predicate* data = nullptr;
        if (!predicate.is_none()) {
          if (!PyCallable_Check(predicate.ptr()))
            Raise(TS_ERROR_TYPE,
                  "collage.dfpattern: predicate must be None or a callable taking the match's "
                  "root Call, got " +
                      TypeName(predicate));
          data = new Predicate{predicate, "collage.dfpattern: the predicate"};
        }
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleDFPatternCreate(name.c_str(), pat, data ? &CallPredicate : nullptr,
                                                data, data ? &DestroyUnderGil<Predicate> : nullptr, out);
        });
      },
      py::arg("name"), py::arg("pattern"), py::arg("predicate") = py::none(),
      "One candidate per match of a DFPattern (tried at every node; matches may overlap) "
      "whose root passes `predicate` (a callable taking the root Call, returning a bool); "
      "wildcard matches and inlinable nodes stay outside.");
  m.def(
      "byoc",
      [](std::string compiler, int64_t max_depth, std::string fusion) {
        LimitFromPy(max_depth, "collage.byoc");
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleByocCreate(compiler.c_str(), max_depth, fusion.c_str(), out);
        });
      },
      py::arg("compiler"), py::arg("max_depth") = 4, py::arg("fusion") = "arbitrary",
      "A library backend's rule from its registered pattern table and supported ops.");
  m.def(
      "op_call_by_kind",
      [](std::string name) {
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleOpCallByKindCreate(name.c_str(), out);
        });
      },
      py::arg("name") = "op_call_by_kind");
  m.def(
      "composite",
      [](std::string name, const PyPartitionRule& sub) {
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleCompositeCreate(name.c_str(), sub.handle.get(), out);
        });
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "primitive",
      [](std::string name, const PyPartitionRule& sub) {
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRulePrimitiveCreate(name.c_str(), sub.handle.get(), out);
        });
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "union",
      [](std::string name, const std::vector<PyPartitionRule>& subs) {
        std::vector<TsPartitionRule> rules;
        for (const PyPartitionRule& r : subs) rules.push_back(r.handle.get());
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleUnionCreate(name.c_str(), rules.data(), rules.size(), out);
        });
      },
      py::arg("name"), py::arg("sub_rules"));
  m.def(
      "combine",
      [](std::string name, const PyPartitionRule& sub, const std::vector<PyCombinerRule>& combiners,
         int64_t max_depth) {
        LimitFromPy(max_depth, "collage.combine");
        std::vector<TsCombinerRule> rules;
        for (const PyCombinerRule& c : combiners) rules.push_back(c.handle.get());
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleCombineCreate(name.c_str(), sub.handle.get(), rules.data(),
                                              rules.size(), max_depth, out);
        });
      },
      py::arg("name"), py::arg("sub_rule"), py::arg("combiners"), py::arg("max_depth"));
  m.def(
      "only_valid",
      [](std::string name, const PyPartitionRule& sub, int64_t max_exits, bool allow_taps,
         int64_t max_depth) {
        LimitFromPy(max_exits, "collage.only_valid", "max_exits");
        LimitFromPy(max_depth, "collage.only_valid");
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleOnlyValidCreate(name.c_str(), sub.handle.get(), max_exits,
                                                allow_taps ? 1 : 0, max_depth, out);
        });
      },
      py::arg("name"), py::arg("sub_rule"), py::arg("max_exits") = 1, py::arg("allow_taps") = false,
      py::arg("max_depth") = 0);
  m.def(
      "host",
      [](std::string name) {
        return MakeRule(
            [&](TsPartitionRule* out) { return TsPartitionRuleHostCreate(name.c_str(), out); });
      },
      py::arg("name") = "host");
  m.def(
      "max_coalesce",
      [](std::string name, const PyPartitionRule& sub) {
        return MakeRule([&](TsPartitionRule* out) {
          return TsPartitionRuleMaxCoalesceCreate(name.c_str(), sub.handle.get(), out);
        });
      },
      py::arg("name"), py::arg("sub_rule"));
  m.def(
      "fuse_ops_like",
      [](int64_t max_depth) {
        LimitFromPy(max_depth, "collage.fuse_ops_like");
        return MakeRule(
            [&](TsPartitionRule* out) { return TsPartitionRuleFuseOpsLikeCreate(max_depth, out); });
      },
      py::arg("max_depth") = 4, "The native spec's rule: FuseOps's fusions, all combinations.");

  m.def(
      "all_simple",
      [](std::string name, const std::vector<std::pair<std::string, std::string>>& kinds) {
        std::vector<const char*> up, down;
        for (const auto& [u, d] : kinds) {
          up.push_back(u.c_str());
          down.push_back(d.c_str());
        }
        return MakeCombiner([&](TsCombinerRule* out) {
          return TsCombinerRuleAllSimpleCreate(name.c_str(), up.data(), down.data(), kinds.size(),
                                               out);
        });
      },
      py::arg("name"), py::arg("kinds"),
      "Union touching pairs (upstream kind <= k1, downstream kind <= k2), e.g. [('A','B')].");
  m.def(
      "tuple_arg",
      [](std::string name) {
        return MakeCombiner(
            [&](TsCombinerRule* out) { return TsCombinerRuleTupleArgCreate(name.c_str(), out); });
      },
      py::arg("name") = "tuple_arg");
  m.def(
      "tuple_proj",
      [](std::string name) {
        return MakeCombiner(
            [&](TsCombinerRule* out) { return TsCombinerRuleTupleProjCreate(name.c_str(), out); });
      },
      py::arg("name") = "tuple_proj");
  m.def(
      "constant",
      [](std::string name) {
        return MakeCombiner(
            [&](TsCombinerRule* out) { return TsCombinerRuleConstantCreate(name.c_str(), out); });
      },
      py::arg("name") = "constant");
}

void BindCandidates(py::module_& m) {
  m.def(
      "candidates",
      [](const PyPartitionRule& rule, const PyModule& mod, std::string spec_name,
         std::string target, std::string compiler) {
        Graph graph = GraphOf(mod);
        Target t = TargetOf(target);
        TsCandidateList raw = nullptr;
        Check(TsPartitionRuleGetCandidates(rule.handle.get(), graph.get(), spec_name.c_str(),
                                           t.get(), compiler.c_str(), &raw));
        CandidateList list(raw);
        return CandidatesToPy(list.get(), 0, TsCandidateListGetNumCandidates(list.get()));
      },
      py::arg("rule"), py::arg("mod"), py::arg("spec_name") = "spec", py::arg("target") = "native",
      py::arg("compiler") = "", "Runs `rule` on @main and returns the candidates as dicts.");
  m.def(
      "target_candidates",
      [](const PyModule& mod, const std::vector<std::string>& targets, int64_t max_depth,
         bool host) {
        CandidateList list =
            TargetCandidates(mod, targets, max_depth, host, "collage.target_candidates", false);
        py::dict out;
        for (size_t s = 0; s < TsCandidateListGetNumSpecs(list.get()); ++s) {
          TsStringRef name{};
          size_t first = 0, count = 0;
          Check(TsCandidateListGetSpec(list.get(), s, &name, &first, &count));
          out[Str(name)] = CandidatesToPy(list.get(), first, count);
        }
        return out;
      },
      py::arg("mod"), py::arg("targets"), py::arg("max_depth") = 4, py::arg("host") = false);
  m.def(
      "candidate_counts",
      [](const PyModule& mod, const std::vector<std::string>& targets, int64_t max_depth,
         bool host) {
        CandidateList list =
            TargetCandidates(mod, targets, max_depth, host, "collage.candidate_counts", true);
        std::vector<std::pair<std::string, size_t>> counts;
        for (size_t s = 0; s < TsCandidateListGetNumSpecs(list.get()); ++s) {
          TsStringRef name{};
          size_t count = 0;
          Check(TsCandidateListGetSpec(list.get(), s, &name, nullptr, &count));
          counts.emplace_back(StringOf(name), count);
        }
        return counts;
      },
      py::arg("mod"), py::arg("targets"), py::arg("max_depth") = 4, py::arg("host") = false,
      "(spec, number of candidates) per spec, without building Python objects (for timing).");
  m.def(
      "node_labels",
      [](const PyModule& mod) {
        Graph graph = GraphOf(mod);
        std::vector<std::string> labels;
        for (size_t i = 0; i < TsDataflowGraphGetNumNodes(graph.get()); ++i) {
          TsStringRef label{};
          Check(TsDataflowGraphGetNodeLabel(graph.get(), i, &label));
          labels.push_back(StringOf(label));
        }
        return labels;
      },
      py::arg("mod"), "The label of every post-DFS index of @main.");
  m.def(
      "rewrite",
      [](const PyModule& mod, const std::vector<std::pair<std::vector<size_t>, py::dict>>& parts) {
        Graph graph = GraphOf(mod);
        // Reserved up front: the C parts point into each NamedAttrs, which must not move.
        std::vector<NamedAttrs> attrs;
        attrs.reserve(parts.size());
        std::vector<TsCollagePart> c_parts;
        for (const auto& [indexes, dict] : parts) {
          attrs.push_back(AttrsFromPy(dict, "attrs"));
          c_parts.push_back(TsCollagePart{indexes.data(), indexes.size(), attrs.back().data(),
                                          attrs.back().size()});
        }
        TsModule out = nullptr;
        Check(TsDataflowGraphRewrite(graph.get(), c_parts.data(), c_parts.size(), &out));
        PyModule result;
        result.handle = decltype(result.handle)(out);
        return result;
      },
      py::arg("mod"), py::arg("parts"),
      "Rewrites @main with each (indexes, attrs) part turned into a function.");
  m.def(
      "partition_for_testing",
      [](int64_t max_exits, bool allow_taps, std::string compiler, std::vector<size_t> indexes,
         std::vector<std::string> labels) {
        std::vector<const char*> names = CStrings(labels);
        TsPass out = nullptr;
        Check(TsCollagePartitionForTestingPassCreate(
            max_exits, allow_taps ? 1 : 0, compiler.c_str(), indexes.data(), indexes.size(),
            names.data(), names.size(), &out));
        PyPass pass;
        pass.handle = decltype(pass.handle)(out);
        return pass;
      },
      py::arg("max_exits"), py::arg("allow_taps"), py::arg("compiler"), py::arg("indexes"),
      py::arg("labels") = std::vector<std::string>{});
}

}  // namespace

void BindCollage(py::module_& parent) {
  py::module_ m = CollageModule(parent);
  BindRules(m);
  BindCandidates(m);
}

}  // namespace tessera_py
