// The blocked conv2d template (schedule_conv2d.cc) against the graph interpreter: odd and
// even shapes, strides 1 and 2, padding, 1x1/3x3/7x7 kernels, channel and column tails,
// and fused bias/relu/residual epilogues, lowered alone and built natively.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "tessera/support/host_cpu.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;

using testing_lower::T;

std::string Conv(const std::string& x, const std::string& w, const std::string& attrs) {
  return "def @main(%x: " + T(x) + ", %w: " + T(w) + ") {\n  nn.conv2d(%x, %w" + attrs + ")\n}\n";
}

/// Whether lowering @main of `text` as one primitive uses the blocked template.
bool UsesTemplate(const std::string& text) {
  IRModule mod = InferTypes(ParseModule(text));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  return PrintStmt(pf->body).find("conv_acc") != std::string::npos;
}

TEST(LowerConvTemplate, StrideOnePadded) {
  // OC 6 is less than the 8-channel block; OW 13 is one 8-column tile and a tail.
  std::string a = Conv("1, 8, 13, 13", "6, 8, 3, 3", ", padding=[1, 1]");
  EXPECT_TRUE(UsesTemplate(a));
  CheckLowering(a);
  // OW 50 = six full 8-column tiles and a tail of 2; even shapes, two images.
  std::string b = Conv("2, 4, 9, 50", "8, 4, 3, 3", ", padding=[1, 1]");
  EXPECT_TRUE(UsesTemplate(b));
  CheckLowering(b);
  CheckLowering(Conv("1, 5, 12, 24", "7, 5, 3, 3", ""));
}

TEST(LowerConvTemplate, StrideTwo) {
  std::string a = Conv("1, 8, 15, 15", "8, 8, 3, 3", ", strides=[2, 2], padding=[1, 1]");
  EXPECT_TRUE(UsesTemplate(a));
  CheckLowering(a);
  CheckLowering(Conv("1, 6, 16, 16", "10, 6, 3, 3", ", strides=[2, 2], padding=[1, 2, 0, 1]"));
  CheckLowering(Conv("1, 6, 17, 40", "9, 6, 3, 3", ", strides=[2, 1]"));
  CheckLowering(Conv("1, 6, 17, 40", "9, 6, 3, 3", ", strides=[1, 2], padding=[0, 1]"));
  // Stride 3 (three phases per padded row), padding wider than a phase's first column.
  CheckLowering(Conv("1, 4, 20, 23", "5, 4, 3, 3", ", strides=[3, 3], padding=[2, 4, 1, 3]"));
  CheckLowering(Conv("2, 3, 9, 11", "4, 3, 5, 5", ", strides=[3, 3], padding=[2, 2]"));
}

TEST(LowerConvTemplate, KernelSizes) {
  std::string one = Conv("2, 16, 10, 10", "12, 16, 1, 1", "");
  EXPECT_TRUE(UsesTemplate(one));
  CheckLowering(one);
  CheckLowering(Conv("1, 32, 21, 21", "10, 32, 1, 1", ", strides=[2, 2]"));
  std::string seven = Conv("1, 3, 30, 30", "5, 3, 7, 7", ", strides=[2, 2], padding=[3, 3]");
  EXPECT_TRUE(UsesTemplate(seven));
  CheckLowering(seven);
  CheckLowering(Conv("1, 3, 21, 27", "4, 3, 7, 5", ", padding=[3, 2]"));
}

TEST(LowerConvTemplate, OtherKernelLayoutAndFallbacks) {
  std::string hwio = Conv("1, 8, 13, 13", "3, 3, 8, 6", ", padding=[1, 1], kernel_layout=\"HWIO\"");
  EXPECT_TRUE(UsesTemplate(hwio));
  CheckLowering(hwio);
  // Dilation keeps the generic nest.
  std::string dil = Conv("1, 8, 20, 20", "8, 8, 3, 3", ", dilation=[2, 2], padding=[2, 2]");
  EXPECT_FALSE(UsesTemplate(dil));
  CheckLowering(dil);
}

TEST(LowerConvTemplate, GroupedAndDepthwise) {
  // Depthwise: one channel per tile, 32-column tiles with a tail.
  std::string dw = Conv("1, 16, 20, 37", "16, 1, 3, 3", ", groups=16, padding=[1, 1]");
  EXPECT_TRUE(UsesTemplate(dw));
  CheckLowering(dw);
  CheckLowering(
      Conv("2, 12, 31, 31", "12, 1, 3, 3", ", groups=12, strides=[2, 2], padding=[1, 1]"));
  CheckLowering(Conv("1, 8, 30, 30", "8, 1, 5, 5", ", groups=8, padding=[2, 2]"));
  // Channel multiplier 2 and grouped convolutions with 8 or 3 channels per group.
  CheckLowering(Conv("1, 6, 20, 20", "12, 1, 3, 3", ", groups=6, padding=[1, 1]"));
  std::string g8 = Conv("1, 8, 14, 14", "16, 4, 3, 3", ", groups=2, padding=[1, 1]");
  EXPECT_TRUE(UsesTemplate(g8));
  CheckLowering(g8);
  CheckLowering(Conv("1, 6, 17, 17", "9, 2, 3, 3", ", groups=3, padding=[1, 1]"));
  CheckLowering(R"(
def @main(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(16, 1, 3, 3), float32],
          %b: Tensor[(16), float32]) {
  %0 = nn.conv2d(%x, %w, groups=16, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  add(%2, %x)
})");
}

TEST(LowerConvTemplate, FusedBiasReluResidual) {
  std::string text = R"(
def @main(%x: Tensor[(1, 8, 14, 30), float32], %w: Tensor[(8, 8, 3, 3), float32],
          %b: Tensor[(8), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  add(%2, %x)
})";
  EXPECT_TRUE(UsesTemplate(text));
  CheckLowering(text);
  // Channel tail with an epilogue: the stores of the missing channels are skipped.
  CheckLowering(R"(
def @main(%x: Tensor[(1, 6, 23, 23), float32], %w: Tensor[(7, 6, 3, 3), float32],
          %b: Tensor[(7), float32]) {
  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})");
  // The epilogue runs once per element: a non-idempotent one (x * 2 + 1) would show it.
  CheckLowering(R"(
def @main(%x: Tensor[(1, 8, 12, 13), float32], %w: Tensor[(6, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = multiply(%0, 2f);
  add(%1, 1f)
})");
}

TEST(LowerConvTemplate, ConstantWeightsArePackedOnceAndNotKept) {
  IRModule mod = InferTypes(ParseModule(Conv("1, 8, 12, 12", "16, 8, 3, 3", ", padding=[1, 1]")));
  Function f = mod.LookupFunction("main");
  NDArray w = NDArray::Zeros({16, 8, 3, 3}, DType::kFloat32);
  Function bound =
      MakeFunction({f->params[0]}, Substitute(f->body, {{f->params[1].get(), MakeConstant(w)}}));
  lower::LoweredPrimitive lowered = lower::LowerPrimitiveWithConstants(
      WithAttr(InferTypes(IRModule::FromExpr(bound)).LookupFunction("main"), attr::kPrimitive,
               int64_t{1}),
      "k");
  // Only the packed weights [oc blocks, ic, kh, kw, block] remain a kernel input.
  ASSERT_EQ(lowered.constants.size(), 1u);
  EXPECT_EQ(lowered.constants[0]->data.ndim(), 5);
  EXPECT_EQ(lowered.func->params.size(), 3u);  // data, packed weights, output
}

TEST(LowerConvTemplate, SmallOutputsTileRowsTogether) {
  // Outputs of a few columns (7 x 7, 5 x 6): with 16-lane vectors these take flat tiles
  // over (row, padded column); the columns past each row are computed and dropped.
  std::string a = Conv("1, 16, 7, 7", "12, 16, 3, 3", ", padding=[1, 1]");
  if (HostSimdBytes() == 64) {
    IRModule mod = InferTypes(ParseModule(a));
    tir::PrimFunc pf = lower::LowerPrimitive(
        WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
    EXPECT_NE(PrintStmt(pf->body).find("Buffer[(1, 16, 9"), std::string::npos)
        << "expected a flat (3-D) padded buffer\n"
        << PrintStmt(pf->body);
  }
  CheckLowering(a);
  CheckLowering(Conv("2, 9, 5, 6", "10, 9, 3, 3", ", padding=[2, 1, 0, 1]"));
  CheckLowering(Conv("1, 24, 7, 7", "40, 24, 1, 1", ""));                            // pointwise
  CheckLowering(Conv("1, 16, 6, 7", "16, 1, 5, 5", ", groups=16, padding=[2, 2]"));  // depthwise
  CheckLowering(R"(
def @main(%x: Tensor[(1, 8, 7, 7), float32], %w: Tensor[(7, 8, 3, 3), float32],
          %b: Tensor[(7), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  multiply(%2, 3f)
})");
}

}  // namespace
}  // namespace tessera
