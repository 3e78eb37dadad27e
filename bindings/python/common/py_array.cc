// NumPy and DLPack conversions of TsNDArray shared by both extension modules (zero-copy in
// both directions where the memory layout allows), and the Python Executable's constructor.
#include <dlpack/dlpack.h>
#include <pybind11/numpy.h>

#include <cstring>
#include <vector>

#include "capi_glue.h"

namespace tessera_py {

namespace {

constexpr const char* kCapsuleName = "dltensor";
constexpr const char* kUsedCapsuleName = "used_dltensor";

struct DTypeEntry {
  const char* name;
  TsDType dtype;
};
// The dtypes NumPy and Tessera share (bfloat16 has no NumPy dtype).
constexpr DTypeEntry kDTypes[] = {
    {"float32", {2, 32, 1}}, {"float16", {2, 16, 1}}, {"float64", {2, 64, 1}}, {"int8", {0, 8, 1}},
    {"int32", {0, 32, 1}},   {"int64", {0, 64, 1}},   {"uint8", {1, 8, 1}},    {"bool", {6, 8, 1}},
};

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

/// A DLPack tensor viewing a NumPy array's memory; the array stays alive until the
/// library calls the deleter (on any thread, so it takes the GIL; after interpreter
/// shutdown the reference is leaked instead).
struct NumpyView {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  PyObject* array;
};

void DeleteNumpyView(DLManagedTensor* managed) {
  auto* view = static_cast<NumpyView*>(managed->manager_ctx);
  if (Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    Py_DECREF(view->array);
  }
  delete view;
}

/// A DLPack tensor wrapping a producer's (PyTorch's, NumPy's): the producer's deleter may
/// touch Python, so it runs under the GIL (and not at all after interpreter shutdown).
void DeleteForeign(DLManagedTensor* managed) {
  auto* inner = static_cast<DLManagedTensor*>(managed->manager_ctx);
  if (Py_IsInitialized() && inner->deleter) {
    py::gil_scoped_acquire gil;
    inner->deleter(inner);
  }
  delete managed;
}

}  // namespace

PyExecutable MakePyExecutable(TsExecutable exe) {
  PyExecutable e{Shared<TsExecutable, TsExecutableDestroy>(exe)};
  Check(TsExecutableGetNumOutputs(exe, &e.num_outputs));
  return e;
}

std::string DTypeName(TsDType dtype) {
  if (dtype.code == 4 && dtype.bits == 16) return "bfloat16";
  for (const DTypeEntry& e : kDTypes)
    if (e.dtype.code == dtype.code && e.dtype.bits == dtype.bits) return e.name;
  return "unknown";
}

Shared<TsNDArray, TsNDArrayDestroy> NDArrayFromDLPack(py::handle obj, const std::string& what) {
  py::object capsule;
  if (PyCapsule_CheckExact(obj.ptr())) {
    capsule = py::reinterpret_borrow<py::object>(obj);
  } else if (py::hasattr(obj, "__dlpack__")) {
    capsule = obj.attr("__dlpack__")();
  } else {
    Raise(TS_ERROR_TYPE, what + ": expected an object with __dlpack__ or a DLPack capsule, got a " +
                             TypeName(obj));
  }
  if (!PyCapsule_IsValid(capsule.ptr(), kCapsuleName))
    Raise(TS_ERROR_VALUE, what +
                              ": not an unused DLPack capsule (a \"dltensor\" capsule can be "
                              "consumed only once)");
  auto* inner = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsuleName));
  auto* outer = new DLManagedTensor{inner->dl_tensor, inner, DeleteForeign};
  TsNDArray out = nullptr;
  TsStatus status = TsNDArrayFromDLPack(outer, &out);
  if (status != TS_OK) {
    delete outer;  // on failure the capsule still owns the producer's tensor
    Raise(status, what + ": " + TsGetLastError());
  }
  PyCapsule_SetName(capsule.ptr(), kUsedCapsuleName);
  return Shared<TsNDArray, TsNDArrayDestroy>(out);
}

Shared<TsNDArray, TsNDArrayDestroy> NDArrayFromPy(py::handle obj, const std::string& what,
                                                  bool copy) {
  py::object view;  // keeps a NumPy view of a tessera NDArray alive while it is copied
  if (py::isinstance<PyNDArray>(obj)) {
    const PyNDArray& a = obj.cast<const PyNDArray&>();
    if (!copy) return a.handle;
    view = NDArrayToPy(a.handle.get(), false);  // copied below through NumPy
    obj = view;
  } else if (!py::isinstance<py::array>(obj)) {
    // Any other tensor (PyTorch, ...) comes in zero-copy through DLPack.
    if (PyCapsule_CheckExact(obj.ptr()) || py::hasattr(obj, "__dlpack__")) {
      Shared<TsNDArray, TsNDArrayDestroy> a = NDArrayFromDLPack(obj, what);
      return copy ? NDArrayFromPy(NDArrayToPy(a.get(), false), what, true) : a;
    }
    Raise(TS_ERROR_TYPE,
          what + ": expected a numpy.ndarray or a tensor with __dlpack__, got a " + TypeName(obj));
  }
  auto array = py::reinterpret_borrow<py::array>(obj);
  std::string dtype_name = array.dtype().attr("name").cast<std::string>();
  const DTypeEntry* entry = nullptr;
  for (const DTypeEntry& e : kDTypes)
    if (dtype_name == e.name) entry = &e;
  if (!entry)
    Raise(TS_ERROR_TYPE, what + ": numpy dtype " + dtype_name +
                             " is not supported (use float32, float16, float64, int8, int32, "
                             "int64, uint8 or bool)");
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  char byteorder = array.dtype().attr("byteorder").cast<std::string>()[0];
  bool native = byteorder == '=' || byteorder == '|' || (byteorder == '<' && PY_LITTLE_ENDIAN) ||
                (byteorder == '>' && !PY_LITTLE_ENDIAN);
  int flags = array.flags();
  bool borrowable =
      native && (flags & py::array::c_style) && (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_);
  TsNDArray out = nullptr;
  if (!copy && borrowable) {
    auto* view = new NumpyView{};
    view->shape = shape;
    view->array = obj.inc_ref().ptr();
    DLTensor& t = view->managed.dl_tensor;
    t.data = const_cast<void*>(array.data());
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = {entry->dtype.code, entry->dtype.bits, entry->dtype.lanes};
    t.shape = view->shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    view->managed.manager_ctx = view;
    view->managed.deleter = DeleteNumpyView;
    TsStatus status = TsNDArrayFromDLPack(&view->managed, &out);
    if (status != TS_OK) {
      Py_DECREF(view->array);
      delete view;
      Raise(status, what + ": " + TsGetLastError());
    }
    return Shared<TsNDArray, TsNDArrayDestroy>(out);
  }
  // Copy through NumPy so strides and byte order are resolved by it; numpy.array keeps
  // rank 0 (ascontiguousarray would make it rank 1).
  py::object numpy = py::module_::import("numpy");
  py::array contiguous =
      numpy.attr("array")(obj, py::arg("dtype") = dtype_name, py::arg("order") = "C");
  Check(TsNDArrayCreate(shape.data(), static_cast<int32_t>(shape.size()), entry->dtype, &out));
  Shared<TsNDArray, TsNDArrayDestroy> result(out);
  void* data = nullptr;
  Check(TsNDArrayGetInfo(out, &data, nullptr, nullptr, nullptr));
  if (contiguous.nbytes()) std::memcpy(data, contiguous.data(), contiguous.nbytes());
  return result;
}

py::object NDArrayToPy(TsNDArray array, bool writeable) {
  void* data = nullptr;
  const int64_t* dims = nullptr;
  int32_t ndim = 0;
  TsDType dtype{};
  Check(TsNDArrayGetInfo(array, &data, &dims, &ndim, &dtype));
  std::vector<py::ssize_t> shape(dims, dims + ndim);
  if (dtype.code == 4 && dtype.bits == 16) {
    // bfloat16 is the top half of a float32.
    py::array_t<float> out(shape);
    const auto* in = static_cast<const uint16_t*>(data);
    for (py::ssize_t i = 0; i < out.size(); ++i) {
      uint32_t bits = static_cast<uint32_t>(in[i]) << 16;
      std::memcpy(out.mutable_data() + i, &bits, sizeof bits);
    }
    return std::move(out);
  }
  py::dtype np_dtype(DTypeName(dtype));
  size_t elements = 1;
  for (py::ssize_t d : shape) elements *= static_cast<size_t>(d);
  if (elements == 0) return py::array(np_dtype, shape);
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = dtype.bits / 8;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  // The exported DLPack tensor keeps the memory alive for as long as NumPy holds it.
  DLManagedTensor* managed = nullptr;
  Check(TsNDArrayToDLPack(array, &managed));
  py::capsule owner(managed, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  py::array out(np_dtype, shape, strides, data, owner);
  if (!writeable) out.attr("flags").attr("writeable") = false;
  return std::move(out);
}

}  // namespace tessera_py
