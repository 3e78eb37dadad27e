// Helpers every C++ test suite shares: matching errors and skipping what a build lacks.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera::testing {

/// Runs `fn`, expecting a tessera::Error of `kind` whose message contains every needle.
inline void ExpectError(const std::function<void()>& fn, ErrorKind kind,
                        const std::vector<std::string>& needles) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing: " << (needles.empty() ? "" : needles[0]);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << "message: " << e.what();
    for (const std::string& n : needles)
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << "message: " << e.what() << "\nexpected to contain: " << n;
  }
}

/// ExpectError with one needle.
inline void ExpectError(const std::function<void()>& fn, ErrorKind kind, const char* needle) {
  ExpectError(fn, kind, std::vector<std::string>{needle});
}

/// Whether this build registered backend `name` (dnnl and blas are optional).
inline bool HasBackend(const std::string& name) {
  return BackendRegistry::Global().Find(name) != nullptr;
}

}  // namespace tessera::testing

/// Skips the current test when this build has no backend `NAME` (a build configured with
/// TESSERA_WITH_DNNL=OFF or TESSERA_WITH_BLAS=OFF).
#define TS_SKIP_WITHOUT_BACKEND(NAME)                     \
  if (!::tessera::testing::HasBackend(NAME))              \
  GTEST_SKIP() << "this build has no '" << (NAME) << "' backend"
