// Structural equality, hashing and difference reports on graph expressions and modules.
#include <gtest/gtest.h>

#include "tessera/ir/structural_equal.h"
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

/// fn (%<name>: Tensor[(1, 3)]) { nn.relu(add(%<name>, %<name>)) }
Function Simple(const std::string& name) {
  Var x = MakeVar(name, T({1, 3}));
  return MakeFunction({x}, Relu(Add(x, x)));
}

std::string Diff(const Expr& a, const Expr& b, bool map_free_vars = false) {
  auto d = StructuralDiff(a, b, map_free_vars);
  return d ? *d : "<equal>";
}

void ExpectEqual(const Expr& a, const Expr& b, bool map_free_vars = false) {
  EXPECT_TRUE(StructuralEqual(a, b, map_free_vars)) << Diff(a, b, map_free_vars);
  EXPECT_TRUE(StructuralEqual(b, a, map_free_vars));
  EXPECT_EQ(StructuralHash(a), StructuralHash(b));
  EXPECT_FALSE(StructuralDiff(a, b, map_free_vars).has_value());
}

void ExpectUnequal(const Expr& a, const Expr& b, bool map_free_vars = false) {
  EXPECT_FALSE(StructuralEqual(a, b, map_free_vars));
  EXPECT_FALSE(StructuralEqual(b, a, map_free_vars));
  EXPECT_TRUE(StructuralDiff(a, b, map_free_vars).has_value());
}

Constant Floats(std::vector<int64_t> shape, std::vector<float> values) {
  return MakeConstant(NDArray::FromFloats(shape, values));
}

TEST(Structural, RenamedParamsAreEqual) {
  ExpectEqual(Simple("x"), Simple("y"));
  ExpectEqual(Simple("x"), Simple("x"));
}

TEST(Structural, ParamAnnotationsMustMatch) {
  Var x = MakeVar("x", T({1, 3}));
  Var y = MakeVar("y", T({1, 4}));
  Function a = MakeFunction({x}, Relu(x));
  Function b = MakeFunction({y}, Relu(y));
  ExpectUnequal(a, b);
  EXPECT_NE(Diff(a, b).find("type annotation of %x vs %y: shape [1, 3] vs [1, 4]"),
            std::string::npos)
      << Diff(a, b);
  Var z = MakeVar("z", MakeTensorType({1, 3}, DType::kFloat16));
  EXPECT_NE(Diff(a, MakeFunction({z}, Relu(z))).find("dtype float32 vs float16"),
            std::string::npos);
  Var untyped = MakeVar("u");
  EXPECT_NE(
      Diff(a, MakeFunction({untyped}, Relu(untyped))).find("type Tensor[(1, 3), float32] vs none"),
      std::string::npos);
}

TEST(Structural, ParamOrderMatters) {
  Var x = MakeVar("x", T({1}));
  Var y = MakeVar("y", T({1}));
  Function a = MakeFunction({x, y}, Add(x, y));
  Function b = MakeFunction({x, y}, Add(y, x));
  ExpectUnequal(a, b);
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(b)));
  EXPECT_NE(Diff(a, b).find("variable %x vs %y"), std::string::npos) << Diff(a, b);
  ExpectUnequal(a, MakeFunction({x}, Add(x, x)));
  EXPECT_NE(Diff(a, MakeFunction({x}, Add(x, x))).find("function parameter count 2 vs 1"),
            std::string::npos);
}

TEST(Structural, FreeVariablesNeedMappingToDiffer) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y", T({2}));
  ExpectEqual(Relu(x), Relu(x));
  ExpectUnequal(Relu(x), Relu(y));
  EXPECT_NE(Diff(Relu(x), Relu(y)).find("free variable %x vs %y"), std::string::npos);
  ExpectEqual(Relu(x), Relu(y), /*map_free_vars=*/true);
  // Mapping is a bijection fixed at first occurrence.
  ExpectUnequal(Add(x, y), Add(x, x), true);
  Var z = MakeVar("z", T({2}));
  ExpectEqual(Add(x, y), Add(y, z), true);
  ExpectUnequal(Add(x, x), Add(y, z), true);
  // Mapped free variables still need equal annotations.
  Var w = MakeVar("w", T({3}));
  ExpectUnequal(Relu(x), Relu(w), true);
  EXPECT_NE(Diff(Relu(x), Relu(w), true).find("shape [2] vs [3]"), std::string::npos);
}

TEST(Structural, AttributesIgnoreOrderButNotValues) {
  Var x = MakeVar("x", T({1}));
  Op op = GetOp("add");
  Attrs ab{{"padding", AttrValue::Ints({1, 1, 1, 1})}, {"layout", "NCHW"}};
  Attrs ba{{"layout", "NCHW"}, {"padding", AttrValue::Ints({1, 1, 1, 1})}};
  Attrs other{{"layout", "NCHW"}, {"padding", AttrValue::Ints({0, 0, 0, 0})}};
  ExpectEqual(MakeCall(op, {x, x}, ab), MakeCall(op, {x, x}, ba));
  Expr c1 = MakeCall(op, {x, x}, ab);
  Expr c2 = MakeCall(op, {x, x}, other);
  ExpectUnequal(c1, c2);
  EXPECT_NE(StructuralHash(c1), StructuralHash(c2));
  EXPECT_NE(Diff(c1, c2).find("attribute 'padding': [1, 1, 1, 1] vs [0, 0, 0, 0]"),
            std::string::npos)
      << Diff(c1, c2);
  Expr c3 = MakeCall(op, {x, x}, Attrs{{"layout", "NCHW"}});
  EXPECT_NE(Diff(c1, c3).find("attribute 'padding' only in lhs"), std::string::npos);
  EXPECT_NE(Diff(c3, c1).find("attribute 'padding' only in rhs"), std::string::npos);
}

TEST(Structural, FunctionAttributesAndReturnType) {
  Function f = Simple("x");
  Function prim = WithAttr(f, attr::kPrimitive, 1);
  ExpectUnequal(f, prim);
  EXPECT_NE(Diff(f, prim).find("function attribute 'Primitive' only in rhs"), std::string::npos);
  ExpectEqual(WithAttr(Simple("a"), attr::kPrimitive, 1), prim);
  Function typed = MakeFunction(f->params, f->body, T({1, 3}));
  ExpectUnequal(f, typed);
  EXPECT_NE(Diff(typed, f).find("function return type: type Tensor[(1, 3), float32] vs none"),
            std::string::npos)
      << Diff(typed, f);
  ExpectEqual(typed, MakeFunction(f->params, f->body, T({1, 3})));
}

TEST(Structural, ConstantsCompareByDtypeShapeAndBytes) {
  ExpectEqual(Floats({3}, {1, 2, 3}), Floats({3}, {1, 2, 3}));
  Expr a = Floats({3}, {1, 2, 3});
  Expr b = Floats({3}, {1, 5, 3});
  ExpectUnequal(a, b);
  EXPECT_NE(StructuralHash(a), StructuralHash(b));
  EXPECT_NE(Diff(a, b).find("constant data differs at element 1: 2 vs 5"), std::string::npos)
      << Diff(a, b);
  Expr wide = Floats({1, 4}, {1, 2, 3, 4});
  Expr narrow = Floats({1, 3}, {1, 2, 3});
  EXPECT_NE(Diff(narrow, wide).find("constant shape [1, 3] vs [1, 4]"), std::string::npos);
  Expr i32 = MakeConstant(NDArray::Scalar(1, DType::kInt32));
  Expr f32 = MakeConstant(NDArray::Scalar(1, DType::kFloat32));
  EXPECT_NE(Diff(i32, f32).find("constant dtype int32 vs float32"), std::string::npos);
  EXPECT_NE(StructuralHash(i32), StructuralHash(f32));
  // Sharing of constants is not significant (every parsed literal is its own node).
  Expr one = MakeConstant(NDArray::Scalar(1, DType::kFloat32));
  ExpectEqual(Add(one, one), Add(f32, MakeConstant(NDArray::Scalar(1, DType::kFloat32))));
}

TEST(Structural, SharingMustCorrespond) {
  Var x = MakeVar("x", T({4}));
  Expr shared = Relu(x);
  Expr dag = Add(shared, shared);
  Expr tree = Add(Relu(x), Relu(x));
  ExpectUnequal(dag, tree);
  EXPECT_NE(StructuralHash(dag), StructuralHash(tree));
  EXPECT_NE(Diff(dag, tree).find("sharing differs"), std::string::npos) << Diff(dag, tree);
  EXPECT_NE(Diff(tree, dag).find("sharing differs"), std::string::npos);
  Expr shared2 = Relu(x);
  ExpectEqual(dag, Add(shared2, shared2));
  ExpectEqual(tree, Add(Relu(x), Relu(x)));
  // The same node on both sides still has to be shared the same way.
  ExpectUnequal(MakeTuple({shared, shared}), MakeTuple({shared, Relu(x)}));
}

TEST(Structural, TuplesAndProjections) {
  Var x = MakeVar("x", T({1}));
  Expr t = MakeTuple({x, Relu(x)});
  ExpectEqual(MakeTupleGetItem(t, 1), MakeTupleGetItem(MakeTuple({x, Relu(x)}), 1));
  Expr g0 = MakeTupleGetItem(t, 0);
  Expr g1 = MakeTupleGetItem(t, 1);
  ExpectUnequal(g0, g1);
  EXPECT_NE(StructuralHash(g0), StructuralHash(g1));
  EXPECT_NE(Diff(g0, g1).find("tuple index 0 vs 1"), std::string::npos);
  EXPECT_NE(Diff(t, MakeTuple({x})).find("tuple size 2 vs 1"), std::string::npos);
  EXPECT_NE(Diff(t, Relu(x)).find("expression kind tuple vs call"), std::string::npos);
}

TEST(Structural, OpsAndGlobals) {
  Var x = MakeVar("x", T({1}));
  Expr relu = MakeCall(GetOp("nn.relu"), {x});
  Expr add = MakeCall(GetOp("add"), {x});
  ExpectUnequal(relu, add);
  EXPECT_NE(Diff(relu, add).find("op nn.relu vs add"), std::string::npos) << Diff(relu, add);
  EXPECT_NE(StructuralHash(relu), StructuralHash(add));
  // Globals compare by name, not node.
  ExpectEqual(MakeCall(MakeGlobalVar("f"), {x}), MakeCall(MakeGlobalVar("f"), {x}));
  Expr f = MakeCall(MakeGlobalVar("f"), {x});
  Expr g = MakeCall(MakeGlobalVar("g"), {x});
  ExpectUnequal(f, g);
  EXPECT_NE(Diff(f, g).find("global @f vs @g"), std::string::npos);
  EXPECT_NE(Diff(f, relu).find("expression kind global vs op"), std::string::npos);
  EXPECT_NE(Diff(Add(x, x), Relu(x)).find("argument count 2 vs 1"), std::string::npos);
}

TEST(Structural, CallTypeArguments) {
  Var x = MakeVar("x", T({4}));
  Expr args = MakeTuple({x});
  Expr a = MakeOpCall(kCallTirOp, {MakeGlobalVar("k"), args}, {}, {T({4})});
  Expr b = MakeOpCall(kCallTirOp, {MakeGlobalVar("k"), args}, {}, {T({5})});
  ExpectEqual(a, MakeOpCall(kCallTirOp, {MakeGlobalVar("k"), MakeTuple({x})}, {}, {T({4})}));
  ExpectUnequal(a, b);
  EXPECT_NE(Diff(a, b).find("type argument 0: shape [4] vs [5]"), std::string::npos);
}

TEST(Structural, LetsAndNestedFunctions) {
  auto build = [](const char* p, const char* q, const char* v, bool swap) {
    Var x = MakeVar(p, T({2}));
    Var y = MakeVar(q, T({2}));
    Var f = MakeVar(v);
    Function inner = MakeFunction({y}, swap ? Add(x, y) : Add(y, x));
    return MakeFunction({x}, MakeLet(f, inner, MakeCall(f, {Relu(x)})));
  };
  ExpectEqual(build("x", "y", "f", false), build("a", "b", "g", false));
  Function a = build("x", "y", "f", false);
  Function b = build("x", "y", "f", true);
  ExpectUnequal(a, b);
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(b)));
  EXPECT_NE(Diff(a, b).find("variable %y vs %x"), std::string::npos) << Diff(a, b);
  // A let variable's annotation is compared too.
  Var l1 = MakeVar("l", T({2}));
  Var l2 = MakeVar("l");
  Var x = MakeVar("x", T({2}));
  ExpectUnequal(MakeLet(l1, x, l1), MakeLet(l2, x, l2));
  // Shadowing: rebinding one Var object equals binding two distinct ones.
  Var v = MakeVar("v");
  Var v1 = MakeVar("v1");
  Var v2 = MakeVar("v2");
  Expr shadow = MakeLet(v, Relu(x), MakeLet(v, Relu(v), v));
  ExpectEqual(shadow, MakeLet(v1, Relu(x), MakeLet(v2, Relu(v1), v2)));
  ExpectUnequal(shadow, MakeLet(v1, Relu(x), MakeLet(v2, Relu(v1), v1)));
}

TEST(Structural, CheckedTypesAreIgnored) {
  Function a = Simple("x");
  Function b = Simple("x");
  b->body->set_checked_type(T({1, 3}));
  b->set_checked_type(MakeFuncType({T({1, 3})}, T({1, 3})));
  ExpectEqual(a, b);
}

TEST(Structural, ModulesIgnoreFunctionOrder) {
  Function main = MakeFunction({}, MakeCall(MakeGlobalVar("helper"), {}));
  Function helper = Simple("x");
  IRModule m1 = IRModule().WithFunction("main", main).WithFunction("helper", helper);
  IRModule m2 = IRModule().WithFunction("helper", Simple("z")).WithFunction("main", main);
  EXPECT_TRUE(StructuralEqual(m1, m2));
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
  EXPECT_FALSE(StructuralDiff(m1, m2).has_value());
  EXPECT_NO_THROW(AssertStructuralEqual(m1, m2));

  IRModule only_main = IRModule().WithFunction("main", main);
  EXPECT_FALSE(StructuralEqual(m1, only_main));
  EXPECT_NE(StructuralHash(m1), StructuralHash(only_main));
  EXPECT_EQ(*StructuralDiff(m1, only_main), "function @helper only in lhs");
  EXPECT_EQ(*StructuralDiff(only_main, m1), "function @helper only in rhs");

  Var y = MakeVar("y", T({1, 3}));
  IRModule m3 = m2.WithFunction("helper", MakeFunction({y}, Relu(y)));
  EXPECT_FALSE(StructuralEqual(m1, m3));
  std::string diff = *StructuralDiff(m1, m3);
  EXPECT_EQ(diff.rfind("in @helper: expression kind call vs variable", 0), 0u) << diff;
  EXPECT_NE(diff.find("lhs: add(%x, %x) in nn.relu(add(%x, %x))"), std::string::npos) << diff;

  IRModule attr = m1.WithAttr("target", "llvm");
  EXPECT_FALSE(StructuralEqual(m1, attr));
  EXPECT_NE(StructuralHash(m1), StructuralHash(attr));
  EXPECT_EQ(*StructuralDiff(m1, attr), "module attribute 'target' only in rhs (\"llvm\")");
  try {
    AssertStructuralEqual(m1, m3);
    FAIL() << "expected a value error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_NE(std::string(e.what()).find("modules are not structurally equal: in @helper"),
              std::string::npos)
        << e.what();
  }
}

TEST(Structural, ModuleFunctionsMatchFreeVariablesAfresh) {
  // Free variables (ill-formed, but comparable) are matched per function.
  Var a = MakeVar("a", T({1}));
  Var b = MakeVar("b", T({1}));
  IRModule m1 = IRModule().WithFunction("f", MakeFunction({}, Relu(a)));
  IRModule m2 = IRModule().WithFunction("f", MakeFunction({}, Relu(b)));
  EXPECT_TRUE(StructuralEqual(m1, m2));
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
}

TEST(Structural, AssertOnExpressions) {
  Var x = MakeVar("x", T({1}));
  EXPECT_NO_THROW(AssertStructuralEqual(Relu(x), Relu(x)));
  try {
    AssertStructuralEqual(Relu(x), Add(x, x));
    FAIL() << "expected a value error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    std::string msg = e.what();
    EXPECT_NE(msg.find("argument count 1 vs 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("lhs: nn.relu(%x)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rhs: add(%x, %x)"), std::string::npos) << msg;
  }
}

TEST(Structural, DiamondLadderComparesInLinearTime) {
  auto ladder = [] {
    Var x = MakeVar("x", T({2}));
    Expr e = x;
    for (int i = 0; i < 60; ++i) e = Add(Relu(e), Add(e, e));
    return MakeFunction({x}, e);
  };
  Function a = ladder();
  Function b = ladder();
  ExpectEqual(a, b);  // 2^60 paths: only memoisation makes this finish
  Var x = MakeVar("x", T({2}));
  Expr e = x;
  for (int i = 0; i < 60; ++i) e = Add(Relu(e), i == 30 ? Add(e, Relu(e)) : Add(e, e));
  Function c = MakeFunction({x}, e);
  ExpectUnequal(a, c);
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(c)));
}

/// x -> add(x, c) -> nn.relu -> ... , `depth` calls, the first add using `first`.
Function Chain(int depth, float first) {
  Var x = MakeVar("x", T({2}));
  Expr one = MakeConstant(NDArray::Scalar(1, DType::kFloat32));
  Expr e = Add(x, MakeConstant(NDArray::Scalar(first, DType::kFloat32)));
  for (int i = 1; i < depth; ++i) e = i % 2 ? Relu(e) : Add(e, one);
  return MakeFunction({x}, e);
}

TEST(Structural, TwentyThousandDeepChain) {
  Function a = Chain(20000, 1);
  Function b = Chain(20000, 1);
  ExpectEqual(a, b);
  Function c = Chain(20000, 2);
  ExpectUnequal(a, c);
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(c)));
  std::string diff = Diff(a, c);
  EXPECT_NE(diff.find("constant data differs at element 0: 1 vs 2"), std::string::npos) << diff;
  EXPECT_NE(diff.find("lhs: const float32[] = 1 in add(%x, const float32[] = 1)"),
            std::string::npos)
      << diff;
}

/// let %v0 = relu(%x); let %v1 = relu(%v0); ... ; %v<depth-1>, the last value `last`.
Function LetChain(int depth, bool add_at_bottom) {
  Var x = MakeVar("x", T({2}));
  std::vector<Var> vars;
  std::vector<Expr> values;
  Expr prev = x;
  for (int i = 0; i < depth; ++i) {
    vars.push_back(MakeVar("v" + std::to_string(i)));
    values.push_back(add_at_bottom && i == depth - 1 ? Add(prev, prev) : Relu(prev));
    prev = vars.back();
  }
  Expr body = prev;
  for (int i = depth - 1; i >= 0; --i) body = MakeLet(vars[i], values[i], body);
  return MakeFunction({x}, body);
}

TEST(Structural, TwentyThousandDeepLetChain) {
  Function a = LetChain(20000, false);
  Function b = LetChain(20000, false);
  ExpectEqual(a, b);
  Function c = LetChain(20000, true);
  ExpectUnequal(a, c);
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(c)));
  EXPECT_NE(Diff(a, c).find("argument count 1 vs 2"), std::string::npos);
  EXPECT_NE(Diff(a, c).find("lhs: nn.relu(%v19998)"), std::string::npos) << Diff(a, c);
}

TEST(Structural, HashesSeparateDistinctPrograms) {
  Var x = MakeVar("x", T({2}));
  Var y = MakeVar("y", T({2}));
  std::vector<Expr> programs = {
      MakeFunction({x}, Relu(x)),
      MakeFunction({x}, Add(x, x)),
      MakeFunction({x, y}, Add(x, y)),
      MakeFunction({x, y}, Add(y, x)),
      MakeFunction({x}, MakeTuple({x, x})),
      MakeFunction({x}, MakeTupleGetItem(MakeTuple({x, x}), 1)),
      MakeFunction({x}, Relu(Relu(x))),
      MakeFunction({x}, Add(x, Floats({2}, {1, 2}))),
      MakeFunction({x}, Add(x, Floats({2}, {1, 3}))),
      MakeFunction({x}, Relu(x), T({2})),
      WithAttr(MakeFunction({x}, Relu(x)), attr::kPrimitive, 1),
      MakeFunction({x}, MakeLet(y, Relu(x), y)),
      MakeFunction({x}, MakeLet(y, Relu(x), x)),
      Relu(x),
      x,
  };
  for (size_t i = 0; i < programs.size(); ++i)
    for (size_t j = 0; j < programs.size(); ++j) {
      EXPECT_EQ(StructuralEqual(programs[i], programs[j]), i == j) << i << " vs " << j;
      if (i != j) {
        EXPECT_NE(StructuralHash(programs[i]), StructuralHash(programs[j])) << i << " vs " << j;
      }
    }
}

}  // namespace
}  // namespace tessera
