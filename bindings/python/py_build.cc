// Bindings of build and executables: compile a module for targets, run, time, profile,
// save and load the result.
#include "bindings.h"
#include "py_pattern_convert.h"
#include "tessera/backend/external_native.h"
#include "tessera/backend/build.h"
#include "tessera/runtime/executable.h"
#include "tessera/target/backend_registry.h"

namespace tessera::python {

namespace {

}  // namespace

void BindBuild(py::module_& m) {
  m.def(
      "build",
      [](const IRModule& mod, const std::vector<std::string>& target_texts) {
        std::vector<Target> targets;
        for (const std::string& t : target_texts) targets.push_back(Target::Parse(t));
        std::shared_ptr<runtime::Executable> exe;
        {
          py::gil_scoped_release release;  // Python passes and instruments re-acquire it
          exe = Build(mod, targets);
        }
        runtime::ExecutorOptions options;
        if (!targets.empty()) options = ExecutorOptionsFor(targets.front());
        return MakePyExecutable(std::move(exe), options);
      },
      py::arg("mod"), py::arg("targets"));
  m.def(
      "register_external",
      [](const std::string& name, py::iterable patterns, const std::string& compile_with) {
        RegisterExternalBackend(name, PatternTableFromPy(name, patterns), compile_with);
      },
      py::arg("name"), py::arg("patterns"), py::arg("compile_with") = "native");
  m.def("lower_for_build", [](const IRModule& mod) { return LowerForBuild(mod); });
  m.def("list_targets", [] {
    py::list out;
    BackendRegistry& registry = BackendRegistry::Global();
    for (const std::string& name : registry.Names()) {
      const Backend& b = registry.Get(name);
      py::dict d;
      d["name"] = b.name;
      d["description"] = b.description;
      py::list options;
      for (const TargetAttrSpec& a : b.attrs)
        options.append(py::make_tuple(a.name, TargetAttrTypeName(a.type), AttrToPy(a.default_value),
                                      a.description));
      d["options"] = options;
      out.append(d);
    }
    return out;
  });
}

}  // namespace tessera::python
