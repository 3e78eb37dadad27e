// Bindings of build and executables: compile a module for targets, run, time, profile,
// save and load the result.
#include "bindings.h"
#include "common/capi_glue.h"
// Transitional, until build goes through TsBuild: wraps the C++ executable as a TsExecutable.
#include "../../capi/src/c_runtime_internal.h"
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
        return tessera_py::PyExecutable{
            tessera_py::Shared<TsExecutable, TsExecutableDestroy>(
                capi::MakeExecutable(std::move(exe), options))};
      },
      py::arg("mod"), py::arg("targets"));
  m.def(
      "register_external",
      [](const std::string& name, py::iterable patterns, const py::object& compile_with) {
        if (py::isinstance<py::str>(compile_with)) {
          RegisterExternalBackend(name, PatternTableFromPy(name, patterns),
                                  compile_with.cast<std::string>());
          return;
        }
        if (!PyCallable_Check(compile_with.ptr()))
          TS_THROW(kType) << "register_external: compile_with is \"native\" or a function "
                             "(partition, c_name) -> C source";
        // Kept alive by the backend; called with the GIL (builds release it).
        auto fn = std::make_shared<py::object>(compile_with);
        PartitionCSource source = [fn](const Function& partition, const std::string& c_name) {
          py::gil_scoped_acquire gil;
          try {
            return (*fn)(partition, c_name).cast<std::string>();
          } catch (py::error_already_set& e) {
            std::string what = e.what();
            TS_THROW(kValue) << "the C source function raised: " << what;
          } catch (const py::cast_error&) {
            TS_THROW(kType) << "the C source function must return a str";
          }
        };
        RegisterExternalBackend(name, PatternTableFromPy(name, patterns), "c", std::move(source));
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
