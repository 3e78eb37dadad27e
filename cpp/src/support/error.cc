// Names of error kinds.
#include "tessera/support/error.h"

namespace tessera {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse:
      return "parse error";
    case ErrorKind::kType:
      return "type error";
    case ErrorKind::kValue:
      return "value error";
    case ErrorKind::kNotFound:
      return "not found";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kIO:
      return "I/O error";
    case ErrorKind::kInternal:
      return "internal error";
  }
  return "error";
}

}  // namespace tessera
