// The oneDNN backend: every op and fusion it claims (conv2d with groups / strides /
// padding / dilation, dense / matmul / batch_matmul, bias and post-ops, pooling, softmax,
// norms, elementwise) against the interpreter on odd and even shapes, save -> load in a
// fresh process, and clear errors for what it cannot run.
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

bool HaveDnnl() {
  return testing_backend::HaveBackend("dnnl");
}
std::string S(int64_t v) {
  return std::to_string(v);
}

/// A conv2d partition on x [1, c, hw, hw] with weights [oc, c / groups, k, k] and bias [oc]
/// (both constants), `post` applied to %2 (the biased conv) giving the result.
IRModule Conv(int c, int hw, int oc, int k, int groups, const std::string& conv_attrs,
              const std::string& post) {
  std::string x = T("1, " + S(c) + ", " + S(hw) + ", " + S(hw));
  std::string w = T(S(oc) + ", " + S(c / groups) + ", " + S(k) + ", " + S(k));
  std::string body = "  %1 = nn.conv2d(%x, %w, groups=" + S(groups) + conv_attrs +
                     ");\n  %2 = nn.bias_add(%1, %b);\n  " + post;
  std::string main_params = "%x: " + x, args = "%x";
  std::string fn_params = "%x: " + x;
  std::string text =
      Partitioned("dnnl", main_params, args, fn_params + ", %w: " + w + ", %b: " + T(S(oc)), body);
  return WithConstants(text, "dnnl_0", {1, 2});
}

TEST(BackendDnnl, IsRegistered) {
  // Registered exactly when the build was configured with it (not silently missing).
  EXPECT_EQ(HaveDnnl(), TESSERA_TEST_EXPECT_DNNL != 0);
}

TEST(BackendDnnl, Conv2dGroupsStridesPaddingDilationWithPostOps) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  struct Case {
    int c, hw, oc, k, groups;
    std::string attrs, post;
  };
  std::vector<Case> cases = {
      {3, 7, 5, 3, 1, ", padding=[1, 1]", "nn.relu(%2)"},
      {4, 8, 8, 3, 1, ", strides=[2, 2], padding=[1, 1]", "clip(%2, a_min=0f, a_max=6f)"},
      {8, 9, 8, 3, 8, ", padding=[1, 1]", "nn.relu(%2)"},                       // depthwise
      {6, 10, 9, 3, 3, ", padding=[2, 1, 0, 1], dilation=[2, 2]", "tanh(%2)"},  // groups
      {4, 11, 6, 1, 1, "", "%3 = sigmoid(%2);\n  multiply(%2, %3)"},            // swish
      {5, 6, 7, 5, 1, ", padding=[2, 2]", "nn.gelu(%2)"},
      {3, 8, 4, 3, 1, ", strides=[2, 1], padding=[1, 1]", "sigmoid(%2)"},
      {4, 5, 4, 3, 1, ", padding=[1, 1]", "%2"},
  };
  for (const Case& c : cases)
    CheckBackend(Conv(c.c, c.hw, c.oc, c.k, c.groups, c.attrs, c.post), "dnnl_0", "dnnl");
}

TEST(BackendDnnl, ResidualBlockFusesTheSum) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  for (int hw : {7, 8}) {
    std::string x = T("1, 4, " + S(hw) + ", " + S(hw));
    std::string w = T("4, 4, 3, 3");
    std::string body =
        "  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);\n  %1 = nn.bias_add(%0, %b1);\n"
        "  %2 = nn.relu(%1);\n  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);\n"
        "  %4 = add(%3, %b2);\n  %5 = add(%4, %x);\n  %6 = nn.relu(%5);\n"
        "  %7 = nn.max_pool2d(%6, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);\n"
        "  %8 = nn.global_avg_pool2d(%7);\n  (%6, %8)";
    std::string text = Partitioned(
        "dnnl", "%x: " + x, "%x",
        "%x: " + x + ", %w1: " + w + ", %b1: " + T("4") + ", %w2: " + w + ", %b2: " + T("4, 1, 1"),
        body);
    CheckBackend(WithConstants(text, "dnnl_0", {1, 2, 3, 4}), "dnnl_0", "dnnl");
  }
}

TEST(BackendDnnl, DenseMatmulBatchMatmulWithBiasAndPostOps) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  for (auto [m, k, n] : std::vector<std::array<int, 3>>{{3, 17, 9}, {4, 32, 8}}) {
    std::string x = T(S(m) + ", " + S(k));
    for (const char* post : {"nn.gelu(%2)", "nn.relu(%2)", "tanh(%2)", "%2"}) {
      std::string text = Partitioned(
          "dnnl", "%x: " + x, "%x",
          "%x: " + x + ", %w: " + T(S(n) + ", " + S(k)) + ", %b: " + T(S(n)),
          "  %1 = nn.dense(%x, %w);\n  %2 = nn.bias_add(%1, %b, axis=-1);\n  " + std::string(post));
      CheckBackend(WithConstants(text, "dnnl_0", {1, 2}), "dnnl_0", "dnnl");
    }
    // Residual sum post-op with a second input.
    std::string y = T(S(m) + ", " + S(n));
    std::string text = Partitioned("dnnl", "%x: " + x + ", %y: " + y, "%x, %y",
                                   "%x: " + x + ", %y: " + y + ", %w: " + T(S(n) + ", " + S(k)),
                                   "  %1 = nn.dense(%x, %w);\n  %2 = add(%1, %y);\n  nn.relu(%2)");
    CheckBackend(WithConstants(text, "dnnl_0", {2}), "dnnl_0", "dnnl");
  }
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
        InferTypes(ParseModule(Partitioned("dnnl", params, "%a, %b", params, "  " + c.call))),
        "dnnl_0", "dnnl");
  }
}

TEST(BackendDnnl, PoolingSoftmaxNormsElementwise) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  for (int hw : {7, 8}) {
    std::string x = T("2, 3, " + S(hw) + ", " + S(hw));
    for (const char* body :
         {"nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
          "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2])",
          "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], count_include_pad=True)",
          "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)",
          "nn.global_avg_pool2d(%x)", "nn.softmax(%x, axis=1)", "nn.softmax(%x)", "exp(%x)",
          "abs(%x)", "negative(%x)", "nn.leaky_relu(%x, alpha=0.1f)",
          "%0 = sigmoid(%x);\n  nn.relu(%0)"}) {
      std::string text =
          Partitioned("dnnl", "%x: " + x, "%x", "%x: " + x, "  " + std::string(body));
      CheckBackend(InferTypes(ParseModule(text)), "dnnl_0", "dnnl");
    }
    std::string bn = Partitioned(
        "dnnl", "%x: " + x, "%x",
        "%x: " + x + ", %g: " + T("3") + ", %b: " + T("3") + ", %m: " + T("3") + ", %v: " + T("3"),
        "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.001f);\n  nn.relu(%0.0)");
    CheckBackend(WithConstants(bn, "dnnl_0", {1, 2, 3, 4}, 7, {4}), "dnnl_0", "dnnl");
    std::string binary =
        Partitioned("dnnl", "%x: " + x + ", %y: " + x, "%x, %y",
                    "%x: " + x + ", %y: " + x + ", %c: " + T("3, 1, 1"),
                    "  %0 = subtract(%x, %y);\n  %1 = multiply(%0, %c);\n  %2 = maximum(%1, %y);\n"
                    "  %3 = add(%c, %2);\n  divide(%3, %c)");
    CheckBackend(WithConstants(binary, "dnnl_0", {2}, 9, {2}), "dnnl_0", "dnnl");
  }
  for (const char* shape : {"3, 17", "2, 4, 32"}) {
    std::string x = T(shape);
    std::string last = std::string(shape).substr(std::string(shape).rfind(' ') + 1);
    std::string ln =
        Partitioned("dnnl", "%x: " + x, "%x", "%x: " + x + ", %g: " + T(last) + ", %b: " + T(last),
                    "  nn.layer_norm(%x, %g, %b)");
    CheckBackend(WithConstants(ln, "dnnl_0", {1, 2}), "dnnl_0", "dnnl");
  }
}

TEST(BackendDnnl, SavedExecutableRunsInAFreshProcess) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  IRModule mod = Conv(4, 9, 8, 3, 2, ", strides=[2, 2], padding=[1, 1]", "nn.relu(%2)");
  auto exe = CheckBackend(mod, "dnnl_0", "dnnl", "native -num_threads=1");
  testing_backend::ExpectSameAfterLoadInChild(exe, mod);
}

TEST(BackendDnnl, UnsupportedDtypeAndOpAreClearErrors) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  std::string i32 = Partitioned("dnnl", "%x: " + T("2, 3", "int32"), "%x",
                                "%x: " + T("2, 3", "int32"), "  nn.relu(%x)");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(i32)), "native"); },
                               ErrorKind::kUnsupported, {"dnnl", "float32", "int32"});
  std::string tr =
      Partitioned("dnnl", "%x: " + T("2, 3"), "%x", "%x: " + T("2, 3"), "  transpose(%x)");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(tr)), "native"); },
                               ErrorKind::kUnsupported, {"dnnl", "transpose", "@dnnl_0"});
}

}  // namespace
}  // namespace tessera
