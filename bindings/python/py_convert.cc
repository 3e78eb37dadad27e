// Value conversions between Python and Tessera: attribute values and NumPy arrays
// (zero-copy in both directions where the memory layout allows).
#include <pybind11/numpy.h>

#include <cstring>

#include "bindings.h"
#include "tessera/runtime/dtype.h"

namespace tessera::python {

namespace {

/// numpy.generic, cached for the process (leaked on purpose, see ReleasePy).
py::handle NumpyGeneric() {
  static py::object* generic = new py::object(py::module_::import("numpy").attr("generic"));
  return *generic;
}

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

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

}  // namespace tessera::python
