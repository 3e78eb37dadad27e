// The translation of tessera::Error into the exception classes `tessera.error` defines, by
// ErrorKind name (the classes themselves are plain Python).
#include "runtime_bindings.h"

namespace tessera::python {

namespace {

constexpr ErrorKind kKinds[] = {ErrorKind::kParse,       ErrorKind::kType, ErrorKind::kValue,
                                ErrorKind::kNotFound,    ErrorKind::kUnsupported,
                                ErrorKind::kIO,          ErrorKind::kInternal};
constexpr int kNumKinds = sizeof(kKinds) / sizeof(kKinds[0]);

// The classes by ErrorKind, then TesseraConfigError. They live for the life of the process
// (references are deliberately leaked so that translation never touches a finalised object).
PyObject* g_classes[kNumKinds + 1] = {};

PyObject* ClassFor(ErrorKind kind) {
  for (int i = 0; i < kNumKinds; ++i)
    if (kKinds[i] == kind) return g_classes[i];
  return g_classes[kNumKinds - 1];  // internal
}

}  // namespace

void InitErrorClasses() {
  if (g_classes[0]) return;
  py::module_ errors = py::module_::import("tessera.error");
  py::dict by_kind = errors.attr("BY_KIND");
  for (int i = 0; i < kNumKinds; ++i) {
    const char* name = ErrorKindName(kKinds[i]);
    if (!by_kind.contains(name))
      throw std::runtime_error(std::string("tessera.error.BY_KIND has no class for '") + name + "'");
    g_classes[i] = py::object(by_kind[name]).inc_ref().ptr();
  }
  g_classes[kNumKinds] = py::object(errors.attr("TesseraConfigError")).inc_ref().ptr();
}

void BindErrors(py::module_& m) {
  InitErrorClasses();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(ClassFor(e.kind()), e.what());
    }
  });
}

[[noreturn]] void RaiseConfigError(const Error& e) {
  PyErr_SetString(g_classes[kNumKinds], e.what());
  throw py::error_already_set();
}

}  // namespace tessera::python
