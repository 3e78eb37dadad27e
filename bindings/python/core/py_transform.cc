// Bindings of the pass infrastructure: PassInfo, Pass, PassContext, Sequential, passes whose
// bodies are Python callables, the pass registry, textual pipelines and verify_module.
#include <string>
#include <utility>
#include <vector>

#include "core_glue.h"
#include "py_instrument.h"

namespace tessera_py {

namespace {

using PassRef = Owned<TsPass, TsPassDestroy, TsPassRetain>;
using PassInfoRef = Owned<TsPassInfo, TsPassInfoDestroy, TsPassInfoRetain>;
using ContextRef = Owned<TsPassContext, TsPassContextDestroy, TsPassContextRetain>;
using ModuleRef = Owned<TsModule, TsModuleDestroy, TsModuleRetain>;

// ---- Small conversions ---------------------------------------------------------------

/// Pass names from a Python list (None: none); a str or a non-str item raises
/// TesseraTypeError naming `what`.
std::vector<std::string> NamesFromPy(py::handle names, const std::string& what) {
  std::vector<std::string> out;
  if (names.is_none()) return out;
  if (PyUnicode_Check(names.ptr()))
    Raise(TS_ERROR_TYPE, what + " must be a list of pass names, got a str");
  for (py::handle item : names) {
    if (!PyUnicode_Check(item.ptr()))
      Raise(TS_ERROR_TYPE, what + " must contain only str pass names");
    out.push_back(item.cast<std::string>());
  }
  return out;
}

/// The `count` names `get(i, &ref)` hands out (borrowed).
template <typename Get>
std::vector<std::string> NamesOf(size_t count, Get&& get) {
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    TsStringRef ref{};
    Check(get(i, &ref));
    out.push_back(StringOf(ref));
  }
  return out;
}

/// Raises tessera.error.TesseraConfigError (a TesseraNotFoundError and an AttributeError)
/// with `message`: unknown config keys and values a key rejects.
[[noreturn]] void RaiseConfigError(const std::string& message) {
  static py::object* cls =
      new py::object(py::module_::import("tessera.error").attr("TesseraConfigError"));
  PyErr_SetString(cls->ptr(), message.c_str());
  throw py::error_already_set();
}

/// RaiseConfigError with the C library's last error.
[[noreturn]] void RaiseConfigError() {
  RaiseConfigError(TsGetLastError());
}

/// The JSON object text of a dict (None: "") of config values or pass options, keys in the
/// dict's order. Errors name `what` as the old binding's did; a None value is an error for
/// configs (`reject_none`).
std::string JsonObjectOf(py::handle dict, const std::string& what, bool reject_none) {
  if (dict.is_none()) return "";
  if (!PyDict_Check(dict.ptr()))
    Raise(TS_ERROR_TYPE, what + " must be a dict, got a " + TypeName(dict));
  std::string out = "{";
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
    if (!PyUnicode_Check(key.ptr()))
      Raise(TS_ERROR_TYPE, what + " keys must be strings, got a " + TypeName(key));
    std::string name = key.cast<std::string>();
    if (reject_none && value.is_none())
      RaiseConfigError("config option '" + name + "' is None");
    if (out.size() > 1) out += ",";
    out += JsonOf(key, what) + ":" + JsonOf(value, what + " '" + name + "'");
  }
  return out + "}";
}

/// A JSON value with its arrays as tuples, as attribute values came out of the old binding.
py::object Tupled(py::handle value) {
  if (!PyList_Check(value.ptr())) return py::reinterpret_borrow<py::object>(value);
  py::list items = py::reinterpret_borrow<py::list>(value);
  py::tuple out(items.size());
  for (size_t i = 0; i < items.size(); ++i) out[i] = Tupled(items[i]);
  return std::move(out);
}


PyPass PassOfHandle(TsPass owned) {
  return PyPass{PassRef(owned)};
}
PyPassInfo InfoOfHandle(TsPassInfo owned) {
  return PyPassInfo{PassInfoRef(owned)};
}
PyPassContext ContextOfHandle(TsPassContext owned) {
  return PyPassContext{ContextRef(owned)};
}

/// The Python name of a pass kind (Pass.kind; tessera.transform picks the class by it).
std::string KindName(TsPassKind kind) {
  switch (kind) {
    case TS_PASS_MODULE:
      return "module";
    case TS_PASS_FUNCTION:
      return "function";
    case TS_PASS_PRIM_FUNC:
      return "prim_func";
    case TS_PASS_SEQUENTIAL:
      return "sequential";
  }
  return "module";
}

// ---- Passes whose bodies are Python callables -------------------------------------------

/// The user data of a Python pass body or pass factory: the callable and the pass name.
struct PyCallback {
  py::object fn;
  std::string name;
};


/// `fn(mod, ctx)` must return an IRModule.
TsStatus ModulePassBody(TsModule module, TsPassContext context, TsModule* out, void* user_data) {
  return CallPython([&] {
    const auto& cb = *static_cast<PyCallback*>(user_data);
    py::object result =
        cb.fn(WrapModule(TsModuleRetain(module)), WrapPassContext(TsPassContextRetain(context)));
    if (!py::isinstance<PyModule>(result))
      Raise(TS_ERROR_TYPE,
            "module pass '" + cb.name + "' must return an IRModule, got " + TypeName(result));
    *out = TsModuleRetain(ModuleOf(result, "result"));
  });
}

/// `fn(func, mod, ctx)` must return a Function.
TsStatus FunctionPassBody(TsExpr function, TsModule module, TsPassContext context, TsExpr* out,
                          void* user_data) {
  return CallPython([&] {
    const auto& cb = *static_cast<PyCallback*>(user_data);
    py::object result = cb.fn(WrapExpr(TsExprRetain(function)), WrapModule(TsModuleRetain(module)),
                              WrapPassContext(TsPassContextRetain(context)));
    if (!py::isinstance<PyFunction>(result))
      Raise(TS_ERROR_TYPE,
            "function pass '" + cb.name + "' must return a Function, got " + TypeName(result));
    *out = TsExprRetain(ExprOf(result, "result"));
  });
}

/// `fn(func, mod, ctx)` must return a PrimFunc, or None to remove it.
TsStatus PrimFuncPassBody(TsExpr function, TsModule module, TsPassContext context, TsExpr* out,
                          void* user_data) {
  return CallPython([&] {
    const auto& cb = *static_cast<PyCallback*>(user_data);
    py::object result = cb.fn(WrapExpr(TsExprRetain(function)), WrapModule(TsModuleRetain(module)),
                              WrapPassContext(TsPassContextRetain(context)));
    if (result.is_none()) {
      *out = nullptr;
      return;
    }
    if (!py::isinstance<PyPrimFunc>(result))
      Raise(TS_ERROR_TYPE, "prim_func pass '" + cb.name + "' must return a PrimFunc or None, got " +
                               TypeName(result));
    *out = TsExprRetain(ExprOf(result, "result"));
  });
}

/// `factory()` must return a Pass.
TsStatus PassFactory(TsPass* out, void* user_data) {
  return CallPython([&] {
    const auto& cb = *static_cast<PyCallback*>(user_data);
    py::object made = cb.fn();
    if (!py::isinstance<PyPass>(made))
      Raise(TS_ERROR_TYPE,
            "the factory of pass '" + cb.name + "' must return a Pass, got " + TypeName(made));
    *out = TsPassRetain(PassOf(made, "factory result"));
  });
}

/// A pass named by `info` made by `create(name, opt_level, required, num_required,
/// user_data, destroy, &out)`, whose body calls `fn`.
template <typename Create>
PyPass MakePythonPass(py::function fn, const PyPassInfo& info, Create&& create) {
  TsPassInfo i = info.handle.get();
  std::string name = StringOf(TsPassInfoGetName(i));
  std::vector<std::string> required =
      NamesOf(TsPassInfoGetNumRequired(i),
              [&](size_t k, TsStringRef* out) { return TsPassInfoGetRequired(i, k, out); });
  std::vector<const char*> names = CStrings(required);
  auto* data = new PyCallback{std::move(fn), name};
  TsPass out = nullptr;
  // The library owns `data` from here on, and destroys it if the call fails.
  Check(create(name.c_str(), TsPassInfoGetOptLevel(i), names.data(), names.size(),
               static_cast<void*>(data), &DestroyUnderGil<PyCallback>, &out));
  return PassOfHandle(out);
}

// ---- Classes ---------------------------------------------------------------------------

void BindPass(py::module_& m) {
  py::class_<PyPassInfo>(m, "PassInfo", "A pass's metadata: name, opt_level, required passes.")
      .def(py::init([](int opt_level, const std::string& name, py::object required) {
             std::vector<std::string> req = NamesFromPy(required, "required");
             std::vector<const char*> names = CStrings(req);
             TsPassInfo out = nullptr;
             Check(TsPassInfoCreate(name.c_str(), opt_level, names.data(), names.size(), &out));
             return InfoOfHandle(out);
           }),
           py::arg("opt_level"), py::arg("name"), py::arg("required") = py::none())
      .def_property_readonly(
          "opt_level", [](const PyPassInfo& i) { return TsPassInfoGetOptLevel(i.handle.get()); })
      .def_property_readonly(
          "name", [](const PyPassInfo& i) { return StringOf(TsPassInfoGetName(i.handle.get())); })
      .def_property_readonly("required",
                             [](const PyPassInfo& i) {
                               TsPassInfo h = i.handle.get();
                               return NamesOf(TsPassInfoGetNumRequired(h),
                                              [&](size_t k, TsStringRef* out) {
                                                return TsPassInfoGetRequired(h, k, out);
                                              });
                             })
      .def("__str__",
           [](const PyPassInfo& i) {
             return Text([&](TsStringCallback cb, void* u) {
               return TsPassInfoPrint(i.handle.get(), cb, u);
             });
           })
      .def("__repr__", [](const PyPassInfo& i) {
        return Text(
            [&](TsStringCallback cb, void* u) { return TsPassInfoPrint(i.handle.get(), cb, u); });
      });

  py::class_<PyPass>(m, "Pass", "An immutable IRModule -> IRModule transformation.")
      .def(py::init([](const PyPass& other) { return other; }), py::arg("other"))
      .def_property_readonly("info",
                             [](const PyPass& p) {
                               TsPassInfo out = nullptr;
                               Check(TsPassGetInfo(p.handle.get(), &out));
                               return InfoOfHandle(out);
                             })
      .def(
          "__call__",
          [](const PyPass& pass, const PyModule& mod, std::optional<PyPassContext> ctx) {
            TsModule out = nullptr;
            TsStatus status;
            {
              // Passes run without the GIL; Python pass bodies and instrument hooks take it.
              py::gil_scoped_release release;
              status = TsPassRun(pass.handle.get(), mod.handle.get(),
                                 ctx ? ctx->handle.get() : nullptr, &out);
            }
            Check(status);
            return PyModule{ModuleRef(out)};
          },
          py::arg("mod"), py::arg("ctx") = py::none())
      .def("describe",
           [](const PyPass& p) {
             return Text([&](TsStringCallback cb, void* u) {
               return TsPassDescribe(p.handle.get(), cb, u);
             });
           })
      .def_property_readonly(
          "kind", [](const PyPass& p) { return KindName(TsPassGetKind(p.handle.get())); },
          "Which IR the pass transforms ('module', 'function', 'prim_func' or 'sequential').")
      .def("__str__",
           [](const PyPass& p) {
             return Text(
                 [&](TsStringCallback cb, void* u) { return TsPassPrint(p.handle.get(), cb, u); });
           })
      .def("__repr__",
           [](const PyPass& p) {
             return Text([&](TsStringCallback cb, void* u) {
               return TsPassDescribe(p.handle.get(), cb, u);
             });
           })
      .def_property_readonly("passes", [](const PyPass& p) {
        std::vector<PyPass> out;
        size_t n = TsPassGetNumPasses(p.handle.get());
        for (size_t i = 0; i < n; ++i) {
          TsPass child = nullptr;
          Check(TsPassGetPass(p.handle.get(), i, &child));
          out.push_back(PassOfHandle(child));
        }
        return out;
      });

  m.def(
      "create_module_pass",
      [](py::function pass_func, const PyPassInfo& info) {
        return MakePythonPass(
            std::move(pass_func), info,
            [](const char* name, int opt_level, const char* const* required, size_t num_required,
               void* data, TsUserDataDestroy destroy, TsPass* out) {
              return TsModulePassCreate(name, opt_level, required, num_required, &ModulePassBody,
                                        data, destroy, out);
            });
      },
      py::arg("pass_func"), py::arg("info"));
  m.def(
      "create_function_pass",
      [](py::function pass_func, const PyPassInfo& info, bool include_all) {
        return MakePythonPass(
            std::move(pass_func), info,
            [&](const char* name, int opt_level, const char* const* required, size_t num_required,
                void* data, TsUserDataDestroy destroy, TsPass* out) {
              return TsFunctionPassCreate(name, opt_level, required, num_required,
                                          include_all ? 1 : 0, &FunctionPassBody, data, destroy,
                                          out);
            });
      },
      py::arg("pass_func"), py::arg("info"), py::arg("include_all") = false);
  m.def(
      "create_prim_func_pass",
      [](py::function pass_func, const PyPassInfo& info) {
        return MakePythonPass(
            std::move(pass_func), info,
            [](const char* name, int opt_level, const char* const* required, size_t num_required,
               void* data, TsUserDataDestroy destroy, TsPass* out) {
              return TsPrimFuncPassCreate(name, opt_level, required, num_required,
                                          &PrimFuncPassBody, data, destroy, out);
            });
      },
      py::arg("pass_func"), py::arg("info"));
  m.def(
      "register_pass",
      [](const std::string& name, const std::string& description, py::function factory) {
        // A taken name is TS_ERROR_VALUE ("a pass named 'X' is already registered").
        auto* data = new PyCallback{std::move(factory), name};
        Check(TsPassRegister(name.c_str(), description.c_str(), &PassFactory, data, &DestroyUnderGil<PyCallback>));
      },
      py::arg("name"), py::arg("description"), py::arg("factory"));
  m.def(
      "sequential",
      [](const std::vector<PyPass>& passes, int opt_level, const std::string& name,
         py::object required) {
        std::vector<TsPass> handles;
        for (const PyPass& p : passes) handles.push_back(p.handle.get());
        std::vector<std::string> req = NamesFromPy(required, "required");
        std::vector<const char*> names = CStrings(req);
        TsPass out = nullptr;
        Check(TsSequentialCreate(handles.data(), handles.size(), name.c_str(), opt_level,
                                 names.data(), names.size(), &out));
        return PassOfHandle(out);
      },
      py::arg("passes"), py::arg("opt_level") = 0, py::arg("name") = "sequential",
      py::arg("required") = py::none());
  m.def("list_passes", [] {
    py::list entries = FromJson(Text(&TsListPasses));
    // Rebuilt in the old binding's key order, option defaults with tuples for arrays.
    py::list out;
    for (py::handle e : entries) {
      py::list options;
      for (py::handle o : e["options"]) {
        py::dict d;
        d["name"] = o["name"];
        d["type"] = o["type"];
        d["default"] = Tupled(o["default"]);
        d["description"] = o["description"];
        options.append(d);
      }
      py::dict d;
      d["name"] = e["name"];
      d["description"] = e["description"];
      d["options"] = options;
      out.append(d);
    }
    return out;
  });
  m.def(
      "get_pass",
      [](const std::string& name, py::object options) {
        std::string json = JsonObjectOf(options, "pass '" + name + "' option", false);
        TsPass out = nullptr;
        Check(TsPassCreateFromRegistry(name.c_str(), json.empty() ? nullptr : json.c_str(), &out));
        return PassOfHandle(out);
      },
      py::arg("name"), py::arg("options") = py::none());
  m.def(
      "parse_pipeline",
      [](const std::string& text) {
        TsPass out = nullptr;
        Check(TsPipelineParse(text.c_str(), &out));
        return PassOfHandle(out);
      },
      py::arg("text"));
  m.def(
      "print_pipeline",
      [](const PyPass& pass_) {
        return Text(
            [&](TsStringCallback cb, void* u) { return TsPassPrint(pass_.handle.get(), cb, u); });
      },
      py::arg("pass_"));
  m.def(
      "verify_module", [](const PyModule& mod) { Check(TsModuleVerify(mod.handle.get())); },
      py::arg("mod"));
}

void BindPassContext(py::module_& m) {
  py::class_<PyPassContext>(m, "PassContext", "The configuration passes run under.")
      .def(py::init([](int opt_level, py::object required_pass, py::object disabled_pass,
                       py::object instruments, py::object config, py::object trace) {
             std::vector<std::string> required = NamesFromPy(required_pass, "required_pass");
             std::vector<std::string> disabled = NamesFromPy(disabled_pass, "disabled_pass");
             std::vector<InstrumentRef> insts = InstrumentsFromPy(instruments);
             if (!trace.is_none()) {
               if (!PyCallable_Check(trace.ptr()))
                 Raise(TS_ERROR_TYPE,
                       "PassContext: trace must be callable, got " + TypeName(trace));
               insts.push_back(TraceInstrument(trace));
             }
             JsonObjectOf(config, "config", true);  // the dict's shape, checked up front
             std::vector<const char*> req = CStrings(required);
             std::vector<const char*> dis = CStrings(disabled);
             std::vector<TsPassInstrument> handles;
             for (const InstrumentRef& i : insts) handles.push_back(i.get());
             TsPassContext out = nullptr;
             Check(TsPassContextCreateWithInstruments(opt_level, req.data(), req.size(), dis.data(),
                                                      dis.size(), nullptr, handles.data(),
                                                      handles.size(), &out));
             PyPassContext ctx = ContextOfHandle(out);
             // Config keys one by one: unknown keys and values a key rejects (of the wrong
             // kind, or failing its check) are config errors (an AttributeError too, as in
             // TVM), so one except clause catches every bad config.
             if (!config.is_none())
               for (auto [key, value] : py::reinterpret_borrow<py::dict>(config)) {
                 std::string name = key.cast<std::string>();
                 std::string json = JsonOf(value, "config '" + name + "'");
                 TsStatus status = TsPassContextSetConfig(out, name.c_str(), json.c_str());
                 if (status == TS_ERROR_NOT_FOUND || status == TS_ERROR_VALUE ||
                     status == TS_ERROR_TYPE)
                   RaiseConfigError();
                 Check(status);
               }
             return ctx;
           }),
           py::arg("opt_level") = 2, py::arg("required_pass") = py::none(),
           py::arg("disabled_pass") = py::none(), py::arg("instruments") = py::none(),
           py::arg("config") = py::none(), py::arg("trace") = py::none())
      .def_static("current",
                  [] {
                    TsPassContext out = nullptr;
                    Check(TsPassContextGetCurrent(&out));
                    return ContextOfHandle(out);
                  })
      .def_static("list_configs",
                  [] {
                    py::dict configs = FromJson(Text(&TsListConfigs));
                    // Rebuilt in the old binding's key order, defaults with tuples for arrays.
                    py::dict out;
                    for (auto [key, option] : configs) {
                      py::dict d;
                      d["type"] = option["type"];
                      d["default"] = Tupled(option["default"]);
                      d["description"] = option["description"];
                      out[key] = d;
                    }
                    return out;
                  })
      .def_property_readonly(
          "opt_level",
          [](const PyPassContext& c) { return TsPassContextGetOptLevel(c.handle.get()); })
      .def_property_readonly("required_pass",
                             [](const PyPassContext& c) {
                               TsPassContext h = c.handle.get();
                               return NamesOf(TsPassContextGetNumRequiredPasses(h),
                                              [&](size_t i, TsStringRef* out) {
                                                return TsPassContextGetRequiredPass(h, i, out);
                                              });
                             })
      .def_property_readonly("disabled_pass",
                             [](const PyPassContext& c) {
                               TsPassContext h = c.handle.get();
                               return NamesOf(TsPassContextGetNumDisabledPasses(h),
                                              [&](size_t i, TsStringRef* out) {
                                                return TsPassContextGetDisabledPass(h, i, out);
                                              });
                             })
      .def_property_readonly("instruments",
                             [](const PyPassContext& c) {
                               TsPassContext h = c.handle.get();
                               py::list out;
                               size_t n = TsPassContextGetNumInstruments(h);
                               for (size_t i = 0; i < n; ++i) {
                                 TsPassInstrument inst = nullptr;
                                 Check(TsPassContextGetInstrument(h, i, &inst));
                                 out.append(WrapInstrument(inst));
                               }
                               return out;
                             })
      .def_property_readonly("config",
                             [](const PyPassContext& c) {
                               py::dict config = FromJson(Text([&](TsStringCallback cb, void* u) {
                                 return TsPassContextGetConfigs(c.handle.get(), cb, u);
                               }));
                               py::dict out;
                               for (auto [key, value] : config) out[key] = Tupled(value);
                               return out;
                             })
      .def(
          "get_config",
          [](const PyPassContext& c, const std::string& key) {
            std::string json;
            TsStatus status = TsPassContextGetConfig(c.handle.get(), key.c_str(), &AppendText,
                                                     static_cast<void*>(&json));
            if (status == TS_ERROR_NOT_FOUND) RaiseConfigError();
            Check(status);
            return Tupled(FromJson(json));
          },
          py::arg("key"))
      .def(
          "pass_enabled",
          [](const PyPassContext& c, const PyPassInfo& info) {
            int enabled = 0;
            Check(TsPassContextPassEnabled(c.handle.get(), info.handle.get(), &enabled));
            return enabled != 0;
          },
          py::arg("info"))
      .def(
          "override_instruments",
          [](const PyPassContext& c, py::object instruments) {
            std::vector<InstrumentRef> insts = InstrumentsFromPy(instruments);
            std::vector<TsPassInstrument> handles;
            for (const InstrumentRef& i : insts) handles.push_back(i.get());
            Check(TsPassContextOverrideInstruments(c.handle.get(), handles.data(), handles.size()));
          },
          py::arg("instruments") = py::none())
      .def("__enter__",
           [](py::object self) {
             Check(TsPassContextEnter(self.cast<const PyPassContext&>().handle.get()));
             return self;
           })
      .def("__exit__",
           [](const PyPassContext& c, py::args) {
             Check(TsPassContextExit(c.handle.get()));
             return false;
           })
      .def("__eq__",
           [](const PyPassContext& a, py::object b) {
             return py::isinstance<PyPassContext>(b) &&
                    TsPassContextEqual(a.handle.get(),
                                       b.cast<const PyPassContext&>().handle.get()) != 0;
           })
      .def("__hash__", [](const PyPassContext& c) { return TsPassContextHash(c.handle.get()); });
}

}  // namespace

void BindTransform(py::module_& m) {
  BindPass(m);
  BindPassContext(m);
}

}  // namespace tessera_py
