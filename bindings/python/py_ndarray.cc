// Bindings of NDArray for zero-copy exchange through DLPack: tessera._core.NDArray (shape,
// dtype, numpy(), __dlpack__, __dlpack_device__) and imports of any __dlpack__ object.
#include <dlpack/dlpack.h>

#include "bindings.h"

namespace tessera::python {

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

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

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

bool HasDLPack(py::handle obj) {
  return PyCapsule_CheckExact(obj.ptr()) || py::hasattr(obj, "__dlpack__");
}

NDArray NDArrayFromDLPack(py::handle obj, const std::string& what) {
  py::object capsule;
  if (PyCapsule_CheckExact(obj.ptr())) {
    capsule = py::reinterpret_borrow<py::object>(obj);
  } else if (py::hasattr(obj, "__dlpack__")) {
    capsule = obj.attr("__dlpack__")();
  } else {
    TS_THROW(kType) << what << ": expected an object with __dlpack__ or a DLPack capsule, got a "
                    << TypeName(obj);
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    TS_THROW(kValue) << what
                     << ": not an unused DLPack capsule (a \"dltensor\" capsule can be consumed "
                        "only once)";
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  NDArray taken;
  try {
    taken = NDArray::FromDLPack(managed);  // on error the capsule still owns the tensor
  } catch (const Error& e) {
    throw Error(e.kind(), what + ": " + e.what());
  }
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  // The producer's deleter may touch Python objects (NumPy's does), so the last owner
  // runs it under the GIL; after interpreter shutdown the tensor is leaked instead.
  auto* held = new NDArray(taken);
  std::shared_ptr<void> keep(held, [](void* p) {
    auto* a = static_cast<NDArray*>(p);
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    delete a;
  });
  return NDArray::FromBorrowed(taken.data(), taken.shape(), taken.dtype(), std::move(keep));
}

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
