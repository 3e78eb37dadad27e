// Bindings of executables: tessera._runtime.Executable (run, time, profile, save) and
// load, plus .npy files. Runtime only: a deployed service imports just this extension.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "../common/capi_glue.h"

namespace tessera_py {

namespace {

/// Inputs by name from a dict of arrays (borrowed without copies where possible), in the
/// parallel-array form the C API takes.
struct Inputs {
  explicit Inputs(const py::dict& inputs) {
    for (auto [key, value] : inputs) {
      std::string name = py::str(key);
      arrays.push_back(NDArrayFromPy(value, "input '" + name + "'", /*copy=*/false));
      names.push_back(std::move(name));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      name_ptrs.push_back(names[i].c_str());
      handles.push_back(arrays[i].get());
    }
  }
  std::vector<std::string> names;
  std::vector<Shared<TsNDArray, TsNDArrayDestroy>> arrays;
  std::vector<const char*> name_ptrs;
  std::vector<TsNDArray> handles;
};

TsExecutable Exe(const PyExecutable& e) {
  return e.handle.get();
}

py::object Json(const std::string& text) {
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void BindExecutable(py::module_& m) {
  py::class_<PyExecutable>(m, "Executable", "A compiled model and the executor that runs it.")
      .def_property_readonly("input_names",
                             [](const PyExecutable& e) {
                               std::vector<std::string> names;
                               Check(TsExecutableGetInputNames(Exe(e), &AppendToStrings, &names));
                               return names;
                             })
      .def_property_readonly("input_types",
                             [](const PyExecutable& e) {
                               // (shape, dtype) per parameter, in input_names order.
                               size_t n = 0;
                               Check(TsExecutableGetNumInputs(Exe(e), &n));
                               py::list out;
                               for (size_t i = 0; i < n; ++i) {
                                 const int64_t* shape = nullptr;
                                 int32_t ndim = 0;
                                 TsDType dtype{};
                                 Check(TsExecutableGetInputType(Exe(e), i, &shape, &ndim, &dtype));
                                 out.append(py::make_tuple(
                                     std::vector<int64_t>(shape, shape + ndim), DTypeName(dtype)));
                               }
                               return out;
                             })
      .def_property_readonly("output_types",
                             [](const PyExecutable& e) {
                               // (shape, dtype) per result, flattened as run returns them.
                               py::list out;
                               for (size_t i = 0; i < e.num_outputs; ++i) {
                                 const int64_t* shape = nullptr;
                                 int32_t ndim = 0;
                                 TsDType dtype{};
                                 Check(TsExecutableGetOutputType(Exe(e), i, &shape, &ndim, &dtype));
                                 out.append(py::make_tuple(
                                     std::vector<int64_t>(shape, shape + ndim), DTypeName(dtype)));
                               }
                               return out;
                             })
      .def_property_readonly("num_outputs",
                             [](const PyExecutable& e) {
                               size_t n = 0;
                               Check(TsExecutableGetNumOutputs(Exe(e), &n));
                               return n;
                             })
      .def_property_readonly("returns_tuple",
                             [](const PyExecutable& e) {
                               int tuple = 0;
                               Check(TsExecutableReturnsTuple(Exe(e), &tuple));
                               return tuple != 0;
                             })
      .def_property_readonly("num_threads",
                             [](const PyExecutable& e) {
                               int n = 0;
                               Check(TsExecutableGetNumThreads(Exe(e), &n));
                               return n;
                             })
      .def_property_readonly("kernels",
                             [](const PyExecutable& e) {
                               std::vector<std::string> symbols;
                               Check(TsExecutableGetKernels(Exe(e), &AppendToStrings, &symbols));
                               return symbols;
                             })
      .def_property_readonly("memory_plan",
                             [](const PyExecutable& e) {
                               TsMemoryPlan p{};
                               Check(TsExecutableGetMemoryPlan(Exe(e), &p));
                               py::dict d;
                               d["arena_bytes"] = p.arena_bytes;
                               d["num_storages"] = p.num_storages;
                               d["num_intermediates"] = p.num_intermediates;
                               d["total_intermediate_bytes"] = p.total_intermediate_bytes;
                               return d;
                             })
      .def("source",
           [](const PyExecutable& e) -> py::object {
             std::string source;
             int has_source = 0;
             Check(TsExecutableGetSource(Exe(e), &AppendText, &source, &has_source));
             if (!has_source) return py::none();
             return py::str(source);
           })
      .def(
          "run",
          [](PyExecutable& e, py::dict inputs, bool as_ndarray) {
            Inputs in(inputs);
            size_t max_outputs = e.num_outputs, n = 0;
            std::vector<TsNDArray> outputs(max_outputs, nullptr);
            TsStatus status;
            {
              py::gil_scoped_release release;
              status = TsExecutableRun(Exe(e), in.name_ptrs.data(), in.handles.data(),
                                       in.handles.size(), outputs.data(), max_outputs, &n);
            }
            Check(status);
            py::list out;
            for (size_t i = 0; i < n; ++i) {
              PyNDArray a{Shared<TsNDArray, TsNDArrayDestroy>(outputs[i])};
              out.append(as_ndarray ? py::cast(a) : NDArrayToPy(a.handle.get(), true));
            }
            return out;
          },
          py::arg("inputs"), py::arg("as_ndarray") = false)
      .def("benchmark",
           [](PyExecutable& e, py::dict inputs, int warmup, int repeat) {
             if (warmup < 0 || repeat < 1)
               Raise(TS_ERROR_VALUE, "benchmark needs warmup >= 0 and repeat >= 1, got warmup=" +
                                         std::to_string(warmup) +
                                         ", repeat=" + std::to_string(repeat));
             Inputs in(inputs);
             TsBenchmarkStats r{};
             TsStatus status;
             {
               py::gil_scoped_release release;
               status = TsExecutableBenchmarkStats(Exe(e), in.name_ptrs.data(), in.handles.data(),
                                                   in.handles.size(), warmup, repeat, &r);
             }
             Check(status);
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
             if (repeat < 1)
               Raise(TS_ERROR_VALUE, "profile needs repeat >= 1, got " + std::to_string(repeat));
             Inputs in(inputs);
             std::string json;
             TsStatus status;
             {
               py::gil_scoped_release release;
               status = TsExecutableProfileJSON(Exe(e), in.name_ptrs.data(), in.handles.data(),
                                                in.handles.size(), repeat, &AppendText, &json);
             }
             Check(status);
             py::dict report = Json(json);
             return py::make_tuple(report["rows"], report["total_ms"], report["table"]);
           })
      .def("save", [](const PyExecutable& e,
                      const std::string& path) { Check(TsExecutableSave(Exe(e), path.c_str())); })
      .def_property_readonly("collage_report", [](const PyExecutable& e) {
        return Text(
            [&](TsStringCallback cb, void* u) { return TsExecutableGetReport(Exe(e), cb, u); });
      });

  m.def(
      "load",
      [](const std::string& path, int num_threads) {
        if (num_threads < 0)
          Raise(TS_ERROR_VALUE, "num_threads must be >= 0, got " + std::to_string(num_threads));
        TsExecutable exe = nullptr;
        Check(TsExecutableLoad(path.c_str(), num_threads, &exe));
        return MakePyExecutable(exe);
      },
      py::arg("path"), py::arg("num_threads") = 0);
  m.def(
      "read_npy",
      [](const std::string& path) {
        TsNDArray out = nullptr;
        Check(TsNDArrayReadNpy(path.c_str(), &out));
        Shared<TsNDArray, TsNDArrayDestroy> owned(out);
        return NDArrayToPy(owned.get(), true);
      },
      py::arg("path"));
  m.def(
      "write_npy",
      [](const std::string& path, py::object array) {
        auto a = NDArrayFromPy(array, "write_npy array", /*copy=*/false);
        Check(TsNDArrayWriteNpy(path.c_str(), a.get()));
      },
      py::arg("path"), py::arg("array"));
}

}  // namespace tessera_py
