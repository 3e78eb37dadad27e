// Bindings of the DFPattern language, the matcher, pattern rewriting/partitioning, the
// pattern-table registry and the BYOC passes (tessera.pattern, tessera.transform).
#include <pybind11/functional.h>

#include "py_pattern_convert.h"
#include "tessera/ir/parser.h"
#include "tessera/pattern/matcher.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/byoc.h"

namespace tessera::python {

DFPattern PatternOf(py::handle h, const char* what) {
  if (!py::isinstance<DFPattern>(h))
    TS_THROW(kType) << what << " must be a DFPattern, got "
                    << py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>();
  return h.cast<DFPattern>();
}

PatternPredicate PredicateFromPy(py::object fn) {
  if (fn.is_none()) return nullptr;
  auto callback = SharePy(std::move(fn));
  return [callback](const Expr& root) {
    py::gil_scoped_acquire gil;
    return py::bool_((*callback)(root)).cast<bool>();
  };
}

namespace {

std::vector<DFPattern> PatternsOf(py::handle seq, const char* what) {
  std::vector<DFPattern> out;
  for (py::handle item : seq) out.push_back(PatternOf(item, what));
  return out;
}

py::dict NodeMapToPy(const PatternNodeMap& map) {
  py::dict out;
  for (const auto& [node, expr] : map)
    out[py::cast(DFPattern(Ref<const DFPatternNode>(node)))] = py::cast(expr);
  return out;
}

/// Pattern-table entries from a list of (label, pattern[, predicate]) tuples.
std::vector<PatternTableEntry> TableFromPy(py::handle table) {
  std::vector<PatternTableEntry> out;
  for (py::handle item : table) {
    py::tuple t = py::reinterpret_borrow<py::object>(item).cast<py::tuple>();
    if (t.size() < 2 || t.size() > 3)
      TS_THROW(kType) << "a pattern table entry is (label, pattern[, predicate])";
    PatternTableEntry e;
    e.label = t[0].cast<std::string>();
    e.pattern = PatternOf(t[1], "a pattern table entry's pattern");
    if (t.size() == 3) e.predicate = PredicateFromPy(py::reinterpret_borrow<py::object>(t[2]));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

void BindPattern(py::module_& parent) {
  py::module_ m = parent.def_submodule("pattern", "DFPatterns, matching and pattern tables");
  py::class_<DFPattern>(m, "DFPattern", "A dataflow pattern (TVM's DFPattern).")
      .def("__call__",
           [](const DFPattern& p, py::args args) { return p(PatternsOf(args, "a call argument")); })
      .def("call_any_args", &DFPattern::CallAnyArgs)
      .def("__or__",
           [](const DFPattern& a, py::object b) { return a | PatternOf(b, "alternative"); })
      .def("has_attr", [](const DFPattern& p,
                          py::dict attrs) { return p.HasAttr(AttrsFromPy(attrs, "has_attr")); })
      .def("has_type", &DFPattern::HasType, py::arg("type"))
      .def("has_shape", &DFPattern::HasShape, py::arg("shape"))
      .def("has_dtype",
           [](const DFPattern& p, const std::string& dtype) {
             return p.HasDType(ParseDTypeOrThrow(dtype, "has_dtype"));
           })
      .def("match", [](const DFPattern& p, const Expr& e) { return MatchPattern(p, e); })
      .def("__repr__", &DFPattern::ToString)
      .def("__str__", &DFPattern::ToString)
      .def("__eq__",
           [](const DFPattern& a, py::object b) {
             return py::isinstance<DFPattern>(b) && b.cast<DFPattern>().same_as(a);
           })
      .def("__hash__", [](const DFPattern& p) { return std::hash<const void*>()(p.get()); });

  m.def("wildcard", &Wildcard);
  m.def("is_op", &IsOp, py::arg("name"));
  m.def("is_expr", &IsExpr, py::arg("expr"));
  m.def("is_constant", &IsConstant);
  m.def("is_var", &IsVar, py::arg("name") = "");
  m.def("is_tuple", [](py::list fields) { return IsTuple(PatternsOf(fields, "a tuple field")); });
  m.def("is_tuple_get_item", &IsTupleGetItem, py::arg("tuple"), py::arg("index") = -1);
  m.def("dominates", &Dominates, py::arg("parent"), py::arg("path"), py::arg("child"));

  m.def(
      "match_in",
      [](const DFPattern& p, const Expr& e, const Function& func) {
        IndexedGraph graph(func);
        DFPatternMatcher matcher(&graph);
        if (!matcher.Match(p, e)) return py::object(py::none());
        return py::object(NodeMapToPy(matcher.node_map()));
      },
      py::arg("pattern"), py::arg("expr"), py::arg("func"));
  m.def(
      "partition",
      [](const DFPattern& p, const Function& func, const std::string& label, py::object check) {
        return PartitionPattern(p, label, func, PredicateFromPy(std::move(check)));
      },
      py::arg("pattern"), py::arg("func"), py::arg("label"), py::arg("check") = py::none());
  m.def(
      "rewrite",
      [](py::list callbacks, const Function& func, py::object mod) {
        std::vector<DFPatternCallback> cbs;
        for (py::handle cb : callbacks) {
          DFPatternCallback c;
          c.pattern = PatternOf(cb.attr("pattern"), "a callback's pattern");
          c.require_type = py::bool_(cb.attr("require_type")).cast<bool>();
          auto fn = SharePy(cb.attr("callback"));
          c.callback = [fn](const Expr& pre, const Expr& post, const PatternNodeMap& map) {
            py::gil_scoped_acquire gil;
            py::object out = (*fn)(pre, post, NodeMapToPy(map));
            if (!py::isinstance<ExprNode>(out))
              TS_THROW(kType) << "a pattern callback must return an expression";
            return out.cast<Expr>();
          };
          cbs.push_back(std::move(c));
        }
        IRModule m = mod.is_none() ? IRModule() : mod.cast<IRModule>();
        return RewritePatterns(cbs, func, m);
      },
      py::arg("callbacks"), py::arg("func"), py::arg("mod") = py::none());

  m.def(
      "get_pattern_table",
      [](const std::string& compiler) {
        py::list out;
        for (const PatternTableEntry& e : GetPatternTable(compiler)) {
          py::object pred = py::none();
          if (e.predicate) pred = py::cpp_function(e.predicate);
          out.append(py::make_tuple(e.label, e.pattern, pred));
        }
        return out;
      },
      py::arg("compiler"));
  m.def(
      "register_pattern_table",
      [](const std::string& name, py::iterable table) {
        if (BackendRegistry::IsBuiltinName(name))
          TS_THROW(kValue) << "pattern table '" << name << "' is built in and cannot be replaced";
        PatternTableRegistry::Global().ReplacePatterns(name, PatternTableFromPy(name, table));
      },
      py::arg("name"), py::arg("table"));
  m.def("list_pattern_tables", [] { return PatternTableRegistry::Global().ListCompilers(); });
  m.def(
      "supported_ops",
      [](const std::string& c) { return PatternTableRegistry::Global().SupportedOps(c); },
      py::arg("compiler"));
  m.def(
      "is_supported_by",
      [](const std::string& compiler, const Expr& call) {
        auto* c = call.as<CallNode>();
        if (!c) TS_THROW(kType) << "is_supported_by needs a Call";
        return IsSupportedBy(compiler, *c);
      },
      py::arg("compiler"), py::arg("call"));

  // BYOC passes taking tables or compiler lists.
  parent.def(
      "merge_composite_table", [](py::list table) { return MergeComposite(TableFromPy(table)); },
      py::arg("table"));
  parent.def(
      "merge_composite_compilers",
      [](std::vector<std::string> compilers) { return MergeComposite(compilers); },
      py::arg("compilers"));
  parent.def("annotate_target", &AnnotateTarget, py::arg("compilers"),
             py::arg("include_non_call_ops") = true);
  parent.def("merge_compiler_regions", &MergeCompilerRegions);
  parent.def("partition_graph", &PartitionGraph);
  parent.def("partition_for", &PartitionFor, py::arg("mod"), py::arg("compiler"));
}

std::vector<PatternTableEntry> PatternTableFromPy(const std::string& name, py::iterable table) {
  std::vector<PatternTableEntry> entries = TableFromPy(table);
  for (PatternTableEntry& e : entries)
    if (e.label.rfind(name + ".", 0) != 0) e.label = name + "." + e.label;
  return entries;
}

}  // namespace tessera::python
