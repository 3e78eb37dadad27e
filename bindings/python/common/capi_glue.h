// Private glue shared by both extension modules, over the C API only: status checks that
// raise tessera.error's classes, owned handles, text from string callbacks, Python
// exceptions carried through C callbacks, and NumPy/DLPack conversions of TsNDArray.
#pragma once

#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/c_runtime_api.h"

namespace tessera_py {

namespace py = pybind11;

/// Looks up the exception classes of `tessera.error` (pure Python), once per extension.
void InitErrorClasses();
/// The tessera.error class of a status (TS_ERROR_INVALID_ARGUMENT is a value error).
py::handle ErrorClass(TsStatus status);
/// Raises ErrorClass(status) with `message`.
[[noreturn]] void Raise(TsStatus status, const std::string& message);
/// Raises for a failed C call: the Python exception a Python callback raised inside it when
/// there is one (so the user's own exception comes out unchanged), else ErrorClass(status)
/// with TsGetLastError().
[[noreturn]] void RaiseStatus(TsStatus status);
/// Drops the Python exception a callback left when the library recovered from its failure.
void ForgetPendingError();
/// Returns on TS_OK, raises otherwise. A Python exception a callback raised stays pending
/// through successful calls (a failure hook may call the library before the failing call
/// returns) and is re-raised by the failure that reports its message.
inline void Check(TsStatus status) {
  if (status != TS_OK) RaiseStatus(status);
}

/// Stores the Python exception a callback raised for RaiseStatus, sets the C last error to
/// its message and returns its status (a tessera error keeps its own; any other exception
/// is the caller's own and reports TS_ERROR_VALUE). Call with the GIL held.
TsStatus StorePythonError(py::error_already_set& e) noexcept;

/// Runs `body` (Python code called back from C) and returns TS_OK, or stores the Python
/// exception it raised (StorePythonError) and returns its status. Takes the GIL, so it may
/// be called from any thread.
template <typename F>
TsStatus CallPython(F&& body) noexcept {
  py::gil_scoped_acquire gil;
  try {
    body();
    return TS_OK;
  } catch (py::error_already_set& e) {
    return StorePythonError(e);
  } catch (const std::exception& e) {
    TsSetLastError(e.what());
    return TS_ERROR_INTERNAL;
  }
}

/// A TsStringCallback appending to the std::string at `user_data`.
void AppendText(const char* data, size_t length, void* user_data);
/// A TsStringCallback appending each call as an element to the std::vector<std::string> at
/// `user_data`.
void AppendToStrings(const char* data, size_t length, void* user_data);
/// The text a C function hands a string callback: `call(AppendText, &text)` must return
/// its status.
template <typename F>
std::string Text(F&& call) {
  std::string text;
  Check(call(&AppendText, static_cast<void*>(&text)));
  return text;
}
/// A Python str from a borrowed TsStringRef.
inline py::str Str(TsStringRef ref) {
  return py::str(ref.data ? ref.data : "", ref.length);
}

/// A shared owner of a C handle: releases it with `Destroy` once, when the last copy goes.
template <typename H, void (*Destroy)(H)>
class Shared {
 public:
  Shared() = default;
  /// Takes ownership of `handle` (a new reference or object from the library).
  explicit Shared(H handle)
      : ptr_(handle ? std::shared_ptr<std::remove_pointer_t<H>>(handle, Destroy) : nullptr) {}
  H get() const { return ptr_.get(); }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  std::shared_ptr<std::remove_pointer_t<H>> ptr_;
};

/// An owned reference to a reference-counted C handle (an IR node, a pass, a context):
/// releases it with `Destroy`; a copy takes a new reference with `Retain`. No allocation of
/// its own — node wrappers are made by the thousand when Python walks IR, where a
/// shared_ptr's control block would cost as much as the call.
template <typename H, void (*Destroy)(H), H (*Retain)(H)>
class Owned {
 public:
  Owned() = default;
  /// Takes ownership of `handle` (a new reference from the library).
  explicit Owned(H handle) : handle_(handle) {}
  Owned(const Owned& other) : handle_(other.handle_ ? Retain(other.handle_) : nullptr) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  ~Owned() {
    if (handle_) Destroy(handle_);
  }
  H get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

 private:
  H handle_ = nullptr;
};

/// tessera._runtime.NDArray: an owned TsNDArray.
struct PyNDArray {
  Shared<TsNDArray, TsNDArrayDestroy> handle;
};
/// tessera._runtime.Executable (tessera._core's build returns it too).
struct PyExecutable {
  Shared<TsExecutable, TsExecutableDestroy> handle;
  size_t num_outputs = 0;  ///< fixed for the executable; read once, not per run
};
/// Takes ownership of `exe` (a new executable from the library).
PyExecutable MakePyExecutable(TsExecutable exe);

/// A new TsNDArray over a NumPy array's memory when it is C-contiguous, aligned and native
/// endian (the array is kept alive), over a tensor's __dlpack__ or a DLPack capsule
/// (zero-copy), a tessera NDArray (shared), or else a contiguous copy; with `copy`, always
/// a copy. Unsupported dtypes and other objects raise a type error naming `what`.
Shared<TsNDArray, TsNDArrayDestroy> NDArrayFromPy(py::handle obj, const std::string& what,
                                                  bool copy);
/// A NumPy array viewing the tensor's memory (kept alive by the array). bfloat16 has no
/// NumPy dtype and becomes a float32 copy.
py::object NDArrayToPy(TsNDArray array, bool writeable);
/// A zero-copy TsNDArray over a DLPack capsule or an object's __dlpack__().
Shared<TsNDArray, TsNDArrayDestroy> NDArrayFromDLPack(py::handle obj, const std::string& what);
/// The dtype name of a TsDType ("float32").
std::string DTypeName(TsDType dtype);

/// Registers tessera._runtime.NDArray and its functions.
void BindNDArray(py::module_& m);
/// Registers tessera._runtime.Executable, load and the .npy functions.
void BindExecutable(py::module_& m);

}  // namespace tessera_py
