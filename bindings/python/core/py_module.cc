// tessera._core's IRModule, parsing, and structural equality, hashing and diffs.
#include <optional>

#include "py_ir.h"

namespace tessera_py {

namespace {

/// A PyModule owning the new reference `owned`.
PyModule OwnModule(TsModule owned) {
  PyModule m;
  m.handle = decltype(m.handle)(owned);
  return m;
}

/// The function name a key stands for: a str or a GlobalVar (TVM's keys).
std::string FuncName(py::handle key, const std::string& what) {
  if (py::isinstance<py::str>(key)) return key.cast<std::string>();
  if (py::isinstance<PyGlobalVar>(key)) {
    TsStringRef name{};
    Check(TsGlobalVarGetName(key.cast<const PyGlobalVar&>().handle.get(), &name));
    return StringOf(name);
  }
  Raise(TS_ERROR_TYPE,
        what + ": expected a function name (str) or a GlobalVar, got " + TypeName(key));
}

/// A new module: `mod` with `func` stored as `name`.
TsModule WithFunction(TsModule mod, const std::string& name, TsExpr func) {
  TsModule out = nullptr;
  Check(TsModuleWithFunction(mod, RefOf(name), func, &out));
  return out;
}

/// The borrowed handle of a Function or PrimFunc argument; None raises `none_message`.
TsExpr FuncOf(const Typed<PyBaseFunc>& func, const std::string& what,
              const std::string& none_message) {
  return ExprOfClass(func, what, "a Function or PrimFunc", none_message);
}

/// A module from a {name or GlobalVar: function} dict, in the dict's order.
PyModule ModuleFromDict(const py::dict& functions) {
  TsModule empty = nullptr;
  Check(TsModuleCreate(&empty));
  PyModule mod = OwnModule(empty);
  for (auto [key, value] : functions) {
    std::string name = FuncName(key, "IRModule");
    if (!py::isinstance<PyBaseFunc>(value))
      Raise(TS_ERROR_TYPE, "IRModule: value for '" + name + "' must be a Function or PrimFunc");
    mod.handle = decltype(mod.handle)(
        WithFunction(mod.handle.get(), name, value.cast<const PyBaseFunc&>().handle.get()));
  }
  return mod;
}

size_t NumFunctions(TsModule mod) {
  return CountOf([&](size_t* n) { return TsModuleGetNumFunctions(mod, n); });
}

std::string FunctionName(TsModule mod, size_t index) {
  TsStringRef name{};
  Check(TsModuleGetFunctionName(mod, index, &name));
  return StringOf(name);
}

/// True when the module has a function `name`.
bool Contains(TsModule mod, const std::string& name) {
  TsExpr found = nullptr;
  Check(TsModuleFindFunction(mod, RefOf(name), &found));
  TsExprDestroy(found);
  return found != nullptr;
}

/// A GlobalVar naming function `name`.
PyGlobalVar GlobalVarOf(const std::string& name) {
  TsExpr out = nullptr;
  Check(TsExprGlobalVarCreate(RefOf(name), &out));
  PyGlobalVar g;
  g.handle = decltype(g.handle)(out);
  return g;
}

std::string ModuleText(TsModule mod, bool show_meta_data, bool show_types) {
  return Text([&](TsStringCallback cb, void* u) {
    return TsModulePrintWithOptions(mod, show_meta_data ? 1 : 0, show_types ? 1 : 0, cb, u);
  });
}

/// Structural equality of two modules. The C function answers 0 on failure too: the last
/// error is cleared first so that a failure is told from "not equal".
bool ModulesEqual(TsModule a, TsModule b) {
  TsSetLastError("");
  if (TsModuleStructuralEqual(a, b)) return true;
  std::string error = TsGetLastError();
  if (!error.empty()) Raise(TS_ERROR_INTERNAL, error);
  return false;
}

/// The text a structural diff hands its callback, or nullopt when it is not called (the
/// two are equal).
struct Diff {
  bool found = false;
  std::string text;
  static void Append(const char* data, size_t length, void* user_data) {
    auto* diff = static_cast<Diff*>(user_data);
    diff->found = true;
    diff->text.append(data, length);
  }
  std::optional<std::string> Result() const {
    if (!found) return std::nullopt;
    return text;
  }
};

void BindModuleClass(py::module_& m) {
  py::class_<PyModule>(m, "IRModule", "An immutable module of named functions.")
      .def(py::init([](py::object functions) {
             if (functions.is_none()) {
               TsModule out = nullptr;
               Check(TsModuleCreate(&out));
               return OwnModule(out);
             }
             if (!py::isinstance<py::dict>(functions))
               Raise(TS_ERROR_TYPE, "IRModule: functions must be a dict of name to function");
             return ModuleFromDict(py::reinterpret_borrow<py::dict>(functions));
           }),
           py::arg("functions") = py::none())
      .def_static(
          "from_expr",
          [](const Typed<PyFunction>& main) {
            if (main.obj.is_none())
              Raise(TS_ERROR_VALUE, "IRModule.from_expr: expected a Function, got None");
            TsExpr f = ExprOfClass(main, "IRModule.from_expr", "a Function", "");
            TsModule out = nullptr;
            Check(TsModuleFromExpr(f, &out));
            return OwnModule(out);
          },
          py::arg("expr"))
      .def_static(
          "from_json",
          [](const std::string& json) {
            TsModule out = nullptr;
            Check(TsModuleFromJSON(json.data(), json.size(), &out));
            return OwnModule(out);
          },
          py::arg("text"))
      .def_property_readonly("functions",
                             [](const PyModule& self) {
                               TsModule mod = self.handle.get();
                               py::dict out;
                               for (size_t i = 0, n = NumFunctions(mod); i < n; ++i) {
                                 TsExpr func = nullptr;
                                 Check(TsModuleGetFunction(mod, i, &func));
                                 py::object wrapped = WrapExpr(func);
                                 out[py::str(FunctionName(mod, i))] = wrapped;
                               }
                               return out;
                             })
      .def_property_readonly(
          "attrs",
          [](const PyModule& self) {
            TsModule mod = self.handle.get();
            return AttrsToPy(
                CountOf([&](size_t* n) { return TsModuleGetNumAttrs(mod, n); }),
                [&](size_t i, TsNamedAttribute* out) { return TsModuleGetAttr(mod, i, out); });
          })
      .def("__getitem__",
           [](const PyModule& self, py::object key) {
             std::string name = FuncName(key, "IRModule[]");
             TsExpr out = nullptr;
             Check(TsModuleLookupFunction(self.handle.get(), RefOf(name), &out));
             return TypedOf<PyBaseFunc>(WrapExpr(out));
           })
      .def("__setitem__",
           [](PyModule& self, py::object key, const Typed<PyBaseFunc>& func) {
             // Rebinds this Python object to a new module; other objects keep the old one.
             std::string name = FuncName(key, "IRModule[]");
             TsExpr f =
                 FuncOf(func, "IRModule[" + name + "]", "IRModule: cannot store None as @" + name);
             self.handle = decltype(self.handle)(WithFunction(self.handle.get(), name, f));
           })
      .def("__contains__",
           [](const PyModule& self, py::object key) {
             return (py::isinstance<py::str>(key) || py::isinstance<PyGlobalVar>(key)) &&
                    Contains(self.handle.get(), FuncName(key, "in IRModule"));
           })
      .def(
          "update_func",
          [](PyModule& self, py::object key, const Typed<PyBaseFunc>& func) {
            std::string name = FuncName(key, "IRModule.update_func");
            TsExpr f =
                FuncOf(func, "IRModule.update_func", "IRModule.update_func: function is None");
            self.handle = decltype(self.handle)(WithFunction(self.handle.get(), name, f));
          },
          py::arg("var"), py::arg("func"), "Sets (adds or replaces) one function (TVM's name).")
      .def(
          "update",
          [](PyModule& self, const PyModule& other) {
            // `other` may be `self`: hold its handle across the rebinding.
            PyModule source = other;
            TsModule from = source.handle.get();
            for (size_t i = 0, n = NumFunctions(from); i < n; ++i) {
              TsExpr func = nullptr;
              Check(TsModuleGetFunction(from, i, &func));
              Owned<TsExpr, TsExprDestroy, TsExprRetain> owned(func);
              self.handle = decltype(self.handle)(
                  WithFunction(self.handle.get(), FunctionName(from, i), owned.get()));
            }
          },
          py::arg("other"), "Adds or replaces every function of `other` (TVM's name).")
      .def(
          "get_global_var",
          [](const PyModule& self, const std::string& name) {
            if (!Contains(self.handle.get(), name))
              Raise(TS_ERROR_NOT_FOUND, "IRModule has no function @" + name);
            return GlobalVarOf(name);
          },
          py::arg("name"), "The GlobalVar naming function `name`; not-found error if absent.")
      .def("__len__", [](const PyModule& self) { return NumFunctions(self.handle.get()); })
      .def("__iter__",
           [](const PyModule& self) {
             TsModule mod = self.handle.get();
             py::list names;
             for (size_t i = 0, n = NumFunctions(mod); i < n; ++i)
               names.append(py::str(FunctionName(mod, i)));
             return py::iter(names);
           })
      .def(
          "get_global_vars",
          [](const PyModule& self) {
            TsModule mod = self.handle.get();
            std::vector<PyGlobalVar> vars;
            for (size_t i = 0, n = NumFunctions(mod); i < n; ++i)
              vars.push_back(GlobalVarOf(FunctionName(mod, i)));
            return vars;
          },
          "A GlobalVar per function, in the module's order (as TVM returns them).")
      .def(
          "with_function",
          [](const PyModule& self, const std::string& name, const Typed<PyBaseFunc>& func) {
            TsExpr f =
                FuncOf(func, "IRModule.with_function", "IRModule.with_function: function is None");
            return OwnModule(WithFunction(self.handle.get(), name, f));
          },
          py::arg("name"), py::arg("func"))
      .def(
          "without_function",
          [](const PyModule& self, const std::string& name) {
            TsModule out = nullptr;
            Check(TsModuleWithoutFunction(self.handle.get(), RefOf(name), &out));
            return OwnModule(out);
          },
          py::arg("name"))
      .def(
          "with_attr",
          [](const PyModule& self, const std::string& key, py::object value) {
            AttrRef attr = AttrFromPy(value, "module attribute '" + key + "'");
            TsModule out = nullptr;
            Check(TsModuleWithAttr(self.handle.get(), RefOf(key), attr.get(), &out));
            return OwnModule(out);
          },
          py::arg("key"), py::arg("value"))
      .def(
          "astext",
          [](const PyModule& self, bool show_meta_data, bool show_types) {
            return ModuleText(self.handle.get(), show_meta_data, show_types);
          },
          py::arg("show_meta_data") = true, py::arg("show_types") = false)
      .def("__str__",
           [](const PyModule& self) { return ModuleText(self.handle.get(), true, false); })
      .def("__repr__",
           [](const PyModule& self) { return ModuleText(self.handle.get(), true, false); })
      .def(
          "to_json",
          [](const PyModule& self, int indent) {
            return Text([&](TsStringCallback cb, void* u) {
              return TsModuleToJSONWithIndent(self.handle.get(), indent, cb, u);
            });
          },
          py::arg("indent") = -1)
      .def("same_as",
           [](const PyModule& a, py::object b) {
             return py::isinstance<PyModule>(b) &&
                    b.cast<const PyModule&>().handle.get() == a.handle.get();
           })
      .def("structural_equal",
           [](const PyModule& a, const PyModule& b) {
             return ModulesEqual(a.handle.get(), b.handle.get());
           })
      .def("__eq__", [](const PyModule& a, py::object b) {
        return py::isinstance<PyModule>(b) &&
               ModulesEqual(a.handle.get(), b.cast<const PyModule&>().handle.get());
      });
}

void BindModuleFunctions(py::module_& m) {
  m.def(
      "parse",
      [](const std::string& text, const std::string& source_name) {
        TsModule out = nullptr;
        Check(TsModuleParseWithSourceName(RefOf(text), RefOf(source_name), &out));
        return OwnModule(out);
      },
      py::arg("text"), py::arg("source_name") = "<string>");
  m.def(
      "parse_expr",
      [](const std::string& text, const std::string& source_name) {
        TsExpr out = nullptr;
        Check(TsExprParse(RefOf(text), RefOf(source_name), &out));
        return TypedOf<PyExpr>(WrapExpr(out));
      },
      py::arg("text"), py::arg("source_name") = "<string>");
  m.def("module_structural_equal", [](const PyModule& a, const PyModule& b) {
    return ModulesEqual(a.handle.get(), b.handle.get());
  });
  m.def("expr_structural_equal",
        [](const Typed<PyExpr>& a, const Typed<PyExpr>& b, bool map_free_vars) {
          if (a.obj.is_none() || b.obj.is_none()) return a.obj.is_none() && b.obj.is_none();
          int equal = 0;
          Check(TsExprStructuralEqual(ExprOf(a.obj, "structural_equal lhs"),
                                      ExprOf(b.obj, "structural_equal rhs"), map_free_vars ? 1 : 0,
                                      &equal));
          return equal != 0;
        });
  m.def("module_structural_hash", [](const PyModule& mod) {
    uint64_t hash = 0;
    Check(TsModuleStructuralHash(mod.handle.get(), &hash));
    return hash;
  });
  m.def("expr_structural_hash", [](const Typed<PyExpr>& e) {
    if (e.obj.is_none()) Raise(TS_ERROR_VALUE, "structural_hash: expression is None");
    uint64_t hash = 0;
    Check(TsExprStructuralHash(ExprOf(e.obj, "structural_hash"), &hash));
    return hash;
  });
  m.def("module_structural_diff", [](const PyModule& a, const PyModule& b) {
    Diff diff;
    Check(TsModuleStructuralDiff(a.handle.get(), b.handle.get(), &Diff::Append, &diff));
    return diff.Result();
  });
  m.def("expr_structural_diff",
        [](const Typed<PyExpr>& a, const Typed<PyExpr>& b, bool map_free_vars) {
          if (a.obj.is_none() || b.obj.is_none())
            Raise(TS_ERROR_VALUE, "structural_diff: expression is None");
          Diff diff;
          Check(TsExprStructuralDiff(ExprOf(a.obj, "structural_diff lhs"),
                                     ExprOf(b.obj, "structural_diff rhs"), map_free_vars ? 1 : 0,
                                     &Diff::Append, &diff));
          return diff.Result();
        });
}

}  // namespace

void BindIRModule(py::module_& m) {
  BindModuleClass(m);
  BindModuleFunctions(m);
}

}  // namespace tessera_py
