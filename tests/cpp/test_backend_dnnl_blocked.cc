// oneDNN partitions in channel-blocked layouts: NCHW{x}c convolutions (with bias, residual
// and activation epilogues, depthwise, the 3-channel stem), pools and elementwise ops against
// the interpreter, run on the partition's blocked tensors without a reorder; the patterns
// take the convolutions of a planned graph, and an opt_level 3 build offloads them.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "runtime_test_util.h"
#include "tessera/runtime/library_modules.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/pass_context.h"

namespace tessera {
namespace {

using testing_backend::CheckBackend;
using testing_backend::Partitioned;
using testing_backend::T;
using testing_backend::WithConstants;

bool HaveDnnl() {
  return testing_backend::HaveBackend("dnnl");
}

/// The steps every oneDNN module of `exe` runs per call.
std::vector<runtime::DnnlStep> DnnlSteps(const runtime::Executable& exe) {
  std::vector<runtime::DnnlStep> steps;
  std::vector<runtime::Module> todo = {exe.module()};
  while (!todo.empty()) {
    runtime::Module m = todo.back();
    todo.pop_back();
    for (const runtime::Module& i : m->imports) todo.push_back(i);
    if (m->type_key() != "dnnl") continue;
    runtime::LibraryModuleBytes saved = runtime::LoadLibraryModule(m->SaveToBytes(), "dnnl");
    for (runtime::DnnlStep& s : runtime::DescribeDnnlPlan(saved.graph)) steps.push_back(s);
  }
  return steps;
}

/// How many steps of `steps` are of `kind`.
int CountKind(const std::vector<runtime::DnnlStep>& steps, const std::string& kind) {
  int n = 0;
  for (const runtime::DnnlStep& s : steps) n += s.kind == kind;
  return n;
}

/// Every step runs a fast kernel (never oneDNN's reference loops) and none is a reorder.
void ExpectNoReorderNoReference(const std::vector<runtime::DnnlStep>& steps) {
  for (const runtime::DnnlStep& s : steps) {
    EXPECT_NE(s.kind, "reorder") << s.what;
    EXPECT_NE(s.impl.rfind("ref", 0), 0u) << s.kind << " " << s.what << " runs " << s.impl;
  }
}

/// A partition on blocked x of `x_shape` with constant params after it (`consts`, by
/// position in `fn_params`), built and checked against the interpreter; its steps.
std::vector<runtime::DnnlStep> Check(const std::string& x_shape, const std::string& fn_params,
                                     const std::vector<size_t>& consts, const std::string& body,
                                     const std::string& extra_main = "") {
  std::string x = "%x: " + T(x_shape);
  std::string main_params = x + extra_main, args = "%x";
  if (!extra_main.empty()) args += ", %y";
  std::string text = Partitioned("dnnl", main_params, args, main_params + fn_params, body);
  auto exe = CheckBackend(WithConstants(text, "dnnl_0", consts), "dnnl_0", "dnnl",
                          "native -num_threads=1");
  return DnnlSteps(*exe);
}

TEST(BackendDnnlBlocked, Conv16cWithBiasResidualAndReluRunsInPlace) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  for (int hw : {7, 8}) {
    std::string s = "1, 2, " + std::to_string(hw) + ", " + std::to_string(hw) + ", 16";
    // conv + bias (as layout planning leaves it: (C/16, 1, 1, 16)) + relu, then conv + bias
    // ((1, C/16, 1, 1, 16)) + the block's input + relu: one partition, two convolutions.
    auto steps = Check(
        s,
        ", %w1: " + T("2, 2, 3, 3, 16, 16") + ", %b1: " + T("2, 1, 1, 16") +
            ", %w2: " + T("2, 2, 3, 3, 16, 16") + ", %b2: " + T("1, 2, 1, 1, 16"),
        {1, 2, 3, 4},
        "  %0 = nn.conv2d(%x, %w1, padding=[1, 1], data_layout=\"NCHW16c\", "
        "kernel_layout=\"OIHW16i16o\");\n  %1 = add(%0, %b1);\n  %2 = nn.relu(%1);\n"
        "  %3 = nn.conv2d(%2, %w2, padding=[1, 1], data_layout=\"NCHW16c\", "
        "kernel_layout=\"OIHW16i16o\");\n  %4 = add(%3, %b2);\n  %5 = add(%4, %x);\n  nn.relu(%5)");
    ASSERT_EQ(steps.size(), 2u);  // bias, residual and relu fused into the convolutions
    ExpectNoReorderNoReference(steps);
    for (const runtime::DnnlStep& st : steps) {
      EXPECT_EQ(st.kind, "convolution");
      EXPECT_EQ(st.src_format, "nChw16c");
      EXPECT_EQ(st.dst_format, "nChw16c");
    }
  }
}

TEST(BackendDnnlBlocked, StemDepthwise8cAndStridedConvs) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  struct Case {
    std::string x, w, attrs, data_format;
  };
  std::vector<Case> cases = {
      // The 3-channel stem: NCHW1c is nchw; 16c results, stride 2.
      {"1, 3, 11, 11, 1", "2, 3, 3, 3, 1, 16",
       "strides=[2, 2], padding=[1, 1], data_layout=\"NCHW1c\", kernel_layout=\"OIHW1i16o\", "
       "out_layout=\"NCHW16c\"",
       "nchw"},
      // Plain NCHW data into a blocked result.
      {"1, 3, 9, 9", "2, 3, 3, 3, 1, 16",
       "padding=[1, 1], data_layout=\"NCHW\", kernel_layout=\"OIHW1i16o\", out_layout=\"NCHW16c\"",
       "nchw"},
      // Depthwise: OIHW1i16o weights, 32 groups (oneDNN's Goihw16g).
      {"1, 2, 9, 9, 16", "2, 1, 3, 3, 1, 16",
       "padding=[1, 1], groups=32, data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\"",
       "nChw16c"},
      // Blocks of 8 (oneDNN's AVX2 kernels), a 1x1 convolution with stride 2.
      {"1, 2, 8, 8, 8", "3, 2, 1, 1, 8, 8",
       "strides=[2, 2], data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\"", "nChw8c"},
      {"1, 1, 6, 6, 8", "1, 1, 3, 3, 1, 8",
       "padding=[1, 1], groups=8, data_layout=\"NCHW8c\", kernel_layout=\"OIHW1i8o\"", "nChw8c"},
  };
  for (const Case& c : cases) {
    auto steps =
        Check(c.x, ", %w: " + T(c.w), {1},
              "  %0 = nn.conv2d(%x, %w, " + c.attrs + ");\n  clip(%0, a_min=0f, a_max=6f)");
    ASSERT_EQ(steps.size(), 1u) << c.attrs;
    ExpectNoReorderNoReference(steps);
    EXPECT_EQ(steps[0].src_format, c.data_format) << c.attrs;
  }
}

TEST(BackendDnnlBlocked, BlocksWithoutAFastKernelStillComputeRight) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  // nChw8c data into nChw16c results (MobileNetV2's 24-channel layers), OIHW8i16o weights
  // (no oneDNN tag: described by their blocking and reordered once), blocks of 4, a plain
  // result: right, with a reorder where oneDNN has no kernel for the formats.
  struct Case {
    std::string x, w, attrs;
  };
  std::vector<Case> cases = {
      {"1, 3, 7, 7, 8", "2, 3, 1, 1, 8, 16",
       "data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i16o\", out_layout=\"NCHW16c\""},
      {"1, 2, 7, 7, 4", "3, 2, 3, 3, 4, 4",
       "padding=[1, 1], data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\""},
      {"1, 1, 6, 6, 16", "1, 1, 3, 3, 16, 16",
       "data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\", out_layout=\"NCHW\""},
  };
  for (const Case& c : cases) {
    auto steps = Check(c.x, ", %w: " + T(c.w), {1},
                       "  %0 = nn.conv2d(%x, %w, " + c.attrs + ");\n  nn.relu(%0)");
    EXPECT_EQ(CountKind(steps, "convolution"), 1) << c.attrs;
    for (const runtime::DnnlStep& s : steps)
      EXPECT_NE(s.impl.rfind("ref", 0), 0u) << s.kind << " runs " << s.impl;
  }
}

TEST(BackendDnnlBlocked, PoolsAndElementwiseOpsRunBlocked) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  for (int hw : {7, 8}) {
    std::string s = "1, 2, " + std::to_string(hw) + ", " + std::to_string(hw) + ", 16";
    for (const char* body :
         {"nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NCHW16c\")",
          "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], layout=\"NCHW16c\")",
          "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], count_include_pad=True, "
          "layout=\"NCHW16c\")",
          "nn.global_avg_pool2d(%x, layout=\"NCHW16c\")"}) {
      auto steps = Check(s, "", {}, "  " + std::string(body));
      ASSERT_EQ(steps.size(), 1u) << body;
      ExpectNoReorderNoReference(steps);
      EXPECT_EQ(steps[0].src_format, "nChw16c") << body;
      EXPECT_EQ(steps[0].dst_format, "nChw16c") << body;
    }
    // A per-channel constant, a whole tensor and a scalar, broadcast in the blocked layout.
    auto steps = Check(s, ", %c: " + T("2, 1, 1, 16") + ", %k: " + T("1"), {2, 3},
                       "  %0 = multiply(%x, %c);\n  %1 = add(%0, %y);\n  %2 = nn.relu(%1);\n"
                       "  subtract(%2, %k)",
                       ", %y: " + T(s));
    EXPECT_EQ(CountKind(steps, "binary"), 3);
    ExpectNoReorderNoReference(steps);
  }
}

TEST(BackendDnnlBlocked, LayoutTransformsInsidePartitionsAreReordersOnlyWhereNeeded) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  // NCHW in, NCHW16c for a blocked conv, NCHW8c for a pool, NCHW for a plain conv and out.
  std::string body =
      "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW16c\");\n"
      "  %1 = nn.conv2d(%0, %w, padding=[1, 1], data_layout=\"NCHW16c\", "
      "kernel_layout=\"OIHW16i16o\");\n  %2 = nn.relu(%1);\n"
      "  %3 = layout_transform(%2, src_layout=\"NCHW16c\", dst_layout=\"NCHW8c\");\n"
      "  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], layout=\"NCHW8c\");\n"
      "  %5 = layout_transform(%4, src_layout=\"NCHW8c\", dst_layout=\"NCHW\");\n"
      "  %6 = nn.conv2d(%5, %v, padding=[1, 1]);\n"
      "  %7 = layout_transform(%6, src_layout=\"NCHW\", dst_layout=\"NCHW16c\");\n"
      "  (%5, %7, %2)";
  auto steps =
      Check("1, 16, 8, 8", ", %w: " + T("2, 1, 3, 3, 16, 16") + ", %v: " + T("16, 32, 3, 3"),
            {1, 2}, body);
  EXPECT_EQ(CountKind(steps, "convolution"), 2);
  EXPECT_EQ(CountKind(steps, "pooling_v2"), 1);
  for (const runtime::DnnlStep& s : steps)
    EXPECT_NE(s.impl.rfind("ref", 0), 0u) << s.kind << " " << s.what << " runs " << s.impl;
  // A transform that pads (12 channels into blocks of 16) is not a oneDNN reorder.
  std::string pad =
      Partitioned("dnnl", "%x: " + T("1, 12, 4, 4"), "%x", "%x: " + T("1, 12, 4, 4"),
                  "  layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW16c\")");
  testing_runtime::ExpectError([&] { Build(InferTypes(ParseModule(pad)), "native"); },
                               ErrorKind::kUnsupported, {"dnnl", "layout_transform", "padding"});
}

/// A ResNet-style block in NCHW: conv+bias+relu, conv+bias+residual add+relu, max pool,
/// depthwise conv+relu, global pool.
const char* kResidualBlock = R"(
def @main(%x: Tensor[(1, 16, 12, 12), float32], %w1: Tensor[(32, 16, 3, 3), float32],
          %b1: Tensor[(32, 1, 1), float32], %w2: Tensor[(32, 32, 3, 3), float32],
          %b2: Tensor[(32, 1, 1), float32], %ws: Tensor[(32, 16, 1, 1), float32],
          %wd: Tensor[(32, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);
  %1 = nn.relu(add(%0, %b1));
  %2 = add(nn.conv2d(%1, %w2, padding=[1, 1]), %b2);
  %3 = nn.relu(add(%2, nn.conv2d(%x, %ws)));
  %4 = nn.max_pool2d(%3, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]);
  %5 = nn.relu(nn.conv2d(%4, %wd, padding=[1, 1], groups=32));
  nn.global_avg_pool2d(%5)
}
)";

IRModule ResidualBlock() {
  return WithConstants(kResidualBlock, "main", {1, 2, 3, 4, 5, 6}, 11);
}

TEST(BackendDnnlBlocked, PatternsTakeThePlannedConvolutions) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  PassContext::Scope scope(PassContext::Create(3));
  IRModule planned = ParsePipeline("AlterOpLayout,PlanLayouts")(ResidualBlock());
  IRModule parts = PartitionFor(planned, "dnnl");
  // Every op is oneDNN's, the layout_transforms at the graph's edges included.
  int convs = 0, outside = 0;
  for (const auto& [name, base] : parts.functions()) {
    const auto* fn = base.as<FunctionNode>();
    if (!fn) continue;
    bool dnnl = fn->attrs.Has(attr::kCompiler);
    PostOrderVisit(fn->body, [&](const Expr& e) {
      const auto* call = e.as<CallNode>();
      if (!call || !call->op()) return;
      if (call->op()->name == "nn.conv2d") {
        ++convs;
        EXPECT_NE(call->attrs.GetString("data_layout"), "NCHW");
      }
      if (!dnnl) ++outside;
    });
  }
  EXPECT_EQ(convs, 4);
  EXPECT_EQ(outside, 0) << PrintModule(parts);  // the edge transforms too
}

TEST(BackendDnnlBlocked, PlannedBuildOffloadsBlockedConvsWithoutReorders) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  IRModule mod = ResidualBlock();
  std::shared_ptr<runtime::Executable> exe;
  {
    PassContext::Scope scope(PassContext::Create(3));
    exe = CheckBackend(mod, "dnnl_main_0", "dnnl", "native -num_threads=1 -compiler=dnnl");
  }
  std::vector<runtime::DnnlStep> steps = DnnlSteps(*exe);
  EXPECT_EQ(CountKind(steps, "convolution"), 4);
  EXPECT_EQ(CountKind(steps, "pooling_v2"), 2);
  // The graph's own edges, its NCHW input into NCHW16c and the pooled result back, are
  // layout_transforms the partition runs as reorders; between them, no reorder at all.
  EXPECT_EQ(CountKind(steps, "reorder"), 2);
  for (const runtime::DnnlStep& s : steps) {
    EXPECT_NE(s.impl.rfind("ref", 0), 0u) << s.kind << " " << s.what << " runs " << s.impl;
    if (s.kind == "reorder")
      EXPECT_NE(s.what.find("layout_transform"), std::string::npos) << s.what;
    else
      EXPECT_EQ(s.src_format, "nChw16c") << s.what;
  }
  testing_backend::ExpectSameAfterLoadInChild(exe, mod);
}

TEST(BackendDnnlBlocked, DamagedBlockedPartitionsAreValueErrors) {
  if (!HaveDnnl()) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  // A blocked layout whose lanes do not match the shape (as a damaged file could hold).
  runtime::LibraryGraph g;
  runtime::LibraryNode x, w, conv;
  x.kind = runtime::LibraryNode::Kind::kParam;
  x.param = 0;
  x.shape = {1, 2, 5, 5, 8};
  w.kind = runtime::LibraryNode::Kind::kParam;
  w.param = 1;
  w.shape = {2, 2, 3, 3, 16, 16};
  conv.op = "nn.conv2d";
  conv.inputs = {0, 1};
  conv.shape = {1, 2, 3, 3, 16};
  conv.attrs.Set("data_layout", std::string("NCHW16c"));
  conv.attrs.Set("kernel_layout", std::string("OIHW16i16o"));
  g.nodes = {x, w, conv};
  g.outputs = {2};
  g.num_params = 2;
  testing_runtime::ExpectError([&] { runtime::DescribeDnnlPlan(g); }, ErrorKind::kValue,
                               {"dnnl", "nn.conv2d", "NCHW16c"});
  g.nodes[0].shape = {1, 2, 5, 5, 16};
  g.nodes[1].shape = {2, 2, 3, 3, 8, 16};
  testing_runtime::ExpectError([&] { runtime::DescribeDnnlPlan(g); }, ErrorKind::kValue,
                               {"dnnl", "kernel layout"});
}

}  // namespace
}  // namespace tessera
