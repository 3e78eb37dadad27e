// ScheduleDefault on reductions: outer-axis reductions are interchanged so the contiguous
// output axis vectorizes, inner-axis ones keep their order (the C generator gives them
// vector accumulators); numerics of reductions, softmax, layer_norm and pooling over odd
// and even extents against the interpreter, lowered and built natively.
#include "lower_test_util.h"
#include "tessera/support/host_cpu.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;
using testing_lower::ExpectSameValues;
using testing_lower::Main;
using testing_lower::RandomInputs;
using testing_lower::T;

/// The scheduled PrimFunc of @main of `text` and its printed body.
std::pair<tir::PrimFunc, std::string> Scheduled(const IRModule& mod) {
  tir::PrimFunc pf = lower::ScheduleDefault(lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k"));
  return {pf, PrintStmt(pf->body)};
}

TEST(ScheduleReduce, OuterAxisReductionVectorizesTheOutputAxis) {
  IRModule mod = InferTypes(ParseModule(Main("%x: " + T("37, 19"), "sum(%x, axis=[0])")));
  auto [pf, text] = Scheduled(mod);
  // The init nest, then the reduction loop outside a vectorized loop over the output.
  // Vectorized by one SIMD register of float32 lanes of this CPU, then the tail.
  const int64_t width = HostSimdBytes() / 4, main = 19 / width * width;
  size_t init = text.find("sum_init"), red = text.find("in 0 +: 37 serial"),
         vec = text.find("in 0 +: " + std::to_string(width) + " vectorized", red),
         tail = text.find(
             "in " + std::to_string(main) + " +: " + std::to_string(19 - main) + " serial", red);
  ASSERT_NE(init, std::string::npos) << text;
  ASSERT_NE(red, std::string::npos) << text;
  EXPECT_LT(init, red) << text;
  EXPECT_NE(vec, std::string::npos) << text;
  EXPECT_NE(tail, std::string::npos) << text;
  auto inputs = RandomInputs(mod, 3);
  ExpectSameValues(RunMain(mod, inputs), testing_lower::RunKernel(pf, mod, inputs), "scheduled");

  // A middle axis: the outer spatial loop stays outside (and parallel), the reduction
  // moves outside the contiguous axis.
  IRModule mid = InferTypes(ParseModule(Main("%x: " + T("3, 37, 19"), "max(%x, axis=[1])")));
  auto [mpf, mtext] = Scheduled(mid);
  size_t par = mtext.find("in 0 +: 3 parallel"), mred = mtext.find("in 0 +: 37 serial"),
         mvec = mtext.find("vectorized", mred);
  EXPECT_NE(par, std::string::npos) << mtext;
  EXPECT_LT(par, mred) << mtext;
  EXPECT_NE(mvec, std::string::npos) << mtext;
  auto min = RandomInputs(mid, 4);
  ExpectSameValues(RunMain(mid, min), testing_lower::RunKernel(mpf, mid, min), "scheduled max");
}

TEST(ScheduleReduce, InnerAxisReductionKeepsItsOrder) {
  IRModule mod = InferTypes(ParseModule(Main("%x: " + T("37, 19"), "sum(%x, axis=[1])")));
  auto [pf, text] = Scheduled(mod);
  // The reduction loop is innermost and serial: the C generator vectorizes it with
  // accumulators; nothing is interchanged or marked vectorized.
  EXPECT_NE(text.find("in 0 +: 19 serial"), std::string::npos) << text;
  EXPECT_EQ(text.find("vectorized"), std::string::npos) << text;
  auto inputs = RandomInputs(mod, 5);
  ExpectSameValues(RunMain(mod, inputs), testing_lower::RunKernel(pf, mod, inputs), "scheduled");
}

TEST(ScheduleReduce, ReductionsOverEveryAxisOddAndEvenMatchTheInterpreter) {
  for (const char* op : {"sum", "mean", "max", "min"})
    for (const char* shape : {"5, 37", "4, 64", "3, 9, 67"})
      for (const char* axis : {"[0]", "[-1]", "[0, -1]"}) {
        std::string o(op);
        CheckLowering(Main("%x: " + T(shape), o + "(%x, axis=" + axis + ")"));
        CheckLowering(Main("%x: " + T(shape), o + "(%x, axis=" + axis + ", keepdims=True)"));
      }
  CheckLowering(Main("%x: " + T("3, 9, 67"), "sum(%x, axis=[1])"));
  CheckLowering(Main("%x: " + T("2, 17, 33", "float64"), "max(%x, axis=[1])"));
  CheckLowering(Main("%x: " + T("2, 17, 33", "float64"), "sum(%x, axis=[2])"));
}

TEST(ScheduleReduce, SoftmaxLayerNormAndPoolingOnOddAndEvenShapes) {
  for (const char* shape : {"3, 7", "4, 64", "2, 3, 67", "5, 130"}) {
    CheckLowering(Main("%x: " + T(shape), "nn.softmax(%x)"));
    CheckLowering(Main("%x: " + T(shape), "nn.log_softmax(%x)"));
    CheckLowering(Main("%x: " + T(shape), "nn.softmax(%x, axis=0)"));
  }
  CheckLowering(Main("%x: " + T("2, 19, 5"), "nn.softmax(%x, axis=1)"));
  CheckLowering(Main("%x: " + T("2, 19, 5"), "nn.log_softmax(%x, axis=1)"));
  for (const char* len : {"7", "64", "67"}) {
    std::string l(len);
    CheckLowering(Main("%x: " + T("5, " + l) + ", %g: " + T(l) + ", %b: " + T(l),
                       "nn.layer_norm(%x, %g, %b)"));
  }
  CheckLowering(Main("%x: " + T("1, 3, 19, 21"), "nn.global_avg_pool2d(%x)"));
  CheckLowering(Main("%x: " + T("1, 3, 19, 21"), "nn.max_pool2d(%x, pool_size=[3, 3])"));
  CheckLowering(
      Main("%x: " + T("1, 3, 19, 21"), "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2])"));
  // gelu/sigmoid/tanh chains vectorize with the prelude's vector math.
  CheckLowering(Main("%x: " + T("5, 37"), "nn.gelu(%x)"));
  CheckLowering(Main("%x: " + T("5, 37"), "sigmoid(tanh(%x))"));
}

}  // namespace
}  // namespace tessera
