// Bindings of IRModule and the module-level services: text printing and parsing, JSON,
// structural equality, hashing and diffs.
#include "bindings.h"
#include "tessera/ir/json.h"
#include "tessera/ir/module.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"

namespace tessera::python {

namespace {

std::string ModuleText(const IRModule& mod, bool show_meta_data, bool show_types) {
  PrintOptions options;
  options.show_meta_data = show_meta_data;
  options.show_types = show_types;
  return PrintModule(mod, options);
}

/// The function name a key stands for: a str or a GlobalVar (TVM's keys).
std::string NameOf(py::handle key, const char* what) {
  if (py::isinstance<py::str>(key)) return key.cast<std::string>();
  if (py::isinstance<GlobalVarNode>(key)) return key.cast<GlobalVar>()->name;
  TS_THROW(kType) << what << ": expected a function name (str) or a GlobalVar, got "
                  << py::str(py::type::handle_of(key).attr("__name__")).cast<std::string>();
}

/// A module from a {name or GlobalVar: function} dict, in the dict's order.
IRModule ModuleFromDict(py::dict functions) {
  IRModule mod;
  for (auto [key, value] : functions) {
    std::string name = NameOf(key, "IRModule");
    if (!py::isinstance<BaseFuncNode>(value))
      TS_THROW(kType) << "IRModule: value for '" << name << "' must be a Function or PrimFunc";
    mod = mod.WithFunction(name, value.cast<BaseFunc>());
  }
  return mod;
}

}  // namespace

void BindIRModule(py::module_& m) {
  py::class_<IRModule>(m, "IRModule", "An immutable module of named functions.")
      .def(py::init([](py::object functions) {
             if (functions.is_none()) return IRModule();
             if (!py::isinstance<py::dict>(functions))
               TS_THROW(kType) << "IRModule: functions must be a dict of name to function";
             return ModuleFromDict(functions);
           }),
           py::arg("functions") = py::none())
      .def_static(
          "from_expr",
          [](Function main) {
            if (!main) TS_THROW(kValue) << "IRModule.from_expr: expected a Function, got None";
            return IRModule::FromExpr(main);
          },
          py::arg("expr"))
      .def_static(
          "from_json", [](const std::string& json) { return ModuleFromJson(json); },
          py::arg("text"))
      .def_property_readonly("functions",
                             [](const IRModule& mod) {
                               py::dict out;
                               for (const auto& [name, func] : mod.functions())
                                 out[py::str(name)] = py::cast(func);
                               return out;
                             })
      .def_property_readonly("attrs", [](const IRModule& mod) { return AttrsToPy(mod.attrs()); })
      .def("__getitem__",
           [](const IRModule& mod, py::object key) { return mod.Lookup(NameOf(key, "IRModule[]")); })
      .def("__setitem__",
           [](IRModule& mod, py::object key, BaseFunc func) {
             // Rebinds this handle to a new module; other handles keep the old one.
             std::string name = NameOf(key, "IRModule[]");
             if (!func) TS_THROW(kValue) << "IRModule: cannot store None as @" << name;
             mod = mod.WithFunction(name, func);
           })
      .def("__contains__",
           [](const IRModule& mod, py::object key) {
             return (py::isinstance<py::str>(key) || py::isinstance<GlobalVarNode>(key)) &&
                    mod.Contains(NameOf(key, "in IRModule"));
           })
      .def(
          "update_func",
          [](IRModule& mod, py::object key, BaseFunc func) {
            std::string name = NameOf(key, "IRModule.update_func");
            if (!func) TS_THROW(kValue) << "IRModule.update_func: function is None";
            mod = mod.WithFunction(name, func);
          },
          py::arg("var"), py::arg("func"), "Sets (adds or replaces) one function (TVM's name).")
      .def(
          "update",
          [](IRModule& mod, const IRModule& other) {
            for (const auto& [name, func] : other.functions()) mod = mod.WithFunction(name, func);
          },
          py::arg("other"), "Adds or replaces every function of `other` (TVM's name).")
      .def(
          "get_global_var",
          [](const IRModule& mod, const std::string& name) {
            if (!mod.Contains(name))
              TS_THROW(kNotFound) << "IRModule has no function @" << name;
            return MakeGlobalVar(name);
          },
          py::arg("name"), "The GlobalVar naming function `name`; not-found error if absent.")
      .def("__len__", [](const IRModule& mod) { return mod.functions().size(); })
      .def("__iter__",
           [](const IRModule& mod) {
             py::list names;
             for (const auto& [name, func] : mod.functions()) names.append(name);
             return py::iter(names);
           })
      .def("get_global_vars",
           [](const IRModule& mod) {
             std::vector<GlobalVar> vars;
             for (const auto& [name, func] : mod.functions()) vars.push_back(MakeGlobalVar(name));
             return vars;
           },
           "A GlobalVar per function, in the module's order (as TVM returns them).")
      .def(
          "with_function",
          [](const IRModule& mod, const std::string& name, BaseFunc func) {
            if (!func) TS_THROW(kValue) << "IRModule.with_function: function is None";
            return mod.WithFunction(name, func);
          },
          py::arg("name"), py::arg("func"))
      .def("without_function", &IRModule::WithoutFunction, py::arg("name"))
      .def(
          "with_attr",
          [](const IRModule& mod, const std::string& key, py::object value) {
            return mod.WithAttr(key, AttrFromPy(value, "module attribute '" + key + "'"));
          },
          py::arg("key"), py::arg("value"))
      .def("astext", &ModuleText, py::arg("show_meta_data") = true, py::arg("show_types") = false)
      .def("__str__", [](const IRModule& mod) { return PrintModule(mod); })
      .def("__repr__", [](const IRModule& mod) { return PrintModule(mod); })
      .def(
          "to_json", [](const IRModule& mod, int indent) { return ModuleToJson(mod, indent); },
          py::arg("indent") = -1)
      .def("same_as",
           [](const IRModule& a, py::object b) {
             return py::isinstance<IRModule>(b) && a.same_as(b.cast<const IRModule&>());
           })
      .def("structural_equal",
           [](const IRModule& a, const IRModule& b) { return StructuralEqual(a, b); })
      .def("__eq__", [](const IRModule& a, py::object b) {
        return py::isinstance<IRModule>(b) && StructuralEqual(a, b.cast<const IRModule&>());
      });

  m.def(
      "parse",
      [](const std::string& text, const std::string& source_name) {
        return ParseModule(text, source_name);
      },
      py::arg("text"), py::arg("source_name") = "<string>");
  m.def(
      "parse_expr",
      [](const std::string& text, const std::string& source_name) {
        return ParseExpr(text, source_name);
      },
      py::arg("text"), py::arg("source_name") = "<string>");
  m.def("module_structural_equal",
        [](const IRModule& a, const IRModule& b) { return StructuralEqual(a, b); });
  m.def("expr_structural_equal", [](Expr a, Expr b, bool map_free_vars) {
    if (!a || !b) return !a && !b;
    return StructuralEqual(a, b, map_free_vars);
  });
  m.def("module_structural_hash", [](const IRModule& mod) { return StructuralHash(mod); });
  m.def("expr_structural_hash", [](Expr e) {
    if (!e) TS_THROW(kValue) << "structural_hash: expression is None";
    return StructuralHash(e);
  });
  m.def("module_structural_diff",
        [](const IRModule& a, const IRModule& b) { return StructuralDiff(a, b); });
  m.def("expr_structural_diff", [](Expr a, Expr b, bool map_free_vars) {
    if (!a || !b) TS_THROW(kValue) << "structural_diff: expression is None";
    return StructuralDiff(a, b, map_free_vars);
  });
}

}  // namespace tessera::python
