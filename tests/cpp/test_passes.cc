// Standard passes: IR in, expected IR out (structural equality), plus numerics.
#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"
#include "tessera/transform/passes.h"

namespace tessera::testing {

int CountOpCalls(const IRModule& mod, const std::string& name) {
  int count = 0;
  for (const auto& [n, f] : mod.functions()) {
    if (!f.as<FunctionNode>()) continue;
    PostOrderVisit(f, [&](const Expr& e) {
      if (auto* c = e.as<CallNode>(); c && c->op() && c->op()->name == name) ++count;
    });
  }
  return count;
}

namespace {

// ---- FuseOps ---------------------------------------------------------------------

TEST(PassFuseOps, ConvBiasReluBecomesOnePrimitive) {
  CheckPass(FuseOps(), R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = add(%0, %b);
  nn.relu(%1)
})",
            R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], %p2: Tensor[(4, 1, 1), float32], Primitive=1) {
    %1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);
    %2 = add(%1, %p2);
    nn.relu(%2)
  };
  %0(%x, %w, %b)
})");
}

TEST(PassFuseOps, CallTirStaysInPlace) {
  // call_tir already names its kernel; its @PrimFunc argument must stay a global, so it
  // is never outlined, while the ops around it still fuse.
  const char* prim = R"(
primfn @add_one(%A: Buffer[(4), float32]) -> (%B: Buffer[(4), float32]) {
  for %i: int32 in 0 +: 4 {
    block "compute"(%vi: int32 in 0 +: 4 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
})";
  CheckPass(FuseOps(), std::string(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = call_tir(@add_one, (%x,), Tensor[(4), float32]);
  %1 = exp(%0);
  nn.relu(%1)
})") + prim,
            std::string(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = call_tir(@add_one, (%x,), Tensor[(4), float32]);
  %1 = fn (%p0: Tensor[(4), float32], Primitive=1) {
    %2 = exp(%p0);
    nn.relu(%2)
  };
  %1(%0)
})") + prim);
}

TEST(PassInlineComposites, CompositeCallsBecomePlainOpsOutsidePartitions) {
  CheckPass(InlineComposites(), R"(
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {
  %0 = fn (%a: Tensor[(2, 3), float32], %b: Tensor[(4, 3), float32], Composite="dnnl.dense_relu") {
    %1 = nn.dense(%a, %b);
    nn.relu(%1)
  };
  %2 = %0(%x, %w);
  exp(%2)
})",
            R"(
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  exp(%1)
})");
}

TEST(PassInlineFunctionCalls, CallsOfGraphFunctionsBecomeTheirBodiesTwiceWithFreshLets) {
  // @helper is called twice (its let variable must be renamed in one copy), @kernel is a
  // Primitive function and stays a call; @helper goes once nothing calls it.
  IRModule out = CheckPass(InlineFunctionCalls(), R"(
def @helper(%a: Tensor[(4), float32]) -> Tensor[(4), float32] {
  let %t = nn.relu(%a);
  add(%t, %t)
}
def @kernel(%k: Tensor[(4), float32], Primitive=1) -> Tensor[(4), float32] {
  exp(%k)
}
def @main(%x: Tensor[(4), float32]) {
  @kernel(@helper(@helper(%x)))
})",
            R"(
def @kernel(%k: Tensor[(4), float32], Primitive=1) -> Tensor[(4), float32] {
  exp(%k)
}
def @main(%x: Tensor[(4), float32]) {
  %0 = {
    %1 = {
      let %t1 = nn.relu(%x);
      add(%t1, %t1)
    };
    let %t2 = nn.relu(%1);
    add(%t2, %t2)
  };
  @kernel(%0)
})");
  EXPECT_FALSE(out.Contains("helper"));
}

TEST(PassInlineFunctionCalls, PlainLocalFunctionsInlineKernelsAndCompositesStay) {
  CheckPass(InlineFunctionCalls(), R"(
def @main(%x: Tensor[(4), float32]) {
  let %f = fn (%y: Tensor[(4), float32]) { nn.relu(%y) };
  %0 = fn (%k: Tensor[(4), float32], Primitive=1) { exp(%k) };
  %1 = fn (%c: Tensor[(4), float32], Composite="dnnl.relu") { nn.relu(%c) };
  add(%0(%f(%x)), %1(%x))
})",
            R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = fn (%k: Tensor[(4), float32], Primitive=1) { exp(%k) };
  %1 = fn (%c: Tensor[(4), float32], Composite="dnnl.relu") { nn.relu(%c) };
  add(%0(nn.relu(%x)), %1(%x))
})");
}

TEST(PassInlineFunctionCalls, RecursionIsAClearError) {
  IRModule mod = ParseModule(R"(
def @f(%a: Tensor[(4), float32]) -> Tensor[(4), float32] { @g(%a) }
def @g(%a: Tensor[(4), float32]) -> Tensor[(4), float32] { @f(%a) }
def @main(%x: Tensor[(4), float32]) { @f(%x) })");
  ExpectError([&] { InlineFunctionCalls()(mod); }, ErrorKind::kUnsupported,
              "@f calls itself (through @g): a recursive function cannot be compiled");
}

TEST(PassFuseOps, ReductionStartsNewGroupAndInjectiveFusesIntoIt) {
  // exp is elemwise and fuses into the sum (its post-dominator); the sum is a reduction
  // anchor, so the following add starts a new group.
  CheckPass(FuseOps(), R"(
def @main(%x: Tensor[(4, 6), float32]) {
  %0 = exp(%x);
  %1 = sum(%0, axis=[1], keepdims=True);
  add(%1, 1f)
})",
            R"(
def @main(%x: Tensor[(4, 6), float32]) {
  %0 = fn (%p0: Tensor[(4, 6), float32], Primitive=1) {
    %1 = exp(%p0);
    sum(%1, axis=[1], keepdims=True)
  };
  %2 = %0(%x);
  %3 = fn (%p1: Tensor[(4, 1), float32], Primitive=1) {
    add(%p1, 1f)
  };
  %3(%2)
})");
}

TEST(PassFuseOps, TransposesAndReshapesFuseIntoTheProductsThatReadThem) {
  // The attention's head split (slice, reshape, transpose) and merge (transpose, reshape)
  // are read by the products through their index expressions: no kernel of their own.
  CheckPass(FuseOps(), R"(
def @main(%x: Tensor[(8, 24), float32], %w: Tensor[(8, 8), float32]) {
  %0 = strided_slice(%x, begin=[0], end=[8], strides=[1], axes=[1]);
  %1 = reshape(%0, newshape=[8, 2, 4]);
  %2 = transpose(%1, axes=[1, 0, 2]);
  %3 = strided_slice(%x, begin=[8], end=[16], strides=[1], axes=[1]);
  %4 = reshape(%3, newshape=[8, 2, 4]);
  %5 = transpose(%4, axes=[1, 2, 0]);
  %6 = nn.batch_matmul(%2, %5, transpose_b=False);
  %7 = transpose(%6, axes=[1, 0, 2]);
  %8 = reshape(%7, newshape=[16, 8]);
  nn.dense(%8, %w)
})",
            R"(
def @main(%x: Tensor[(8, 24), float32], %w: Tensor[(8, 8), float32]) {
  %0 = fn (%p0: Tensor[(8, 24), float32], Primitive=1) {
    %1 = strided_slice(%p0, begin=[0], end=[8], strides=[1], axes=[1]);
    %2 = reshape(%1, newshape=[8, 2, 4]);
    %3 = transpose(%2, axes=[1, 0, 2]);
    %4 = strided_slice(%p0, begin=[8], end=[16], strides=[1], axes=[1]);
    %5 = reshape(%4, newshape=[8, 2, 4]);
    %6 = transpose(%5, axes=[1, 2, 0]);
    nn.batch_matmul(%3, %6, transpose_b=False)
  };
  %7 = %0(%x);
  %8 = fn (%p1: Tensor[(2, 8, 8), float32], %p2: Tensor[(8, 8), float32], Primitive=1) {
    %9 = transpose(%p1, axes=[1, 0, 2]);
    %10 = reshape(%9, newshape=[16, 8]);
    nn.dense(%10, %p2)
  };
  %8(%7, %w)
})");
}

TEST(PassFuseOps, FewRowsAndOperandsBuiltByMoreThanIndexingKeepTheirKernels) {
  // A one-row dense layer takes dot products that read its operand in place, so the
  // reshape before it (a flatten) stays a kernel; a concatenation would cost a select per
  // multiply-add inside the product, so it stays one too.
  for (const char* text : {R"(
def @main(%x: Tensor[(1, 2, 4), float32], %w: Tensor[(3, 8), float32]) {
  %0 = reshape(%x, newshape=[1, 8]);
  nn.dense(%0, %w)
})",
                           R"(
def @main(%x: Tensor[(8, 4), float32], %y: Tensor[(8, 4), float32], %w: Tensor[(3, 8), float32]) {
  %0 = concatenate((%x, %y), axis=1);
  %1 = transpose(%0, axes=[0, 1]);
  nn.dense(%1, %w)
})"}) {
    IRModule out = FuseOps()(ParseModule(text));
    const auto* body = out.LookupFunction("main")->body.as<CallNode>();
    ASSERT_NE(body, nullptr);
    ASSERT_EQ(body->args.size(), 2u) << PrintModule(out);
    EXPECT_NE(body->args[0].as<CallNode>(), nullptr) << "the operand is its own kernel";
  }
}

TEST(PassFuseOps, DiamondFusesIntoPostDominator) {
  CheckPass(FuseOps(), R"(
def @main(%x: Tensor[(8), float32]) {
  %0 = exp(%x);
  %1 = nn.relu(%0);
  %2 = negative(%0);
  add(%1, %2)
})",
            R"(
def @main(%x: Tensor[(8), float32]) {
  %0 = fn (%p0: Tensor[(8), float32], Primitive=1) {
    %1 = exp(%p0);
    %2 = nn.relu(%1);
    %3 = negative(%1);
    add(%2, %3)
  };
  %0(%x)
})");
}

TEST(PassFuseOps, MaxDepthAndOptLevelZeroLimitFusion) {
  const char* chain = R"(
def @main(%x: Tensor[(8), float32]) {
  %0 = exp(%x);
  %1 = nn.relu(%0);
  %2 = negative(%1);
  tanh(%2)
})";
  IRModule in = ParseModule(chain);
  auto count_primitives = [](const IRModule& m) {
    int n = 0;
    PostOrderVisit(m.LookupFunction("main"), [&](const Expr& e) {
      if (auto* f = e.as<FunctionNode>(); f && GetIntAttr(f, attr::kPrimitive)) ++n;
    });
    return n;
  };
  EXPECT_EQ(count_primitives(FuseOps()(in)), 1);
  EXPECT_EQ(count_primitives(FuseOps(2)(in)), 2);
  PassContext level0 = PassContext::Create(0);
  EXPECT_EQ(count_primitives(FuseOps()(in, level0)), 4);
  EXPECT_THROW(FuseOps(0), tessera::Error);
}

TEST(PassFuseOps, TupleOutputsAndOpaqueOpsStaySeparate) {
  IRModule in = ParseModule(R"(
def @main(%x: Tensor[(2, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.softmax(%0);
  %2 = exp(%x);
  (%1, %2)
})");
  IRModule out = FuseOps()(in);
  // softmax is opaque: relu fuses into nothing after it; the tuple stays in @main.
  auto body = out.LookupFunction("main")->body;
  ASSERT_NE(body.as<TupleNode>(), nullptr);
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 1e-6);
}

TEST(PassFuseOps, DeepChainFusesIterativelyWithinMaxDepth) {
  Var x = MakeVar("x", MakeTensorType({4}));
  Expr e = x;
  for (int i = 0; i < 20000; ++i) e = MakeOpCall(i % 2 ? "nn.relu" : "negative", {e});
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, e));
  IRModule out = FuseOps(256)(mod);
  int primitives = 0;
  PostOrderVisit(out.LookupFunction("main"), [&](const Expr& n) {
    if (auto* f = n.as<FunctionNode>(); f && GetIntAttr(f, attr::kPrimitive)) ++primitives;
  });
  EXPECT_EQ(primitives, (20000 + 255) / 256);
}

// ---- FoldConstant ----------------------------------------------------------------

TEST(PassFoldConstant, FoldsConstantSubgraphs) {
  CheckPass(FoldConstant(), R"(
def @main(%x: Tensor[(3), float32]) {
  %0 = add(1f, 2f);
  %1 = multiply(%0, 2f);
  %2 = (%1, 5f);
  %3 = %2.0;
  multiply(%x, %3)
})",
            R"(
def @main(%x: Tensor[(3), float32]) {
  multiply(%x, 6f)
})");
}

TEST(PassFoldConstant, LeavesVariablesAndPrimitiveBodiesAlone) {
  CheckPass(FoldConstant(), R"(
def @main(%x: Tensor[(3), float32]) {
  %0 = fn (%p: Tensor[(3), float32], Primitive=1) {
    %1 = add(1f, 1f);
    multiply(%p, %1)
  };
  %0(%x)
})",
            R"(
def @main(%x: Tensor[(3), float32]) {
  %0 = fn (%p: Tensor[(3), float32], Primitive=1) {
    %1 = add(1f, 1f);
    multiply(%p, %1)
  };
  %0(%x)
})");
}

// ---- DeadCodeElimination ---------------------------------------------------------

TEST(PassDeadCode, RemovesUnusedLetsAndUnreachableFunctions) {
  CheckPass(DeadCodeElimination(), R"(
def @unused(%y: Tensor[(3), float32]) { nn.relu(%y) }
def @helper(%y: Tensor[(3), float32]) { negative(%y) }
def @main(%x: Tensor[(3), float32]) {
  let %a = exp(%x);
  let %b = nn.relu(%a);
  let %c = @helper(%x);
  add(%c, %x)
})",
            R"(
def @helper(%y: Tensor[(3), float32]) { negative(%y) }
def @main(%x: Tensor[(3), float32]) {
  let %c = @helper(%x);
  add(%c, %x)
})");
}

// ---- EliminateCommonSubexpr ------------------------------------------------------

TEST(PassCSE, MergesIdenticalCallsOnly) {
  CheckPass(EliminateCommonSubexpr(), R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  %2 = nn.leaky_relu(%x, alpha=0.1f);
  %3 = nn.leaky_relu(%x, alpha=0.2f);
  %4 = add(%0, %1);
  %5 = add(%2, %3);
  (%4, %5)
})",
            R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = add(%0, %0);
  %2 = nn.leaky_relu(%x, alpha=0.1f);
  %3 = nn.leaky_relu(%x, alpha=0.2f);
  %4 = add(%2, %3);
  (%1, %4)
})");
}

// ---- SimplifyInference -----------------------------------------------------------

TEST(PassSimplifyInference, BatchNormBecomesScaleAndShift) {
  IRModule out = CheckPass(SimplifyInference(), R"(
def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32],
          %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {
  %0 = nn.batch_norm(%x, %g, %b, %m, %v, epsilon=0.001f);
  %1 = %0.0;
  %2 = nn.dropout(%1);
  %2.0
})",
                           R"(
def @main(%x: Tensor[(1, 2, 3, 3), float32], %g: Tensor[(2), float32], %b: Tensor[(2), float32],
          %m: Tensor[(2), float32], %v: Tensor[(2), float32]) {
  %0 = add(%v, 0.001f);
  %1 = sqrt(%0);
  %2 = divide(1f, %1);
  %3 = multiply(%2, %g);
  %4 = expand_dims(%3, axis=1, num_newaxis=2);
  %5 = multiply(%x, %4);
  %6 = negative(%m);
  %7 = multiply(%6, %3);
  %8 = add(%7, %b);
  %9 = expand_dims(%8, axis=1, num_newaxis=2);
  add(%5, %9)
})",
                           1e-5);
  EXPECT_EQ(CountOpCalls(out, "nn.batch_norm"), 0);
}

TEST(PassSimplifyInference, LayerNormDecomposesNumerically) {
  IRModule in = ParseModule(R"(
def @main(%x: Tensor[(3, 8), float32], %g: Tensor[(8), float32], %b: Tensor[(8), float32]) {
  nn.layer_norm(%x, %g, %b, epsilon=1e-05f)
})");
  IRModule out = SimplifyInference()(in);
  EXPECT_EQ(CountOpCalls(out, "nn.layer_norm"), 0);
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 1e-5);
}

// ---- FoldScaleAxis ---------------------------------------------------------------

TEST(PassFoldScaleAxis, FoldsChannelScaleIntoConvWeights) {
  NDArray w = NDArray::Empty({4, 3, 3, 3}, DType::kFloat32);
  for (int64_t i = 0; i < w.NumElements(); ++i)
    w.SetFloat(i, 0.01 * static_cast<double>(i % 17) - 0.05);
  NDArray s = NDArray::FromFloats({4, 1, 1}, {0.5f, 2.0f, -1.0f, 3.0f});
  Var x = MakeVar("x", MakeTensorType({1, 3, 6, 6}));
  Expr conv =
      MakeOpCall("nn.conv2d", {x, MakeConstant(w)}, Attrs{{"padding", AttrValue::Ints({1, 1})}});
  Expr body = MakeOpCall("nn.relu", {MakeOpCall("multiply", {conv, MakeConstant(s)})});
  IRModule in = IRModule::FromExpr(MakeFunction({x}, body));
  IRModule out = FoldScaleAxis()(in);
  EXPECT_EQ(CountOpCalls(out, "multiply"), 0);
  EXPECT_EQ(CountOpCalls(out, "nn.conv2d"), 1);
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 1e-5);
}

TEST(PassFoldScaleAxis, KeepsScaleWhenConvOutputIsShared) {
  NDArray w = NDArray::Zeros({2, 2, 1, 1}, DType::kFloat32);
  Var x = MakeVar("x", MakeTensorType({1, 2, 3, 3}));
  Expr conv = MakeOpCall("nn.conv2d", {x, MakeConstant(w)});
  Expr scaled =
      MakeOpCall("multiply", {conv, MakeConstant(NDArray::FromFloats({2, 1, 1}, {2, 3}))});
  IRModule in = IRModule::FromExpr(MakeFunction({x}, MakeTuple({scaled, conv})));
  EXPECT_EQ(CountOpCalls(FoldScaleAxis()(in), "multiply"), 1);
}

// ---- SimplifyExpr: test_pass_simplify_expr.cc ------------------------------------

TEST(PassPipeline, ResNetBlockLosesBatchNormsAndStaysNumericallyIdentical) {
  auto constant = [](std::vector<int64_t> shape, uint32_t seed, double scale, double offset) {
    NDArray a = NDArray::Empty(shape, DType::kFloat32);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> d(-1, 1);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, offset + scale * d(rng));
    return MakeConstant(a);
  };
  Var x = MakeVar("x", MakeTensorType({1, 4, 8, 8}));
  auto conv_bn = [&](Expr in, uint32_t seed) {
    Expr conv = MakeOpCall("nn.conv2d", {in, constant({4, 4, 3, 3}, seed, 0.2, 0)},
                           Attrs{{"padding", AttrValue::Ints({1, 1})},
                                 {"channels", 4},
                                 {"kernel_size", AttrValue::Ints({3, 3})}});
    Expr bn = MakeOpCall("nn.batch_norm",
                         {conv, constant({4}, seed + 1, 0.5, 1.0), constant({4}, seed + 2, 0.1, 0),
                          constant({4}, seed + 3, 0.1, 0), constant({4}, seed + 4, 0.2, 1.0)});
    return MakeTupleGetItem(bn, 0);
  };
  Expr y = MakeOpCall("nn.relu", {conv_bn(x, 1)});
  y = conv_bn(y, 10);
  y = MakeOpCall("nn.relu", {MakeOpCall("add", {y, x})});
  IRModule in = IRModule::FromExpr(MakeFunction({x}, y));
  Pass pipeline = ParsePipeline(
      "SimplifyInference,FoldConstant,FoldScaleAxis,SimplifyExpr,EliminateCommonSubexpr,"
      "DeadCodeElimination,FuseOps");
  IRModule out = pipeline(in, PassContext::Create(3));
  EXPECT_EQ(CountOpCalls(out, "nn.batch_norm"), 0);
  EXPECT_EQ(CountOpCalls(out, "multiply"), 0);  // the scales went into the weights
  EXPECT_EQ(CountOpCalls(out, "nn.conv2d"), 2);
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 1e-4);
}

TEST(PassRegistry, StandardPassesAreRegistered) {
  for (const char* name :
       {"FuseOps", "FoldConstant", "DeadCodeElimination", "EliminateCommonSubexpr",
        "SimplifyInference", "FoldScaleAxis", "SimplifyExpr", "InferType"})
    EXPECT_NO_THROW(GetPass(name)) << name;
  EXPECT_EQ(PrintPipeline(ParsePipeline("FuseOps{max_depth=4},FoldConstant")),
            "FuseOps{max_depth=4},FoldConstant");
}

}  // namespace
}  // namespace tessera::testing
