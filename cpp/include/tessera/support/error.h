// The one error type of Tessera: a kind plus a message a user can act on.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera {

/// What went wrong, coarsely; the C API maps these to status codes and Python to
/// exception classes.
enum class ErrorKind {
  kParse,        ///< malformed text, JSON or model file
  kType,         ///< type or shape mismatch
  kValue,        ///< a bad value: attribute, option, argument
  kNotFound,     ///< unknown op, function, key, file
  kUnsupported,  ///< valid input this build cannot handle
  kIO,           ///< file system or process failure
  kInternal,     ///< a broken invariant: a Tessera bug
};

/// Human-readable name of an ErrorKind ("parse error", ...).
const char* ErrorKindName(ErrorKind kind);

/// Exception thrown for every user-facing failure.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  /// The category of this failure.
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
/// Builds an error message with `<<` and throws it when destroyed.
class ErrorBuilder {
 public:
  explicit ErrorBuilder(ErrorKind kind) : kind_(kind) {}
  template <typename T>
  ErrorBuilder& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }
  [[noreturn]] ~ErrorBuilder() noexcept(false) { throw Error(kind_, stream_.str()); }

 private:
  ErrorKind kind_;
  std::ostringstream stream_;
};
}  // namespace detail

}  // namespace tessera

/// Throws a tessera::Error of the given kind: `TS_THROW(kType) << "op 'add': ...";`
#define TS_THROW(KIND) ::tessera::detail::ErrorBuilder(::tessera::ErrorKind::KIND)

/// Checks an internal invariant; failure is a Tessera bug, reported as kInternal.
#define TS_ICHECK(COND) \
  if (COND) {           \
  } else                \
    TS_THROW(kInternal) << __FILE__ << ":" << __LINE__ << ": check failed: " #COND ": "
