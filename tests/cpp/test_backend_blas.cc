// The BLAS backend: dense / matmul / batch_matmul partitions (with bias and relu) against
// the interpreter on odd and even shapes, through save -> load in a fresh process, and
// clear errors for what it cannot run.
#include <gtest/gtest.h>

#include <array>

#include "backend_test_util.h"
#include "runtime_test_util.h"

namespace tessera {
namespace {

using testing_backend::CheckBackend;
using testing_backend::Partitioned;
using testing_backend::T;
using testing_backend::WithConstants;

bool HaveBlas() {
  return testing_backend::HaveBackend("blas");
}

std::string Dense(int m, int k, int n, const std::string& epilogue) {
  std::string M = std::to_string(m), K = std::to_string(k), N = std::to_string(n);
  return Partitioned("blas", "%x: " + T(M + ", " + K), "%x",
                     "%x: " + T(M + ", " + K) + ", %w: " + T(N + ", " + K) + ", %b: " + T(N),
                     "  %0 = fn (%p0: " + T(M + ", " + K) + ", %p1: " + T(N + ", " + K) +
                         ", %p2: " + T(N) +
                         ", Composite=\"blas.dense_bias\") {\n    %1 = nn.dense(%p0, %p1);\n    " +
                         epilogue + "\n  };\n  %0(%x, %w, %b)");
}

TEST(BackendBlas, IsRegisteredWithItsCoreName) {
  // Registered exactly when the build was configured with it (not silently missing).
  ASSERT_EQ(HaveBlas(), TESSERA_TEST_EXPECT_BLAS != 0);
  if (!HaveBlas()) return;
  // The OpenBLAS kernel family it runs with (OPENBLAS_CORETYPE or autodetected).
  const std::string& d = BackendRegistry::Global().Find("blas")->description;
  EXPECT_NE(d.find("OpenBLAS core "), std::string::npos) << d;
  EXPECT_EQ(d.find("core unknown"), std::string::npos) << d;
}

TEST(BackendBlas, DenseBiasOddAndEvenShapes) {
  if (!HaveBlas()) GTEST_SKIP() << "TESSERA_WITH_BLAS=OFF";
  for (auto [m, k, n] : std::vector<std::array<int, 3>>{{3, 17, 9}, {4, 32, 8}, {1, 5, 1}}) {
    CheckBackend(WithConstants(Dense(m, k, n, "nn.bias_add(%1, %p2, axis=-1)"), "blas_0", {1, 2}),
                 "blas_0", "blas");
    CheckBackend(
        WithConstants(Dense(m, k, n, "%2 = add(%1, %p2);\n    nn.relu(%2)"), "blas_0", {1, 2}),
        "blas_0", "blas");
  }
}

TEST(BackendBlas, DenseWithWeightsAsInputs) {
  if (!HaveBlas()) GTEST_SKIP() << "TESSERA_WITH_BLAS=OFF";
  std::string text = Partitioned("blas", "%x: " + T("5, 7") + ", %w: " + T("3, 7"), "%x, %w",
                                 "%x: " + T("5, 7") + ", %w: " + T("3, 7"), "  nn.dense(%x, %w)");
  CheckBackend(InferTypes(ParseModule(text)), "blas_0", "blas");
}

TEST(BackendBlas, MatmulTransposesAndBatchMatmulBroadcast) {
  if (!HaveBlas()) GTEST_SKIP() << "TESSERA_WITH_BLAS=OFF";
  struct Case {
    std::string a, b, call;
  };
  std::vector<Case> cases = {
      {"2, 5, 7", "7, 3", "nn.matmul(%a, %b)"},
      {"2, 5, 7", "3, 7", "nn.matmul(%a, %b, transpose_b=True)"},
      {"2, 7, 5", "7, 4", "nn.matmul(%a, %b, transpose_a=True)"},
      {"3, 5, 6", "3, 4, 6", "nn.batch_matmul(%a, %b)"},
      {"3, 5, 6", "1, 6, 4", "nn.batch_matmul(%a, %b, transpose_b=False)"},
      {"2, 6, 5", "2, 4, 6", "nn.batch_matmul(%a, %b, transpose_a=True)"},
  };
  for (const Case& c : cases) {
    std::string params = "%a: " + T(c.a) + ", %b: " + T(c.b);
    CheckBackend(
        InferTypes(ParseModule(Partitioned("blas", params, "%a, %b", params, "  " + c.call))),
        "blas_0", "blas");
  }
}

TEST(BackendBlas, SavedExecutableRunsInAFreshProcess) {
  if (!HaveBlas()) GTEST_SKIP() << "TESSERA_WITH_BLAS=OFF";
  IRModule mod = WithConstants(Dense(6, 10, 5, "nn.bias_add(%1, %p2, axis=-1)"), "blas_0", {1, 2});
  auto exe = CheckBackend(mod, "blas_0", "blas");
  testing_backend::ExpectSameAfterLoadInChild(exe, mod);
}

TEST(BackendBlas, UnsupportedDtypeAndOpAreClearErrors) {
  if (!HaveBlas()) GTEST_SKIP() << "TESSERA_WITH_BLAS=OFF";
  std::string f64 = Partitioned(
      "blas", "%x: " + T("2, 3", "float64") + ", %w: " + T("4, 3", "float64"), "%x, %w",
      "%x: " + T("2, 3", "float64") + ", %w: " + T("4, 3", "float64"), "  nn.dense(%x, %w)");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(f64)), "native"); },
                               ErrorKind::kUnsupported, {"blas", "float32", "float64"});
  std::string soft =
      Partitioned("blas", "%x: " + T("2, 3"), "%x", "%x: " + T("2, 3"), "  nn.softmax(%x)");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(soft)), "native"); },
                               ErrorKind::kUnsupported, {"blas", "nn.softmax"});
}

TEST(BackendBlas, UnknownCompilerIsAClearError) {
  std::string text =
      Partitioned("nolib", "%x: " + T("2, 3"), "%x", "%x: " + T("2, 3"), "  nn.relu(%x)");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(text)), "native"); },
                               ErrorKind::kUnsupported, {"@nolib_0", "Compiler=\"nolib\""});
}

}  // namespace
}  // namespace tessera
