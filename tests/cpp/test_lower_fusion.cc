// Fused groups lowered to one PrimFunc each: numerics against the interpreter, the
// structure of epilogue fusion (no output-sized scratch), constants as buffer params, and
// a ResNet-style block through SimplifyInference, FoldConstant, FuseOps and LowerToTIR.
#include <gtest/gtest.h>

#include <random>

#include "lower_test_util.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace {

using testing_lower::ExpectSameValues;
using testing_lower::RandomInputs;

/// The Allocate statements in `s` (any depth).
std::vector<tir::Buffer> Allocations(const tir::Stmt& s) {
  std::vector<tir::Buffer> out;
  std::vector<tir::Stmt> stack{s};
  while (!stack.empty()) {
    tir::Stmt n = stack.back();
    stack.pop_back();
    if (!n.defined()) continue;
    if (auto* a = n.as<tir::AllocateNode>()) {
      out.push_back(a->buffer);
      stack.push_back(a->body);
    } else if (auto* q = n.as<tir::SeqStmtNode>()) {
      for (const tir::Stmt& c : q->seq) stack.push_back(c);
    } else if (auto* f = n.as<tir::ForNode>()) {
      stack.push_back(f->body);
    }
  }
  return out;
}

std::vector<std::pair<std::string, tir::PrimFunc>> PrimFuncs(const IRModule& mod) {
  std::vector<std::pair<std::string, tir::PrimFunc>> out;
  for (const auto& [name, f] : mod.functions())
    if (auto* pf = f.as<tir::PrimFuncNode>()) out.emplace_back(name, tir::PrimFunc(pf));
  return out;
}

/// Parses, fuses, lowers; checks the numerics and returns the lowered module.
IRModule FuseAndLower(const std::string& text, const std::string& pipeline = "FuseOps") {
  IRModule mod = InferTypes(ParseModule(text));
  auto inputs = RandomInputs(mod, 11);
  Value want = RunMain(mod, inputs);
  IRModule fused = ParsePipeline(pipeline)(mod);
  IRModule lowered = ParsePipeline("LowerToTIR")(fused);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(want, RunMain(lowered, inputs), "fused+lowered");
  return lowered;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

TEST(LowerFusion, ConvBiasReluResidualIsOneNestWithoutScratch) {
  IRModule lowered = FuseAndLower(R"(
def @main(%x: Tensor[(1, 4, 9, 9), float32], %w: Tensor[(4, 4, 3, 3), float32],
          %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  add(%2, %x)
})");
  auto pfs = PrimFuncs(lowered);
  ASSERT_EQ(pfs.size(), 1u) << PrintModule(lowered);
  EXPECT_EQ(pfs[0].first, "fused_nn_conv2d_nn_bias_add_nn_relu_add");
  for (const tir::Buffer& b : Allocations(pfs[0].second->body))
    EXPECT_LT(NumElements(b->shape), 4 * 9 * 9) << "scratch " << b->name;
}

TEST(LowerFusion, ConvBiasReluPrimitiveHasNoScratchAtAll) {
  IRModule mod = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(5, 3, 3, 3), float32],
          %b: Tensor[(5), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})"));
  tir::PrimFunc pf = lower::LowerPrimitive(
      WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
  EXPECT_TRUE(Allocations(pf->body).empty()) << PrintStmt(pf->body);
  std::string text = PrintStmt(pf->body);
  EXPECT_NE(text.find("conv2d_epilogue"), std::string::npos) << text;
}

TEST(LowerFusion, DenseBiasGelu) {
  IRModule lowered = FuseAndLower(R"(
def @main(%x: Tensor[(3, 16), float32], %w: Tensor[(10, 16), float32], %b: Tensor[(10), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.bias_add(%0, %b, axis=-1);
  nn.gelu(%1)
})");
  auto pfs = PrimFuncs(lowered);
  ASSERT_EQ(pfs.size(), 1u) << PrintModule(lowered);
  EXPECT_TRUE(Allocations(pfs[0].second->body).empty()) << PrintStmt(pfs[0].second->body);
}

TEST(LowerFusion, SoftmaxAndLayerNorm) {
  FuseAndLower(R"(
def @main(%x: Tensor[(4, 10), float32]) {
  %0 = multiply(%x, 2f);
  %1 = nn.softmax(%0);
  add(%1, 1f)
})");
  FuseAndLower(R"(
def @main(%x: Tensor[(4, 6), float32], %g: Tensor[(6), float32], %b: Tensor[(6), float32]) {
  %0 = nn.layer_norm(%x, %g, %b);
  nn.relu(%0)
})");
  FuseAndLower(R"(
def @main(%x: Tensor[(4, 6), float32], %g: Tensor[(6), float32], %b: Tensor[(6), float32]) {
  %0 = nn.layer_norm(%x, %g, %b);
  nn.relu(%0)
})",
               "SimplifyInference,FuseOps");
}

TEST(LowerFusion, ReductionFeedingReduction) {
  FuseAndLower(R"(
def @main(%x: Tensor[(2, 3, 5), float32]) {
  %0 = sum(%x, axis=[2]);
  %1 = exp(%0);
  %2 = max(%1, axis=[1], keepdims=True);
  %3 = subtract(%1, %2);
  (%3, %0)
})");
}

TEST(LowerFusion, ResNetBlockWithConstants) {
  IRModule mod = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w1: Tensor[(4, 4, 3, 3), float32],
          %g: Tensor[(4), float32], %be: Tensor[(4), float32], %m: Tensor[(4), float32],
          %v: Tensor[(4), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1]);
  %1 = nn.batch_norm(%0, %g, %be, %m, %v);
  %2 = nn.relu(%1.0);
  %3 = nn.conv2d(%2, %w2, padding=[1, 1]);
  %4 = add(%3, %x);
  %5 = nn.relu(%4);
  nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2])
})"));
  // Weights and statistics become constants so FoldConstant has work to do.
  Function main = mod.LookupFunction("main");
  auto inputs = RandomInputs(mod, 5);
  std::unordered_map<const VarNode*, Expr> bind;
  std::vector<Var> params;
  for (const Var& p : main->params) {
    if (p->name_hint == "x") {
      params.push_back(p);
      continue;
    }
    NDArray a = inputs.at(p->name_hint);
    if (p->name_hint == "v")
      for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, std::fabs(a.GetFloat(i)) + 0.1);
    bind[p.get()] = MakeConstant(a);
  }
  IRModule cmod =
      InferTypes(IRModule::FromExpr(MakeFunction(params, Substitute(main->body, bind))));
  std::map<std::string, NDArray> xin{{"x", inputs.at("x")}};
  Value want = RunMain(cmod, xin);
  IRModule fused = ParsePipeline("SimplifyInference,FoldConstant,FuseOps")(cmod);
  IRModule lowered = ParsePipeline("LowerToTIR")(fused);
  EXPECT_TRUE(testing_lower::OnlyCallTir(lowered)) << PrintModule(lowered);
  ExpectSameValues(want, RunMain(lowered, xin), "resnet block");
  // Each kernel's constants arrive as extra buffer params.
  bool any_constant_arg = false;
  PostOrderVisit(lowered.LookupFunction("main")->body, [&](const Expr& e) {
    if (e.as<ConstantNode>()) any_constant_arg = true;
  });
  EXPECT_TRUE(any_constant_arg);
  // The lowered module prints and parses back structurally equal.
  IRModule reparsed = ParseModule(PrintModule(lowered));
  EXPECT_TRUE(StructuralEqual(reparsed, lowered)) << PrintModule(lowered);
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerFusion, FinalizingReductionsTakeEpilogues) {
  for (const char* body : {"%0 = mean(%x, axis=[1]); nn.relu(%0)",
                           // Dilated: a guarded reduction (undilated pools read a padded copy).
                           "%0 = nn.avg_pool2d(%x, pool_size=[2, 2], dilation=[2, 2], "
                           "padding=[1, 1]); exp(%0)",
                           "%0 = max(%x, axis=[2], keepdims=True); subtract(%0, 1f)"}) {
    std::string text =
        std::string("def @main(%x: Tensor[(1, 3, 5, 5), float32]) {\n  ") + body + "\n}\n";
    // FuseOps keeps reductions apart from their consumers, so lower @main as one group.
    IRModule mod = InferTypes(ParseModule(text));
    tir::PrimFunc pf = lower::LowerPrimitive(
        WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
    EXPECT_TRUE(Allocations(pf->body).empty()) << PrintStmt(pf->body);
    auto inputs = RandomInputs(mod, 3);
    ExpectSameValues(RunMain(mod, inputs), testing_lower::RunKernel(pf, mod, inputs), body);
  }
}

TEST(LowerFusion, IntegerConvWithCastEpilogue) {
  FuseAndLower(R"(
def @main(%x: Tensor[(1, 2, 5, 5), int8], %w: Tensor[(3, 2, 3, 3), int8], %b: Tensor[(3), int32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1], out_dtype="int32");
  %1 = nn.bias_add(%0, %b);
  %2 = clip(%1, a_min=-100f, a_max=100f);
  cast(%2, dtype="int8")
})");
}

TEST(LowerFusion, CompilerFunctionsAreLeftToTheirBackend) {
  IRModule mod = InferTypes(ParseModule(R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = fn (%p0: Tensor[(2, 3), float32], Primitive=1, Compiler="dnnl") {
    nn.relu(%p0)
  };
  %1 = %0(%x);
  exp(%1)
})"));
  IRModule lowered = ParsePipeline("LowerToTIR")(mod);
  int fn_calls = 0, tir_calls = 0;
  PostOrderVisit(lowered.LookupFunction("main")->body, [&](const Expr& e) {
    if (const auto* c = e.as<CallNode>()) {
      if (c->callee.as<FunctionNode>()) ++fn_calls;
      if (c->op() && c->op()->name == "call_tir") ++tir_calls;
    }
  });
  EXPECT_EQ(fn_calls, 1) << PrintModule(lowered);
  EXPECT_EQ(tir_calls, 1) << PrintModule(lowered);
  auto inputs = RandomInputs(mod, 1);
  ExpectSameValues(RunMain(mod, inputs), RunMain(lowered, inputs), "compiler fn");
}

}  // namespace
}  // namespace tessera
