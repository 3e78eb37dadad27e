// The BYOC passes (MergeComposite, AnnotateTarget, MergeCompilerRegions, PartitionGraph)
// and partition_for_dnnl / partition_for_blas on real blocks.
#include <algorithm>
#include <random>

#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::testing {
namespace {

// ---- MergeComposite -----------------------------------------------------------------

TEST(ByocMergeComposite, ConvBiasReluBecomesOneComposite) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  CheckPass(MergeComposite(std::vector<std::string>{"dnnl"}), R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  nn.softmax(%2)
})",
            R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], %p2: Tensor[(4), float32], Composite="dnnl.conv2d_bias_relu") {
    %1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1]);
    %2 = nn.bias_add(%1, %p2);
    nn.relu(%2)
  };
  %3 = %0(%x, %w, %b);
  nn.softmax(%3)
})");
}

TEST(ByocMergeComposite, SharedIntermediateIsNotSwallowed) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  // The dense result is also returned, so dense+relu cannot be one composite: the bare
  // dense and then nothing else match (relu alone is not a pattern).
  CheckPass(MergeComposite(std::vector<std::string>{"dnnl"}), R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  (%1, %0)
})",
            R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = fn (%p0: Tensor[(2, 4), float32], %p1: Tensor[(3, 4), float32], Composite="dnnl.dense") {
    nn.dense(%p0, %p1)
  };
  %1 = %0(%x, %w);
  %2 = nn.relu(%1);
  (%2, %1)
})");
}

TEST(ByocMergeComposite, SwishAndResidualSum) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  CheckPass(MergeComposite(std::vector<std::string>{"dnnl"}), R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(4, 4), float32], %r: Tensor[(2, 4), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = add(%r, %0);
  %2 = sigmoid(%1);
  multiply(%1, %2)
})",
            R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(4, 4), float32], %r: Tensor[(2, 4), float32]) {
  %0 = fn (%p0: Tensor[(2, 4), float32], %p1: Tensor[(2, 4), float32], %p2: Tensor[(4, 4), float32], Composite="dnnl.dense_sum_swish") {
    %1 = nn.dense(%p1, %p2);
    %2 = add(%p0, %1);
    %3 = sigmoid(%2);
    multiply(%2, %3)
  };
  %0(%r, %x, %w)
})");
}

// ---- AnnotateTarget -------------------------------------------------------------------

const char* kChain = R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = sigmoid(%0);
  %2 = transpose(%1);
  nn.softmax(%2)
})";

const char* kChainAnnotated = R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="dnnl");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="dnnl");
  %3 = annotation.compiler_begin(%2, compiler="dnnl");
  %4 = sigmoid(%3);
  %5 = annotation.compiler_end(%4, compiler="dnnl");
  %6 = transpose(%5);
  %7 = annotation.compiler_begin(%6, compiler="dnnl");
  %8 = nn.softmax(%7);
  annotation.compiler_end(%8, compiler="dnnl")
})";

const char* kChainMerged = R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="dnnl");
  %1 = nn.relu(%0);
  %2 = sigmoid(%1);
  %3 = annotation.compiler_end(%2, compiler="dnnl");
  %4 = transpose(%3);
  %5 = annotation.compiler_begin(%4, compiler="dnnl");
  %6 = nn.softmax(%5);
  annotation.compiler_end(%6, compiler="dnnl")
})";

const char* kChainPartitioned = R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = @dnnl_main_0(%x);
  %1 = transpose(%0);
  @dnnl_main_1(%1)
}
def @dnnl_main_0(%i0: Tensor[(4, 4), float32], Primitive=1, Compiler="dnnl", global_symbol="dnnl_main_0") {
  %0 = nn.relu(%i0);
  sigmoid(%0)
}
def @dnnl_main_1(%i0: Tensor[(4, 4), float32], Primitive=1, Compiler="dnnl", global_symbol="dnnl_main_1") {
  nn.softmax(%i0)
})";

TEST(ByocAnnotateTarget, SupportedOpsGetBeginAndEnd) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  CheckPass(AnnotateTarget({"dnnl"}), kChain, kChainAnnotated);
}

TEST(ByocAnnotateTarget, CompositeCallsAndConstantsStayInside) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = fn (%p0: Tensor[(2, 4), float32], %p1: Tensor[(3, 4), float32], Composite="blas.dense") {
    nn.dense(%p0, %p1)
  };
  %1 = %0(%x, %w);
  add(%1, 1f)
})");
  CheckPass(AnnotateTarget({"dnnl", "blas"}), PrintModule(mod), R"(
def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = fn (%p0: Tensor[(2, 4), float32], %p1: Tensor[(3, 4), float32], Composite="blas.dense") {
    nn.dense(%p0, %p1)
  };
  %1 = annotation.compiler_begin(%x, compiler="blas");
  %2 = annotation.compiler_begin(%w, compiler="blas");
  %3 = %0(%1, %2);
  %4 = annotation.compiler_end(%3, compiler="blas");
  %5 = annotation.compiler_begin(%4, compiler="dnnl");
  %6 = add(%5, 1f);
  annotation.compiler_end(%6, compiler="dnnl")
})");
}

TEST(ByocAnnotateTarget, UnknownCompilerIsAnError) {
  EXPECT_THROW(AnnotateTarget({"nope"}), Error);
}

// ---- MergeCompilerRegions ---------------------------------------------------------------

TEST(ByocMergeCompilerRegions, AdjacentRegionsMerge) {
  CheckPass(MergeCompilerRegions(), kChainAnnotated, kChainMerged);
}

TEST(ByocMergeCompilerRegions, NoMergeThatWouldCreateACycle) {
  // relu -> transpose (native) -> add, and relu -> add directly: merging relu and add
  // would make the region both feed and consume the transpose.
  const char* annotated = R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="dnnl");
  %1 = nn.relu(%0);
  %2 = annotation.compiler_end(%1, compiler="dnnl");
  %3 = transpose(%2);
  %4 = annotation.compiler_begin(%2, compiler="dnnl");
  %5 = annotation.compiler_begin(%3, compiler="dnnl");
  %6 = add(%4, %5);
  annotation.compiler_end(%6, compiler="dnnl")
})";
  CheckPass(MergeCompilerRegions(), annotated, annotated);
}

// ---- PartitionGraph ----------------------------------------------------------------------

TEST(ByocPartitionGraph, RegionsBecomeCompilerFunctions) {
  CheckPass(PartitionGraph(), kChainMerged, kChainPartitioned);
}

TEST(ByocPartitionGraph, TheWholePipelineByName) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  CheckPass(ParsePipeline("AnnotateTarget{compilers=dnnl},MergeCompilerRegions,PartitionGraph"),
            kChain, kChainPartitioned);
  CheckPass(ParsePipeline("PartitionFor{compiler=dnnl}"), kChain, kChainPartitioned);
}

TEST(ByocPartitionGraph, MultipleOutputsReturnATuple) {
  CheckPass(PartitionGraph(), R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = annotation.compiler_begin(%x, compiler="dnnl");
  %1 = nn.relu(%0);
  %2 = sigmoid(%1);
  %3 = annotation.compiler_end(%1, compiler="dnnl");
  %4 = annotation.compiler_end(%2, compiler="dnnl");
  %5 = transpose(%3);
  (%5, %4)
})",
            R"(
def @main(%x: Tensor[(4, 4), float32]) {
  %0 = @dnnl_main_0(%x);
  %1 = %0.0;
  %2 = transpose(%1);
  %3 = %0.1;
  (%2, %3)
}
def @dnnl_main_0(%i0: Tensor[(4, 4), float32], Primitive=1, Compiler="dnnl", global_symbol="dnnl_main_0") {
  %0 = nn.relu(%i0);
  %1 = sigmoid(%0);
  (%0, %1)
})");
}

// ---- partition_for_dnnl / partition_for_blas on real blocks -------------------------------

Constant RandomConst(std::vector<int64_t> shape, uint32_t seed, DType dtype = DType::kFloat32) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  NDArray a = NDArray::Empty(shape, dtype);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, dist(rng));
  return MakeConstant(a);
}

Expr Op(const char* name, std::vector<Expr> args, Attrs attrs = {}) {
  return MakeOpCall(name, std::move(args), attrs);
}

/// The Compiler functions of `mod` by name, and the Composite labels inside them.
std::vector<std::string> CompositeLabels(const IRModule& mod) {
  std::vector<std::string> labels;
  for (const auto& [name, f] : mod.functions()) {
    auto* fn = f.as<FunctionNode>();
    if (!fn || !fn->attrs.Has(attr::kCompiler)) continue;
    PostOrderVisit(fn->body, [&](const Expr& e) {
      if (auto* g = e.as<FunctionNode>(); g && g->attrs.Has(attr::kComposite))
        labels.push_back(g->attrs.GetString(attr::kComposite));
    });
  }
  return labels;
}

int CountCompilerFunctions(const IRModule& mod, const std::string& compiler) {
  int n = 0;
  for (const auto& [name, f] : mod.functions()) {
    auto* fn = f.as<FunctionNode>();
    if (fn && fn->attrs.Has(attr::kCompiler) && fn->attrs.GetString(attr::kCompiler) == compiler &&
        GetIntAttr(fn, attr::kPrimitive) == 1 && fn->attrs.GetString(attr::kGlobalSymbol) == name)
      ++n;
  }
  return n;
}

void ExpectSameResults(const IRModule& before, const IRModule& after) {
  auto inputs = RandomInputs(before);
  EXPECT_LE(MaxAbsDiff(RunMain(before, inputs), RunMain(after, inputs)), 1e-5);
}

IRModule ResNetBlock() {
  Var x = MakeVar("x", MakeTensorType({1, 8, 8, 8}));
  Attrs conv{{"padding", AttrValue::Ints({1, 1, 1, 1})}};
  Expr c1 = Op("nn.conv2d", {x, RandomConst({8, 8, 3, 3}, 1)}, conv);
  Expr r1 = Op("nn.relu", {Op("add", {c1, RandomConst({8, 1, 1}, 2)})});
  Expr c2 = Op("nn.conv2d", {r1, RandomConst({8, 8, 3, 3}, 3)}, conv);
  Expr b2 = Op("nn.bias_add", {c2, RandomConst({8}, 4)});
  Expr out = Op("nn.relu", {Op("add", {b2, x})});
  Expr pooled = Op("nn.global_avg_pool2d", {out});
  return IRModule::FromExpr(MakeFunction({x}, pooled));
}

TEST(ByocPartitionForDnnl, ResNetBlock) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  IRModule before = ResNetBlock();
  IRModule after = PartitionForDnnl(before);
  SCOPED_TRACE(PrintModule(after, {false, false}));
  EXPECT_EQ(CountCompilerFunctions(after, "dnnl"), 1);
  std::vector<std::string> labels = CompositeLabels(after);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels,
            (std::vector<std::string>{"dnnl.conv2d_bias_relu", "dnnl.conv2d_bias_sum_relu"}));
  // @main only calls the partition; the constants live inside it.
  Function main = after.LookupFunction("main");
  auto* call = main->body.as<CallNode>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->callee.as<GlobalVarNode>()->name, "dnnl_main_0");
  ASSERT_EQ(call->args.size(), 1u);
  ASSERT_NE(call->args[0].as<VarNode>(), nullptr);
  EXPECT_EQ(call->args[0].as<VarNode>()->name_hint, "x");
  ExpectSameResults(before, after);
}

IRModule TransformerBlock() {
  const int64_t s = 8, d = 16, f = 32;
  Var x = MakeVar("x", MakeTensorType({s, d}));
  auto dense = [&](Expr in, int64_t out, int64_t in_dim, uint32_t seed) {
    return Op(
        "nn.bias_add",
        {Op("nn.dense", {in, RandomConst({out, in_dim}, seed)}), RandomConst({out}, seed + 100)},
        Attrs{{"axis", int64_t{-1}}});
  };
  Expr q = dense(x, d, d, 1), k = dense(x, d, d, 2), v = dense(x, d, d, 3);
  Expr scores = Op("nn.matmul", {q, k}, Attrs{{"transpose_b", true}});
  Expr scaled = Op("multiply", {scores, MakeConstant(NDArray::Scalar(0.25, DType::kFloat32))});
  Expr probs = Op("nn.softmax", {scaled});
  Expr attn = Op("nn.matmul", {probs, v});
  Expr h = Op("add", {dense(attn, d, d, 4), x});
  auto ln = [&](Expr in, uint32_t seed) {
    return Op("nn.layer_norm", {in, RandomConst({d}, seed), RandomConst({d}, seed + 1)});
  };
  Expr ln1 = ln(h, 5);
  Expr ff = Op("nn.gelu", {dense(ln1, f, d, 6)});
  Expr h2 = Op("add", {dense(ff, d, f, 7), ln1});
  return IRModule::FromExpr(MakeFunction({x}, ln(h2, 8)));
}

TEST(ByocPartitionForDnnl, TransformerEncoderBlock) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  IRModule before = TransformerBlock();
  IRModule after = PartitionForDnnl(before);
  SCOPED_TRACE(PrintModule(after, {false, false}));
  EXPECT_EQ(CountCompilerFunctions(after, "dnnl"), 1);
  std::vector<std::string> labels = CompositeLabels(after);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels,
            (std::vector<std::string>{"dnnl.dense_bias", "dnnl.dense_bias", "dnnl.dense_bias",
                                      "dnnl.dense_bias_gelu", "dnnl.dense_bias_sum",
                                      "dnnl.dense_bias_sum", "dnnl.matmul", "dnnl.matmul"}));
  EXPECT_EQ(CountOpCalls(after, "nn.layer_norm"), 2);
  EXPECT_EQ(CountOpCalls(after, "nn.softmax"), 1);
  ExpectSameResults(before, after);
}

TEST(ByocPartitionForDnnl, UnsupportedDTypeAndLayoutStayNative) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  // float64 dense and an NHWC convolution are outside what the oneDNN predicates accept.
  Var a = MakeVar("a", MakeTensorType({2, 4}, DType::kFloat64));
  Expr d64 = Op("nn.relu", {Op("nn.dense", {a, RandomConst({3, 4}, 1, DType::kFloat64)})});
  Var x = MakeVar("x", MakeTensorType({1, 6, 6, 3}));
  Expr nhwc = Op("nn.conv2d", {x, RandomConst({3, 3, 3, 4}, 2)},
                 Attrs{{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}});
  Expr relu = Op("nn.relu", {nhwc});
  IRModule before = IRModule::FromExpr(MakeFunction({a, x}, MakeTuple({d64, relu})));
  IRModule after = PartitionForDnnl(before);
  SCOPED_TRACE(PrintModule(after, {false, false}));
  // Only the float32 relu after the NHWC convolution goes to oneDNN.
  EXPECT_EQ(CountCompilerFunctions(after, "dnnl"), 1);
  EXPECT_TRUE(CompositeLabels(after).empty());
  Function main = after.LookupFunction("main");
  int native_dense = 0, native_conv = 0;
  PostOrderVisit(main->body, [&](const Expr& e) {
    if (auto* c = e.as<CallNode>(); c && c->op()) {
      native_dense += c->op()->name == "nn.dense";
      native_conv += c->op()->name == "nn.conv2d";
    }
  });
  EXPECT_EQ(native_dense, 1);
  EXPECT_EQ(native_conv, 1);
  auto inputs = RandomInputs(before);
  (void)inputs;  // float64 inputs: RandomInputs fills via SetFloat, fine for both dtypes
  EXPECT_LE(MaxAbsDiff(RunMain(before, inputs), RunMain(after, inputs)), 1e-5);
}

TEST(ByocPartitionForBlas, DenseBiasAndBatchMatmul) {
  TS_SKIP_WITHOUT_BACKEND("blas");
  Var x = MakeVar("x", MakeTensorType({4, 8}));
  Var y = MakeVar("y", MakeTensorType({2, 4, 8}));
  Var z = MakeVar("z", MakeTensorType({2, 5, 8}));
  Expr dense = Op("add", {Op("nn.dense", {x, RandomConst({6, 8}, 1)}), RandomConst({6}, 2)});
  Expr relu = Op("nn.relu", {dense});
  Expr bmm = Op("nn.batch_matmul", {y, z});
  IRModule before = IRModule::FromExpr(MakeFunction({x, y, z}, MakeTuple({relu, bmm})));
  IRModule after = PartitionForBlas(before);
  SCOPED_TRACE(PrintModule(after, {false, false}));
  std::vector<std::string> labels = CompositeLabels(after);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"blas.batch_matmul", "blas.dense_bias"}));
  EXPECT_EQ(CountCompilerFunctions(after, "blas"), 2);
  EXPECT_EQ(CountOpCalls(after, "nn.relu"), 1);
  ExpectSameResults(before, after);
}

TEST(ByocPatternTable, RegistryContents) {
  TS_SKIP_WITHOUT_BACKEND("dnnl");
  TS_SKIP_WITHOUT_BACKEND("blas");
  const auto& dnnl = GetPatternTable("dnnl");
  EXPECT_GT(dnnl.size(), 50u);
  EXPECT_EQ(dnnl.front().label, "dnnl.conv2d_bias_sum_relu");
  EXPECT_THROW(GetPatternTable("nope"), Error);
  auto ops = PatternTableRegistry::Global().SupportedOps("blas");
  EXPECT_EQ(ops, (std::vector<std::string>{"nn.batch_matmul", "nn.dense", "nn.matmul"}));
  EXPECT_EQ(PatternTableRegistry::Global().ListCompilers(),
            (std::vector<std::string>{"blas", "dnnl"}));
}

}  // namespace
}  // namespace tessera::testing
