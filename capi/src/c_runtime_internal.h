// Shared internals of the runtime C API's source files (and the compiler's on top): the
// runtime handle structs, the error guard and small helpers. Not installed.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/c_runtime_api.h"
#include "tessera/runtime/executable.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

struct TsNDArray_ {
  tessera::NDArray array;
};
/// A compiled model and the executor that runs it (it owns the arena and thread pool).
struct TsExecutable_ {
  std::shared_ptr<tessera::runtime::Executable> exe;
  std::unique_ptr<tessera::runtime::Executor> executor;
};

namespace tessera::capi {

/// The status code of an error kind.
TsStatus StatusOf(ErrorKind kind);

/// Stores `message` as this thread's last error and returns `status`.
TsStatus Fail(TsStatus status, std::string message);

/// This thread's last error message.
const char* LastError();

/// How many times this thread's last error has been set (Fail, TsSetLastError): tells
/// whether a failing callback set a message of its own.
uint64_t ErrorSerial();

/// ErrorSerial() when the innermost Guard on this thread began.
inline thread_local uint64_t guard_error_serial = 0;

/// Runs `body`, translating every exception into a status; nothing escapes to C.
template <typename F>
TsStatus Guard(F&& body) {
  struct Restore {
    uint64_t outer = guard_error_serial;
    ~Restore() { guard_error_serial = outer; }
  } restore;
  guard_error_serial = ErrorSerial();
  try {
    body();
    return TS_OK;
  } catch (const Error& e) {
    return Fail(StatusOf(e.kind()), e.what());
  } catch (const nlohmann::json::exception& e) {
    return Fail(TS_ERROR_PARSE, std::string("invalid JSON: ") + e.what());
  } catch (const std::bad_alloc&) {
    return Fail(TS_ERROR_INTERNAL, "out of memory");
  } catch (const std::exception& e) {
    return Fail(TS_ERROR_INTERNAL, e.what());
  } catch (...) {
    return Fail(TS_ERROR_INTERNAL, "unknown C++ exception");
  }
}

/// The C API function running `Guard(function, ...)` on this thread ("" outside one), so
/// that checks inside its body name it (`__func__` in a lambda is "operator()").
inline thread_local const char* current_function = "";

/// Guard for the body of C API function `function`, which checks inside name.
template <typename F>
TsStatus Guard(const char* function, F&& body) {
  const char* outer = current_function;
  current_function = function;
  TsStatus status = Guard(std::forward<F>(body));
  current_function = outer;
  return status;
}

/// Passes `text` to `callback` in one piece.
inline void Emit(const std::string& text, TsStringCallback callback, void* user_data) {
  callback(text.data(), text.size(), user_data);
}

/// Inputs given as parallel name/tensor arrays, by name; throws a value error for a NULL
/// entry or a name given twice.
std::map<std::string, NDArray> NamedInputs(const char* const* names, const TsNDArray* inputs,
                                           size_t num_inputs);

/// The Tessera dtype of a C dtype (DLPack's encoding); TS_ERROR_UNSUPPORTED, prefixed with
/// `where` when given, for one Tessera does not have.
DType DTypeFromC(TsDType dtype, const char* where = nullptr);
/// The C dtype of a Tessera dtype.
TsDType DTypeToC(DType dtype);

/// Wraps `exe` with an executor of `options`.
TsExecutable MakeExecutable(std::shared_ptr<runtime::Executable> exe,
                            runtime::ExecutorOptions options);

/// Hands `results` to the caller as new tensors in `outputs` (copying any that alias an
/// input's memory); throws a value error when more than `max_outputs`.
void StoreOutputs(std::vector<NDArray> results, const TsNDArray* inputs, size_t num_inputs,
                  TsNDArray* outputs, size_t max_outputs, size_t* num_outputs);

}  // namespace tessera::capi

/// Returns TS_ERROR_INVALID_ARGUMENT naming the calling function and `PTR` when it is NULL.
#define TS_REQUIRE(PTR)                                   \
  if (!(PTR))                                             \
  return ::tessera::capi::Fail(TS_ERROR_INVALID_ARGUMENT, \
                               std::string(__func__) + ": " #PTR " must not be NULL")

/// Checks the run-style argument arrays shared by Run, Benchmark and Profile: the arrays
/// and every entry must be non-NULL (TS_ERROR_INVALID_ARGUMENT naming the entry).
#define TS_REQUIRE_INPUTS()                                                                    \
  if (num_inputs) {                                                                            \
    TS_REQUIRE(input_names);                                                                   \
    TS_REQUIRE(inputs);                                                                        \
    for (size_t i_ = 0; i_ < num_inputs; ++i_)                                                 \
      if (!input_names[i_] || !inputs[i_])                                                     \
        return ::tessera::capi::Fail(TS_ERROR_INVALID_ARGUMENT,                                \
                                     std::string(__func__) + ": input " + std::to_string(i_) + \
                                         " has a NULL name or array");                         \
  }
