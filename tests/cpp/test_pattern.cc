// DFPattern language: every pattern kind, printing, the matcher, rewriting, partitioning.
#include <gtest/gtest.h>

#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/op.h"
#include "tessera/pattern/matcher.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera {
namespace {

/// The typed @main of `text`.
Function Main(const std::string& text) {
  return InferTypes(ParseModule(text, "test")).LookupFunction("main");
}

/// The body of the typed @main of `text`.
Expr Body(const std::string& text) {
  return Main(text)->body;
}

/// `func` as a typed @main (nested functions get their result types).
Function Typed(const Function& func) {
  return InferTypes(IRModule::FromExpr(func)).LookupFunction("main");
}

/// Matches `p` against `e` within the graph of `func`.
bool MatchIn(const Function& func, const DFPattern& p, const Expr& e) {
  IndexedGraph graph(func);
  DFPatternMatcher m(&graph);
  return m.Match(p, e);
}

const char* kConvBiasRelu = R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, %b);
  nn.relu(%1)
})";

TEST(PatternMatch, WildcardOpCallAndArity) {
  Expr body = Body(kConvBiasRelu);
  EXPECT_TRUE(MatchPattern(Wildcard(), body));
  EXPECT_TRUE(MatchPattern(IsOp("nn.relu")({Wildcard()}), body));
  EXPECT_FALSE(MatchPattern(IsOp("nn.relu")({Wildcard(), Wildcard()}), body));
  EXPECT_FALSE(MatchPattern(IsOp("sigmoid")({Wildcard()}), body));
  EXPECT_TRUE(MatchPattern(IsOp("nn.relu").CallAnyArgs(), body));
  DFPattern conv = IsOp("nn.conv2d")({IsVar(), IsVar("w")});
  EXPECT_TRUE(MatchPattern(IsOp("nn.relu")({IsOp("nn.bias_add")({conv, IsVar("b")})}), body));
  EXPECT_FALSE(MatchPattern(IsOp("nn.relu")({IsOp("nn.bias_add")({conv, IsVar("x")})}), body));
  EXPECT_THROW(IsOp("no.such_op"), Error);
}

TEST(PatternMatch, ConstantVarAndExpr) {
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, 2f);
  multiply(%0, %x)
})");
  auto* mul = f->body.as<CallNode>();
  EXPECT_TRUE(MatchPattern(IsOp("add")({IsVar("x"), IsConstant()}), mul->args[0]));
  EXPECT_FALSE(MatchPattern(IsOp("add")({IsConstant(), IsConstant()}), mul->args[0]));
  EXPECT_TRUE(MatchPattern(IsExpr(f->params[0]), mul->args[1]));
  EXPECT_TRUE(MatchPattern(IsOp("add")({Wildcard(), IsExpr(mul->args[0].as<CallNode>()->args[1])}),
                           mul->args[0]));
  // add is commutative: the constant may come first in the pattern.
  EXPECT_TRUE(MatchPattern(IsOp("add")({IsConstant(), IsVar()}), mul->args[0]));
}

TEST(PatternMatch, SharedPatternNodeMustMatchSameExpression) {
  // swish = x * sigmoid(x): the wildcard is one node used twice.
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(4), float32]) {
  %0 = sigmoid(%x);
  %1 = multiply(%x, %0);
  %2 = sigmoid(%y);
  %3 = multiply(%x, %2);
  (%1, %3)
})");
  auto* tuple = f->body.as<TupleNode>();
  DFPattern x = Wildcard();
  DFPattern swish = IsOp("multiply")({x, IsOp("sigmoid")({x})});
  EXPECT_TRUE(MatchPattern(swish, tuple->fields[0]));
  EXPECT_FALSE(MatchPattern(swish, tuple->fields[1]));
}

TEST(PatternMatch, TupleAndTupleGetItem) {
  Function f = Main(R"(
def @main(%x: Tensor[(4, 6), float32]) {
  %0 = split(%x, indices_or_sections=2, axis=1);
  %1 = %0.1;
  (%1, %x)
})");
  auto* tuple = f->body.as<TupleNode>();
  EXPECT_TRUE(
      MatchPattern(IsTuple({IsTupleGetItem(IsOp("split").CallAnyArgs(), 1), IsVar()}), f->body));
  EXPECT_TRUE(MatchPattern(IsTupleGetItem(Wildcard()), tuple->fields[0]));
  EXPECT_FALSE(MatchPattern(IsTupleGetItem(Wildcard(), 0), tuple->fields[0]));
  EXPECT_FALSE(MatchPattern(IsTuple({Wildcard()}), f->body));
}

TEST(PatternMatch, AlternationAndOptional) {
  Expr body = Body(kConvBiasRelu);
  auto* relu = body.as<CallNode>();
  DFPattern conv = IsOp("nn.conv2d")({Wildcard(), Wildcard()});
  DFPattern biased = IsOp("nn.bias_add")({conv, Wildcard()}) | IsOp("add")({conv, Wildcard()});
  EXPECT_TRUE(MatchPattern(biased, relu->args[0]));
  EXPECT_FALSE(MatchPattern(biased, body));
  DFPattern opt = biased.Optional([](const DFPattern& p) { return IsOp("nn.relu")({p}); });
  EXPECT_TRUE(MatchPattern(opt, body));
  EXPECT_TRUE(MatchPattern(opt, relu->args[0]));
  EXPECT_FALSE(MatchPattern(opt, relu->args[0].as<CallNode>()->args[0]));
}

TEST(PatternMatch, FailedAlternativeDoesNotLeaveBindings) {
  // The left branch binds `x` to %a before failing; the right branch must be free to
  // bind it to %b.
  Function f = Main(R"(
def @main(%a: Tensor[(4), float32], %b: Tensor[(4), float32]) {
  %0 = nn.relu(%b);
  subtract(%a, %0)
})");
  DFPattern x = Wildcard();
  DFPattern p = IsOp("subtract")({x, IsOp("sigmoid")({Wildcard()})}) |
                IsOp("subtract")({Wildcard(), IsOp("nn.relu")({x})});
  IndexedGraph graph(f);
  DFPatternMatcher m(&graph);
  ASSERT_TRUE(m.Match(p, f->body));
  EXPECT_TRUE(m.node_map().at(x.get()).same_as(f->params[1]));
}

TEST(PatternMatch, AttrTypeShapeDType) {
  Expr body = Body(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1, 1, 1], groups=1)
})");
  DFPattern conv = IsOp("nn.conv2d")({Wildcard(), Wildcard()});
  EXPECT_TRUE(MatchPattern(conv.HasAttr({{"groups", 1}, {"data_layout", "NCHW"}}), body));
  EXPECT_TRUE(MatchPattern(conv.HasAttr({{"padding", AttrValue::Ints({1, 1, 1, 1})}}), body));
  EXPECT_FALSE(MatchPattern(conv.HasAttr({{"groups", 2}}), body));
  EXPECT_FALSE(MatchPattern(conv.HasAttr({{"no_such", 2}}), body));
  EXPECT_TRUE(MatchPattern(conv.HasShape({1, 4, 8, 8}), body));
  EXPECT_FALSE(MatchPattern(conv.HasShape({1, 4, 8}), body));
  EXPECT_TRUE(MatchPattern(conv.HasDType(DType::kFloat32), body));
  EXPECT_FALSE(MatchPattern(conv.HasDType(DType::kFloat64), body));
  EXPECT_TRUE(MatchPattern(conv.HasType(MakeTensorType({1, 4, 8, 8})), body));
  EXPECT_FALSE(MatchPattern(conv.HasType(MakeTensorType({1, 4, 8, 8}, DType::kInt32)), body));
  // Op attributes: the op's pattern kind.
  DFPattern anchor = Wildcard().HasAttr({{"TOpPattern", int64_t{4}}});
  EXPECT_TRUE(MatchPattern(anchor({Wildcard(), Wildcard()}), body));
  // Untyped expressions never match type predicates.
  Expr untyped = ParseModule(R"(
def @main(%x: Tensor[(4), float32]) { nn.relu(%x) })")
                     .LookupFunction("main")
                     ->body;
  EXPECT_FALSE(MatchPattern(Wildcard().HasDType(DType::kFloat32), untyped));
}

TEST(PatternMatch, DominatorDiamond) {
  Function f = Main(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = sigmoid(%1);
  add(%2, %0)
})");
  DFPattern conv = IsOp("nn.conv2d")({Wildcard(), Wildcard()});
  DFPattern elemwise = Wildcard().HasAttr({{"TOpPattern", int64_t{0}}})({Wildcard()});
  DFPattern diamond = Dominates(conv, elemwise, IsOp("add")({Wildcard(), Wildcard()}));
  IndexedGraph graph(f);
  DFPatternMatcher m(&graph);
  ASSERT_TRUE(m.Match(diamond, f->body));
  EXPECT_EQ(m.internal().size(), 4u);  // add, sigmoid, relu, conv2d
  EXPECT_TRUE(MatchPattern(diamond, f->body));
  // A path node that is not elementwise breaks the diamond.
  Function g = Main(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.max_pool2d(%0, pool_size=[1, 1]);
  add(%1, %0)
})");
  EXPECT_FALSE(MatchIn(g, diamond, g->body));
  // The conv is also used outside the diamond: the add does not post-dominate it.
  Function h = Main(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);
  %1 = nn.relu(%0);
  %2 = add(%1, %0);
  (%2, %0)
})");
  EXPECT_FALSE(MatchIn(h, diamond, h->body.as<TupleNode>()->fields[0]));
}

TEST(PatternMatch, NoMatchAcrossFunctionsOrLets) {
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = sigmoid(%x);
  %1 = fn (%p: Tensor[(4), float32]) { nn.relu(%p) };
  %1(%0)
})");
  EXPECT_FALSE(MatchPattern(IsOp("nn.relu")({IsOp("sigmoid")({Wildcard()})}), f->body));
  EXPECT_TRUE(MatchPattern(Wildcard()({IsOp("sigmoid")({Wildcard()})}), f->body));
  Function g = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  let %v = sigmoid(%x);
  nn.relu(%v)
})");
  auto* let = g->body.as<LetNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_FALSE(MatchPattern(IsOp("nn.relu")({IsOp("sigmoid")({Wildcard()})}), let->body));
  EXPECT_TRUE(MatchPattern(IsOp("nn.relu")({IsVar("v")}), let->body));
}

TEST(PatternPartition, ConstantsEmbeddedOnlyWhenMatchedByIsConstant) {
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = add(%x, 1f);
  %1 = nn.relu(%0);
  sigmoid(%1)
})");
  Function embedded =
      PartitionPattern(IsOp("nn.relu")({IsOp("add")({Wildcard(), IsConstant()})}), "t.embed", f);
  AssertStructuralEqual(Typed(embedded), Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = fn (%p0: Tensor[(4), float32], Composite="t.embed") {
    %1 = add(%p0, 1f);
    nn.relu(%1)
  };
  %2 = %0(%x);
  sigmoid(%2)
})"));
  Function passed =
      PartitionPattern(IsOp("nn.relu")({IsOp("add")({Wildcard(), Wildcard()})}), "t.arg", f);
  AssertStructuralEqual(Typed(passed), Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = fn (%p0: Tensor[(4), float32], %p1: float32, Composite="t.arg") {
    %1 = add(%p0, %p1);
    nn.relu(%1)
  };
  %2 = %0(%x, 1f);
  sigmoid(%2)
})"));
  // A predicate can veto; an unmatched pattern leaves the function as it is.
  EXPECT_TRUE(PartitionPattern(IsOp("nn.relu")({Wildcard()}), "t.no", f, [](const Expr&) {
                return false;
              }).same_as(f));
  EXPECT_TRUE(PartitionPattern(IsOp("tanh")({Wildcard()}), "t.no", f).same_as(f));
}

TEST(PatternPartition, ConsumersBeforeProducersAndNoOverlap) {
  // Two relu(relu(x)) chains overlap in a chain of three; the match nearest the result
  // wins, and the remaining relu is left alone.
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  nn.relu(%1)
})");
  Function out = PartitionPattern(IsOp("nn.relu")({IsOp("nn.relu")({Wildcard()})}), "t.rr", f);
  AssertStructuralEqual(Typed(out), Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = fn (%p0: Tensor[(4), float32], Composite="t.rr") {
    %2 = nn.relu(%p0);
    nn.relu(%2)
  };
  %1(%0)
})"));
}

TEST(PatternRewrite, CallbacksRunToAFixpoint) {
  Function f = Main(R"(
def @main(%x: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%0);
  %2 = nn.relu(%1);
  multiply(%2, 1f)
})");
  DFPattern inner = IsOp("nn.relu")({Wildcard()});
  DFPatternCallback drop_double{IsOp("nn.relu")({inner}),
                                [&](const Expr&, const Expr& post, const PatternNodeMap& map) {
                                  EXPECT_TRUE(map.count(inner.get()));
                                  return post.as<CallNode>()->args[0];
                                }};
  DFPattern x = Wildcard();
  DFPatternCallback drop_one{
      IsOp("multiply")({x, IsConstant()}),
      [&](const Expr&, const Expr&, const PatternNodeMap& map) { return map.at(x.get()); }};
  Function out = RewritePatterns({drop_double, drop_one}, f);
  AssertStructuralEqual(out->body, MakeOpCall("nn.relu", {f->params[0]}));
}

TEST(PatternErrors, BadPatternsAndMissingGraphAreErrors) {
  Expr body = Body(kConvBiasRelu);
  DFPatternMatcher no_graph;
  EXPECT_THROW(no_graph.Match(Dominates(Wildcard(), Wildcard(), Wildcard()), body), Error);
  EXPECT_THROW(no_graph.Match(DFPattern(), body), Error);
  EXPECT_THROW(IsTupleGetItem(Wildcard(), -2), Error);
  EXPECT_THROW(Wildcard() | DFPattern(), Error);
  EXPECT_THROW(PartitionPattern(Wildcard(), "", Main(kConvBiasRelu)), Error);
}

TEST(PatternPrint, ReadableText) {
  DFPattern conv = IsOp("nn.conv2d")({Wildcard(), IsConstant()});
  DFPattern p = (IsOp("nn.bias_add")({conv, Wildcard()}) | conv).HasAttr({{"groups", 1}});
  EXPECT_EQ(
      p.ToString(),
      "(is_op(\"nn.bias_add\")(is_op(\"nn.conv2d\")(wildcard(), is_constant()), wildcard()) | "
      "is_op(\"nn.conv2d\")(wildcard(), is_constant())).has_attr({\"groups\": 1})");
  EXPECT_EQ(IsTupleGetItem(IsTuple({IsVar("x"), IsVar()}), 1).HasDType(DType::kFloat32).ToString(),
            "is_tuple_get_item(is_tuple([is_var(\"x\"), is_var()]), 1).has_dtype(\"float32\")");
  EXPECT_EQ(
      Dominates(Wildcard(), Wildcard(), IsOp("add").CallAnyArgs()).HasShape({2, 3}).ToString(),
      "dominates(wildcard(), wildcard(), is_op(\"add\")(...)).has_shape([2, 3])");
}

}  // namespace
}  // namespace tessera
