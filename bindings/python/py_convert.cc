// Value conversions between Python and Tessera: attribute values and NumPy arrays
// (zero-copy in both directions where the memory layout allows).
#include <pybind11/numpy.h>

#include <cstring>

#include "bindings.h"
#include "tessera/runtime/dtype.h"

namespace tessera::python {

namespace {

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

/// numpy.generic, cached for the process (leaked on purpose, see ReleasePy).
py::handle NumpyGeneric() {
  static py::object* generic = new py::object(py::module_::import("numpy").attr("generic"));
  return *generic;
}

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

std::shared_ptr<py::object> SharePy(py::object obj) {
  return std::shared_ptr<py::object>(new py::object(std::move(obj)), ReleasePy);
}

AttrValue AttrFromPy(py::handle value, const std::string& what) {
  if (value.is_none()) return AttrValue();
  if (PyBool_Check(value.ptr())) return AttrValue(value.cast<bool>());
  if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow)
      TS_THROW(kValue) << what << ": integer " << py::str(value).cast<std::string>()
                       << " does not fit in 64 bits";
    return AttrValue(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(value.ptr())) return AttrValue(value.cast<double>());
  if (PyUnicode_Check(value.ptr())) return AttrValue(value.cast<std::string>());
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    std::vector<AttrValue> items;
    for (py::handle item : value) items.push_back(AttrFromPy(item, what));
    return AttrValue(std::move(items));
  }
  if (py::isinstance(value, NumpyGeneric()) || py::isinstance<py::array>(value))
    return AttrFromPy(value.attr("tolist")(), what);
  TS_THROW(kType) << what << ": cannot convert a Python " << TypeName(value)
                  << " to an attribute value (use None, bool, int, float, str or a list of them)";
}

py::object AttrToPy(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return py::none();
    case AttrValue::Kind::kBool:
      return py::bool_(value.AsBool());
    case AttrValue::Kind::kInt:
      return py::int_(value.AsInt());
    case AttrValue::Kind::kFloat:
      return py::float_(value.AsFloat());
    case AttrValue::Kind::kString:
      return py::str(value.AsString());
    case AttrValue::Kind::kArray: {
      py::tuple out(value.AsArray().size());
      for (size_t i = 0; i < value.AsArray().size(); ++i) out[i] = AttrToPy(value.AsArray()[i]);
      return std::move(out);
    }
  }
  return py::none();
}

Attrs AttrsFromPy(py::handle dict, const std::string& what) {
  Attrs attrs;
  if (dict.is_none()) return attrs;
  if (!PyDict_Check(dict.ptr()))
    TS_THROW(kType) << what << " must be a dict, got a " << TypeName(dict);
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
    if (!PyUnicode_Check(key.ptr()))
      TS_THROW(kType) << what << " keys must be strings, got a " << TypeName(key);
    std::string name = key.cast<std::string>();
    attrs.Set(name, AttrFromPy(value, what + " '" + name + "'"));
  }
  return attrs;
}

py::dict AttrsToPy(const Attrs& attrs) {
  py::dict out;
  for (const auto& [key, value] : attrs.items()) out[py::str(key)] = AttrToPy(value);
  return out;
}

NDArray NDArrayFromPy(py::handle obj, const std::string& what, bool copy) {
  if (py::isinstance<NDArray>(obj)) {
    const NDArray& a = obj.cast<const NDArray&>();
    return copy ? a.Copy() : a;
  }
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
