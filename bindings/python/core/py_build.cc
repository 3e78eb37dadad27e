// Bindings of build: compile a module for targets into an executable (tessera._runtime's
// Executable), lower a module for build, list the backends.
#include "core_glue.h"

namespace tessera_py {

void BindBuild(py::module_& m) {
  m.def(
      "build",
      [](const PyModule& mod, const std::vector<std::string>& target_texts) {
        TsModule module = mod.handle.get();
        std::vector<Shared<TsTarget, TsTargetDestroy>> targets;
        for (const std::string& text : target_texts) {
          TsTarget t = nullptr;
          Check(TsTargetParse(text.c_str(), &t));
          targets.emplace_back(t);
        }
        std::vector<TsTarget> handles;
        for (const auto& t : targets) handles.push_back(t.get());
        TsExecutable exe = nullptr;
        TsStatus status;
        {
          py::gil_scoped_release release;  // Python passes and instruments re-acquire it
          status = TsBuild(module, handles.data(), handles.size(), nullptr, &exe);
        }
        Check(status);
        return MakePyExecutable(exe);
      },
      py::arg("mod"), py::arg("targets"));
  m.def("lower_for_build", [](const PyModule& mod) {
    TsModule out = nullptr;
    Check(TsModuleLowerForBuild(mod.handle.get(), &out));
    return PyModule{Owned<TsModule, TsModuleDestroy, TsModuleRetain>(out)};
  });
  m.def("list_targets", [] {
    py::list targets =
        FromJson(Text([](TsStringCallback cb, void* u) { return TsListTargets(cb, u); }));
    // Options as (name, type, default, description) tuples, as Python users read them.
    for (py::handle target : targets) {
      py::list options;
      for (py::handle o : target["options"])
        options.append(py::make_tuple(o["name"], o["type"], o["default"], o["description"]));
      target["options"] = options;
    }
    return targets;
  });
}

}  // namespace tessera_py
