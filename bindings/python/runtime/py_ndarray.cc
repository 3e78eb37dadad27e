// Bindings of NDArray for zero-copy exchange through DLPack: tessera._runtime.NDArray
// (shape, dtype, numpy(), __dlpack__, __dlpack_device__) and imports of any __dlpack__ object.
#include <dlpack/dlpack.h>

#include "runtime_bindings.h"

namespace tessera::python {

namespace {

constexpr const char* kCapsuleName = "dltensor";

/// Frees an exported tensor no consumer took (the capsule still has its original name).
void DeleteUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;  // consumed: the consumer owns it
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (m && m->deleter) m->deleter(m);
}

py::capsule ToCapsule(const NDArray& array) {
  DLManagedTensor* m = array.ToDLPack();
  PyObject* capsule = PyCapsule_New(m, kCapsuleName, DeleteUnusedCapsule);
  if (!capsule) {
    m->deleter(m);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

}  // namespace

void BindNDArray(py::module_& m) {
  py::class_<NDArray>(m, "NDArray",
                      "A Tessera tensor (CPU, row-major). Zero-copy to and from NumPy and "
                      "PyTorch through DLPack.")
      .def_property_readonly("shape",
                             [](const NDArray& a) {
                               py::tuple t(a.shape().size());
                               for (size_t i = 0; i < a.shape().size(); ++i) t[i] = a.shape()[i];
                               return t;
                             })
      .def_property_readonly("dtype", [](const NDArray& a) { return DTypeName(a.dtype()); })
      .def_property_readonly("ndim", &NDArray::ndim)
      .def("numpy", [](const NDArray& a) { return NDArrayToPy(a, /*writeable=*/true); })
      .def(
          "__array__",
          [](const NDArray& a, py::object dtype) {
            py::object out = NDArrayToPy(a, /*writeable=*/true);
            return dtype.is_none() ? out : out.attr("astype")(dtype);
          },
          py::arg("dtype") = py::none())
      .def(
          "__dlpack__",
          [](const NDArray& a, py::object stream) {
            if (!stream.is_none())
              TS_THROW(kValue) << "__dlpack__: stream must be None for a CPU tensor";
            return ToCapsule(a);
          },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const NDArray&) { return py::make_tuple(int(kDLCPU), 0); })
      .def("__repr__", [](const NDArray& a) { return "tessera.nd.NDArray(" + a.Describe() + ")"; });
  m.def(
      "nd_from_dlpack", [](py::object obj) { return NDArrayFromDLPack(obj, "from_dlpack"); },
      py::arg("obj"));
  m.def(
      "nd_array", [](py::object obj, bool copy) { return NDArrayFromPy(obj, "array", copy); },
      py::arg("obj"), py::arg("copy") = true);
}

}  // namespace tessera::python
