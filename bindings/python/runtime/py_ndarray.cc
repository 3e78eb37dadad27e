// Bindings of TsNDArray for zero-copy exchange through DLPack: tessera._runtime.NDArray
// (shape, dtype, numpy(), __dlpack__, __dlpack_device__) and imports of any __dlpack__ object.
#include <dlpack/dlpack.h>

#include "../common/capi_glue.h"

namespace tessera_py {

namespace {

constexpr const char* kCapsuleName = "dltensor";

/// Frees an exported tensor no consumer took (the capsule still has its original name).
void DeleteUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsuleName)) return;  // consumed: the consumer owns it
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (m && m->deleter) m->deleter(m);
}

py::capsule ToCapsule(TsNDArray array) {
  DLManagedTensor* m = nullptr;
  Check(TsNDArrayToDLPack(array, &m));
  PyObject* capsule = PyCapsule_New(m, kCapsuleName, DeleteUnusedCapsule);
  if (!capsule) {
    m->deleter(m);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple Shape(const PyNDArray& a) {
  const int64_t* shape = nullptr;
  int32_t ndim = 0;
  Check(TsNDArrayGetInfo(a.handle.get(), nullptr, &shape, &ndim, nullptr));
  py::tuple t(ndim);
  for (int32_t i = 0; i < ndim; ++i) t[i] = shape[i];
  return t;
}

}  // namespace

void BindNDArray(py::module_& m) {
  py::class_<PyNDArray>(m, "NDArray",
                        "A Tessera tensor (CPU, row-major). Zero-copy to and from NumPy and "
                        "PyTorch through DLPack.")
      .def_property_readonly("shape", &Shape)
      .def_property_readonly(
          "dtype",
          [](const PyNDArray& a) {
            TsDType dtype{};
            Check(TsNDArrayGetInfo(a.handle.get(), nullptr, nullptr, nullptr, &dtype));
            return DTypeName(dtype);
          })
      .def_property_readonly("ndim", [](const PyNDArray& a) { return Shape(a).size(); })
      .def("numpy", [](const PyNDArray& a) { return NDArrayToPy(a.handle.get(), true); })
      .def(
          "__array__",
          [](const PyNDArray& a, py::object dtype) {
            py::object out = NDArrayToPy(a.handle.get(), true);
            return dtype.is_none() ? out : out.attr("astype")(dtype);
          },
          py::arg("dtype") = py::none())
      .def(
          "__dlpack__",
          [](const PyNDArray& a, py::object stream) {
            if (!stream.is_none())
              Raise(TS_ERROR_VALUE, "__dlpack__: stream must be None for a CPU tensor");
            return ToCapsule(a.handle.get());
          },
          py::arg("stream") = py::none())
      .def("__dlpack_device__", [](const PyNDArray&) { return py::make_tuple(int(kDLCPU), 0); })
      .def("__repr__", [](const PyNDArray& a) {
        return "tessera.nd.NDArray(" + Text([&](TsStringCallback cb, void* u) {
                 return TsNDArrayDescribe(a.handle.get(), cb, u);
               }) +
               ")";
      });
  m.def(
      "nd_from_dlpack",
      [](py::object obj) { return PyNDArray{NDArrayFromDLPack(obj, "from_dlpack")}; },
      py::arg("obj"));
  m.def(
      "nd_array",
      [](py::object obj, bool copy) { return PyNDArray{NDArrayFromPy(obj, "array", copy)}; },
      py::arg("obj"), py::arg("copy") = true);
}

}  // namespace tessera_py
