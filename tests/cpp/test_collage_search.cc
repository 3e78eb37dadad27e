// Collage's search end to end with the mock estimator: fusion by cost, library
// partitions outlined, uncoverable nodes, unknown/invalid costs, and a Collage build
// checked against the interpreter.
#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "collage_test_util.h"
#include "tessera/backend/build.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/collage/collage_partition.h"
#include "tessera/collage/search.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"
#include "tessera/ir/visitor.h"

namespace tessera::collage {
namespace {

const char* kChain = R"(
def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  %2 = abs(%1);
  nn.softmax(%2)
})";

/// Primitive (native) and Compiler (library) functions of `mod`: inline ones in @main
/// plus globals.
std::pair<int, int> CountKernels(const IRModule& mod) {
  int native = 0, library = 0;
  for (const auto& [name, f] : mod.functions())
    if (const auto* fn = f.as<FunctionNode>(); fn && fn->attrs.Has(attr::kCompiler)) ++library;
  PostOrderVisit(mod.LookupFunction("main"), [&](const Expr& e) {
    const auto* call = e.as<CallNode>();
    const auto* fn = call ? call->callee.as<FunctionNode>() : nullptr;
    if (fn && GetIntAttr(fn, attr::kPrimitive) && !fn->attrs.Has(attr::kCompiler)) ++native;
  });
  return {native, library};
}

IRModule RunCollage(const std::string& text, std::vector<Target> targets,
                    std::map<std::string, double> costs, Attrs config = {}) {
  config.Set("collage.launch_penalty_us", AttrValue(0.0));
  PassContext ctx = PassContext::Create(2, {}, {}, config);
  PassContext::Scope scope(ctx);
  auto mock = std::make_shared<MockCostEstimator>(costs);
  return CollagePartition(std::move(targets), mock)(ParseModule(text));
}

TEST(CollageSearch, NativeFusesWhatTheCostSays) {
  // Fusing costs 0.9x per extra op, so the whole elementwise-able chain is one kernel
  // (depth allowing) and the opaque softmax is a kernel of its own.
  IRModule out = RunCollage(kChain, {Target("native")}, {{"native", 1.0}});
  EXPECT_EQ(CountKernels(out), std::make_pair(2, 0)) << PrintModule(out);
  ASSERT_TRUE(out.attrs().Has("collage.report"));
  // Depth 1: every op alone.
  Attrs depth1{{"collage.native_max_depth", AttrValue(int64_t{1})}};
  IRModule singles = RunCollage(kChain, {Target("native")}, {{"native", 1.0}}, depth1);
  EXPECT_EQ(CountKernels(singles), std::make_pair(4, 0)) << PrintModule(singles);
}

TEST(CollageSearch, CheaperLibraryTakesItsOpsAndIsOutlined) {
  if (!BackendRegistry::Global().Find("dnnl")) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  IRModule out = RunCollage(kChain, {Target::Parse("native -compiler=dnnl")},
                            {{"native", 10.0}, {"dnnl", 1.0}});
  auto [native, library] = CountKernels(out);
  EXPECT_GE(library, 1) << PrintModule(out);
  for (const auto& [name, f] : out.functions()) {
    const auto* fn = f.as<FunctionNode>();
    if (!fn || !fn->attrs.Has(attr::kCompiler)) continue;
    EXPECT_EQ(name.rfind("collage_dnnl", 0), 0u) << name;
    EXPECT_EQ(fn->attrs.Get(attr::kGlobalSymbol).AsString(), name);
    EXPECT_EQ(GetIntAttr(fn, attr::kPrimitive), 1);
  }
  // Native is cheaper: no library kernel at all.
  IRModule none = RunCollage(kChain, {Target::Parse("native -compiler=dnnl")},
                             {{"native", 1.0}, {"dnnl", 10.0}});
  EXPECT_EQ(CountKernels(none).second, 0) << PrintModule(none);
}

TEST(CollageSearch, BuildWithCollageMatchesTheInterpreter) {
  if (!BackendRegistry::Global().Find("dnnl")) GTEST_SKIP() << "TESSERA_WITH_DNNL=OFF";
  IRModule mod = ParseModule(kChain);
  auto inputs = testing_lower::RandomInputs(mod, 3);
  std::vector<NDArray> want = RunMain(mod, inputs).Flatten();
  RegisterCostEstimator("test_mock", std::make_shared<MockCostEstimator>(
                                         std::map<std::string, double>{{"native", 2.0},
                                                                       {"dnnl", 1.0}}));
  Attrs config{{"collage.enable", AttrValue(true)},
               {"collage.estimator", AttrValue("test_mock")},
               {"collage.guard", AttrValue(false)},
               {"collage.launch_penalty_us", AttrValue(0.0)}};
  PassContext ctx = PassContext::Create(2, {}, {}, config);
  PassContext::Scope scope(ctx);
  auto exe = Build(mod, {Target("native"), Target("dnnl")});
  EXPECT_NE(exe->collage_report().find("\"estimator\":\"mock\""), std::string::npos);
  std::vector<NDArray> got = runtime::Executor(exe).Run(inputs);
  ASSERT_EQ(got.size(), want.size());
  testing_backend::ExpectNear(want[0], got[0], "collage output");
  // The report survives save and load.
  auto loaded = runtime::Executable::LoadFromBytes(exe->SaveToBytes());
  EXPECT_EQ(loaded->collage_report(), exe->collage_report());
}

TEST(CollageSearch, UncoverableAndInvalidNodesAreClearErrors) {
  // Without the pass's opaque-op singles, nothing covers the softmax.
  Function main = testing::TypedMain(kChain);
  {
    DataflowGraph graph(main);
    std::vector<CandidatePartition> cands;
    for (const auto& spec : GatherPartitionSpecs({Target("native")}, 4, true))
      for (auto& c : PartitionSpec::AllCandidates(spec, graph)) cands.push_back(c);
    std::vector<double> zero(cands.size(), 0.0);
    EXPECT_THROW(SearchCheapestCover(graph, cands, zero), Error);
  }
  main = testing::TypedMain(R"(
def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w);
  nn.relu(%0)
})");
  DataflowGraph graph(main);
  auto specs = GatherPartitionSpecs({Target("native")}, 1, true);
  std::vector<CandidatePartition> cands;
  for (const auto& spec : specs)
    for (auto& c : PartitionSpec::AllCandidates(spec, graph)) cands.push_back(c);
  // Every native candidate invalid: the dense node is held only by invalid candidates.
  std::vector<double> costs(cands.size(), 0.0);
  std::vector<std::string> reasons(cands.size());
  for (size_t i = 0; i < cands.size(); ++i)
    if (cands[i].spec_name() != "host") {
      costs[i] = kInvalidCost;
      reasons[i] = "build failed: test";
    }
  try {
    SearchCheapestCover(graph, cands, costs, reasons);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("every candidate holding node"), std::string::npos) << what;
    EXPECT_NE(what.find("is invalid"), std::string::npos) << what;
    EXPECT_NE(what.find("build failed: test"), std::string::npos) << what;
  }
  // Unknown (NaN) costs are usable but lose to known ones.
  for (size_t i = 0; i < cands.size(); ++i)
    costs[i] = cands[i].spec_name() == "host" ? 0.0 : std::nan("");
  EXPECT_NO_THROW(SearchCheapestCover(graph, cands, costs));
}

TEST(CollageSearch, BadConfigValuesAreErrors) {
  EXPECT_THROW(PassContext::Create(2, {}, {}, Attrs{{"collage.search", AttrValue("beam")}}), Error);
  EXPECT_THROW(PassContext::Create(2, {}, {},
                                   Attrs{{"collage.byoc_fusion_style",
                                          AttrValue(std::vector<AttrValue>{AttrValue("dnnl")})}}),
               Error);
  EXPECT_THROW(
      PassContext::Create(2, {}, {}, Attrs{{"collage.native_max_depth", AttrValue(int64_t{-1})}}),
      Error);
  EXPECT_THROW(GetCostEstimator("nope"), Error);
}

}  // namespace
}  // namespace tessera::collage
