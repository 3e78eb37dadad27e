// The layout-planning passes: PlanLayouts' flow, cancellation and folding (IR in,
// expected IR out, same numbers), ConvertLayout and AlterOpLayout.
#include <gtest/gtest.h>

#include <random>

#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout_plan/layout_flow.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/support/host_cpu.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace testing {
namespace {

/// @main of `text` with the parameters named in `names` replaced by seeded random
/// constants (weights a pass may fold into).
IRModule WithConstants(const std::string& text, const std::vector<std::string>& names) {
  IRModule mod = ParseModule(text);
  Function main = mod.LookupFunction("main");
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::unordered_map<const VarNode*, Expr> bind;
  std::vector<Var> params;
  for (const Var& p : main->params) {
    if (std::find(names.begin(), names.end(), p->name_hint) == names.end()) {
      params.push_back(p);
      continue;
    }
    const auto* t = p->type_annotation.as<TensorTypeNode>();
    NDArray a = NDArray::Empty(t->shape, t->dtype);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, dist(rng));
    bind[p.get()] = MakeConstant(a);
  }
  return InferTypes(
      mod.WithFunction("main", MakeFunction(params, Substitute(main->body, bind), nullptr, main->attrs)));
}

/// The module's text without constant data.
std::string Text(const IRModule& mod) {
  PrintOptions options;
  options.show_meta_data = false;
  return PrintModule(mod, options);
}

/// Runs `pass` and checks @main still computes what it did.
IRModule RunAndCompare(const Pass& pass, const IRModule& in, double tolerance = 1e-4) {
  IRModule out = InferTypes(pass(in));
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), tolerance)
      << Text(out);
  return out;
}

TEST(PlanLayouts, InverseTransformsAroundElementwiseOpsCancel) {
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = nn.relu(%0);
  %2 = sigmoid(%1);
  layout_transform(%2, src_layout="NHWC", dst_layout="NCHW")
})IR",
            R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = nn.relu(%x);
  sigmoid(%0)
})IR");
}

TEST(PlanLayouts, AdjacentTransformsComposeIntoOne) {
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  layout_transform(%0, src_layout="NHWC", dst_layout="NCHW4c")
})IR",
            R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  layout_transform(%x, src_layout="NCHW", dst_layout="NCHW4c")
})IR");
}

TEST(PlanLayouts, DifferentPermutationsOfASquareTensorDoNotCancel) {
  // Same shapes, different maps: a shape test would wrongly drop both.
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(3, 3, 3), float32]) {
  %0 = layout_transform(%x, index_map="lambda a, b, c: (b, a, c)");
  layout_transform(%0, index_map="lambda a, b, c: (a, c, b)")
})IR",
            R"IR(
def @main(%x: Tensor[(3, 3, 3), float32]) {
  layout_transform(%x, index_map="lambda a, b, c: (b, c, a)")
})IR");
}

TEST(PlanLayouts, KeepsTransformsWhereFlowingWouldMoveMoreBytes) {
  const char* text = R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32], %y: Tensor[(1, 8, 4, 4), float32]) {
  %0 = add(%x, %y);
  layout_transform(%0, src_layout="NCHW", dst_layout="NHWC")
})IR";
  CheckPass(PlanLayouts(), text, text);
}

TEST(PlanLayouts, AValueWithOtherUsesIsNotRecomputedButTheTransformMovesPastIt) {
  // relu's result is used twice, so the demand for NCHW cannot flow back through it; the
  // transform before it moves after it instead (same bytes), and then cancels.
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = nn.relu(%0);
  %2 = layout_transform(%1, src_layout="NHWC", dst_layout="NCHW");
  (%1, %2)
})IR",
            R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = layout_transform(%0, src_layout="NCHW", dst_layout="NHWC");
  (%1, %0)
})IR");
}

TEST(PlanLayouts, APaddedRoundTripIsNotCancelled) {
  // NCHW -> NCHW4c -> NCHW of 6 channels gives 8: the map pair is the identity on the
  // input's indices, but the padding lanes are part of the result.
  const char* text = R"IR(
def @main(%x: Tensor[(1, 6, 2, 2), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW4c");
  layout_transform(%0, src_layout="NCHW4c", dst_layout="NCHW")
})IR";
  CheckPass(PlanLayouts(), text, text);
  CheckPass(SimplifyLayoutTransforms(), text, text);
}

TEST(PlanLayouts, FrozenTransformsStay) {
  const char* text = R"IR(
def @main(%x: Tensor[(1, 8, 2, 2), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW4c", frozen_layout=True);
  layout_transform(%0, src_layout="NCHW4c", dst_layout="NCHW")
})IR";
  CheckPass(PlanLayouts(), text, text);
}

TEST(PlanLayouts, LeavesKernelsAlone) {
  // A Primitive function is a kernel already: its transforms are its own business.
  const char* text = R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = fn (%p: Tensor[(1, 8, 4, 4), float32], Primitive=1) {
    %1 = layout_transform(%p, src_layout="NCHW", dst_layout="NHWC");
    layout_transform(%1, src_layout="NHWC", dst_layout="NCHW")
  };
  %0(%x)
})IR";
  CheckPass(PlanLayouts(), text, text);
}

TEST(PlanLayouts, CropOfPadAndPadOfCropFold) {
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(1, 3, 4, 4), float32]) {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [1, 2], [0, 0], [0, 0]]);
  crop(%0, begin=[0, 1, 0, 0], sizes=[1, 3, 4, 4])
})IR",
            R"IR(
def @main(%x: Tensor[(1, 3, 4, 4), float32]) {
  %x
})IR");
  // pad(crop(x)) is x only when the crop promised the pad value in what it cut off (a
  // promise random inputs do not keep, so only the IR is compared).
  IRModule folded = InferTypes(PlanLayouts()(ParseModule(R"IR(
def @main(%x: Tensor[(1, 6, 4, 4), float32]) {
  %0 = crop(%x, begin=[0, 1, 0, 0], sizes=[1, 3, 4, 4], cropped_value=0f);
  nn.pad(%0, 0f, pad_width=[[0, 0], [1, 2], [0, 0], [0, 0]])
})IR")));
  EXPECT_TRUE(StructuralEqual(folded, InferTypes(ParseModule(R"IR(
def @main(%x: Tensor[(1, 6, 4, 4), float32]) {
  %x
})IR")))) << PrintModule(folded);
  const char* unknown = R"IR(
def @main(%x: Tensor[(1, 6, 4, 4), float32]) {
  %0 = crop(%x, begin=[0, 1, 0, 0], sizes=[1, 3, 4, 4]);
  nn.pad(%0, 0f, pad_width=[[0, 0], [1, 2], [0, 0], [0, 0]])
})IR";
  CheckPass(PlanLayouts(), unknown, unknown);
}

TEST(PlanLayouts, SeedReductionExample) {
  // The seed's reduction: a sum over H of an NHWC tensor viewed as NCHW becomes a sum over
  // axis 1 of the NHWC tensor, and only the (smaller) result is transformed.
  CheckPass(PlanLayouts(), R"IR(
def @main(%x: Tensor[(2, 5, 6, 8), float32]) {
  %0 = nn.relu(%x, frozen_layout=True);
  %1 = layout_transform(%0, src_layout="NHWC", dst_layout="NCHW");
  sum(%1, axis=[2])
})IR",
            R"IR(
def @main(%x: Tensor[(2, 5, 6, 8), float32]) {
  %0 = nn.relu(%x, frozen_layout=True);
  %1 = sum(%0, axis=[1]);
  layout_transform(%1, index_map="lambda i0, i1, i2: (i0, i2, i1)")
})IR");
}

TEST(PlanLayouts, ARegisteredRuleFlowsThroughAnOpTheAnalysisCannotRead) {
  const char* text = R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = nn.relu(%0, frozen_layout=True);
  %2 = layout_transform(%1, src_layout="NHWC", dst_layout="NCHW");
  %3 = nn.softmax(%2, axis=1);
  %4 = layout_transform(%3, src_layout="NCHW", dst_layout="NHWC");
  nn.relu(%4, frozen_layout=True)
})IR";
  // Without a rule softmax stops the flow.
  CheckPass(PlanLayouts(), text, text);
  // The rule: a softmax over channels in NHWC is a softmax over the last axis.
  RegisterLayoutFlowRule("nn.softmax", [](const Call& call, const layout::IndexMap& map)
                                           -> std::optional<LayoutFlow> {
    if (!(map == layout::IndexMap::FromLayouts("NCHW", "NHWC"))) return std::nullopt;
    return LayoutFlow{"nn.softmax", call->attrs.With("axis", int64_t{3}), call->args, {map}};
  });
  CheckPass(PlanLayouts(), text, R"IR(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
  %1 = nn.relu(%0, frozen_layout=True);
  %2 = nn.softmax(%1, axis=3);
  nn.relu(%2, frozen_layout=True)
})IR");
  UnregisterLayoutFlowRule("nn.softmax");
  CheckPass(PlanLayouts(), text, text);
}

/// The seed's running example: conv -> bias -> relu -> conv, both convs frozen to a
/// layout; after PlanLayouts only the graph input's and output's transforms run.
void ExpectSeedExample(const std::string& data_layout, const std::string& kernel_layout) {
  IRModule in = WithConstants(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %b1: Tensor[(8), float32], %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  nn.conv2d(%2, %w2, padding=[1, 1, 1, 1])
})IR",
                              {"w1", "b1", "w2"});
  IRModule converted =
      RunAndCompare(ConvertLayout({{"nn.conv2d", {data_layout, kernel_layout}}}), in);
  EXPECT_EQ(CountOpCalls(converted, "layout_transform"), 6) << Text(converted);
  IRModule planned = RunAndCompare(PlanLayouts(), converted);
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
  EXPECT_EQ(CountOpCalls(planned, "nn.bias_add"), 0) << Text(planned);
  // Both convs stay frozen in the wanted layouts.
  int frozen = 0;
  PostOrderVisit(planned.LookupFunction("main"), [&](const Expr& e) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op() || call->op()->name != "nn.conv2d") return;
    EXPECT_EQ(call->attrs.GetString("data_layout"), data_layout);
    const AttrValue* f = call->attrs.Find("frozen_layout");
    frozen += f && f->is_bool() && f->AsBool();
  });
  EXPECT_EQ(frozen, 2);
}

TEST(PlanLayouts, SeedExampleInNHWC) { ExpectSeedExample("NHWC", "HWIO"); }
TEST(PlanLayouts, SeedExampleInNCHW4c) { ExpectSeedExample("NCHW4c", "OIHW4i4o"); }

/// ConvertLayout to NCHW4c/OIHW4i4o then PlanLayouts on `text` (parameters `w*` become
/// constants): the numbers must not change; returns the planned module.
IRModule BlockedAndPlanned(const std::string& text, const std::vector<std::string>& weights) {
  IRModule in = WithConstants(text, weights);
  IRModule converted = RunAndCompare(ConvertLayout({{"nn.conv2d", {"NCHW4c", "OIHW4i4o"}}}), in);
  return RunAndCompare(PlanLayouts(), converted);
}

TEST(PlanLayouts, PaddedInputChannels) {
  // Three input channels in NCHW4c: the input and the weight are padded with zeros.
  IRModule planned = BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(8, 3, 3, 3), float32],
          %w2: Tensor[(4, 8, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w2)
})IR",
                                       {"w1", "w2"});
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
}

TEST(PlanLayouts, PoolingBetweenConvsRunsBlocked) {
  IRModule planned = BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 8, 8), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2]);
  nn.conv2d(%2, %w2, padding=[1, 1, 1, 1])
})IR",
                                       {"w1", "w2"});
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
}

TEST(PlanLayouts, ConcatenationOfBlockedPartsStaysBlocked) {
  // SqueezeNet's fire module: two convs joined along channels feed the next conv.
  IRModule planned = BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(4, 8, 1, 1), float32],
          %w2: Tensor[(8, 8, 3, 3), float32], %w3: Tensor[(8, 12, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.relu(%0);
  %2 = nn.conv2d(%x, %w2, padding=[1, 1, 1, 1]);
  %3 = nn.relu(%2);
  %4 = concatenate((%1, %3), axis=1);
  nn.conv2d(%4, %w3, padding=[1, 1, 1, 1])
})IR",
                                       {"w1", "w2", "w3"});
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
}

TEST(PlanLayouts, ConcatenationOfSingleBlockPartsToTheOutput) {
  // Each part is one channel block: an inverse computed on a part's shape alone would send
  // every channel to block 0, so the transforms must not move past the concatenation.
  BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 4, 4, 4), float32], %w1: Tensor[(4, 4, 1, 1), float32],
          %w2: Tensor[(4, 4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.conv2d(%x, %w2);
  concatenate((%0, %1), axis=1)
})IR",
                    {"w1", "w2"});
}

TEST(PlanLayouts, ConcatenationOfPartsTheBlockDoesNotDivide) {
  // 6 output channels in NCHW4c: the conv's result is padded to 8 and cropped back; the
  // concatenation cannot stay blocked, and the numbers must not change.
  BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(6, 8, 1, 1), float32],
          %w2: Tensor[(4, 8, 3, 3), float32], %w3: Tensor[(8, 10, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1);
  %1 = nn.conv2d(%x, %w2, padding=[1, 1, 1, 1]);
  %2 = concatenate((%0, %1), axis=1);
  nn.conv2d(%2, %w3, padding=[1, 1, 1, 1])
})IR",
                    {"w1", "w2", "w3"});
}

// The failure classes other compilers' layout passes had: each must keep the numbers.
TEST(PlanLayouts, TransposeBetweenConvs) {
  BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 5), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = transpose(%0, axes=[0, 1, 3, 2]);
  nn.conv2d(%1, %w2, padding=[1, 1, 1, 1])
})IR",
                    {"w1", "w2"});
}

TEST(PlanLayouts, BroadcastOfAOneElementConstant) {
  IRModule planned = BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32], %w3: Tensor[(1), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = multiply(%0, %w3);
  nn.conv2d(%1, %w2, padding=[1, 1, 1, 1])
})IR",
                                       {"w1", "w2", "w3"});
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
}

TEST(PlanLayouts, StridedSliceOfABlockedTensor) {
  BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  strided_slice(%1, begin=[0, 1, 0, 0], end=[1, 7, 6, 6], strides=[1, 2, 1, 1])
})IR",
                    {"w1"});
}

TEST(PlanLayouts, ReductionOverTheBlockedAxisAfterABlockedConv) {
  // (Relay's argmin-after-NCHWc bug: a reduction over the channel axis, with and without
  // keepdims.)
  BlockedAndPlanned(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = max(%1, axis=[1]);
  %3 = mean(%1, axis=[1], keepdims=True);
  (%2, %3)
})IR",
                    {"w1"});
}

TEST(AlterOpLayout, NativeConvsGetChannelBlocksAndExchangeBlockedTensors) {
  IRModule in = WithConstants(R"IR(
def @main(%x: Tensor[(1, 3, 10, 10), float32], %w1: Tensor[(16, 3, 3, 3), float32],
          %b1: Tensor[(16), float32], %w2: Tensor[(32, 16, 3, 3), float32],
          %w3: Tensor[(32, 1, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  %3 = nn.conv2d(%2, %w2, strides=[2, 2], padding=[1, 1, 1, 1]);
  %4 = nn.relu(%3);
  nn.conv2d(%4, %w3, padding=[1, 1, 1, 1], groups=32)
})IR",
                              {"w1", "b1", "w2", "w3"});
  IRModule altered = RunAndCompare(AlterOpLayout("native"), in);
  IRModule planned = RunAndCompare(PlanLayouts(), altered);
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
  int blocked = 0;
  PostOrderVisit(planned.LookupFunction("main"), [&](const Expr& e) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op() || call->op()->name != "nn.conv2d") return;
    blocked += call->attrs.GetString("data_layout").rfind("NCHW", 0) == 0 &&
               call->attrs.GetString("data_layout") != "NCHW";
  });
  EXPECT_EQ(blocked, 3) << Text(planned);
}

TEST(AlterOpLayout, ChannelsPaddedToWholeVectorsWhenThatAddsAThirdAtMost) {
  // 28 channels are no multiple of a vector of floats (16 on AVX-512, 8 on AVX2): both
  // convolutions take them padded to 32 (zero weights), and the result matches.
  IRModule in = WithConstants(R"IR(
def @main(%x: Tensor[(1, 16, 6, 6), float32], %w1: Tensor[(28, 16, 1, 1), float32],
          %b1: Tensor[(28), float32], %w2: Tensor[(16, 28, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, channels=28);
  %1 = nn.bias_add(%0, %b1);
  %2 = nn.relu(%1);
  nn.conv2d(%2, %w2, padding=[1, 1, 1, 1])
})IR",
                              {"w1", "b1", "w2"});
  IRModule planned = RunAndCompare(PlanLayouts(), RunAndCompare(AlterOpLayout("native"), in));
  std::vector<std::string> layouts, channels;
  PostOrderVisit(planned.LookupFunction("main"), [&](const Expr& e) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op() || call->op()->name != "nn.conv2d") return;
    layouts.push_back(call->attrs.GetString("data_layout") + " " +
                      call->attrs.GetString("kernel_layout"));
    const AttrValue& c = call->attrs.Get("channels");
    channels.push_back(c.is_int() ? std::to_string(c.AsInt()) : "none");
  });
  ASSERT_EQ(layouts.size(), 2u) << Text(planned);
  if (HostSimdBytes() >= 32) {
    const std::string c = std::to_string(HostSimdBytes() / 4);
    EXPECT_EQ(layouts[0], "NCHW" + c + "c OIHW" + c + "i" + c + "o") << Text(planned);
    EXPECT_EQ(layouts[1], "NCHW" + c + "c OIHW" + c + "i" + c + "o") << Text(planned);
    // The padded weights give the first convolution 32 output channels.
    EXPECT_EQ(channels, (std::vector<std::string>{"32", "none"}));
  }
}

TEST(FreezeLayouts, IndexMapsFreezeConvsAsTransformedPrimFuncs) {
  IRModule in = WithConstants(R"IR(
def @main(%x: Tensor[(1, 8, 6, 6), float32], %w1: Tensor[(8, 8, 3, 3), float32],
          %w2: Tensor[(8, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  nn.conv2d(%1, %w2, padding=[1, 1, 1, 1])
})IR",
                              {"w1", "w2"});
  using layout::IndexMap;
  IndexMap data = IndexMap::Parse("lambda n, c, h, w: (n, c // 4, h, w, c % 4)");
  IndexMap weight = IndexMap::Parse("lambda o, i, h, w: (o // 4, h, w, i, o % 4)");
  IRModule frozen = RunAndCompare(FreezeLayouts({{"nn.conv2d", {data, weight, data}}}), in);
  EXPECT_EQ(CountOpCalls(frozen, "call_tir"), 2) << Text(frozen);
  EXPECT_EQ(CountOpCalls(frozen, "nn.conv2d"), 0) << Text(frozen);
  IRModule planned = RunAndCompare(PlanLayouts(), frozen);
  // The relu runs blocked between the two frozen kernels; the weights folded.
  EXPECT_EQ(CountOpCalls(planned, "layout_transform"), 2) << Text(planned);
  // The same from the pipeline syntax.
  PassContext::Scope scope(PassContext::Create(3));
  IRModule piped = RunAndCompare(
      ParsePipeline("FreezeLayouts{frozen_layouts=\"nn.conv2d:" + data.ToString() + "|" +
                    weight.ToString() + "|" + data.ToString() + "\"},PlanLayouts"),
      in);
  EXPECT_EQ(CountOpCalls(piped, "layout_transform"), 2) << Text(piped);
  ExpectError([] { FreezeLayouts({{"nn.conv2d", {IndexMap::Identity(4)}}}); }, ErrorKind::kValue,
              "takes 2 operands, so 3 maps");
  ExpectError([] { FreezeLayouts({{"nn.nope", {}}}); }, ErrorKind::kNotFound, "unknown op");
  // A map that does not fit its tensor names the pass, the op and the map.
  IndexMap pair = IndexMap::Parse("lambda a, b: (b, a)");
  ExpectError([&] { FreezeLayouts({{"nn.conv2d", {pair, IndexMap(), IndexMap()}}})(in); },
              ErrorKind::kType, "FreezeLayouts: op 'nn.conv2d': the map lambda a, b: (b, a) of its operand 0");
}

TEST(ConvertLayout, BadDesiredLayoutsAreClearErrors) {
  ExpectError([] { ConvertLayout({{"nn.dense", {"NC"}}}); }, ErrorKind::kValue,
              "op 'nn.dense' has no layouts to convert");
  ExpectError([] { ConvertLayout({{"nn.conv2d", {"NCHW", "OIHW", "NCHW", "X"}}}); },
              ErrorKind::kValue, "takes 1 to 3 layouts");
  ExpectError([] { ConvertLayout({{"nn.conv2d", {"NCHW4x"}}}); }, ErrorKind::kValue, "NCHW4x");
  // Layouts the op cannot take together are the caller's mistake, named by ConvertLayout.
  IRModule three = InferTypes(ParseModule(R"IR(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(16, 3, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1])
})IR"));
  ExpectError([&] { ConvertLayout({{"nn.conv2d", {"NCHW4c", "default"}}})(three); },
              ErrorKind::kValue, "cannot take layouts [NCHW4c, default]");
  ExpectError([] { AlterOpLayout("dnnl"); }, ErrorKind::kValue,
              "target 'dnnl' declares no preferred layouts");
  ExpectError([] { GetPass("ConvertLayout", Attrs{{"desired_layouts", "nn.conv2d"}}); },
              ErrorKind::kValue, "must be op:layout");
}

TEST(ConvertLayout, FromThePipelineSyntax) {
  IRModule in = WithConstants(R"IR(
def @main(%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(4, 4, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1])
})IR",
                              {"w"});
  Pass p;
  try {
    p = ParsePipeline(R"IR(ConvertLayout{desired_layouts="nn.conv2d:NHWC,HWIO"},PlanLayouts)IR");
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  // PlanLayouts is an opt_level 3 pass: a pipeline runs it from opt_level 3 on.
  EXPECT_EQ(CountOpCalls(RunAndCompare(p, in), "layout_transform"), 3);
  PassContext::Scope scope(PassContext::Create(3));
  IRModule out = RunAndCompare(p, in);
  // The weight's transform folded into the constant; the data's and the result's remain.
  EXPECT_EQ(CountOpCalls(out, "layout_transform"), 2) << Text(out);
}

}  // namespace
}  // namespace testing
}  // namespace tessera
