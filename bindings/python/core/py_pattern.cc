// tessera._core's patterns over the C API: DFPattern, matching, rewriting, tables, BYOC, externals.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core_glue.h"

namespace tessera_py {

namespace {

using PatternTableRef = Shared<TsPatternTable, TsPatternTableDestroy>;
using BindingsRef = Shared<TsPatternBindings, TsPatternBindingsDestroy>;

/// The handle `create(&out)` makes (checked), owned by a new wrapper struct W: returning W
/// rather than a py::object keeps the Python signatures (and stubs) naming the class.
template <typename W, typename F>
W Make(F&& create) {
  decltype(std::declval<W>().handle.get()) out = nullptr;
  Check(create(&out));
  W w;
  w.handle = decltype(w.handle)(out);
  return w;
}

/// A Python object for a handle the library lends a callback (a new reference of its own,
/// so Python may keep it after the call).
py::object Lent(TsExpr expr) {
  return WrapExpr(TsExprRetain(expr));
}

/// The names of a JSON array the C API writes (lists of compilers and ops).
std::vector<std::string> NamesFromJson(const std::string& json) {
  return FromJson(json).cast<std::vector<std::string>>();
}

/// The borrowed patterns of a Python sequence (which keeps them alive); item i is named
/// "what[i]" in errors.
std::vector<TsPattern> PatternsOf(py::handle seq, const std::string& what) {
  std::vector<TsPattern> out;
  size_t i = 0;
  for (py::handle item : seq)
    out.push_back(PatternOf(item, what + "[" + std::to_string(i++) + "]"));
  return out;
}

/// The readable text of a pattern: `is_op("nn.relu")(wildcard())`.
std::string PatternText(const PyPattern& p) {
  return Text([&](TsStringCallback cb, void* u) { return TsPatternPrint(p.handle.get(), cb, u); });
}

/// {pattern: expression} for what a match bound.
py::dict BindingsToPy(TsPatternBindings bindings) {
  py::dict out;
  size_t n = CountOf([&](size_t* c) { return TsPatternBindingsGetNumEntries(bindings, c); });
  for (size_t i = 0; i < n; ++i) {
    TsPattern pattern = nullptr;
    TsExpr expr = nullptr;
    Check(TsPatternBindingsGetEntry(bindings, i, &pattern, &expr));
    py::object value = WrapExpr(expr);
    out[WrapPattern(pattern)] = value;
  }
  return out;
}

// ---- Python callables as C callbacks ----------------------------------------------------
// Each takes as user_data a py::object* (the callable). C may call them from any thread
// (builds and passes can run with the GIL released): CallPython takes the GIL and carries a
// Python exception back out to the Check of the outer call.


/// TsPatternPredicate: `fn(root)`, taken as a bool.
TsStatus CallPredicate(TsExpr root, int* accepted, void* user_data) {
  return CallPython([&] {
    const py::object& fn = *static_cast<py::object*>(user_data);
    *accepted = py::bool_(fn(Lent(root))).cast<bool>() ? 1 : 0;
  });
}

/// TsPatternRewriteCallback: `callback(pre, post, node_map)`, which must return an
/// expression (as the old binding required; the C API's "keep post" is not offered).
TsStatus CallRewrite(TsExpr pre, TsExpr post, TsPatternBindings bindings, TsExpr* out,
                     void* user_data) {
  return CallPython([&] {
    const py::object& fn = *static_cast<py::object*>(user_data);
    py::object result = fn(Lent(pre), Lent(post), BindingsToPy(bindings));
    if (!py::isinstance<PyExpr>(result))
      Raise(TS_ERROR_TYPE, "a pattern callback must return an expression");
    // The library takes over a reference of its own (the result may be `post` itself).
    *out = TsExprRetain(ExprOf(result, "a pattern callback's result"));
  });
}

/// TsPartitionCSource: `compile_with(partition, c_name)`, which must return the C source.
TsStatus CallCSource(TsExpr partition, const char* c_name, TsStringCallback emit, void* emit_data,
                     void* user_data) {
  return CallPython([&] {
    const py::object& fn = *static_cast<py::object*>(user_data);
    py::object text = fn(Lent(partition), py::str(c_name));
    if (!PyUnicode_Check(text.ptr()))
      Raise(TS_ERROR_TYPE, "the C source function must return a str");
    std::string source = text.cast<std::string>();
    emit(source.data(), source.size(), emit_data);
  });
}

// ---- Pattern tables --------------------------------------------------------------------

/// A pattern table of Python entries (label, pattern[, predicate]); labels are kept as
/// given (registering adds the "<name>." prefix), a None predicate is none.
PatternTableRef TableFromPy(py::handle entries) {
  struct Entry {
    py::object item;  // keeps the pattern alive while the table is made
    std::string label;
    TsPattern pattern;
    std::unique_ptr<py::object> predicate;  // owned here until the table takes it
  };
  std::vector<Entry> parsed;
  for (py::handle item : entries) {
    bool sequence = PyTuple_Check(item.ptr()) || PyList_Check(item.ptr());
    size_t n = sequence ? py::len(item) : 0;
    if (n < 2 || n > 3)
      Raise(TS_ERROR_TYPE, "a pattern table entry is (label, pattern[, predicate])");
    py::sequence t = py::reinterpret_borrow<py::sequence>(item);
    if (!PyUnicode_Check(py::object(t[0]).ptr()))
      Raise(TS_ERROR_TYPE, "a pattern table entry is (label, pattern[, predicate])");
    Entry e;
    e.item = py::reinterpret_borrow<py::object>(item);
    e.label = py::object(t[0]).cast<std::string>();
    e.pattern = PatternOf(py::object(t[1]), "a pattern table entry's pattern");
    py::object predicate = n == 3 ? py::object(t[2]) : py::none();
    if (!predicate.is_none()) e.predicate = std::make_unique<py::object>(std::move(predicate));
    parsed.push_back(std::move(e));
  }
  std::vector<TsPatternTableEntry> c_entries;
  for (const Entry& e : parsed) {
    py::object* predicate = e.predicate.get();
    c_entries.push_back(TsPatternTableEntry{e.label.c_str(), e.pattern,
                                            predicate ? &CallPredicate : nullptr, predicate,
                                            predicate ? &DestroyUnderGil<py::object> : nullptr});
  }
  TsPatternTable table = nullptr;
  Check(TsPatternTableCreate(c_entries.data(), c_entries.size(), &table));
  for (Entry& e : parsed) e.predicate.release();  // the table owns the predicates now
  return PatternTableRef(table);
}

/// The registered table of `compiler` as a list of (label, pattern, predicate): a
/// predicate is None or a Python function on a match's root running the library's one.
py::list GetPatternTable(const std::string& compiler) {
  TsPatternTable raw = nullptr;
  Check(TsPatternTableGet(compiler.c_str(), &raw));
  PatternTableRef table(raw);
  py::list out;
  size_t n = CountOf([&](size_t* c) { return TsPatternTableGetNumEntries(table.get(), c); });
  for (size_t i = 0; i < n; ++i) {
    TsStringRef label{};
    TsPattern pattern = nullptr;
    int has_predicate = 0;
    Check(TsPatternTableGetEntry(table.get(), i, &label, &pattern, &has_predicate));
    py::object p = WrapPattern(pattern);
    py::object predicate = py::none();
    // The function keeps the table (and so the predicate) alive.
    if (has_predicate)
      predicate = py::cpp_function([table, i](const PyExpr& root) {
        int accepted = 0;
        Check(TsPatternTableCheck(table.get(), i, root.handle.get(), &accepted));
        return accepted != 0;
      });
    out.append(py::make_tuple(Str(label), p, predicate));
  }
  return out;
}

// ---- The DFPattern class and pattern constructors ----------------------------------------

void BindPatternClass(py::module_& m) {
  py::class_<PyPattern>(m, "DFPattern", "A dataflow pattern (TVM's DFPattern).")
      .def("__call__",
           [](const PyPattern& p, py::args args) {
             std::vector<TsPattern> a = PatternsOf(args, "a call argument");
             return Make<PyPattern>([&](TsPattern* out) {
               return TsPatternCall(p.handle.get(), a.data(), a.size(), out);
             });
           })
      .def("call_any_args",
           [](const PyPattern& p) {
             return Make<PyPattern>(
                 [&](TsPattern* out) { return TsPatternCallAnyArgs(p.handle.get(), out); });
           })
      .def("__or__",
           [](const PyPattern& a, py::object b) {
             TsPattern second = PatternOf(b, "alternative");
             return Make<PyPattern>(
                 [&](TsPattern* out) { return TsPatternAlt(a.handle.get(), second, out); });
           })
      .def("has_attr",
           [](const PyPattern& p, py::dict attrs) {
             NamedAttrs named = AttrsFromPy(attrs, "has_attr");
             return Make<PyPattern>([&](TsPattern* out) {
               return TsPatternHasAttr(p.handle.get(), named.data(), named.size(), out);
             });
           })
      .def(
          "has_type",
          [](const PyPattern& p, const PyType& type) {
            return Make<PyPattern>([&](TsPattern* out) {
              return TsPatternHasType(p.handle.get(), type.handle.get(), out);
            });
          },
          py::arg("type"))
      .def(
          "has_shape",
          [](const PyPattern& p, const std::vector<int64_t>& shape) {
            return Make<PyPattern>([&](TsPattern* out) {
              return TsPatternHasShape(p.handle.get(), shape.data(), shape.size(), out);
            });
          },
          py::arg("shape"))
      .def("has_dtype",
           [](const PyPattern& p, const std::string& dtype) {
             return Make<PyPattern>([&](TsPattern* out) {
               return TsPatternHasDType(p.handle.get(), dtype.c_str(), out);
             });
           })
      .def("match",
           [](const PyPattern& p, const PyExpr& e) {
             int matched = 0;
             Check(TsPatternMatch(p.handle.get(), e.handle.get(), &matched));
             return matched != 0;
           })
      .def("__repr__", [](const PyPattern& p) { return PatternText(p); })
      .def("__str__", [](const PyPattern& p) { return PatternText(p); })
      .def("__eq__",
           [](const PyPattern& a, py::object b) {
             // Pattern nodes are compared by identity: one node is one pointer.
             return py::isinstance<PyPattern>(b) &&
                    b.cast<const PyPattern&>().handle.get() == a.handle.get();
           })
      .def("__hash__", [](const PyPattern& p) { return std::hash<const void*>()(p.handle.get()); });

  m.def("wildcard", [] { return Make<PyPattern>(&TsPatternWildcard); });
  m.def(
      "is_op",
      [](const std::string& name) {
        return Make<PyPattern>([&](TsPattern* out) { return TsPatternIsOp(name.c_str(), out); });
      },
      py::arg("name"));
  m.def(
      "is_expr",
      [](const PyExpr& expr) {
        return Make<PyPattern>(
            [&](TsPattern* out) { return TsPatternIsExpr(expr.handle.get(), out); });
      },
      py::arg("expr"));
  m.def("is_constant", [] { return Make<PyPattern>(&TsPatternIsConstant); });
  m.def(
      "is_var",
      [](const std::string& name) {
        return Make<PyPattern>([&](TsPattern* out) { return TsPatternIsVar(name.c_str(), out); });
      },
      py::arg("name") = "");
  m.def("is_tuple", [](py::list fields) {
    std::vector<TsPattern> f = PatternsOf(fields, "a tuple field");
    return Make<PyPattern>(
        [&](TsPattern* out) { return TsPatternIsTuple(f.data(), f.size(), out); });
  });
  m.def(
      "is_tuple_get_item",
      [](const PyPattern& tuple, int index) {
        return Make<PyPattern>([&](TsPattern* out) {
          return TsPatternIsTupleGetItem(tuple.handle.get(), index, out);
        });
      },
      py::arg("tuple"), py::arg("index") = -1);
  m.def(
      "dominates",
      [](const PyPattern& parent, const PyPattern& path, const PyPattern& child) {
        return Make<PyPattern>([&](TsPattern* out) {
          return TsPatternDominates(parent.handle.get(), path.handle.get(), child.handle.get(),
                                    out);
        });
      },
      py::arg("parent"), py::arg("path"), py::arg("child"));
}

// ---- Matching, partitioning and rewriting in a function ----------------------------------

void BindMatching(py::module_& m) {
  m.def(
      "match_in",
      [](const PyPattern& p, const PyExpr& e, const PyFunction& func) -> py::object {
        TsPatternBindings raw = nullptr;
        Check(TsPatternMatchIn(p.handle.get(), e.handle.get(), func.handle.get(), &raw));
        if (!raw) return py::none();
        BindingsRef bindings(raw);
        return BindingsToPy(bindings.get());
      },
      py::arg("pattern"), py::arg("expr"), py::arg("func"));
  m.def(
      "partition",
      [](const PyPattern& p, const PyFunction& func, const std::string& label, py::object check) {
        // `check` is used during the call only: it is lent, not owned by the library.
        return Make<PyFunction>([&](TsExpr* out) {
          return TsPatternPartition(p.handle.get(), func.handle.get(), label.c_str(),
                                    check.is_none() ? nullptr : &CallPredicate, &check, out);
        });
      },
      py::arg("pattern"), py::arg("func"), py::arg("label"), py::arg("check") = py::none());
  m.def(
      "rewrite",
      [](py::list callbacks, const PyFunction& func, py::object mod) {
        // DFPatternCallback objects: pattern, require_type and the bound method callback,
        // kept alive here for the call (TsPatternRewrite owns nothing).
        std::vector<py::object> keep, fns;
        std::vector<TsPattern> pattern_handles;
        std::vector<int> require_type;
        for (py::handle cb : callbacks) {
          keep.push_back(cb.attr("pattern"));
          pattern_handles.push_back(PatternOf(keep.back(), "a callback's pattern"));
          require_type.push_back(py::bool_(cb.attr("require_type")).cast<bool>() ? 1 : 0);
          fns.push_back(cb.attr("callback"));
        }
        // Built once `fns` stops growing: the callbacks point into it.
        std::vector<TsPatternCallback> c_callbacks;
        for (size_t i = 0; i < fns.size(); ++i)
          c_callbacks.push_back(TsPatternCallback{pattern_handles[i], &CallRewrite, &fns[i],
                                                  nullptr, require_type[i]});
        TsModule module = ModuleOf(mod, "rewrite: mod", /*allow_none=*/true);
        return Make<PyFunction>([&](TsExpr* out) {
          return TsPatternRewrite(c_callbacks.data(), c_callbacks.size(), func.handle.get(), module,
                                  out);
        });
      },
      py::arg("callbacks"), py::arg("func"), py::arg("mod") = py::none());
}

// ---- Pattern tables and op support -----------------------------------------------------

void BindPatternTables(py::module_& m) {
  m.def("get_pattern_table", &GetPatternTable, py::arg("compiler"));
  m.def(
      "register_pattern_table",
      [](const std::string& name, py::iterable table) {
        PatternTableRef t = TableFromPy(table);
        Check(TsPatternTableRegister(name.c_str(), t.get()));
      },
      py::arg("name"), py::arg("table"));
  m.def("list_pattern_tables", [] {
    return NamesFromJson(
        Text([](TsStringCallback cb, void* u) { return TsListPatternTables(cb, u); }));
  });
  m.def(
      "supported_ops",
      [](const std::string& c) {
        return NamesFromJson(Text(
            [&](TsStringCallback cb, void* u) { return TsListSupportedOps(c.c_str(), cb, u); }));
      },
      py::arg("compiler"));
  m.def(
      "is_supported_by",
      [](const std::string& compiler, const PyExpr& call) {
        TsExprKind kind{};
        Check(TsExprGetKind(call.handle.get(), &kind));
        if (kind != TS_EXPR_CALL) Raise(TS_ERROR_TYPE, "is_supported_by needs a Call");
        int supported = 0;
        Check(TsCallIsSupportedBy(call.handle.get(), compiler.c_str(), &supported));
        return supported != 0;
      },
      py::arg("compiler"), py::arg("call"));
}

// ---- BYOC passes and external backends (on the root module) ------------------------------

void BindByoc(py::module_& parent) {
  parent.def(
      "merge_composite_table",
      [](py::list table) {
        PatternTableRef t = TableFromPy(table);
        return Make<PyPass>([&](TsPass* out) { return TsMergeCompositePassCreate(t.get(), out); });
      },
      py::arg("table"));
  parent.def(
      "merge_composite_compilers",
      [](std::vector<std::string> compilers) {
        std::vector<const char*> names = CStrings(compilers);
        return Make<PyPass>([&](TsPass* out) {
          return TsMergeCompositeCompilersPassCreate(names.data(), names.size(), out);
        });
      },
      py::arg("compilers"));
  parent.def(
      "annotate_target",
      [](std::vector<std::string> compilers, bool include_non_call_ops) {
        std::vector<const char*> names = CStrings(compilers);
        return Make<PyPass>([&](TsPass* out) {
          return TsAnnotateTargetPassCreate(names.data(), names.size(),
                                            include_non_call_ops ? 1 : 0, out);
        });
      },
      py::arg("compilers"), py::arg("include_non_call_ops") = true);
  parent.def("merge_compiler_regions",
             [] { return Make<PyPass>(&TsMergeCompilerRegionsPassCreate); });
  parent.def("partition_graph", [] { return Make<PyPass>(&TsPartitionGraphPassCreate); });
  parent.def(
      "partition_for",
      [](const PyModule& mod, const std::string& compiler) {
        return Make<PyModule>([&](TsModule* out) {
          return TsModulePartitionFor(mod.handle.get(), compiler.c_str(), out);
        });
      },
      py::arg("mod"), py::arg("compiler"));

  parent.def(
      "register_external",
      [](const std::string& name, py::iterable patterns, const py::object& compile_with) {
        if (py::isinstance<py::str>(compile_with)) {
          PatternTableRef table = TableFromPy(patterns);
          // The library's messages for the old compile_with strings ("c" needed a function).
          std::string how = compile_with.cast<std::string>();
          if (how == "c")
            Raise(TS_ERROR_VALUE, "external backend '" + name +
                                      "': compile_with \"c\" needs a function writing each "
                                      "kernel's C");
          if (how != "native")
            Raise(TS_ERROR_VALUE, "external backend '" + name +
                                      "': compile_with must be \"native\" or \"c\", got '" + how +
                                      "'");
          Check(TsExternalBackendRegister(name.c_str(), table.get(), nullptr, nullptr, nullptr));
          return;
        }
        if (!PyCallable_Check(compile_with.ptr()))
          Raise(TS_ERROR_TYPE,
                "register_external: compile_with is \"native\" or a function (partition, "
                "c_name) -> C source");
        // Owned by the backend once registered; builds call it from any thread (they
        // release the GIL), CallPython takes the GIL.
        auto fn = std::make_unique<py::object>(compile_with);
        PatternTableRef table = TableFromPy(patterns);
        Check(TsExternalBackendRegister(name.c_str(), table.get(), &CallCSource, fn.get(),
                                        &DestroyUnderGil<py::object>));
        fn.release();
      },
      py::arg("name"), py::arg("patterns"), py::arg("compile_with") = "native");
}

}  // namespace

void BindPattern(py::module_& parent) {
  py::module_ m = parent.def_submodule("pattern", "DFPatterns, matching and pattern tables");
  BindPatternClass(m);
  BindMatching(m);
  BindPatternTables(m);
  BindByoc(parent);
}

}  // namespace tessera_py
