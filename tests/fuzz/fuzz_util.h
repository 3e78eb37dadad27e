// What the fuzz harnesses share: how an input may be refused (a tessera::Error) and what
// counts as a bug (any other exception, an internal error, a failed round trip).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/support/error.h"

namespace tessera::fuzz {

/// Stops the fuzzer with `what` and `detail` on stderr; libFuzzer saves the input.
[[noreturn]] inline void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n*** fuzz harness: %s\n%s\n", what, detail.c_str());
  std::abort();
}

/// Runs `body` on one input. A tessera::Error refuses the input, which is fine, unless it
/// is an internal error: a broken invariant is a bug whatever the input. Any other
/// exception escapes, and libFuzzer reports the uncaught exception as a crash.
template <typename Body>
int RunOne(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInternal) Fail("internal error", e.what());
    // To see why inputs are refused (a seed should get far): TESSERA_FUZZ_VERBOSE=1.
    static const bool verbose = std::getenv("TESSERA_FUZZ_VERBOSE") != nullptr;
    if (verbose) std::fprintf(stderr, "refused: %s: %s\n", ErrorKindName(e.kind()), e.what());
  }
  return 0;
}

/// Runs `step`, which must succeed on what Tessera itself produced: any error is a bug.
template <typename Step>
auto MustSucceed(const char* what, Step&& step) {
  try {
    return step();
  } catch (const Error& e) {
    Fail(what, std::string(ErrorKindName(e.kind())) + ": " + e.what());
  }
}

}  // namespace tessera::fuzz
