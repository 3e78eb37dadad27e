// Children access, post-order visits, the memoising mutator, substitution, free variables.
#include <gtest/gtest.h>

#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {
namespace {

Type T(std::vector<int64_t> shape) {
  return MakeTensorType(std::move(shape));
}
Expr Relu(Expr e) {
  return MakeOpCall("nn.relu", {std::move(e)});
}
Expr Add(Expr a, Expr b) {
  return MakeOpCall("add", {std::move(a), std::move(b)});
}

/// A short label per node for checking visit orders.
std::string Label(const Expr& e) {
  if (auto* v = e.as<VarNode>()) return "%" + v->name_hint;
  if (auto* o = e.as<OpNode>()) return o->name;
  if (auto* c = e.as<CallNode>()) return "call:" + (c->op() ? c->op()->name : std::string("?"));
  if (e.as<TupleNode>()) return "tuple";
  if (auto* g = e.as<TupleGetItemNode>()) return "get" + std::to_string(g->index);
  if (e.as<LetNode>()) return "let";
  if (e.as<FunctionNode>()) return "fn";
  if (e.as<ConstantNode>()) return "const";
  if (auto* g = e.as<GlobalVarNode>()) return "@" + g->name;
  return "?";
}

std::vector<std::string> Labels(const std::vector<Expr>& es) {
  std::vector<std::string> out;
  for (const Expr& e : es) out.push_back(Label(e));
  return out;
}

using Strings = std::vector<std::string>;

TEST(Visitor, ChildrenOfEveryKind) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y");
  Expr call = Add(x, Relu(x));
  EXPECT_EQ(Labels(ExprChildren(call)), (Strings{"add", "%x", "call:nn.relu"}));
  EXPECT_EQ(Labels(ExprChildren(MakeTuple({x, call}))), (Strings{"%x", "call:add"}));
  EXPECT_EQ(Labels(ExprChildren(MakeTupleGetItem(MakeTuple({x}), 0))), (Strings{"tuple"}));
  EXPECT_EQ(Labels(ExprChildren(MakeLet(y, x, y))), (Strings{"%y", "%x", "%y"}));
  EXPECT_EQ(Labels(ExprChildren(MakeFunction({x, y}, call))), (Strings{"%x", "%y", "call:add"}));
  EXPECT_TRUE(ExprChildren(x).empty());
  EXPECT_TRUE(ExprChildren(MakeGlobalVar("g")).empty());
  EXPECT_TRUE(ExprChildren(GetOp("add")).empty());
  EXPECT_TRUE(ExprChildren(MakeConstant(NDArray::Scalar(1, DType::kFloat32))).empty());
  EXPECT_TRUE(ExprChildren(tir::MakePrimFunc({}, 0, tir::MakeSeq({}))).empty());
}

TEST(Visitor, WithChildrenKeepsNodeWhenUnchanged) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y", T({2}));
  Expr call = MakeOpCall(kCallTirOp, {MakeGlobalVar("k"), MakeTuple({x})}, {}, {T({2})});
  Function f = WithAttr(MakeFunction({x}, call, T({2})), attr::kPrimitive, 1);
  Expr let = MakeLet(y, x, y);
  for (Expr e :
       {Expr(call), Expr(f), let, Expr(MakeTuple({x})), Expr(MakeTupleGetItem(x, 0)), Expr(x)})
    EXPECT_TRUE(WithChildren(e, ExprChildren(e)).same_as(e)) << Label(e);

  Expr rebuilt = WithChildren(call, {GetOp(kCallTirOp), MakeGlobalVar("k2"), MakeTuple({y})});
  auto* c = rebuilt.as<CallNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->op()->name, kCallTirOp);
  EXPECT_EQ(c->args[0].as<GlobalVarNode>()->name, "k2");
  ASSERT_EQ(c->type_args.size(), 1u);
  EXPECT_TRUE(TypeEqual(c->type_args[0], T({2})));

  f->set_checked_type(MakeFuncType({T({2})}, T({2})));
  Expr g = WithChildren(f, {y, Relu(y)});
  auto* gf = g.as<FunctionNode>();
  EXPECT_EQ(GetIntAttr(gf, attr::kPrimitive), 1);
  EXPECT_TRUE(TypeEqual(gf->ret_type, T({2})));
  EXPECT_TRUE(gf->params[0].same_as(y));
  EXPECT_FALSE(g->checked_type_or_null().defined());  // a rebuilt node is not typed yet

  Expr get = WithChildren(MakeTupleGetItem(MakeTuple({x, y}), 1), {MakeTuple({y, x})});
  EXPECT_EQ(get.as<TupleGetItemNode>()->index, 1);
}

TEST(Visitor, WithChildrenRejectsBadChildren) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y");
  Function f = MakeFunction({x}, Relu(x));
  try {
    WithChildren(f, {Relu(x), Relu(x)});
    FAIL() << "expected a value error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(), "a function parameter must stay a variable, got a call");
  }
  try {
    WithChildren(MakeLet(y, x, y), {x, x, x});  // x is a Var: allowed
    WithChildren(MakeLet(y, x, y), {Relu(x), x, x});
    FAIL() << "expected a value error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "a let's bound variable must stay a variable, got a call");
  }
  try {
    WithChildren(Add(x, x), {GetOp("add"), x});
    FAIL() << "expected a value error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot rebuild a call from 2 children; it has 3");
  }
  EXPECT_THROW(WithChildren(MakeTuple({x}), {Expr()}), Error);
}

TEST(Visitor, PostOrderVisitsEachNodeOnceChildrenFirst) {
  Var x = MakeVar("x", T({2}));
  Expr r = Relu(x);
  Expr e = Add(r, MakeTupleGetItem(MakeTuple({r, x}), 0));
  std::vector<Expr> order;
  PostOrderVisit(MakeFunction({x}, e), [&](const Expr& n) { order.push_back(n); });
  EXPECT_EQ(Labels(order),
            (Strings{"%x", "add", "nn.relu", "call:nn.relu", "tuple", "get0", "call:add", "fn"}));
  Var y = MakeVar("y");
  order.clear();
  PostOrderVisit(MakeLet(y, r, Add(y, y)), [&](const Expr& n) { order.push_back(n); });
  EXPECT_EQ(Labels(order),
            (Strings{"%y", "nn.relu", "%x", "call:nn.relu", "add", "call:add", "let"}));
}

TEST(Visitor, DeepAndSharedGraphs) {
  Var x = MakeVar("x", T({2}));
  Expr e = x;
  for (int i = 0; i < 20000; ++i) e = Relu(e);
  int count = 0;
  PostOrderVisit(e, [&](const Expr&) { ++count; });
  EXPECT_EQ(count, 20002);  // calls, the op, the variable

  Expr d = x;
  for (int i = 0; i < 60; ++i) d = Add(Relu(d), Add(d, d));
  count = 0;
  PostOrderVisit(d, [&](const Expr&) { ++count; });
  EXPECT_EQ(count, 60 * 3 + 3);
  EXPECT_EQ(FreeVars(d).size(), 1u);
}

/// Replaces one variable by an expression everywhere, counting Rewrite calls.
class ReplaceVar : public ExprMutator {
 public:
  ReplaceVar(Var from, Expr to) : from_(std::move(from)), to_(std::move(to)) {}
  int rewrites = 0;

 protected:
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    ++rewrites;
    return original.same_as(from_) ? to_ : rebuilt;
  }

 private:
  Var from_;
  Expr to_;
};

TEST(Visitor, MutatorKeepsSharingAndIdentity) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y", T({2}));
  Expr r = Relu(x);
  Expr e = Add(r, r);
  ReplaceVar same(y, x);
  EXPECT_TRUE(same.Mutate(e).same_as(e));  // nothing to change: the very same node
  EXPECT_EQ(same.rewrites, 5);             // add op, relu op, %x, relu call, add call
  ReplaceVar m(x, y);
  Expr out = m.Mutate(e);
  auto* add = out.as<CallNode>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->args[0].same_as(add->args[1]));  // still shared
  EXPECT_TRUE(add->args[0].as<CallNode>()->args[0].same_as(y));
  EXPECT_FALSE(StructuralEqual(out, Add(Relu(y), Relu(y))));
  Expr ry = Relu(y);
  EXPECT_TRUE(StructuralEqual(out, Add(ry, ry)));
  EXPECT_TRUE(m.Mutate(e).same_as(out));  // memoised across calls
}

class SkipFunctions : public ExprMutator {
 public:
  std::vector<std::string> seen;

 protected:
  bool SkipChildren(const Expr& e) override { return e.as<FunctionNode>() != nullptr; }
  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    seen.push_back(Label(original));
    if (auto* c = rebuilt.as<CallNode>(); c && c->op() && c->op()->name == "nn.relu")
      return c->args[0];
    return rebuilt;
  }
};

TEST(Visitor, MutatorSkipsChildren) {
  Var x = MakeVar("x", T({2}));
  Function inner = MakeFunction({x}, Relu(x));
  Expr e = MakeTuple({inner, Relu(x)});
  SkipFunctions m;
  Expr out = m.Mutate(e);
  EXPECT_EQ(m.seen, (Strings{"fn", "nn.relu", "%x", "call:nn.relu", "tuple"}));
  auto* t = out.as<TupleNode>();
  EXPECT_TRUE(t->fields[0].same_as(inner));  // untouched inside
  EXPECT_TRUE(t->fields[1].same_as(x));
}

TEST(Visitor, MutatorHandlesDeepChains) {
  Var x = MakeVar("x", T({2}));
  Expr e = x;
  for (int i = 0; i < 20000; ++i) e = Add(Relu(e), x);
  SkipFunctions strip;  // removes every relu
  Expr out = strip.Mutate(e);
  Expr want = x;
  for (int i = 0; i < 20000; ++i) want = Add(want, x);
  EXPECT_TRUE(StructuralEqual(out, want));
}

TEST(Visitor, SubstituteReplacesUsesAndRenamesBinders) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y", T({2}));
  Var z = MakeVar("z", T({2}));
  Expr c = MakeConstant(NDArray::FromFloats({2}, {1, 2}));
  Expr r = Relu(x);
  Expr e = Add(r, r);
  Expr out = Substitute(e, {{x.get(), c}});
  auto* add = out.as<CallNode>();
  EXPECT_TRUE(add->args[0].same_as(add->args[1]));
  EXPECT_TRUE(add->args[0].as<CallNode>()->args[0].same_as(c));
  EXPECT_TRUE(Substitute(e, {{y.get(), c}}).same_as(e));
  EXPECT_TRUE(Substitute(e, {}).same_as(e));

  // A binder replaced by a variable is renamed; by anything else it is kept.
  Function f = MakeFunction({x}, Add(x, y));
  Expr renamed_expr = Substitute(f, {{x.get(), z}});
  auto* renamed = renamed_expr.as<FunctionNode>();
  EXPECT_TRUE(renamed->params[0].same_as(z));
  EXPECT_TRUE(renamed->body.as<CallNode>()->args[0].same_as(z));
  Expr bound_expr = Substitute(f, {{y.get(), c}});
  auto* bound = bound_expr.as<FunctionNode>();
  EXPECT_TRUE(bound->params[0].same_as(x));
  EXPECT_TRUE(bound->body.as<CallNode>()->args[1].same_as(c));
  Expr let = MakeLet(y, Relu(x), Add(y, x));
  Expr let_out = Substitute(let, {{y.get(), c}, {x.get(), z}});
  auto* l = let_out.as<LetNode>();
  EXPECT_TRUE(l->var.same_as(y));
  EXPECT_TRUE(l->value.as<CallNode>()->args[0].same_as(z));
  EXPECT_TRUE(l->body.as<CallNode>()->args[0].same_as(c));
  EXPECT_THROW(Substitute(e, {{x.get(), Expr()}}), Error);

  Expr deep = x;
  for (int i = 0; i < 20000; ++i) deep = Relu(deep);
  Expr deep_out = Substitute(deep, {{x.get(), y}});
  EXPECT_EQ(FreeVars(deep_out).size(), 1u);
  EXPECT_TRUE(FreeVars(deep_out)[0].same_as(y));
}

TEST(Visitor, FreeVarsInFirstUseOrder) {
  Var a = MakeVar("a", T({2}));
  Var b = MakeVar("b", T({2}));
  Var c = MakeVar("c", T({2}));
  Var p = MakeVar("p", T({2}));
  Var l = MakeVar("l");
  Expr inner = MakeFunction({p}, Add(p, c));
  Expr e = MakeTuple({Add(b, a), MakeLet(l, Relu(a), Add(l, b)), MakeCall(inner, {c})});
  std::vector<Var> free = FreeVars(e);
  ASSERT_EQ(free.size(), 3u);
  EXPECT_TRUE(free[0].same_as(b));
  EXPECT_TRUE(free[1].same_as(a));
  EXPECT_TRUE(free[2].same_as(c));
  EXPECT_TRUE(FreeVars(MakeFunction({a, b, c}, e)).empty());
  EXPECT_TRUE(FreeVars(MakeConstant(NDArray::Scalar(0, DType::kFloat32))).empty());
  EXPECT_EQ(FreeVars(a).size(), 1u);
}

}  // namespace
}  // namespace tessera
