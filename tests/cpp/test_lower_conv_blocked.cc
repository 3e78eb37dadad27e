// The NCHWc conv2d template (schedule_conv2d_blocked.cc) against the graph interpreter:
// blocked and NCHW inputs, large weights in chunks with prefetches, output blocks equal
// to, smaller and larger than the tile, strides, padding (border rows with taps computed
// at run time, border tiles as loops over runs of taps), row and column tails, depthwise,
// fused epilogues, weights given as parameters and as constants packed at compile time,
// rows split in two groups before blocks, lowered alone and built natively.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "lower_test_util.h"
#include "tessera/support/host_cpu.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;
using testing_lower::T;

/// @main(x, w) = nn.conv2d(x, w, attrs...).
std::string Conv(const std::string& x, const std::string& w, const std::string& attrs) {
  return "def @main(%x: " + T(x) + ", %w: " + T(w) + ") {\n  nn.conv2d(%x, %w" + attrs + ")\n}\n";
}

/// Whether lowering @main of `text` as one primitive uses a register-tiled template.
bool UsesTemplate(const std::string& text) {
  IRModule mod = InferTypes(ParseModule(text));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  return PrintStmt(pf->body).find("conv_acc") != std::string::npos;
}

/// Relative tolerance: float32 sums over 16-channel blocks x 3 x 3 taps and more.
constexpr double kTol = 1e-4;

/// Lowering checks plus "the template was used".
void CheckTemplate(const std::string& text) {
  EXPECT_TRUE(UsesTemplate(text)) << text;
  CheckLowering(text, 7, 0, kTol);
}

const char* kBlocked16 = ", data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\"";

TEST(LowerConvBlocked, DenseStrideOnePadded) {
  // 48 channels: one-vector tiles; 11 columns and 9 rows: 2-row tiles and a 1-row tail.
  CheckTemplate(
      Conv("1, 2, 9, 11, 16", "3, 2, 3, 3, 16, 16", std::string(kBlocked16) + ", padding=[1, 1]"));
  // 64 channels: two-vector tiles spanning two output blocks; two images; 30 columns in
  // tiles of 10.
  CheckTemplate(
      Conv("2, 1, 6, 30, 16", "4, 1, 3, 3, 16, 16", std::string(kBlocked16) + ", padding=[1, 1]"));
  // Padding wider than the window: the first and last rows and columns read no input at
  // all (their range of taps, computed at run time for one-row tiles, is empty).
  CheckTemplate(
      Conv("1, 2, 5, 30, 16", "2, 2, 1, 1, 16, 16", std::string(kBlocked16) + ", padding=[1, 1]"));
  CheckTemplate(
      Conv("1, 1, 4, 6, 16", "1, 1, 2, 2, 16, 16", std::string(kBlocked16) + ", padding=[2, 2]"));
}

TEST(LowerConvBlocked, StridesAndAsymmetricPadding) {
  CheckTemplate(Conv("1, 2, 15, 15, 16", "2, 2, 3, 3, 16, 16",
                     std::string(kBlocked16) + ", strides=[2, 2], padding=[1, 1]"));
  CheckTemplate(Conv("1, 4, 16, 13, 8", "4, 4, 3, 3, 8, 8",
                     ", data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", strides=[2, 1], "
                     "padding=[1, 2, 0, 1]"));
  CheckTemplate(Conv("1, 1, 20, 23, 16", "1, 1, 5, 3, 16, 16",
                     std::string(kBlocked16) + ", strides=[3, 2], padding=[2, 1, 1, 0]"));
}

TEST(LowerConvBlocked, PointwiseReadsTheInputDirectly) {
  // No padding: the tiles read the blocked input itself (no conv_pad copy).
  std::string down =
      Conv("1, 4, 14, 14, 16", "8, 4, 1, 1, 16, 16", std::string(kBlocked16) + ", strides=[2, 2]");
  IRModule mod = InferTypes(ParseModule(down));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  EXPECT_EQ(PrintStmt(pf->body).find("conv_pad"), std::string::npos) << PrintStmt(pf->body);
  CheckTemplate(down);
  CheckTemplate(Conv("1, 2, 7, 7, 16", "2, 2, 1, 1, 16, 16", kBlocked16));
  CheckTemplate(Conv("1, 16, 9, 10", "2, 2, 1, 1, 8, 16",
                     ", kernel_layout=\"OIHW8i16o\", out_layout=\"NCHW16c\""));
}

TEST(LowerConvBlocked, OutputBlocksOtherThanTheTile) {
  // Output blocks of 8 (several per tile), 64 (several tiles per block) and 4.
  CheckTemplate(Conv("1, 2, 8, 9, 16", "2, 2, 3, 3, 16, 16",
                     std::string(kBlocked16) + ", padding=[1, 1], out_layout=\"NCHW8c\""));
  CheckTemplate(Conv("1, 2, 6, 6, 16", "4, 2, 3, 3, 16, 16",
                     std::string(kBlocked16) + ", padding=[1, 1], out_layout=\"NCHW64c\""));
  CheckTemplate(Conv("1, 1, 9, 9, 16", "3, 1, 3, 3, 16, 4",
                     ", data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i4o\", padding=[1, 1], "
                     "out_layout=\"NCHW4c\""));
  // Data block 8 into output blocks of 16, with a plain OIHW weight.
  CheckTemplate(Conv("1, 4, 10, 10, 8", "32, 32, 3, 3",
                     ", data_layout=\"NCHW8c\", padding=[1, 1], out_layout=\"NCHW16c\""));
}

TEST(LowerConvBlocked, NCHWInputToBlockedOutput) {
  // The stem of a CNN: 3 channels in NCHW, 7x7 stride 2, 16-channel blocks out.
  CheckTemplate(Conv("1, 3, 30, 28", "2, 1, 7, 7, 3, 16",
                     ", kernel_layout=\"OIHW3i16o\", strides=[2, 2], padding=[3, 3], "
                     "out_layout=\"NCHW16c\""));
  CheckTemplate(Conv("1, 3, 17, 17", "32, 3, 3, 3", ", padding=[1, 1], out_layout=\"NCHW16c\""));
}

TEST(LowerConvBlocked, Depthwise) {
  CheckTemplate(Conv("1, 2, 12, 13, 16", "2, 1, 3, 3, 1, 16",
                     ", groups=32, padding=[1, 1], data_layout=\"NCHW16c\", "
                     "kernel_layout=\"OIHW1i16o\""));
  CheckTemplate(Conv("2, 3, 15, 15, 16", "3, 1, 3, 3, 1, 16",
                     ", groups=48, strides=[2, 2], padding=[1, 1], data_layout=\"NCHW16c\", "
                     "kernel_layout=\"OIHW1i16o\""));
  // NCHW data into 16-channel blocks (read through a blocked padded copy).
  CheckTemplate(
      Conv("1, 32, 12, 12", "32, 1, 3, 3", ", groups=32, padding=[1, 1], out_layout=\"NCHW16c\""));
  // Data in blocks of 8, output in blocks of 16, a 5x5 window, a plain OIHW weight.
  CheckTemplate(Conv("1, 4, 11, 11, 8", "32, 1, 5, 5",
                     ", groups=32, padding=[2, 2], data_layout=\"NCHW8c\", "
                     "out_layout=\"NCHW16c\""));
}

TEST(LowerConvBlocked, FusedBiasReluResidual) {
  CheckTemplate(R"(
def @main(%x: Tensor[(1, 2, 10, 9, 16), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32],
          %b: Tensor[(1, 2, 1, 1, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o");
  %1 = add(%0, %b);
  %2 = nn.relu(%1);
  add(%2, %x)
})");
  // A non-idempotent epilogue runs once per element; depthwise with bias and relu.
  CheckTemplate(R"(
def @main(%x: Tensor[(1, 2, 12, 12, 16), float32], %w: Tensor[(2, 1, 3, 3, 1, 16), float32],
          %b: Tensor[(1, 2, 1, 1, 16), float32]) {
  %0 = nn.conv2d(%x, %w, groups=32, padding=[1, 1], data_layout="NCHW16c",
                 kernel_layout="OIHW1i16o");
  %1 = add(%0, %b);
  %2 = nn.relu(%1);
  add(multiply(%2, 2f), 1f)
})");
}

TEST(LowerConvBlocked, RowGroupsSplitEveryBlock) {
  // An even number of bands: the parallel loop takes the first half of every block's
  // rows, then the second (each thread of two computes the same rows in every layer).
  // Batch 2 and three blocks, dense and depthwise; heights of odd band counts, whose last
  // group is a band short.
  const std::string dense = Conv("2, 2, 8, 7, 16", "3, 2, 1, 1, 16, 16", kBlocked16);
  CheckTemplate(dense);
  const std::string depthwise =
      ", padding=[1, 1], data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\"";
  CheckTemplate(Conv("2, 3, 12, 5, 16", "3, 1, 3, 3, 1, 16", ", groups=48" + depthwise));
  CheckTemplate(Conv("1, 2, 13, 13, 16", "2, 1, 3, 3, 1, 16", ", groups=32" + depthwise));
  CheckTemplate(Conv("1, 2, 7, 7, 16", "2, 2, 1, 1, 16, 16", kBlocked16));
  CheckTemplate(Conv("2, 2, 11, 6, 16", "2, 2, 1, 1, 16, 16", kBlocked16));
  // Dense, padded (border rows), batch 2, 41 rows: 41, 21 or 11 bands (tiles of 1, 2 or
  // 4 rows), odd and grouped.
  CheckTemplate(
      Conv("2, 2, 41, 9, 16", "2, 2, 3, 3, 16, 16", std::string(kBlocked16) + ", padding=[1, 1]"));
  IRModule mod = InferTypes(ParseModule(dense));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  const std::string nest = PrintStmt(pf->body);
  EXPECT_NE(nest.find("parallel"), std::string::npos) << nest;
  // With AVX-512's tiles (16 channels, 4 rows): two bands, one per group; within an image
  // (f mod 6) the band is the slower index, (f mod 6) / 3 blocks, and the block the faster.
  if (HostSimdBytes() == 64)
    EXPECT_NE(nest.find("%T_out[%f / 6, %f - %f / 6 * 6 - (%f - %f / 6 * 6) / 3 * 3, "
                        "(%f - %f / 6 * 6) / 3 * 4 + %r_2"),
              std::string::npos)
        << nest;
}

TEST(LowerConvBlocked, LargeWeightsRunInChunksOfInputChannels) {
  // 256 input channels x 3 x 3 x 32 output channels: 295 KiB of weights per block, reduced
  // chunk by chunk over all bands with partial sums in the output; the epilogue (which
  // would be wrong on a partial sum) runs after the last chunk.
  std::string text = R"(
def @main(%x: Tensor[(2, 16, 5, 4, 16), float32], %w: Tensor[(2, 16, 3, 3, 16, 16), float32],
          %b: Tensor[(1, 2, 1, 1, 16), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o");
  nn.relu(add(%0, %b))
})";
  IRModule mod = InferTypes(ParseModule(text));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  EXPECT_NE(PrintStmt(pf->body).find("%chunk"), std::string::npos) << PrintStmt(pf->body);
  // Each band prefetches part of the next chunk's weights.
  EXPECT_NE(PrintStmt(pf->body).find("prefetch %conv_wpk["), std::string::npos)
      << PrintStmt(pf->body);
  CheckTemplate(text);
}

TEST(LowerConvBlocked, InlinedProducersAreCopiedOnce) {
  // An input computed inside the kernel (a layout change, an activation) is written to the
  // padded copy once instead of being recomputed by every tap.
  CheckTemplate(R"(
def @main(%x: Tensor[(1, 32, 9, 10), float32], %w: Tensor[(2, 2, 3, 3, 16, 16), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW16c");
  nn.conv2d(%0, %w, padding=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o")
})");
  CheckTemplate(R"(
def @main(%x: Tensor[(1, 4, 20, 21, 16), float32], %w: Tensor[(4, 1, 3, 3, 1, 16), float32]) {
  %0 = nn.relu(%x);
  nn.conv2d(%0, %w, groups=64, strides=[2, 2], padding=[1, 1], data_layout="NCHW16c",
            kernel_layout="OIHW1i16o")
})");
}

TEST(LowerConvBlocked, FallbacksStayCorrect) {
  // Small work, a blocked input into an NCHW output, and dilation keep the generic nest.
  std::string small = Conv("1, 1, 4, 4, 4", "1, 1, 3, 3, 4, 4",
                           ", data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\", padding=[1, 1]");
  EXPECT_FALSE(UsesTemplate(small));
  CheckLowering(small, 7, 0, kTol);
  std::string to_nchw = Conv("1, 2, 9, 9, 16", "20, 32, 3, 3",
                             ", data_layout=\"NCHW16c\", padding=[1, 1], out_layout=\"NCHW\"");
  EXPECT_FALSE(UsesTemplate(to_nchw));
  CheckLowering(to_nchw, 7, 0, kTol);
  std::string dilated = Conv("1, 2, 12, 12, 16", "2, 2, 3, 3, 16, 16",
                             std::string(kBlocked16) + ", dilation=[2, 2], padding=[2, 2]");
  EXPECT_FALSE(UsesTemplate(dilated));
  CheckLowering(dilated, 7, 0, kTol);
}

TEST(LowerConvBlocked, ConstantWeightsArePackedAtCompileTime) {
  for (const std::string& text :
       {Conv("1, 2, 9, 9, 16", "4, 2, 3, 3, 16, 16", std::string(kBlocked16) + ", padding=[1, 1]"),
        Conv("1, 2, 9, 9, 16", "2, 1, 3, 3, 1, 16",
             ", groups=32, padding=[1, 1], data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\""),
        Conv("1, 3, 20, 20", "4, 1, 7, 7, 3, 16",
             ", kernel_layout=\"OIHW3i16o\", strides=[2, 2], padding=[3, 3], "
             "out_layout=\"NCHW16c\"")}) {
    SCOPED_TRACE(text);
    IRModule mod = testing_backend::WithConstants(text, "main", {1});
    auto inputs = testing_lower::RandomInputs(mod, 11);
    std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
    std::vector<NDArray> got = runtime::Executor(Build(mod, "native")).Run(inputs);
    ASSERT_EQ(got.size(), 1u);
    testing_lower::ExpectClose(want[0], got[0], "native build", kTol);
    // Only the packed weights remain a kernel input: no copy of them at run time.
    lower::LoweredPrimitive lowered = lower::LowerPrimitiveWithConstants(
        WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
    ASSERT_EQ(lowered.constants.size(), 1u);
    EXPECT_EQ(PrintStmt(lowered.func->body).find("block \"conv_wpk"), std::string::npos);
  }
}

}  // namespace
}  // namespace tessera
