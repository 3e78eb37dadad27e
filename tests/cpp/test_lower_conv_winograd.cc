// The Winograd F(2x2, 3x3) conv2d template (schedule_conv2d_winograd.cc) against the graph
// interpreter, built natively: ragged blocks of tiles, odd output sizes, two images, no
// padding, an NCHW input, fused bias, relu and residual; where it does not apply (weights
// not constant, few tiles, large transformed weights, the native.winograd key off) the
// direct template runs instead.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "lower_test_util.h"
#include "tessera/transform/pass_context.h"

namespace tessera {
namespace {

using testing_lower::T;

const char* kBlocked16 = ", data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\"";

/// @main(x, w) = nn.conv2d(x, w, attrs...) with `w` a constant.
IRModule ConstConv(const std::string& x, const std::string& w, const std::string& attrs) {
  return testing_backend::WithConstants(
      "def @main(%x: " + T(x) + ", %w: " + T(w) + ") {\n  nn.conv2d(%x, %w" + attrs + ")\n}\n",
      "main", {1});
}

/// Which template lowering @main as one primitive uses: "winograd", "direct" or "other".
std::string TemplateOf(const IRModule& mod) {
  IRModule typed = InferTypes(mod);
  lower::LoweredPrimitive lowered = lower::LowerPrimitiveWithConstants(
      WithAttr(typed.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  std::string body = PrintStmt(lowered.func->body);
  if (body.find("wino_v") != std::string::npos) return "winograd";
  return body.find("conv_acc") != std::string::npos ? "direct" : "other";
}

/// The native build matches the interpreter (Winograd rounds differently from a direct
/// sum, within float32 noise of sums over hundreds of terms).
void ExpectMatches(const IRModule& mod, unsigned seed = 11) {
  auto inputs = testing_lower::RandomInputs(mod, seed);
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  std::vector<NDArray> got = runtime::Executor(Build(mod, "native")).Run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    testing_lower::ExpectClose(want[i], got[i], "native build", 1e-4);
}

TEST(LowerConvWinograd, ResNetLikeLayer) {
  // 64 -> 64 channels at 16 x 16: 64 tiles in blocks of 13 or so, two column blocks.
  IRModule mod = ConstConv("1, 4, 16, 16, 16", "4, 4, 3, 3, 16, 16",
                           std::string(kBlocked16) + ", padding=[1, 1]");
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
}

TEST(LowerConvWinograd, OddSizesTwoImagesAndRaggedBlocks) {
  // 17 x 19 outputs: the last row and column of tiles reach past the output; 9 x 10 = 90
  // tiles do not fill whole blocks; 32 output channels in one column block.
  IRModule mod = ConstConv("2, 2, 17, 19, 16", "2, 2, 3, 3, 16, 16",
                           std::string(kBlocked16) + ", padding=[1, 1]");
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
  // No padding (a 16 x 16 output from 18 x 18), asymmetric padding.
  mod = ConstConv("1, 2, 18, 18, 16", "2, 2, 3, 3, 16, 16", kBlocked16);
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
  mod = ConstConv("1, 2, 17, 18, 16", "3, 2, 3, 3, 16, 16",
                  std::string(kBlocked16) + ", padding=[0, 2, 1, 0]");
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
}

TEST(LowerConvWinograd, NCHWInputAndOtherOutputBlocks) {
  // NCHW data (the padded copy blocks it); 8-channel output blocks under 32-channel columns.
  IRModule mod =
      ConstConv("1, 32, 16, 17", "32, 32, 3, 3", ", padding=[1, 1], out_layout=\"NCHW8c\"");
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
  // 64-channel blocks in and out: several column blocks of tile channels per output block.
  mod = ConstConv("1, 2, 16, 16, 64", "128, 128, 3, 3",
                  ", data_layout=\"NCHW64c\", padding=[1, 1], out_layout=\"NCHW64c\"");
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
}

TEST(LowerConvWinograd, FusedBiasReluResidual) {
  IRModule mod = testing_backend::WithConstants(R"(
def @main(%x: Tensor[(1, 2, 16, 18, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32],
          %b: Tensor[(1, 2, 1, 1, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o");
  %1 = add(%0, %b);
  %2 = nn.relu(%1);
  add(multiply(%2, 2f), %x)
})",
                                                "main", {1, 2});
  EXPECT_EQ(TemplateOf(mod), "winograd");
  ExpectMatches(mod);
}

TEST(LowerConvWinograd, WhereItDoesNotApplyTheDirectTemplateRuns) {
  std::string attrs = std::string(kBlocked16) + ", padding=[1, 1]";
  // Weights given at run time (they are transformed at compile time).
  IRModule param = ParseModule("def @main(%x: " + T("1, 4, 16, 16, 16") + ", %w: " +
                               T("4, 4, 3, 3, 16, 16") + ") {\n  nn.conv2d(%x, %w" + attrs +
                               ")\n}\n");
  EXPECT_EQ(TemplateOf(param), "direct");
  // Few tiles (8 x 8 outputs: 16), strides, transformed weights over 1 MiB (256 -> 256).
  EXPECT_EQ(TemplateOf(ConstConv("1, 4, 8, 8, 16", "4, 4, 3, 3, 16, 16", attrs)), "direct");
  EXPECT_EQ(TemplateOf(ConstConv("1, 4, 32, 32, 16", "4, 4, 3, 3, 16, 16",
                                 attrs + ", strides=[2, 2]")),
            "direct");
  IRModule big = ConstConv("1, 16, 16, 16, 16", "16, 16, 3, 3, 16, 16", attrs);
  EXPECT_EQ(TemplateOf(big), "direct");
  // The config key turns it off; the result is the same within rounding.
  IRModule mod = ConstConv("1, 4, 16, 16, 16", "4, 4, 3, 3, 16, 16", attrs);
  Attrs config;
  config.Set("native.winograd", AttrValue(false));
  PassContext::Scope scope(PassContext::Create(2, {}, {}, config));
  EXPECT_EQ(TemplateOf(mod), "direct");
  ExpectMatches(mod);
}

}  // namespace
}  // namespace tessera
