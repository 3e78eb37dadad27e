// Bindings of the pass infrastructure: PassInfo, Pass, PassContext, Sequential, Python
// module/function passes (C++ passes calling back into Python), the pass registry and
// textual pipelines.
#include "bindings.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_instrument.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::python {

std::vector<std::shared_ptr<PassInstrument>> InstrumentsFromPy(py::handle list);

namespace {

std::vector<std::string> NamesFromPy(py::handle names, const char* what) {
  std::vector<std::string> out;
  if (names.is_none()) return out;
  if (PyUnicode_Check(names.ptr()))
    TS_THROW(kType) << what << " must be a list of pass names, got a str";
  for (py::handle item : names) {
    if (!PyUnicode_Check(item.ptr()))
      TS_THROW(kType) << what << " must contain only str pass names";
    out.push_back(item.cast<std::string>());
  }
  return out;
}

std::string PyTypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

/// A module pass whose transformation is the Python callable `fn(mod, ctx)`.
Pass MakePyModulePass(py::function fn, PassInfo info) {
  auto callback = SharePy(std::move(fn));
  std::string name = info.name;
  return CreateModulePass(
      [callback, name](IRModule mod, const PassContext& ctx) {
        py::gil_scoped_acquire gil;
        py::object result = (*callback)(mod, ctx);
        if (!py::isinstance<IRModule>(result))
          TS_THROW(kType) << "module pass '" << name << "' must return an IRModule, got "
                          << PyTypeName(result);
        return result.cast<IRModule>();
      },
      std::move(info));
}

/// A function pass whose per-function transformation is `fn(func, mod, ctx)`.
Pass MakePyFunctionPass(py::function fn, PassInfo info, bool include_all) {
  auto callback = SharePy(std::move(fn));
  std::string name = info.name;
  return CreateFunctionPass(
      [callback, name](Function func, const IRModule& mod, const PassContext& ctx) {
        py::gil_scoped_acquire gil;
        py::object result = (*callback)(func, mod, ctx);
        if (!py::isinstance<FunctionNode>(result))
          TS_THROW(kType) << "function pass '" << name << "' must return a Function, got "
                          << PyTypeName(result);
        return result.cast<Function>();
      },
      std::move(info), include_all);
}

/// A PrimFunc pass whose per-PrimFunc transformation is `fn(func, mod, ctx)`; returning
/// None removes the PrimFunc.
Pass MakePyPrimFuncPass(py::function fn, PassInfo info) {
  auto callback = SharePy(std::move(fn));
  std::string name = info.name;
  return CreatePrimFuncPass(
      [callback, name](tir::PrimFunc func, const IRModule& mod, const PassContext& ctx) {
        py::gil_scoped_acquire gil;
        py::object result = (*callback)(func, mod, ctx);
        if (result.is_none()) return tir::PrimFunc();
        if (!py::isinstance<tir::PrimFuncNode>(result))
          TS_THROW(kType) << "prim_func pass '" << name << "' must return a PrimFunc or None, got "
                          << PyTypeName(result);
        return result.cast<tir::PrimFunc>();
      },
      std::move(info));
}

/// PassContext(trace=fn): `fn(mod, info, is_before)` before and after every pass.
class TraceInstrument : public PassInstrument {
 public:
  explicit TraceInstrument(py::function fn)
      : PassInstrument("trace"), fn_(SharePy(std::move(fn))) {}
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override { Call(mod, info, true); }
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override { Call(mod, info, false); }

 private:
  void Call(const IRModule& mod, const PassInfo& info, bool before) {
    py::gil_scoped_acquire gil;
    (*fn_)(mod, info, before);
  }
  std::shared_ptr<py::object> fn_;
};

py::list OptionsToPy(const std::vector<PassOption>& options) {
  py::list out;
  for (const PassOption& o : options) {
    py::dict d;
    d["name"] = o.name;
    d["type"] = AttrKindName(o.kind);
    d["default"] = AttrToPy(o.default_value);
    d["description"] = o.description;
    out.append(d);
  }
  return out;
}

void BindPass(py::module_& m) {
  py::class_<PassInfo>(m, "PassInfo", "A pass's metadata: name, opt_level, required passes.")
      .def(py::init([](int opt_level, std::string name, py::object required) {
             return PassInfo{std::move(name), opt_level, NamesFromPy(required, "required")};
           }),
           py::arg("opt_level"), py::arg("name"), py::arg("required") = py::none())
      .def_property_readonly("opt_level", [](const PassInfo& i) { return i.opt_level; })
      .def_property_readonly("name", [](const PassInfo& i) { return i.name; })
      .def_property_readonly("required", [](const PassInfo& i) { return i.required; })
      .def("__str__", &PassInfo::ToString)
      .def("__repr__", &PassInfo::ToString);

  py::class_<Pass>(m, "Pass", "An immutable IRModule -> IRModule transformation.")
      .def(py::init([](const Pass& other) { return other; }), py::arg("other"))
      .def_property_readonly("info", &Pass::info)
      .def(
          "__call__",
          [](const Pass& pass, const IRModule& mod, std::optional<PassContext> ctx) {
            py::gil_scoped_release release;
            return ctx ? pass(mod, *ctx) : pass(mod);
          },
          py::arg("mod"), py::arg("ctx") = py::none())
      .def("describe", &Pass::Describe)
      .def_property_readonly(
          "kind", [](const Pass& p) { return PassKindName(p.kind()); },
          "Which IR the pass transforms ('module', 'function', 'prim_func' or 'sequential').")
      .def("__str__", [](const Pass& p) { return PrintPipeline(p); })
      .def("__repr__", &Pass::Describe)
      .def_property_readonly("passes", [](const Pass& p) { return SequentialPasses(p); });

  m.def("create_module_pass", &MakePyModulePass, py::arg("pass_func"), py::arg("info"));
  m.def("create_function_pass", &MakePyFunctionPass, py::arg("pass_func"), py::arg("info"),
        py::arg("include_all") = false);
  m.def("create_prim_func_pass", &MakePyPrimFuncPass, py::arg("pass_func"), py::arg("info"));
  m.def(
      "register_pass",
      [](const std::string& name, const std::string& description, py::function factory) {
        for (const PassRegistration* r : ListPasses())
          if (r->name == name) TS_THROW(kValue) << "a pass named '" << name << "' is already registered";
        auto callback = SharePy(std::move(factory));
        RegisterPass({name, description, {}, [callback, name](const Attrs& options) {
                        py::gil_scoped_acquire gil;
                        py::object made = (*callback)();
                        if (!py::isinstance<Pass>(made))
                          TS_THROW(kType) << "the factory of pass '" << name
                                          << "' must return a Pass, got " << PyTypeName(made);
                        return made.cast<Pass>();
                      }});
      },
      py::arg("name"), py::arg("description"), py::arg("factory"));
  m.def(
      "sequential",
      [](std::vector<Pass> passes, int opt_level, std::string name, py::object required) {
        return Sequential(std::move(passes), std::move(name), opt_level,
                          NamesFromPy(required, "required"));
      },
      py::arg("passes"), py::arg("opt_level") = 0, py::arg("name") = "sequential",
      py::arg("required") = py::none());
  m.def("list_passes", [] {
    py::list out;
    for (const PassRegistration* r : ListPasses()) {
      py::dict d;
      d["name"] = r->name;
      d["description"] = r->description;
      d["options"] = OptionsToPy(r->options);
      out.append(d);
    }
    return out;
  });
  m.def(
      "get_pass",
      [](const std::string& name, py::object options) {
        return GetPass(name, AttrsFromPy(options, "pass '" + name + "' option"));
      },
      py::arg("name"), py::arg("options") = py::none());
  m.def(
      "parse_pipeline", [](const std::string& text) { return ParsePipeline(text); },
      py::arg("text"));
  m.def("print_pipeline", &PrintPipeline, py::arg("pass_"));
  m.def("verify_module", &VerifyModule, py::arg("mod"));
}

void BindPassContext(py::module_& m) {
  py::class_<PassContext>(m, "PassContext", "The configuration passes run under.")
      .def(py::init([](int opt_level, py::object required_pass, py::object disabled_pass,
                       py::object instruments, py::object config, py::object trace) {
             auto required = NamesFromPy(required_pass, "required_pass");
             auto disabled = NamesFromPy(disabled_pass, "disabled_pass");
             auto insts = InstrumentsFromPy(instruments);
             if (!trace.is_none()) {
               if (!PyCallable_Check(trace.ptr()))
                 TS_THROW(kType) << "PassContext: trace must be callable, got " << PyTypeName(trace);
               insts.push_back(std::make_shared<TraceInstrument>(trace.cast<py::function>()));
             }
             Attrs attrs = AttrsFromPy(config, "config");
             for (const auto& [key, value] : attrs.items())
               if (value.is_none()) TS_THROW(kValue) << "config option '" << key << "' is None";
             try {
               return PassContext::Create(opt_level, std::move(required), std::move(disabled),
                                          attrs, std::move(insts));
             } catch (const Error& e) {
               // Unknown keys and values a key's check rejects are config errors.
               if (e.kind() == ErrorKind::kNotFound || e.kind() == ErrorKind::kValue)
                 RaiseConfigError(e);
               throw;
             }
           }),
           py::arg("opt_level") = 2, py::arg("required_pass") = py::none(),
           py::arg("disabled_pass") = py::none(), py::arg("instruments") = py::none(),
           py::arg("config") = py::none(), py::arg("trace") = py::none())
      .def_static("current", &PassContext::Current)
      .def_static("list_configs",
                  [] {
                    py::dict out;
                    for (const ConfigOption& option : ListConfigs()) {
                      py::dict d;
                      d["type"] = AttrKindName(option.kind);
                      d["default"] = AttrToPy(option.default_value);
                      d["description"] = option.description;
                      out[py::str(option.key)] = d;
                    }
                    return out;
                  })
      .def_property_readonly("opt_level", &PassContext::opt_level)
      .def_property_readonly("required_pass", &PassContext::required_pass)
      .def_property_readonly("disabled_pass", &PassContext::disabled_pass)
      .def_property_readonly("instruments", &PassContext::instruments)
      .def_property_readonly("config", [](const PassContext& c) { return AttrsToPy(c.config()); })
      .def(
          "get_config",
          [](const PassContext& c, const std::string& key) {
            try {
              return AttrToPy(c.GetConfig(key));
            } catch (const Error& e) {
              if (e.kind() == ErrorKind::kNotFound) RaiseConfigError(e);
              throw;
            }
          },
          py::arg("key"))
      .def("pass_enabled", &PassContext::PassEnabled, py::arg("info"))
      .def(
          "override_instruments",
          [](const PassContext& c, py::object instruments) {
            c.OverrideInstruments(InstrumentsFromPy(instruments));
          },
          py::arg("instruments") = py::none())
      .def("__enter__",
           [](py::object self) {
             self.cast<const PassContext&>().EnterWithScope();
             return self;
           })
      .def("__exit__",
           [](const PassContext& c, py::args) {
             c.ExitWithScope();
             return false;
           })
      .def("__eq__",
           [](const PassContext& a, py::object b) {
             return py::isinstance<PassContext>(b) && a.same_as(b.cast<const PassContext&>());
           })
      .def("__hash__", [](const PassContext& c) { return std::hash<const void*>()(c.get()); });
}

}  // namespace

void BindTransform(py::module_& m) {
  BindPass(m);
  BindPassContext(m);
}

}  // namespace tessera::python
