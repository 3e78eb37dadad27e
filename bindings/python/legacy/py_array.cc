// NumPy and DLPack conversions of NDArrays shared by both extension modules (zero-copy in
// both directions where the memory layout allows).
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstring>
#include <optional>

#include "runtime_bindings.h"

namespace tessera::python {

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

/// Drops a Python reference from any thread; after interpreter shutdown the reference is
/// leaked instead, since touching Python then would crash.
void ReleasePy(py::object* obj) {
  if (Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    delete obj;
  } else {
    obj->release();
    delete obj;
  }
}

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

std::shared_ptr<py::object> SharePy(py::object obj) {
  return std::shared_ptr<py::object>(new py::object(std::move(obj)), ReleasePy);
}

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

NDArray NDArrayFromPy(py::handle obj, const std::string& what, bool copy) {
  if (!py::isinstance<py::array>(obj)) {
    // Any other tensor (PyTorch, ...) comes in zero-copy through DLPack.
    if (HasDLPack(obj)) {
      NDArray a = NDArrayFromDLPack(obj, what);
      return copy ? a.Copy() : a;
    }
    TS_THROW(kType) << what << ": expected a numpy.ndarray or a tensor with __dlpack__, got a "
                    << TypeName(obj);
  }
  auto array = py::reinterpret_borrow<py::array>(obj);
  std::string dtype_name = array.dtype().attr("name").cast<std::string>();
  std::optional<DType> dtype = ParseDType(dtype_name);
  if (!dtype || dtype == DType::kBFloat16)
    TS_THROW(kType) << what << ": numpy dtype " << dtype_name
                    << " is not supported (use float32, float16, float64, int8, int32, int64, "
                       "uint8 or bool)";
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  char byteorder = array.dtype().attr("byteorder").cast<std::string>()[0];
  bool native = byteorder == '=' || byteorder == '|' || (byteorder == '<' && PY_LITTLE_ENDIAN) ||
                (byteorder == '>' && !PY_LITTLE_ENDIAN);
  int flags = array.flags();
  bool borrowable =
      native && (flags & py::array::c_style) && (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_);
  if (!copy && borrowable) {
    auto keep = SharePy(py::reinterpret_borrow<py::object>(obj));
    return NDArray::FromBorrowed(const_cast<void*>(array.data()), shape, *dtype,
                                 std::shared_ptr<void>(keep, keep.get()));
  }
  // Copy through NumPy so strides and byte order are resolved by it.
  py::object numpy = py::module_::import("numpy");
  // numpy.array keeps rank 0 (ascontiguousarray would make it rank 1).
  py::array contiguous =
      numpy.attr("array")(obj, py::arg("dtype") = dtype_name, py::arg("order") = "C");
  NDArray out = NDArray::Empty(shape, *dtype);
  if (out.NumBytes()) std::memcpy(out.data(), contiguous.data(), out.NumBytes());
  return out;
}

py::object NDArrayToPy(const NDArray& array, bool writeable) {
  TS_ICHECK(array.defined()) << "converting an undefined NDArray to numpy";
  std::vector<py::ssize_t> shape(array.shape().begin(), array.shape().end());
  if (array.dtype() == DType::kBFloat16) {
    py::array_t<float> out(shape);
    for (int64_t i = 0; i < array.NumElements(); ++i)
      out.mutable_data()[i] = static_cast<float>(array.GetFloat(i));
    return std::move(out);
  }
  py::dtype dtype(DTypeName(array.dtype()));
  if (array.NumElements() == 0) return py::array(dtype, shape);
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = DTypeBytes(array.dtype());
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  auto* keep = new NDArray(array);
  py::capsule owner(keep, [](void* p) { delete static_cast<NDArray*>(p); });
  py::array out(dtype, shape, strides, array.data(), owner);
  if (!writeable) out.attr("flags").attr("writeable") = false;
  return std::move(out);
}

}  // namespace tessera::python
