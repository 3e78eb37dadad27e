// Collage specs of library backends, built from the pattern tables and op-support
// predicates the classic BYOC flow uses, and GatherPartitionSpecs over target lists.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "collage_test_util.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera::collage {
namespace {

using testing::TypedMain;

bool HaveLibrary(const char* name) {
  return BackendRegistry::Global().Find(name) != nullptr;
}

std::vector<std::string> SpecNames(const std::vector<std::string>& targets, bool host = false) {
  std::vector<Target> ts;
  for (const std::string& t : targets) ts.push_back(Target::Parse(t));
  std::vector<std::string> names;
  for (const PartitionSpecPtr& spec : GatherPartitionSpecs(ts, 4, host))
    names.push_back(spec->name + "@" + spec->target.ToString());
  return names;
}

using Names = std::vector<std::string>;

TEST(CollageGatherSpecs, NativeTargetsByKindAndOptions) {
  EXPECT_EQ(SpecNames({"native"}, true), (Names{"native@native", "host@interp"}));
  EXPECT_EQ(SpecNames({"native", "native"}), (Names{"native@native"}));
  EXPECT_EQ(SpecNames({"native", "native -num_threads=1"}),
            (Names{"native@native", "native_2@native -num_threads=1"}));
}

TEST(CollageGatherSpecs, OffloadOptionsAddOneSpecPerLibrary) {
  if (!HaveLibrary("dnnl") || !HaveLibrary("blas")) GTEST_SKIP() << "built without dnnl/blas";
  EXPECT_EQ(SpecNames({"native -compiler=dnnl -libs=blas"}),
            (Names{"native@native", "dnnl@dnnl", "blas@blas"}));
  // The library spec runs with the host's thread count; a library named twice counts once.
  EXPECT_EQ(SpecNames({"native -compiler=dnnl -num_threads=1", "native -compiler=dnnl"}),
            (Names{"native@native -num_threads=1", "dnnl@dnnl -num_threads=1", "native_2@native"}));
  // A library given as a target of its own contributes only its spec.
  EXPECT_EQ(SpecNames({"native", "dnnl"}), (Names{"native@native", "dnnl@dnnl"}));
}

TEST(CollageGatherSpecs, UnknownLibraryIsAClearError) {
  try {
    MakeByocPartitionRule("nosuchlib", 4, ByocFusionStyle::kNoFusion);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'nosuchlib'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("registered:"), std::string::npos) << e.what();
  }
}

const char* kConvBlock = R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  %2 = nn.relu(%1);
  %3 = nn.softmax(%2);
  exp(%3)
})";

/// The index of the only call of `op` in `graph`.
size_t CallOf(const DataflowGraph& graph, const std::string& op) {
  for (size_t i = 0; i < graph.size(); ++i)
    if (graph.expr(i).as<CallNode>() && graph.NodeLabel(i) == op) return i;
  ADD_FAILURE() << "no call of " << op;
  return 0;
}

/// The candidates of `spec` on kConvBlock as "{i,j} label [Composite...]" lines.
std::vector<CandidatePartition> ByocCandidates(const PartitionSpecPtr& spec,
                                               const DataflowGraph& graph) {
  return PartitionSpec::AllCandidates(spec, graph);
}

TEST(CollageByocSpec, DnnlSpecFindsTheTableFusionsAndSupportedOps) {
  if (!HaveLibrary("dnnl")) GTEST_SKIP() << "built without oneDNN";
  DataflowGraph g(TypedMain(kConvBlock));
  size_t conv = CallOf(g, "nn.conv2d"), bias = CallOf(g, "nn.bias_add"),
         relu = CallOf(g, "nn.relu"), softmax = CallOf(g, "nn.softmax"), exp = CallOf(g, "exp");
  PartitionSpecPtr spec =
      MakeByocPartitionSpec(Target("dnnl"), "dnnl", 4, ByocFusionStyle::kNoFusion);
  std::map<std::vector<size_t>, std::vector<std::string>> found;  // inside -> composites
  for (const CandidatePartition& c : ByocCandidates(spec, g)) {
    // Every candidate is one kernel for oneDNN: Primitive=1, Compiler="dnnl".
    ASSERT_EQ(c.sub_graph.nested_sub_graphs().size(), 1u) << c.ToString();
    const NestedSubGraph& kernel = c.sub_graph.nested_sub_graphs()[0];
    EXPECT_EQ(kernel.attrs.Find(attr::kPrimitive)->AsInt(), 1);
    EXPECT_EQ(kernel.attrs.Find(attr::kCompiler)->AsString(), "dnnl");
    EXPECT_TRUE(c.sub_graph.IsValid(g, SubGraphConfig{1, false, 4})) << c.ToString();
    std::vector<std::string> composites;
    for (const NestedSubGraph& n : kernel.sub_graph.nested_sub_graphs())
      composites.push_back(n.attrs.Find(attr::kComposite)->AsString());
    found[c.sub_graph.inside().ToVector()] = composites;
  }
  // The table's chains (bare conv, conv+bias, conv+bias+relu) as composites; single ops
  // oneDNN supports by themselves as plain calls; bias_add alone is not supported.
  using Found = std::map<std::vector<size_t>, std::vector<std::string>>;
  Found want{{{conv}, {}},  // the op-support singleton (the bare chain is the same set)
             {{conv, bias}, {"dnnl.conv2d_bias"}},
             {{conv, bias, relu}, {"dnnl.conv2d_bias_relu"}},
             {{relu}, {}},
             {{softmax}, {}},
             {{exp}, {}}};
  EXPECT_EQ(found.size(), want.size());
  for (const auto& [inside, composites] : want) {
    ASSERT_TRUE(found.count(inside)) << "missing candidate with " << inside.size() << " nodes";
    if (inside.size() > 1) EXPECT_EQ(found[inside], composites);
  }
}

TEST(CollageByocSpec, ArbitraryFusionCombinesTouchingCandidatesButNotOpaqueOnes) {
  if (!HaveLibrary("dnnl")) GTEST_SKIP() << "built without oneDNN";
  DataflowGraph g(TypedMain(kConvBlock));
  size_t conv = CallOf(g, "nn.conv2d"), bias = CallOf(g, "nn.bias_add"),
         relu = CallOf(g, "nn.relu"), softmax = CallOf(g, "nn.softmax");
  PartitionSpecPtr spec = MakeByocPartitionSpec(Target("dnnl"), "dnnl", 4);
  bool conv_bias_then_relu = false;
  for (const CandidatePartition& c : ByocCandidates(spec, g)) {
    const IndexSet& inside = c.sub_graph.inside();
    // softmax is opaque: it is a kernel of its own and never joins another candidate.
    if (inside[softmax]) EXPECT_EQ(inside.PopCount(), 1u) << c.ToString();
    const auto& nested = c.sub_graph.nested_sub_graphs()[0].sub_graph.nested_sub_graphs();
    // conv+bias composite combined with the supported relu after it: two pieces.
    if (inside.ToVector() == std::vector<size_t>{conv, bias, relu} && nested.size() == 1 &&
        nested[0].attrs.Find(attr::kComposite)->AsString() == "dnnl.conv2d_bias")
      conv_bias_then_relu = true;
  }
  EXPECT_TRUE(conv_bias_then_relu);
}

TEST(CollageByocSpec, BlasSpecTakesDenseWithConstantBiasOnly) {
  if (!HaveLibrary("blas")) GTEST_SKIP() << "built without BLAS";
  // The bias is a model input, which the BLAS table does not fuse (it folds constant
  // biases at load): the dense alone is a candidate, dense+add is not.
  DataflowGraph g(TypedMain(R"(
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32], %b: Tensor[(16), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = add(%0, %b);
  nn.relu(%1)
})"));
  PartitionSpecPtr spec = MakeByocPartitionSpec(Target("blas"), "blas", 4);
  std::set<std::vector<size_t>> sets;
  for (const CandidatePartition& c : ByocCandidates(spec, g)) {
    sets.insert(c.sub_graph.inside().ToVector());
    EXPECT_EQ(c.spec_name(), "blas");
  }
  // The bare "blas.dense" composite and the supported-op singleton: the same nodes.
  EXPECT_EQ(sets, (std::set<std::vector<size_t>>{{CallOf(g, "nn.dense")}}));
}

TEST(CollageByocSpec, RulePrintsAsATree) {
  if (!HaveLibrary("blas")) GTEST_SKIP() << "built without BLAS";
  std::string text = MakeByocPartitionRule("blas", 3, ByocFusionStyle::kTVMFusion)->ToString();
  EXPECT_EQ(text.rfind("Primitive()\n  OnlyValid(valid, ", 0), 0u) << text;
  EXPECT_NE(text.find("Combine(combine, max_depth=3"), std::string::npos) << text;
  EXPECT_NE(text.find("Composite(blas.dense)"), std::string::npos) << text;
  EXPECT_NE(text.find("DFPattern(is_op(\"nn.dense\")"), std::string::npos) << text;
  EXPECT_NE(text.find("OpPredicate(ops: nn.batch_matmul, nn.dense, nn.matmul)"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace tessera::collage
