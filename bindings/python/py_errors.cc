// Exception classes of the tessera package and the translation of tessera::Error into
// them by ErrorKind.
#include <pybind11/eval.h>

#include "bindings.h"
#include "tessera/support/error.h"

namespace tessera::python {

namespace {

// The classes live for the life of the process (references are deliberately leaked so
// that translation never touches a finalised object).
PyObject* g_classes[8] = {};

PyObject* ClassFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse:
      return g_classes[0];
    case ErrorKind::kType:
      return g_classes[1];
    case ErrorKind::kValue:
      return g_classes[2];
    case ErrorKind::kNotFound:
      return g_classes[3];
    case ErrorKind::kUnsupported:
      return g_classes[4];
    case ErrorKind::kIO:
      return g_classes[5];
    case ErrorKind::kInternal:
      return g_classes[6];
  }
  return g_classes[6];
}

// Multiple inheritance from built-in exceptions (TesseraParseError is also a ValueError)
// is simplest to declare in Python itself.
constexpr const char* kErrorClasses = R"(
class TesseraError(Exception):
    """Base of every error raised by Tessera."""

class TesseraParseError(TesseraError, ValueError):
    """Malformed text, JSON, pipeline or model file."""

class TesseraTypeError(TesseraError, TypeError):
    """A type or shape mismatch."""

class TesseraValueError(TesseraError, ValueError):
    """A bad value: attribute, option or argument."""

class TesseraNotFoundError(TesseraError, KeyError):
    """An unknown op, function, pass, key or file."""
    __str__ = BaseException.__str__

class TesseraConfigError(TesseraNotFoundError, AttributeError):
    """An unknown PassContext config key (an AttributeError too, as in TVM)."""

class TesseraUnsupportedError(TesseraError, NotImplementedError):
    """Valid input this build cannot handle."""

class TesseraIOError(TesseraError, OSError):
    """A file system or process failure."""

class TesseraInternalError(TesseraError, RuntimeError):
    """A broken invariant: a Tessera bug."""
)";

}  // namespace

void BindErrors(py::module_& m) {
  py::dict ns;
  ns["__builtins__"] = py::module_::import("builtins");
  ns["__name__"] = "tessera";
  py::exec(kErrorClasses, ns);
  const char* names[] = {"TesseraParseError",    "TesseraTypeError",        "TesseraValueError",
                         "TesseraNotFoundError", "TesseraUnsupportedError", "TesseraIOError",
                         "TesseraInternalError", "TesseraConfigError"};
  for (int i = 0; i < 8; ++i) {
    py::object cls = ns[names[i]];
    g_classes[i] = cls.inc_ref().ptr();
    m.attr(names[i]) = cls;
  }
  m.attr("TesseraError") = ns["TesseraError"];
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(ClassFor(e.kind()), e.what());
    }
  });
}

/// Raises TesseraConfigError (a TesseraNotFoundError and AttributeError) for `e`.
[[noreturn]] void RaiseConfigError(const Error& e) {
  PyErr_SetString(g_classes[7], e.what());
  throw py::error_already_set();
}

}  // namespace tessera::python
