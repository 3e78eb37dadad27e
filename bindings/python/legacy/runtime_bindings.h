// Transitional glue of tessera._core while its bindings move onto the C API: NumPy and
// DLPack conversions of C++ NDArrays and the translation of C++ errors.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/executable.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::python {

namespace py = pybind11;

/// A shared reference to a Python object that may be released on any thread and after
/// interpreter shutdown (then it is leaked rather than touched).
std::shared_ptr<py::object> SharePy(py::object obj);

/// An NDArray over a NumPy array's memory when it is C-contiguous, aligned and native
/// endian (the array is kept alive), else over a contiguous copy. With `copy`, always a
/// copy. Unsupported dtypes and non-arrays throw a type error naming `what`.
NDArray NDArrayFromPy(py::handle array, const std::string& what, bool copy);
/// A NumPy array viewing the NDArray's memory (kept alive by a capsule). bfloat16 has no
/// NumPy dtype and is converted to a float32 copy.
py::object NDArrayToPy(const NDArray& array, bool writeable);

/// True for a DLPack capsule or an object with __dlpack__ (a torch tensor, ...).
bool HasDLPack(py::handle obj);
/// Zero-copy NDArray over a DLPack capsule or an object's __dlpack__() (kept alive until
/// the last NDArray copy is gone); errors name `what`.
NDArray NDArrayFromDLPack(py::handle obj, const std::string& what);

/// Looks up the exception classes of `tessera.error` (pure Python), once per extension.
void InitErrorClasses();
/// Raises TesseraConfigError (TesseraNotFoundError and AttributeError) carrying `e`.
[[noreturn]] void RaiseConfigError(const Error& e);

/// Registers the translation of tessera::Error into the classes by ErrorKind.
void BindErrors(py::module_& m);

}  // namespace tessera::python
