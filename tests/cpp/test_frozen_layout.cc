// frozen_layout, the call attribute every op accepts: normalisation, text and JSON, and the
// passes that rebuild calls keeping it.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "tessera/collage/collage_partition.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/ir/json.h"
#include "tessera/ir/visitor.h"
#include "tessera/pattern/pattern.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/passes.h"
#include "test_text_util.h"
#include "test_util.h"

namespace tessera::testing {
namespace {

/// Calls of op `name` marked frozen_layout anywhere in the module.
int CountFrozen(const IRModule& mod, const std::string& name) {
  int count = 0;
  for (const auto& [n, f] : mod.functions()) {
    if (!f.as<FunctionNode>()) continue;
    PostOrderVisit(f, [&](const Expr& e) {
      auto* c = e.as<CallNode>();
      if (c && c->op() && c->op()->name == name && IsFrozenLayout(Call(c))) ++count;
    });
  }
  return count;
}

TEST(FrozenLayout, EveryOpAcceptsItAndOnlyTrueIsKept) {
  Var x = MakeVar("x", F32({2, 3}));
  Call frozen = MakeOpCall("nn.relu", {x}, Attrs{{"frozen_layout", true}});
  EXPECT_TRUE(IsFrozenLayout(frozen));
  EXPECT_EQ(frozen->attrs.size(), 1u);
  // An int 1 is a bool; false is the same as absent.
  Call one = MakeOpCall("nn.softmax", {x}, Attrs{{"frozen_layout", int64_t{1}}});
  EXPECT_TRUE(IsFrozenLayout(one));
  EXPECT_EQ(one->attrs.items().back().first, "frozen_layout");  // after the schema's
  Call off = MakeOpCall("nn.relu", {x}, Attrs{{"frozen_layout", false}});
  EXPECT_FALSE(IsFrozenLayout(off));
  EXPECT_TRUE(StructuralEqual(Expr(off), Expr(MakeOpCall("nn.relu", {x}))));
  EXPECT_FALSE(StructuralEqual(Expr(frozen), Expr(MakeOpCall("nn.relu", {x}))));
  ExpectError(
      [&] {
        MakeOpCall("nn.relu", {x}, Attrs{{"frozen_layout", "yes"}});
      },
      ErrorKind::kValue, "op 'nn.relu': attribute 'frozen_layout' must be a bool");
}

TEST(FrozenLayout, TextAndJsonRoundTrip) {
  IRModule mod = ParseModule(R"(
def @main(%x: Tensor[(1, 8, 4, 4), float32]) {
  %0 = nn.relu(%x, frozen_layout=True);
  %1 = nn.max_pool2d(%0, pool_size=[2, 2], frozen_layout=1);
  %2 = transpose(%1, axes=[0, 2, 3, 1], frozen_layout=True);
  add(%2, 1f, frozen_layout=False)
})");
  std::string text = ExpectRoundTrip(mod);
  EXPECT_NE(text.find("nn.relu(%x, frozen_layout=True)"), std::string::npos) << text;
  EXPECT_NE(text.find("padding=[0, 0, 0, 0], frozen_layout=True)"), std::string::npos) << text;
  EXPECT_NE(text.find("add(%2, 1f)"), std::string::npos) << text;
  IRModule back = ModuleFromJson(ModuleToJson(mod));
  EXPECT_TRUE(StructuralEqual(mod, back));
  EXPECT_EQ(CountFrozen(back, "nn.max_pool2d"), 1);
  // A program that never sets it prints as before.
  EXPECT_EQ(PrintModule(ParseModule("def @main(%x: Tensor[(2), float32]) { nn.relu(%x) }"))
                .find("frozen"),
            std::string::npos);
  ExpectError([] { ParseModule("def @main(%x: Tensor[(2), float32]) { nn.relu(%x, frozen=1) }"); },
              ErrorKind::kValue, "op 'nn.relu': unknown attribute 'frozen'");
}

TEST(FrozenLayout, FuseOpsKeepsIt) {
  CheckPass(FuseOps(), R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], frozen_layout=True);
  %1 = add(%0, %b);
  nn.relu(%1, frozen_layout=True)
})",
            R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], %p2: Tensor[(4, 1, 1), float32], Primitive=1) {
    %1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], frozen_layout=True);
    %2 = add(%1, %p2);
    nn.relu(%2, frozen_layout=True)
  };
  %0(%x, %w, %b)
})");
}

TEST(FrozenLayout, SimplifyExprMergesPinsOfBothCalls) {
  // A merged reshape or transpose reads the inner call's operand and makes the outer
  // call's result, so it is frozen when either was.
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = reshape(%x, newshape=[6, 4], frozen_layout=True);
  %1 = reshape(%0, newshape=[24]);
  %2 = transpose(%x, axes=[1, 0, 2]);
  %3 = transpose(%2, axes=[0, 2, 1], frozen_layout=True);
  %4 = nn.relu(%x, frozen_layout=True);
  %5 = multiply(%4, 1f);
  (%1, %3, %5)
})",
            R"(
def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = reshape(%x, newshape=[24], frozen_layout=True);
  %1 = transpose(%x, axes=[1, 2, 0], frozen_layout=True);
  %2 = nn.relu(%x, frozen_layout=True);
  (%0, %1, %2)
})");
}

TEST(FrozenLayout, CseTellsFrozenFromFreeCalls) {
  CheckPass(EliminateCommonSubexpr(), R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x, frozen_layout=True);
  %1 = nn.relu(%x);
  %2 = nn.relu(%x, frozen_layout=True);
  %3 = add(%0, %1);
  add(%3, %2)
})",
            R"(
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x, frozen_layout=True);
  %1 = nn.relu(%x);
  %2 = add(%0, %1);
  add(%2, %0)
})");
}

TEST(FrozenLayout, FoldConstantKeepsCallsOnVariables) {
  CheckPass(FoldConstant(), R"(
def @main(%x: Tensor[(2), float32]) {
  %0 = add(1f, 2f, frozen_layout=True);
  add(%x, %0, frozen_layout=True)
})",
            R"(
def @main(%x: Tensor[(2), float32]) {
  add(%x, 3f, frozen_layout=True)
})");
}

TEST(FrozenLayout, MergeCompositeKeepsIt) {
  std::vector<PatternTableEntry> table = {
      {"test.add_relu", IsOp("nn.relu")({IsOp("add")({Wildcard(), Wildcard()})}), nullptr}};
  CheckPass(MergeComposite(table), R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = add(%x, %y, frozen_layout=True);
  nn.relu(%0)
})",
            R"(
def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) {
  %0 = fn (%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32], Composite="test.add_relu") {
    %1 = add(%p0, %p1, frozen_layout=True);
    nn.relu(%1)
  };
  %0(%x, %y)
})");
}

TEST(FrozenLayout, CollageRewritingKeepsIt) {
  PassContext ctx = PassContext::Create(2, {}, {}, {{"collage.launch_penalty_us", 0.0}});
  PassContext::Scope scope(ctx);
  auto mock =
      std::make_shared<collage::MockCostEstimator>(std::map<std::string, double>{{"native", 1.0}});
  IRModule out = collage::CollagePartition({Target("native")}, mock)(ParseModule(R"(
def @main(%x: Tensor[(8, 16), float32], %w: Tensor[(32, 16), float32]) {
  %0 = nn.dense(%x, %w, frozen_layout=True);
  %1 = nn.relu(%0);
  %2 = abs(%1, frozen_layout=True);
  nn.softmax(%2, frozen_layout=True)
})"));
  EXPECT_EQ(CountFrozen(out, "nn.dense"), 1) << PrintModule(out);
  EXPECT_EQ(CountFrozen(out, "abs"), 1) << PrintModule(out);
  EXPECT_EQ(CountFrozen(out, "nn.softmax"), 1) << PrintModule(out);
  EXPECT_EQ(CountFrozen(out, "nn.relu"), 0) << PrintModule(out);
}

}  // namespace
}  // namespace tessera::testing
