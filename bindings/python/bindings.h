// Private glue shared by the tessera._core binding files (on top of runtime_bindings.h): the holder and caster that let
// pybind11 pass intrusive `Ref<const T>` handles, GIL-safe Python references, value
// conversions (attributes, NumPy arrays) and the per-concept Bind functions.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "legacy/runtime_bindings.h"
#include "tessera/ir/attrs.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"
#include "tessera/support/object.h"

namespace tessera::python {

namespace py = pybind11;

/// The pybind11 holder of IR nodes: a strong intrusive reference. Node classes are
/// immutable, so the const in `Ref<const T>` is dropped only to satisfy pybind11.
template <typename T>
class Holder {
 public:
  Holder() = default;
  explicit Holder(T* ptr) : ref_(ptr) {}
  T* get() const { return ref_.get(); }

 private:
  Ref<T> ref_;
};

/// A holder for a node handle returned by a builder.
template <typename T>
Holder<T> Hold(const Ref<const T>& ref) {
  return Holder<T>(const_cast<T*>(ref.get()));
}

/// Converts a Python value (None, bool, int, float, str, nested list/tuple, NumPy scalar)
/// to an attribute value; throws a type error naming `what` otherwise.
AttrValue AttrFromPy(py::handle value, const std::string& what);
/// Converts an attribute value to Python (arrays become tuples).
py::object AttrToPy(const AttrValue& value);
/// A dict (or None) of attribute values to Attrs, in the dict's order.
Attrs AttrsFromPy(py::handle dict, const std::string& what);
/// Attrs to an ordered dict.
py::dict AttrsToPy(const Attrs& attrs);

/// Per-concept registration, called in this order by the module entry point.
void BindIR(py::module_& m);
/// Tensor-level IR (expressions, buffers, statements) into the `tir` submodule; BindIR adds
/// the PrimFunc class and `tir.prim_func`.
void BindTir(py::module_& m);
void BindIRModule(py::module_& m);
void BindOp(py::module_& m);
void BindTransform(py::module_& m);
void BindInstrument(py::module_& m);
void BindRuntime(py::module_& m);
void BindBuild(py::module_& m);
void BindPattern(py::module_& m);
void BindCollage(py::module_& m);
/// Collage's search, estimators and reports, into the `collage` submodule.
void BindCollageSearch(py::module_& m);
/// tessera._core.collage: CostDatabase, machine_fingerprint.
void BindCostDatabase(py::module_& m);
void BindFrontend(py::module_& m);

}  // namespace tessera::python

PYBIND11_DECLARE_HOLDER_TYPE(T, tessera::python::Holder<T>, true)

namespace pybind11::detail {

/// Passes `Ref<const T>` by way of the registered Holder<T>; None maps to a null handle.
/// Returned nodes become instances of their most derived bound class.
template <typename T>
struct type_caster<tessera::Ref<const T>> {
  using HolderCaster = copyable_holder_caster<T, tessera::python::Holder<T>>;
  PYBIND11_TYPE_CASTER(tessera::Ref<const T>, make_caster<T>::name);

  bool load(handle src, bool convert) {
    if (src.is_none()) {
      value = nullptr;
      return true;
    }
    HolderCaster caster;
    if (!caster.load(src, convert)) return false;
    value = tessera::Ref<const T>(static_cast<tessera::python::Holder<T>&>(caster).get());
    return true;
  }

  static handle cast(const tessera::Ref<const T>& src, return_value_policy policy, handle parent) {
    if (!src) return none().release();
    tessera::python::Holder<T> holder(const_cast<T*>(src.get()));
    return HolderCaster::cast(holder, policy, parent);
  }
};

}  // namespace pybind11::detail
