// Python bindings of the frontends: the ONNX importer.
#include "core_glue.h"

namespace tessera_py {

namespace {

using ShapeMap = std::map<std::string, std::vector<int64_t>>;

/// The C API's parallel arrays of shape overrides, viewing `shapes`.
struct Overrides {
  explicit Overrides(const ShapeMap& shapes) {
    for (const auto& [name, dims] : shapes) {
      names.push_back(name.c_str());
      dims_ptrs.push_back(dims.data());
      ranks.push_back(static_cast<int32_t>(dims.size()));
    }
  }
  std::vector<const char*> names;
  std::vector<const int64_t*> dims_ptrs;
  std::vector<int32_t> ranks;
};

}  // namespace

void BindFrontend(py::module_& m) {
  m.def(
      "onnx_import_file",
      [](const std::string& path, const ShapeMap& shapes, bool params_as_inputs) {
        Overrides o(shapes);
        TsModule out = nullptr;
        Check(TsModuleFromONNX(path.c_str(), o.names.data(), o.dims_ptrs.data(), o.ranks.data(),
                               o.names.size(), params_as_inputs ? 1 : 0, &out));
        return PyModule{Owned<TsModule, TsModuleDestroy, TsModuleRetain>(out)};
      },
      py::arg("path"), py::arg("shape_overrides") = ShapeMap{},
      py::arg("params_as_inputs") = false);
  m.def(
      "onnx_import_bytes",
      [](const py::bytes& data, const ShapeMap& shapes, bool params_as_inputs,
         const std::string& source) {
        std::string bytes = data;
        Overrides o(shapes);
        TsModule out = nullptr;
        Check(TsModuleFromONNXBytes(bytes.data(), bytes.size(), RefOf(source), o.names.data(),
                                    o.dims_ptrs.data(), o.ranks.data(), o.names.size(),
                                    params_as_inputs ? 1 : 0, &out));
        return PyModule{Owned<TsModule, TsModuleDestroy, TsModuleRetain>(out)};
      },
      py::arg("data"), py::arg("shape_overrides") = ShapeMap{}, py::arg("params_as_inputs") = false,
      py::arg("source") = "<onnx bytes>");
  m.def("onnx_supported_ops", [] {
    std::vector<std::string> ops;
    Check(TsONNXSupportedOps(&AppendToStrings, &ops));
    return ops;
  });
  m.def("onnx_supported_opsets", [] {
    int64_t lo = 0, hi = 0;
    Check(TsONNXSupportedOpsets(&lo, &hi));
    return std::make_pair(lo, hi);
  });
  m.def("onnx_importer_available", [] { return TsONNXImporterAvailable() != 0; });
}

}  // namespace tessera_py
