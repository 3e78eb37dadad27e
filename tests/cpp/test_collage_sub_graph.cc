// Collage sub-graphs: the nine test_sub_graph cases of TVM (reference §3.1) through
// PartitionForTesting, plus IndexSet, DataflowGraph numbering, validity and deep graphs.
#include <gtest/gtest.h>

#include "collage_test_util.h"
#include "tessera/collage/index_set.h"
#include "tessera/collage/partition_for_testing.h"
#include "tessera/collage/sub_graph.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::collage {
namespace {

using testing::ExpectPassGives;
using testing::TypedMain;

#define T57 "Tensor[(5, 7), float32]"

// ---- IndexSet --------------------------------------------------------------------

TEST(CollageIndexSet, OperationsWorkAcrossWords) {
  IndexSet a(130, {0, 63, 64, 129}), b(130, {63, 100});
  EXPECT_EQ((a & b).ToString(), "{63}");
  EXPECT_EQ((a | b).ToString(), "{0,63,64,100,129}");
  EXPECT_EQ((a - b).ToString(), "{0,64,129}");
  EXPECT_TRUE(a.Intersects(b));
  EXPECT_TRUE((a - b).AreDisjoint(b));
  EXPECT_TRUE(IndexSet(130, {63}).IsSubset(a));
  EXPECT_FALSE(b.IsSubset(a));
  EXPECT_EQ(a.PopCount(), 4u);
  EXPECT_EQ(a.FirstInsideIndex(), 0u);
  EXPECT_EQ(a.LastInsideIndex(), 129u);
  EXPECT_EQ(a.NextIndex(1), 63u);
  EXPECT_EQ(a.NextIndex(65), 129u);
  EXPECT_EQ(a.FirstOutsideIndex(), 1u);
  EXPECT_EQ(IndexSet(130).FirstInsideIndex(), 130u);
  IndexSet full(70);
  for (size_t i = 0; i < 70; ++i) full.Add(i);
  EXPECT_EQ(full.FirstOutsideIndex(), 70u);
  std::vector<size_t> seen(a.begin(), a.end());
  EXPECT_EQ(seen, (std::vector<size_t>{0, 63, 64, 129}));
  EXPECT_EQ(a.Subst(10, std::vector<size_t>(130, 0)).ToString(), "{0}");
  std::vector<size_t> map(130);
  for (size_t i = 0; i < 130; ++i) map[i] = i / 2;
  EXPECT_EQ(a.Subst(65, map).ToString(), "{0,31,32,64}");
  EXPECT_EQ(a.Hash(), IndexSet(130, {0, 63, 64, 129}).Hash());
  EXPECT_THROW(a & IndexSet(129), Error);
  EXPECT_THROW(a.Subst(10, {}), Error);
}

TEST(CollageIndexSet, OrderIsLexicographicFromIndexZero) {
  // At the first differing index the set holding it sorts first.
  EXPECT_TRUE(IndexSet(100, {1, 2}) < IndexSet(100, {1, 3}));
  EXPECT_TRUE(IndexSet(100, {1, 3}) < IndexSet(100, {2}));
  EXPECT_TRUE(IndexSet(100, {1, 90}) < IndexSet(100, {1}));  // 90 is held only by the first
  EXPECT_FALSE(IndexSet(100, {1}) < IndexSet(100, {1, 90}));
  EXPECT_TRUE(IndexSet(100, {1}) < IndexSet(100, {2, 99}));
  EXPECT_FALSE(IndexSet(100, {5}) < IndexSet(100, {5}));
  EXPECT_TRUE(IndexSet(100, {70}) < IndexSet(100, {71}));
}

// ---- DataflowGraph ---------------------------------------------------------------

const char* kSingleOp = R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"(, %c: )" T57 R"(, %d: )" T57 R"() {
  %0 = add(%a, %b);
  %1 = add(%c, %d);
  subtract(%0, %1)
})";

TEST(CollageDataflowGraph, TvmNumberingCalleesFirstFunctionLast) {
  DataflowGraph g(TypedMain(kSingleOp));
  ASSERT_EQ(g.size(), 10u);
  EXPECT_EQ(g.NodeLabel(4), "op");  // subtract, visited before its args
  EXPECT_EQ(g.NodeLabel(5), "op");  // add, one node for both calls
  EXPECT_EQ(g.NodeLabel(6), "add");
  EXPECT_EQ(g.NodeLabel(7), "add");
  EXPECT_EQ(g.NodeLabel(8), "subtract");
  EXPECT_EQ(g.NodeLabel(9), "fn");
  EXPECT_TRUE(g.node(9).is_external);
  EXPECT_EQ(g.node(8).outputs, std::vector<int>{9});
  EXPECT_EQ(g.node(6).inputs, (std::vector<int>{5, 0, 1}));
  EXPECT_TRUE(g.CanInline(5));
  EXPECT_FALSE(g.CanInline(0));
  EXPECT_EQ(g.DownstreamOf(0).ToString(), "{6,8,9}");
  EXPECT_EQ(g.node(8).ipdom, 9);
  EXPECT_EQ(g.node(6).ipdom, 8);
  EXPECT_EQ(g.node(8).idom, -1);  // add(a,b) and add(c,d) share no dominator
  EXPECT_EQ(g.NodeKind(6), OpPatternKind::kBroadcast);
}

// ---- The nine test_sub_graph cases ------------------------------------------------

TEST(CollageSubGraph, SingleOp) {
  ExpectPassGives(PartitionForTesting(1, false, "foo", {7}), kSingleOp, R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"(, %c: )" T57 R"(, %d: )" T57 R"() {
  %0 = add(%a, %b);
  %1 = fn (%x: )" T57 R"(, %y: )" T57 R"(, Compiler="foo") {
    add(%x, %y)
  };
  %2 = %1(%c, %d);
  subtract(%0, %2)
})");
}

TEST(CollageSubGraph, MultiOutput) {
  // Only valid with two exits; params are numbered from the last exit, the tuple
  // follows dataflow order.
  ExpectPassGives(PartitionForTesting(1, false, "foo", {6, 7}), kSingleOp, kSingleOp);
  ExpectPassGives(PartitionForTesting(2, false, "foo", {6, 7}), kSingleOp, R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"(, %c: )" T57 R"(, %d: )" T57 R"() {
  %0 = fn (%w: )" T57 R"(, %x: )" T57 R"(, %y: )" T57 R"(, %z: )" T57 R"(, Compiler="foo") {
    %1 = add(%y, %z);
    %2 = add(%w, %x);
    (%1, %2)
  };
  %3 = %0(%c, %d, %a, %b);
  %4 = %3.0;
  %5 = %3.1;
  subtract(%4, %5)
})");
}

TEST(CollageSubGraph, ClassicConv2dAddRelu) {
  ExpectPassGives(PartitionForTesting(1, false, "foo", {8, 9, 10}), R"(
def @main(%a: Tensor[(5, 3, 32, 32), float32], %b: Tensor[(2, 3, 5, 5), float32],
          %c: Tensor[(5, 2, 28, 28), float32], %d: Tensor[(5, 2, 28, 28), float32]) {
  %0 = nn.conv2d(%a, %b);
  %1 = add(%0, %c);
  %2 = nn.relu(%1);
  subtract(%2, %d)
})",
                  R"(
def @main(%a: Tensor[(5, 3, 32, 32), float32], %b: Tensor[(2, 3, 5, 5), float32],
          %c: Tensor[(5, 2, 28, 28), float32], %d: Tensor[(5, 2, 28, 28), float32]) {
  %0 = fn (%x: Tensor[(5, 3, 32, 32), float32], %y: Tensor[(2, 3, 5, 5), float32],
           %z: Tensor[(5, 2, 28, 28), float32], Compiler="foo") {
    %1 = nn.conv2d(%x, %y);
    %2 = add(%1, %z);
    nn.relu(%2)
  };
  %3 = %0(%a, %b, %c);
  subtract(%3, %d)
})");
}

#define CONV_PARAMS "%a: Tensor[(5, 3, 32, 32), float32], %b: Tensor[(2, 3, 5, 5), float32]"
#define CONV_FN_PARAMS "%x: Tensor[(5, 3, 32, 32), float32], %y: Tensor[(2, 3, 5, 5), float32]"

const char* kDiamond = R"(
def @main()" CONV_PARAMS R"() {
  %0 = nn.conv2d(%a, %b);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  %3 = nn.leaky_relu(%0, alpha=0f);
  add(%2, %3)
})";

TEST(CollageSubGraph, DiamondSingleOutput) {
  ExpectPassGives(PartitionForTesting(1, false, "foo", {5, 6, 7, 9, 10}), kDiamond, R"(
def @main()" CONV_PARAMS R"() {
  %0 = fn ()" CONV_FN_PARAMS R"(, Compiler="foo") {
    %1 = nn.conv2d(%x, %y);
    %2 = nn.relu(%1);
    %3 = nn.relu(%2);
    %4 = nn.leaky_relu(%1, alpha=0f);
    add(%3, %4)
  };
  %0(%a, %b)
})");
}

TEST(CollageSubGraph, DiamondMultiOutput) {
  ExpectPassGives(PartitionForTesting(2, false, "foo", {5, 6, 7, 9}), kDiamond, R"(
def @main()" CONV_PARAMS R"() {
  %0 = fn ()" CONV_FN_PARAMS R"(, Compiler="foo") {
    %1 = nn.conv2d(%x, %y);
    %2 = nn.relu(%1);
    %3 = nn.relu(%2);
    %4 = nn.leaky_relu(%1, alpha=0f);
    (%3, %4)
  };
  %5 = %0(%a, %b);
  %6 = %5.0;
  %7 = %5.1;
  add(%6, %7)
})");
}

const char* kWithTap = R"(
def @main()" CONV_PARAMS R"() {
  %0 = nn.conv2d(%a, %b);
  %1 = nn.relu(%0);
  add(%1, %0)
})";

TEST(CollageSubGraph, WithTap) {
  ExpectPassGives(PartitionForTesting(2, false, "foo", {5, 6}), kWithTap, kWithTap);
  ExpectPassGives(PartitionForTesting(2, true, "foo", {5, 6}), kWithTap, R"(
def @main()" CONV_PARAMS R"() {
  %0 = fn ()" CONV_FN_PARAMS R"(, Compiler="foo") {
    %1 = nn.conv2d(%x, %y);
    %2 = nn.relu(%1);
    (%1, %2)
  };
  %3 = %0(%a, %b);
  %4 = %3.1;
  %5 = %3.0;
  add(%4, %5)
})");
}

const char* kNoCycles = R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"() {
  %0 = add(%a, %b);
  %1 = add(%0, %b);
  add(%1, %b)
})";

TEST(CollageSubGraph, NoCycles) {
  // {3,5} would need node 4's value, which needs node 3's: a cycle through outside.
  ExpectPassGives(PartitionForTesting(2, false, "foo", {3, 5}), kNoCycles, kNoCycles);
  DataflowGraph g(TypedMain(kNoCycles));
  EXPECT_NE(SubGraph(g, IndexSet(g.size(), {3, 5})).InvalidReason(g, {2, false, 0}).find("cycle"),
            std::string::npos);
  ExpectPassGives(PartitionForTesting(2, false, "foo", {3, 4, 5}), kNoCycles, R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"() {
  %0 = fn (%x: )" T57 R"(, %y: )" T57 R"(, Compiler="foo") {
    %1 = add(%x, %y);
    %2 = add(%1, %y);
    add(%2, %y)
  };
  %0(%a, %b)
})");
}

const char* kLabelsDirect = R"(
def @main(%a: )" T57 R"() {
  %0 = nn.relu(%a);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  %3 = nn.relu(%1);
  %4 = add(%2, %3);
  %5 = nn.relu(%4);
  %6 = nn.relu(%4);
  %7 = add(%5, %6);
  nn.relu(%7)
})";

TEST(CollageSubGraph, LabelsDirectConnection) {
  ExpectPassGives(PartitionForTesting(1, false, "foo", {3, 4, 5, 6, 7, 8, 9, 10, 11},
                                      {"", "a", "a", "a", "a", "b", "b", "b", ""}),
                  kLabelsDirect, R"(
def @main(%a: )" T57 R"() {
  %0 = fn (%aa: )" T57 R"(, Compiler="foo") {
    %1 = nn.relu(%aa);
    %2 = fn (%y: )" T57 R"(, Composite="a") {
      %3 = nn.relu(%y);
      %4 = nn.relu(%3);
      %5 = nn.relu(%3);
      add(%4, %5)
    };
    %6 = %2(%1);
    %7 = fn (%z: )" T57 R"(, Composite="b") {
      %8 = nn.relu(%z);
      %9 = nn.relu(%z);
      add(%8, %9)
    };
    %10 = %7(%6);
    nn.relu(%10)
  };
  %0(%a)
})");
}

TEST(CollageSubGraph, LabelsNestedTap) {
  // Node 5 leaves both Composite "a" and the outer function (a tap, allowed here).
  ExpectPassGives(PartitionForTesting(2, true, "foo", {4, 5, 6, 7, 8, 9, 10},
                                      {"a", "a", "a", "a", "b", "b", "b"}),
                  R"(
def @main(%a: )" T57 R"() {
  %0 = nn.relu(%a);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  %3 = nn.relu(%1);
  %4 = add(%2, %3);
  %5 = nn.relu(%4);
  %6 = nn.relu(%4);
  %7 = add(%5, %6);
  add(%2, %7)
})",
                  R"(
def @main(%a: )" T57 R"() {
  %0 = nn.relu(%a);
  %1 = fn (%x: )" T57 R"(, Compiler="foo") {
    %2 = fn (%y: )" T57 R"(, Composite="a") {
      %3 = nn.relu(%y);
      %4 = nn.relu(%3);
      %5 = nn.relu(%3);
      %6 = add(%4, %5);
      (%4, %6)
    };
    %7 = %2(%x);
    %8 = %7.1;
    %9 = fn (%z: )" T57 R"(, Composite="b") {
      %10 = nn.relu(%z);
      %11 = nn.relu(%z);
      add(%10, %11)
    };
    %12 = %9(%8);
    %13 = %7.0;
    (%13, %12)
  };
  %14 = %1(%0);
  %15 = %14.0;
  %16 = %14.1;
  add(%15, %16)
})");
}

// ---- Validity, unions, touching ---------------------------------------------------

TEST(CollageSubGraph, DerivedSetsDepthKindLabel) {
  DataflowGraph g(TypedMain(kDiamond));
  SubGraph s(g, IndexSet(g.size(), {5, 6, 7, 9}));
  EXPECT_EQ(s.entry().ToString(), "{5}");
  EXPECT_EQ(s.exit().ToString(), "{7,9}");
  EXPECT_EQ(s.input().ToString(), "{0,1}");
  EXPECT_EQ(s.output().ToString(), "{10}");
  EXPECT_EQ(s.depth(), 3u);
  EXPECT_EQ(s.kind(), OpPatternKind::kOutEWiseFusable);
  EXPECT_EQ(s.label(), "nn.conv2d+nn.relu+nn.relu+nn.leaky_relu");
  EXPECT_EQ(s.InvalidReason(g, {1, false, 0}), "2 exits, more than 1");
  EXPECT_EQ(s.InvalidReason(g, {2, false, 2}), "depth 3, more than 2");
  EXPECT_TRUE(s.IsValid(g, {2, false, 3}));
  // The result node is an exit even though its only consumer is the function node.
  EXPECT_EQ(SubGraph(g, IndexSet(g.size(), {10})).exit().ToString(), "{10}");
}

TEST(CollageSubGraph, UnionAndTouching) {
  DataflowGraph g(TypedMain(kDiamond));
  auto one = [&](size_t i) { return SubGraph(g, IndexSet(g.size(), {i})); };
  EXPECT_TRUE(one(5).AreTouching(g, one(6)));
  EXPECT_FALSE(one(6).AreTouching(g, one(5)));  // direction matters
  EXPECT_FALSE(one(5).AreTouching(g, one(5)));  // not disjoint
  // conv2d does not feed add directly (only through the relus and leaky_relu).
  EXPECT_FALSE(one(5).AreTouching(g, one(10)));
  SubGraph u = one(5).DisjointUnion(g, one(6));
  EXPECT_EQ(u.inside().ToString(), "{5,6}");
  EXPECT_EQ(u.label(), "nn.conv2d+nn.relu");
  EXPECT_EQ(u.kind(), OpPatternKind::kOutEWiseFusable);
  EXPECT_THROW(u.DisjointUnion(g, one(6)), Error);
  // Nested sub-graphs: equal non-Composite attrs merge, Composites stay apart.
  Attrs prim{{"Primitive", AttrValue(int64_t{1})}};
  SubGraph p = one(6).WithAttrs(g, prim).DisjointUnion(g, one(7).WithAttrs(g, prim));
  ASSERT_EQ(p.nested_sub_graphs().size(), 1u);
  EXPECT_EQ(p.nested_sub_graphs()[0].sub_graph.inside().ToString(), "{6,7}");
  Attrs comp{{"Composite", AttrValue("c")}};
  SubGraph c = one(6).WithAttrs(g, comp).DisjointUnion(g, one(7).WithAttrs(g, comp));
  EXPECT_EQ(c.nested_sub_graphs().size(), 2u);
  EXPECT_TRUE(one(5) < one(6));
  EXPECT_EQ(one(5), one(5));
  EXPECT_EQ(one(5).Hash(), one(5).Hash());
}

TEST(CollageSubGraph, ExtractAsFunctionAndBadIndices) {
  DataflowGraph g(TypedMain(kSingleOp));
  ExtractedFunction f = Extract(g, SubGraph(g, IndexSet(g.size(), {6, 7, 8})));
  EXPECT_EQ(f.args, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(f.exits, std::vector<size_t>{8});
  EXPECT_EQ(f.function->params.size(), 4u);
  EXPECT_THROW(PartitionForTesting(1, false, "foo", {99})(ParseModule(kSingleOp)), Error);
  EXPECT_THROW(PartitionForTesting(1, false, "foo", {6}, {"a", "b"}), Error);
}

TEST(CollageSubGraph, PipelineSyntax) {
  ExpectPassGives(ParsePipeline("PartitionForTesting{max_exits=1, compiler=foo, indexes=\"7\"}"),
                  kSingleOp, R"(
def @main(%a: )" T57 R"(, %b: )" T57 R"(, %c: )" T57 R"(, %d: )" T57 R"() {
  %0 = add(%a, %b);
  %1 = fn (%x: )" T57 R"(, %y: )" T57 R"(, Compiler="foo") {
    add(%x, %y)
  };
  %2 = %1(%c, %d);
  subtract(%0, %2)
})");
}

// ---- Deep graphs -------------------------------------------------------------------

TEST(CollageSubGraph, HundredThousandNodeChainDoesNotOverflow) {
  constexpr int kDepth = 100000;
  Var x = MakeVar("x", MakeTensorType({2, 3}));
  Expr e = x;
  for (int i = 0; i < kDepth; ++i) e = MakeOpCall("nn.relu", {e});
  Function f = InferTypes(IRModule::FromExpr(MakeFunction({x}, e))).LookupFunction("main");
  DataflowGraph g(f);
  ASSERT_EQ(g.size(), kDepth + 3u);  // x, the relu op, the calls, the function
  IndexSet middle(g.size());
  for (size_t i = 1000; i < 90000; ++i) middle.Add(i);
  SubGraph s(g, middle);
  EXPECT_EQ(s.depth(), 89000u);
  EXPECT_TRUE(s.IsValid(g, {1, false, 0}));
  Function out =
      ParallelRewrite(g, {NestedSubGraph{s, Attrs{{"Primitive", AttrValue(int64_t{1})}}}});
  DataflowGraph g2(out);
  EXPECT_EQ(g2.size(), kDepth - 89000 + 4u + 1u);  // + the call's function literal
}

}  // namespace
}  // namespace tessera::collage
