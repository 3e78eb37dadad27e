// Bindings of executables: tessera._runtime.Executable (run, time, profile, save) and
// load, plus .npy files. Runtime only: a deployed service imports just this extension.
#include "runtime_bindings.h"
#include "tessera/runtime/native_module.h"
#include "tessera/runtime/npy.h"

namespace tessera::python {

namespace {

/// Inputs by name from a dict of NumPy arrays (borrowed without copies where possible).
std::map<std::string, NDArray> InputsFromPy(const py::dict& inputs) {
  std::map<std::string, NDArray> arrays;
  for (auto [key, value] : inputs) {
    std::string name = py::str(key);
    arrays[name] = NDArrayFromPy(value, "input '" + name + "'", /*copy=*/false);
  }
  return arrays;
}

/// NumPy arrays, or tessera NDArrays with `as_ndarray`.
py::list OutputsToPy(const std::vector<NDArray>& outputs, bool as_ndarray) {
  py::list out;
  for (const NDArray& a : outputs)
    out.append(as_ndarray ? py::cast(a) : NDArrayToPy(a, /*writeable=*/true));
  return out;
}

}  // namespace

void BindExecutable(py::module_& m) {
  py::class_<PyExecutable>(m, "Executable", "A compiled model and the executor that runs it.")
      .def_property_readonly("input_names",
                             [](const PyExecutable& e) { return e.exe->input_names(); })
      .def_property_readonly("input_types",
                             [](const PyExecutable& e) {
                               // (shape, dtype) per parameter, in input_names order.
                               py::list out(e.exe->input_names().size());
                               for (const runtime::Slot& s : e.exe->slots())
                                 if (s.kind == runtime::SlotKind::kInput)
                                   out[s.index] = py::make_tuple(s.shape, DTypeName(s.dtype));
                               return out;
                             })
      .def_property_readonly("num_outputs",
                             [](const PyExecutable& e) { return e.exe->output_slots().size(); })
      .def_property_readonly(
          "returns_tuple",
          [](const PyExecutable& e) { return e.exe->returns_tuple(); })
      .def_property_readonly("num_threads",
                             [](const PyExecutable& e) { return e.executor->pool().num_threads(); })
      .def_property_readonly("kernels",
                             [](const PyExecutable& e) {
                               std::vector<std::string> symbols;
                               for (const auto& i : e.exe->instructions())
                                 symbols.push_back(i.symbol);
                               return symbols;
                             })
      .def_property_readonly("memory_plan",
                             [](const PyExecutable& e) {
                               const runtime::MemoryPlanStats& p = e.exe->memory_plan();
                               py::dict d;
                               d["arena_bytes"] = p.arena_bytes;
                               d["num_storages"] = p.num_storages;
                               d["num_intermediates"] = p.num_intermediates;
                               d["total_intermediate_bytes"] = p.total_intermediate_bytes;
                               return d;
                             })
      .def("source",
           [](const PyExecutable& e) -> py::object {
             const auto* native =
                 dynamic_cast<const runtime::NativeModuleNode*>(e.exe->module().get());
             if (!native) return py::none();
             return py::str(native->source());
           })
      .def(
          "run",
          [](PyExecutable& e, py::dict inputs, bool as_ndarray) {
            std::map<std::string, NDArray> arrays = InputsFromPy(inputs);
            std::vector<NDArray> outputs;
            {
              py::gil_scoped_release release;
              outputs = e.executor->Run(arrays);
            }
            return OutputsToPy(outputs, as_ndarray);
          },
          py::arg("inputs"), py::arg("as_ndarray") = false)
      .def("benchmark",
           [](PyExecutable& e, py::dict inputs, int warmup, int repeat) {
             if (warmup < 0 || repeat < 1)
               TS_THROW(kValue) << "benchmark needs warmup >= 0 and repeat >= 1, got warmup="
                                << warmup << ", repeat=" << repeat;
             std::map<std::string, NDArray> arrays = InputsFromPy(inputs);
             runtime::BenchmarkResult r;
             {
               py::gil_scoped_release release;
               r = e.executor->Benchmark(arrays, warmup, repeat);
             }
             py::dict d;
             d["median_ms"] = r.median_ms;
             d["p90_ms"] = r.p90_ms;
             d["min_ms"] = r.min_ms;
             d["mean_ms"] = r.mean_ms;
             d["repeat"] = r.repeat;
             return d;
           })
      .def("profile",
           [](PyExecutable& e, py::dict inputs, int repeat) {
             if (repeat < 1) TS_THROW(kValue) << "profile needs repeat >= 1, got " << repeat;
             std::map<std::string, NDArray> arrays = InputsFromPy(inputs);
             runtime::ProfileReport r;
             {
               py::gil_scoped_release release;
               r = e.executor->Profile(arrays, repeat);
             }
             py::list rows;
             for (const runtime::ProfileRow& row : r.rows) {
               py::dict d;
               d["symbol"] = row.symbol;
               d["backend"] = row.module_kind;
               d["calls"] = row.calls;
               d["total_ms"] = row.total_ms;
               d["mean_ms"] = row.mean_ms;
               d["share"] = row.share;
               rows.append(d);
             }
             return py::make_tuple(rows, r.total_ms, r.table);
           })
      .def("save", [](const PyExecutable& e, const std::string& path) { e.exe->Save(path); })
      .def_property_readonly("collage_report",
                             [](const PyExecutable& e) { return e.exe->collage_report(); });

  m.def(
      "load",
      [](const std::string& path, int num_threads) {
        if (num_threads < 0) TS_THROW(kValue) << "num_threads must be >= 0, got " << num_threads;
        runtime::ExecutorOptions options;
        options.num_threads = num_threads;
        return MakePyExecutable(runtime::Executable::Load(path), options);
      },
      py::arg("path"), py::arg("num_threads") = 0);
  m.def(
      "read_npy", [](const std::string& path) { return NDArrayToPy(ReadNpy(path), true); },
      py::arg("path"));
  m.def(
      "write_npy",
      [](const std::string& path, py::object array) {
        WriteNpy(path, NDArrayFromPy(array, "write_npy array", /*copy=*/false));
      },
      py::arg("path"), py::arg("array"));
}

}  // namespace tessera::python
