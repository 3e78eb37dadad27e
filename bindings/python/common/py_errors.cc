// Errors across the C API: statuses become tessera.error's classes, and a Python exception
// raised in a callback the library called travels back out unchanged.
#include "capi_glue.h"

namespace tessera_py {

namespace {

// Classes by status (index = TsStatus), looked up once; the references are deliberately
// leaked so that raising never touches a finalised object.
constexpr int kNumStatuses = TS_ERROR_INVALID_ARGUMENT + 1;
PyObject* g_classes[kNumStatuses] = {};

// The exception a Python callback raised during the current C call. One slot for the
// process, guarded by the GIL (it is set and read with the GIL held): a callback may run on
// a library worker thread while the call that will fail was made on another. Never
// destroyed: a leftover exception must not be released after the interpreter is gone.
std::unique_ptr<py::error_already_set>& g_pending = *new std::unique_ptr<py::error_already_set>;
// The message the library was given for it (TsSetLastError).
std::string& g_pending_message = *new std::string;

}  // namespace

void InitErrorClasses() {
  if (g_classes[TS_ERROR_PARSE]) return;
  py::module_ errors = py::module_::import("tessera.error");
  py::dict by_kind = errors.attr("BY_KIND");
  for (int s = 1; s < kNumStatuses; ++s) {
    // An invalid argument (a None where a handle is required) is a value error.
    const char* name =
        TsStatusName(s == TS_ERROR_INVALID_ARGUMENT ? TS_ERROR_VALUE : static_cast<TsStatus>(s));
    if (!by_kind.contains(name))
      throw std::runtime_error(std::string("tessera.error.BY_KIND has no class for '") + name +
                               "'");
    g_classes[s] = py::object(by_kind[name]).inc_ref().ptr();
  }
}

py::handle ErrorClass(TsStatus status) {
  int s = static_cast<int>(status);
  return g_classes[s > 0 && s < kNumStatuses ? s : TS_ERROR_INTERNAL];
}

void Raise(TsStatus status, const std::string& message) {
  PyErr_SetString(ErrorClass(status).ptr(), message.c_str());
  throw py::error_already_set();
}

void ForgetPendingError() {
  if (g_pending) g_pending.reset();  // callers hold the GIL
}

void RaiseStatus(TsStatus status) {
  std::string message = TsGetLastError();
  // The library reports a callback's failure with the callback's message, perhaps prefixed
  // with where it happened: then the user's own exception is what happened. A pending
  // exception the library recovered from (another message) is dropped.
  if (g_pending && message.find(g_pending_message) != std::string::npos) {
    std::unique_ptr<py::error_already_set> pending = std::move(g_pending);
    throw py::error_already_set(std::move(*pending));
  }
  ForgetPendingError();
  Raise(status, message);
}

TsStatus StorePythonError(py::error_already_set& e) noexcept {
  try {
    TsStatus status = TS_ERROR_VALUE;
    for (int k = 1; k < kNumStatuses; ++k)
      if (g_classes[k] && k != TS_ERROR_INVALID_ARGUMENT && e.matches(g_classes[k])) {
        status = static_cast<TsStatus>(k);
        break;
      }
    std::string message = e.what();
    g_pending = std::make_unique<py::error_already_set>(std::move(e));
    g_pending_message = message;
    TsSetLastError(message.c_str());
    return status;
  } catch (const std::exception& inner) {
    TsSetLastError(inner.what());
    return TS_ERROR_INTERNAL;
  }
}

void AppendText(const char* data, size_t length, void* user_data) {
  static_cast<std::string*>(user_data)->append(data, length);
}

void AppendToStrings(const char* data, size_t length, void* user_data) {
  static_cast<std::vector<std::string>*>(user_data)->emplace_back(data, length);
}

}  // namespace tessera_py
