// Python bindings of the frontends: the ONNX importer.
#include <pybind11/stl.h>

#include "bindings.h"
#include "tessera/frontend/onnx.h"

namespace tessera {
namespace python {

void BindFrontend(py::module_& m) {
  using ShapeMap = std::map<std::string, std::vector<int64_t>>;
  auto options = [](const ShapeMap& shapes, bool params_as_inputs) {
    frontend::OnnxImportOptions o;
    o.shape_overrides = shapes;
    o.params_as_inputs = params_as_inputs;
    return o;
  };
  m.def(
      "onnx_import_file",
      [options](const std::string& path, const ShapeMap& shapes, bool params_as_inputs) {
        return frontend::FromOnnxFile(path, options(shapes, params_as_inputs));
      },
      py::arg("path"), py::arg("shape_overrides") = ShapeMap{},
      py::arg("params_as_inputs") = false);
  m.def(
      "onnx_import_bytes",
      [options](const py::bytes& data, const ShapeMap& shapes, bool params_as_inputs,
                const std::string& source) {
        return frontend::FromOnnxBytes(std::string(data), options(shapes, params_as_inputs),
                                       source);
      },
      py::arg("data"), py::arg("shape_overrides") = ShapeMap{}, py::arg("params_as_inputs") = false,
      py::arg("source") = "<onnx bytes>");
  m.def("onnx_supported_ops", &frontend::OnnxSupportedOps);
  m.def("onnx_supported_opsets", &frontend::OnnxSupportedOpsetRange);
  m.def("onnx_importer_available", &frontend::OnnxImporterAvailable);
}

}  // namespace python
}  // namespace tessera
