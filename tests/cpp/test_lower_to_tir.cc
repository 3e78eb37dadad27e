// The LowerToTIR pass: call sites become call_tir, names are readable and deterministic,
// identical Primitive functions share a PrimFunc, globals and let-bound functions are
// lowered and then dropped, and text in gives the expected text out.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/ir/op.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/host_cpu.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace {

using testing_lower::ExpectSameValues;
using testing_lower::RandomInputs;

std::vector<std::string> Names(const IRModule& mod) {
  std::vector<std::string> names;
  for (const auto& [name, f] : mod.functions()) names.push_back(name);
  return names;
}

IRModule LowerChecked(const std::string& text) {
  IRModule mod = InferTypes(ParseModule(text));
  auto inputs = RandomInputs(mod, 3);
  Value want = RunMain(mod, inputs);
  IRModule lowered = ParsePipeline("LowerToTIR")(mod);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(want, RunMain(lowered, inputs), "LowerToTIR");
  return lowered;
}

const char* kTwoGroups = R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32], Primitive=1) {
    %a = add(%p0, %p1);
    exp(%a)
  };
  %1 = %0(%x, %y);
  %2 = fn (%q0: Tensor[(2, 3), float32], %q1: Tensor[(2, 3), float32], Primitive=1) {
    %b = add(%q0, %q1);
    tanh(%b)
  };
  %3 = %2(%1, %y);
  %4 = fn (%r0: Tensor[(2, 3), float32], %r1: Tensor[(2, 3), float32], Primitive=1) {
    %c = add(%r0, %r1);
    exp(%c)
  };
  %5 = %4(%3, %x);
  negative(%5)
}
)";

TEST(LowerToTIR, NamesSharingAndLoneOps) {
  IRModule lowered = LowerChecked(kTwoGroups);
  // The two identical add+exp groups share one PrimFunc; negative is a kernel of its own.
  EXPECT_EQ(Names(lowered),
            (std::vector<std::string>{"main", "fused_add_exp", "fused_add_tanh", "fused_negative"}))
      << PrintModule(lowered);
  // Deterministic: lowering again gives the same module.
  IRModule again = ParsePipeline("LowerToTIR")(InferTypes(ParseModule(kTwoGroups)));
  EXPECT_TRUE(StructuralEqual(lowered, again));
  EXPECT_EQ(PrintModule(lowered), PrintModule(again));
  // Printing and parsing give the same module.
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(lowered)), lowered)) << PrintModule(lowered);
}

TEST(LowerToTIR, DuplicateNamesGetSuffixes) {
  IRModule lowered = LowerChecked(R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32]) {
  %0 = add(%x, %x);
  %1 = add(%0, %y);
  add(%1, 1f)
})");
  EXPECT_EQ(Names(lowered),
            (std::vector<std::string>{"main", "fused_add", "fused_add_1", "fused_add_2"}))
      << PrintModule(lowered);
}

TEST(LowerToTIR, GlobalPrimitiveFunctionsAreLoweredAndDropped) {
  IRModule lowered = LowerChecked(R"(
def @main(%x: Tensor[(4, 5), float32]) {
  %0 = @helper(%x);
  @helper(%0)
}
def @helper(%p: Tensor[(4, 5), float32], Primitive=1) -> Tensor[(4, 5), float32] {
  %s = sum(%p, axis=[1], keepdims=True);
  subtract(%p, %s)
}
)");
  EXPECT_EQ(Names(lowered), (std::vector<std::string>{"main", "fused_sum_subtract"}))
      << PrintModule(lowered);
}

TEST(LowerToTIR, TupleResultsAndTupleArguments) {
  LowerChecked(R"(
def @main(%x: Tensor[(2, 6), float32], %y: Tensor[(2, 2), float32]) {
  %0 = split(%x, indices_or_sections=3, axis=1);
  %1 = (%0.0, %y, %0.2);
  %2 = concatenate(%1, axis=0);
  (%2, %0.1)
})");
}

TEST(LowerToTIR, KernelsThatOnlyConcatenateSayAlongWhichAxis) {
  // A lone concatenate (of a tuple param, the axis counted from the end) and one of two
  // params in order carry concat_axis; one in another order or fused with relu do not.
  IRModule lowered = LowerChecked(R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = concatenate((%x, %y), axis=-1);
  %1 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32], Primitive=1) {
    concatenate((%p0, %p1), axis=0)
  };
  %2 = fn (%q0: Tensor[(2, 3), float32], %q1: Tensor[(2, 3), float32], Primitive=1) {
    concatenate((%q1, %q0), axis=0)
  };
  %3 = fn (%r0: Tensor[(2, 3), float32], %r1: Tensor[(2, 3), float32], Primitive=1) {
    %c = concatenate((%r0, %r1), axis=0);
    nn.relu(%c)
  };
  (%0, %1(%x, %y), %2(%x, %y), %3(%x, %y))
})");
  std::map<std::string, int64_t> axes;
  for (const auto& [name, f] : lowered.functions())
    if (const auto* pf = f.as<tir::PrimFuncNode>())
      axes[name] = pf->attrs.Has(attr::kConcatAxis) ? pf->attrs.GetInt(attr::kConcatAxis) : -1;
  EXPECT_EQ(axes, (std::map<std::string, int64_t>{{"fused_concatenate", 1},
                                                   {"fused_concatenate_1", 0},
                                                   {"fused_concatenate_2", -1},
                                                   {"fused_concatenate_nn_relu", -1}}))
      << PrintModule(lowered);
}

TEST(LowerToTIR, FuseOpsThenLower) {
  IRModule mod = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32],
          %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = reshape(%2, newshape=[1, 144]);
  nn.softmax(%3)
})"));
  auto inputs = RandomInputs(mod, 9);
  Value want = RunMain(mod, inputs);
  IRModule lowered = ParsePipeline("FuseOps,LowerToTIR")(mod);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(want, RunMain(lowered, inputs), "FuseOps,LowerToTIR");
  EXPECT_EQ(Names(lowered)[1], "fused_nn_conv2d_nn_bias_add_nn_relu") << PrintModule(lowered);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

/// A chain of `n` ops after one dense: x -> dense -> (relu, add 1, ...) n times.
std::string DeepChain(int n) {
  std::string text =
      "def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {\n"
      "  %0 = nn.dense(%x, %w);\n";
  for (int i = 1; i <= n; ++i)
    text += "  %" + std::to_string(i) + " = " + (i % 2 ? "nn.relu(%" : "add(1f, %") +
            std::to_string(i - 1) + ");\n";
  return text + "  negative(%" + std::to_string(n) + ")\n}\n";
}

TEST(LowerToTIR, DeepBodiesDoNotOverflowTheStack) {
  IRModule mod = InferTypes(ParseModule(DeepChain(3000)));
  auto inputs = RandomInputs(mod, 1);
  Value want = RunMain(mod, inputs);
  // The whole chain as one Primitive function: one PrimFunc, chains written in pieces.
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  ExpectSameValues(want, testing_lower::RunKernel(pf, mod, inputs), "deep LowerPrimitive");
  IRModule lowered = ParsePipeline("FuseOps,LowerToTIR")(mod);
  ExpectSameValues(want, RunMain(lowered, inputs), "deep FuseOps,LowerToTIR");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerToTIR, TextInExpectedTextOut) {
  IRModule input = ParseModule(R"(
def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) {
  %0 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(3), float32], Primitive=1) {
    %1 = add(%p0, %p1);
    nn.relu(%1)
  };
  %2 = %0(%x, %b);
  sum(%2, axis=[1])
}
)");
  IRModule expected = ParseModule(R"(
def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) -> Tensor[(2), float32] {
  %0 = call_tir(@fused_add_nn_relu, (%x, %b), Tensor[(2, 3), float32]);
  call_tir(@fused_sum, (%0,), Tensor[(2), float32])
}

primfn @fused_add_nn_relu(%p0: Buffer[(2, 3), float32], %p1: Buffer[(3), float32], global_symbol="fused_add_nn_relu", tir.noalias=True) -> (%T_out: Buffer[(2, 3), float32]) {
  for %i0: int32 in 0 +: 2 serial {
    for %i1: int32 in 0 +: 3 vectorized {
      block "T_out"(%v0: int32 in 0 +: 2 spatial = %i0, %v1: int32 in 0 +: 3 spatial = %i1) reads(%p0[%v0, %v1], %p1[%v1]) writes(%T_out[%v0, %v1]) {
        %T_out[%v0, %v1] = select(%p0[%v0, %v1] + %p1[%v1] < 0f, 0f, %p0[%v0, %v1] + %p1[%v1]);
      }
    }
  }
}

primfn @fused_sum(%p0: Buffer[(2, 3), float32], global_symbol="fused_sum", tir.noalias=True) -> (%T_out: Buffer[(2), float32]) {
  for %i0: int32 in 0 +: 2 serial {
    block "sum_init"(%v0_i: int32 in 0 +: 2 spatial = %i0) reads() writes(%T_out[%v0_i]) {
      %T_out[%v0_i] = 0f;
    }
    for %k0: int32 in 0 +: 3 serial {
      block "sum"(%v0: int32 in 0 +: 2 spatial = %i0, %r0: int32 in 0 +: 3 reduce = %k0) reads(%T_out[%v0], %p0[%v0, %r0]) writes(%T_out[%v0]) {
        %T_out[%v0] = %T_out[%v0] + %p0[%v0, %r0];
      }
    }
  }
}
)");
  IRModule lowered = ParsePipeline("LowerToTIR")(input);
  auto diff = StructuralDiff(lowered, expected);
  EXPECT_FALSE(diff.has_value()) << *diff << "\n" << PrintModule(lowered);
}

TEST(LowerToTIR, ScheduleMarksParallelAndVectorizedLoops) {
  IRModule mod = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(64, 37), float32], %y: Tensor[(37), float32]) {
  add(%x, %y)
})"));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  tir::PrimFunc sched = lower::ScheduleDefault(pf);
  std::string text = PrintStmt(sched->body);
  EXPECT_NE(text.find("in 0 +: 64 parallel"), std::string::npos) << text;
  // Split by one SIMD register of float32 lanes of this CPU, then the tail.
  const int64_t width = HostSimdBytes() / 4, main = 37 / width * width;
  EXPECT_NE(text.find("in 0 +: " + std::to_string(width) + " vectorized"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find("in " + std::to_string(main) + " +: " + std::to_string(37 - main) + " serial"),
      std::string::npos)
      << text;
  auto inputs = RandomInputs(mod, 2);
  ExpectSameValues(RunMain(mod, inputs), testing_lower::RunKernel(sched, mod, inputs), "scheduled");
  // Reduction loops stay serial; a short outer loop is fused with the next for parallelism.
  IRModule red = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(2, 40, 30), float32]) {
  sum(%x, axis=[2])
})"));
  tir::PrimFunc rpf = lower::ScheduleDefault(lower::LowerPrimitive(
      WithAttr(red.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "r"));
  std::string rtext = PrintStmt(rpf->body);
  EXPECT_NE(rtext.find("in 0 +: 80 parallel"), std::string::npos) << rtext;
  EXPECT_NE(rtext.find("in 0 +: 30 serial"), std::string::npos) << rtext;
  auto rin = RandomInputs(red, 4);
  ExpectSameValues(RunMain(red, rin), testing_lower::RunKernel(rpf, red, rin), "scheduled sum");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerToTIR, LetBoundPrimitiveFunctionsAndConstants) {
  // let %g = fn (%q) Primitive { relu(add(%q, [1, -1, 2])) }; let %v = exp(%x); %g(%g(%v)) + %v
  Type t = MakeTensorType({3});
  Var x = MakeVar("x", t), q = MakeVar("q", t), g = MakeVar("g"), v = MakeVar("v");
  NDArray c = NDArray::FromFloats({3}, {1, -1, 2});
  Function prim =
      WithAttr(MakeFunction({q}, MakeOpCall("nn.relu", {MakeOpCall("add", {q, MakeConstant(c)})})),
               attr::kPrimitive, int64_t{1});
  Expr body = MakeLet(
      g, prim,
      MakeLet(v, MakeOpCall("exp", {x}), MakeOpCall("add", {MakeCall(g, {MakeCall(g, {v})}), v})));
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  auto inputs = RandomInputs(mod, 8);
  IRModule lowered = ParsePipeline("LowerToTIR")(mod);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(RunMain(mod, inputs), RunMain(lowered, inputs), "let-bound");
  // Both calls of %g share one PrimFunc, which takes the constant as a second input.
  EXPECT_EQ(Names(lowered),
            (std::vector<std::string>{"main", "fused_exp", "fused_add_nn_relu", "fused_add"}))
      << PrintModule(lowered);
  const auto* pf = lowered.Lookup("fused_add_nn_relu").as<tir::PrimFuncNode>();
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->params.size(), 3u);
  EXPECT_TRUE(StructuralEqual(ParseModule(PrintModule(lowered)), lowered)) << PrintModule(lowered);
}

TEST(LowerToTIR, LayersOfOneShapeShareAKernelWithTheirOwnWeights) {
  // Two convs of one shape with different constant weights (packed at compile time):
  // one PrimFunc, each call passing its own packed weights; a third shape gets its own.
  Type t = MakeTensorType({1, 8, 6, 6});
  Var x = MakeVar("x", t);
  auto conv = [](const Expr& in, int64_t out_channels, float seed) {
    std::vector<float> w(static_cast<size_t>(out_channels * 8 * 9));
    for (size_t i = 0; i < w.size(); ++i) w[i] = seed * static_cast<float>(i % 7) - 0.1f;
    Var p = MakeVar("p", MakeTensorType({1, 8, 6, 6})),
        q = MakeVar("q", MakeTensorType({out_channels, 8, 3, 3}));
    Attrs attrs;
    attrs.Set("padding", AttrValue::Ints({1, 1}));
    Function f = WithAttr(
        MakeFunction({p, q}, MakeOpCall("nn.relu", {MakeOpCall("nn.conv2d", {p, q}, attrs)})),
        attr::kPrimitive, int64_t{1});
    return MakeCall(f, {in, MakeConstant(NDArray::FromFloats({out_channels, 8, 3, 3}, w))});
  };
  Expr body = conv(conv(conv(x, 8, 0.01f), 8, -0.02f), 4, 0.03f);
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  auto inputs = RandomInputs(mod, 5);
  IRModule lowered = ParsePipeline("LowerToTIR")(mod);
  ExpectSameValues(RunMain(mod, inputs), RunMain(lowered, inputs), "shared conv kernel");
  EXPECT_EQ(Names(lowered), (std::vector<std::string>{"main", "fused_nn_conv2d_nn_relu",
                                                      "fused_nn_conv2d_nn_relu_1"}))
      << PrintModule(lowered);
}

}  // namespace
}  // namespace tessera
