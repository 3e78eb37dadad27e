// Type inference: op relations, functions, globals, lets, tuples, call_tir and errors.
#include <gtest/gtest.h>

#include "interp_test_util.h"
#include "tessera/ir/module.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/visitor.h"

namespace tessera {
namespace {

using testing_interp::ExpectError;
using testing_interp::MatmulPrimFunc;

TensorType T(std::vector<int64_t> shape, DType dtype = DType::kFloat32) {
  return MakeTensorType(std::move(shape), dtype);
}
std::string S(const Type& t) {
  return TypeToString(t);
}
Constant Ones(std::vector<int64_t> shape) {
  NDArray a = NDArray::Empty(shape, DType::kFloat32);
  for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, 1.0);
  return MakeConstant(a);
}

TEST(InferType, OpChainFillsRetTypeAndCheckedTypes) {
  Var x = MakeVar("x", T({1, 3}));
  Expr add = MakeOpCall("add", {x, Ones({3})});
  Expr relu = MakeOpCall("nn.relu", {add});
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, relu)));
  Function main = mod.LookupFunction("main");
  EXPECT_EQ(S(main->ret_type), "Tensor[(1, 3), float32]");
  EXPECT_EQ(S(main->body->checked_type()), "Tensor[(1, 3), float32]");
  EXPECT_EQ(S(add->checked_type()), "Tensor[(1, 3), float32]");
  EXPECT_EQ(S(main->checked_type()), "fn (Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32]");
  // The body is unchanged, so it is shared with the input.
  EXPECT_TRUE(main->body.same_as(relu));
}

TEST(InferType, AlreadyTypedModuleKeepsItsFunctions) {
  Var x = MakeVar("x", T({2}));
  Function f = MakeFunction({x}, MakeOpCall("nn.relu", {x}), T({2}));
  IRModule mod = IRModule::FromExpr(f);
  IRModule typed = InferTypes(mod);
  EXPECT_TRUE(typed.LookupFunction("main").same_as(f));
}

TEST(InferType, BroadcastMismatchNamesFunctionAndOp) {
  Var x = MakeVar("x", T({1, 3}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("add", {x, Ones({4})})));
  ExpectError([&] { InferTypes(mod); }, ErrorKind::kType,
              "in @main: op 'add': shapes [1, 3] and [4] cannot be broadcast together");
}

TEST(InferType, DtypeMismatchIsTypeError) {
  Var x = MakeVar("x", T({3}));
  Var y = MakeVar("y", T({3}, DType::kInt32));
  IRModule mod = IRModule::FromExpr(MakeFunction({x, y}, MakeOpCall("add", {x, y})));
  ExpectError([&] { InferTypes(mod); }, ErrorKind::kType,
              "in @main: op 'add': input dtypes differ: float32 and int32");
}

TEST(InferType, UnannotatedParamNamesParamAndFunction) {
  Var x = MakeVar("x");
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("nn.relu", {x})));
  ExpectError([&] { InferTypes(mod); }, ErrorKind::kType,
              "in @main: parameter %x of @main has no type annotation (nor a call");
  // A nested function nothing calls gives its parameters no type to take.
  Var p = MakeVar("p0");
  Var y = MakeVar("y", T({2}));
  Var f = MakeVar("f");
  Function inner = MakeFunction({p}, MakeOpCall("nn.relu", {p}));
  IRModule uncalled = IRModule::FromExpr(MakeFunction({y}, MakeLet(f, inner, MakeTuple({f, y}))));
  ExpectError([&] { InferTypes(uncalled); }, ErrorKind::kType,
              "parameter %p0 of a nested function has no type annotation (nor a call");
}

TEST(InferType, NestedFunctionParamsTakeTheirTypesFromTheFirstCall) {
  // Called directly, and through a let twice (the second call is checked against the first).
  Var p = MakeVar("p"), q = MakeVar("q");
  Var y = MakeVar("y", T({2}));
  Var f = MakeVar("f");
  Function direct = MakeFunction({p}, MakeOpCall("nn.relu", {p}));
  Function bound = MakeFunction({q}, MakeOpCall("exp", {q}));
  Expr body = MakeLet(f, bound,
                      MakeOpCall("add", {MakeCall(f, {MakeCall(direct, {y})}), MakeCall(f, {y})}));
  IRModule typed = InferTypes(IRModule::FromExpr(MakeFunction({y}, body)));
  // Every nested function now declares its parameters' types, so later passes see them.
  int annotated = 0;
  PostOrderVisit(typed.LookupFunction("main")->body, [&](const Expr& e) {
    if (const auto* fn = e.as<FunctionNode>())
      for (const Var& v : fn->params) annotated += TypeEqual(v->type_annotation, T({2}));
  });
  EXPECT_EQ(annotated, 2);
  EXPECT_TRUE(TypeEqual(typed.LookupFunction("main")->ret_type, T({2})));
  // A second call with another type is a mismatch against the first.
  Var z = MakeVar("z", T({3}));
  Expr clash = MakeLet(f, bound, MakeTuple({MakeCall(f, {y}), MakeCall(f, {z})}));
  ExpectError([&] { InferTypes(IRModule::FromExpr(MakeFunction({y, z}, clash))); },
              ErrorKind::kType, "expected Tensor[(2), float32] but got Tensor[(3), float32]");
}

TEST(InferType, GlobalFunctionParamsTakeTheirTypesFromTheFirstCall) {
  // @f (typed before @main in name order) waits for @main's calls; the second checks.
  Var a = MakeVar("a");
  Var x = MakeVar("x", T({2, 3}));
  IRModule mod;
  mod = mod.WithFunction("f", MakeFunction({a}, MakeOpCall("nn.relu", {a})));
  GlobalVar f = MakeGlobalVar("f");
  mod = mod.WithFunction("main", MakeFunction({x}, MakeCall(f, {MakeCall(f, {x})})));
  IRModule typed = InferTypes(mod);
  Function tf = typed.LookupFunction("f");
  EXPECT_TRUE(TypeEqual(tf->params[0]->type_annotation, T({2, 3})));
  EXPECT_TRUE(TypeEqual(tf->ret_type, T({2, 3})));
  EXPECT_TRUE(TypeEqual(typed.LookupFunction("main")->ret_type, T({2, 3})));
  // A call with another type is a mismatch against the first; an uncalled one is an error.
  Var y = MakeVar("y", T({3}));
  IRModule clash = mod.WithFunction("main", MakeFunction({x, y}, MakeTuple({MakeCall(f, {x}), MakeCall(f, {y})})));
  ExpectError([&] { InferTypes(clash); }, ErrorKind::kType,
              "argument 0 of call to @f (parameter %a): expected Tensor[(2, 3), float32] but got "
              "Tensor[(3), float32]");
  IRModule uncalled = mod.WithFunction("main", MakeFunction({x}, x));
  ExpectError([&] { InferTypes(uncalled); }, ErrorKind::kType,
              "parameter %a of @f has no type annotation (nor a call to infer it from)");
}

TEST(InferType, GlobalFunctionCallsAndArityErrors) {
  Var a = MakeVar("a", T({2})), b = MakeVar("b", T({2}));
  Function f = MakeFunction({a, b}, MakeOpCall("add", {a, b}));
  Var x = MakeVar("x", T({2}));
  // @main is listed first and calls @f, which is inferred on demand.
  IRModule good = IRModule::FromExpr(MakeFunction({x}, MakeCall(MakeGlobalVar("f"), {x, x})))
                      .WithFunction("f", f);
  IRModule typed = InferTypes(good);
  EXPECT_EQ(S(typed.LookupFunction("main")->ret_type), "Tensor[(2), float32]");
  EXPECT_EQ(S(typed.LookupFunction("f")->ret_type), "Tensor[(2), float32]");

  IRModule arity =
      IRModule::FromExpr(MakeFunction({x}, MakeCall(MakeGlobalVar("f"), {x}))).WithFunction("f", f);
  ExpectError([&] { InferTypes(arity); }, ErrorKind::kType,
              "in @main: @f takes 2 argument(s) but 1 were given");

  Var z = MakeVar("z", T({3}));
  IRModule wrong = IRModule::FromExpr(MakeFunction({x, z}, MakeCall(MakeGlobalVar("f"), {x, z})))
                       .WithFunction("f", f);
  ExpectError([&] { InferTypes(wrong); }, ErrorKind::kType,
              "in @main: argument 1 of call to @f (parameter %b): expected Tensor[(2), float32] "
              "but got Tensor[(3), float32]");

  IRModule unknown = IRModule::FromExpr(MakeFunction({x}, MakeCall(MakeGlobalVar("nope"), {x})));
  ExpectError([&] { InferTypes(unknown); }, ErrorKind::kNotFound,
              "in @main: unknown global function @nope");
}

TEST(InferType, RecursionNeedsDeclaredRetType) {
  Var x = MakeVar("x", T({2}));
  IRModule rec = IRModule::FromExpr(MakeFunction({x}, MakeCall(MakeGlobalVar("g"), {x})))
                     .WithFunction("g", MakeFunction({x}, MakeCall(MakeGlobalVar("main"), {x})));
  ExpectError([&] { InferTypes(rec); }, ErrorKind::kType,
              "recursive call to @main needs a declared return type (cycle: @main -> @g -> @main)");
  Var y = MakeVar("y", T({2}));
  IRModule declared = IRModule::FromExpr(
      MakeFunction({y}, MakeOpCall("nn.relu", {MakeCall(MakeGlobalVar("main"), {y})}), T({2})));
  EXPECT_EQ(S(InferTypes(declared).LookupFunction("main")->ret_type), "Tensor[(2), float32]");
}

TEST(InferType, TupleIndexOutOfRange) {
  Var x = MakeVar("x", T({2}));
  Expr t = MakeTuple({x, MakeOpCall("nn.relu", {x})});
  IRModule ok = IRModule::FromExpr(MakeFunction({x}, MakeTupleGetItem(t, 1)));
  EXPECT_EQ(S(InferTypes(ok).LookupFunction("main")->ret_type), "Tensor[(2), float32]");
  EXPECT_EQ(S(t->checked_type()), "(Tensor[(2), float32], Tensor[(2), float32])");
  IRModule bad = IRModule::FromExpr(MakeFunction({x}, MakeTupleGetItem(t, 2)));
  ExpectError([&] { InferTypes(bad); }, ErrorKind::kType,
              "in @main: tuple index 2 is out of range for a tuple of 2 field(s)");
  IRModule not_tuple = IRModule::FromExpr(MakeFunction({x}, MakeTupleGetItem(x, 0)));
  ExpectError([&] { InferTypes(not_tuple); }, ErrorKind::kType,
              "tuple projection .0 of a value of non-tuple type Tensor[(2), float32]");
}

TEST(InferType, LetsTakeTheirValueTypeOrCheckTheAnnotation) {
  Var x = MakeVar("x", T({2, 2}));
  Var v = MakeVar("v");
  Var t = MakeVar("t");
  Expr body =
      MakeLet(v, MakeOpCall("add", {x, x}), MakeLet(t, MakeTuple({v, x}), MakeTupleGetItem(t, 0)));
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  EXPECT_EQ(S(mod.LookupFunction("main")->ret_type), "Tensor[(2, 2), float32]");
  EXPECT_EQ(S(v->checked_type()), "Tensor[(2, 2), float32]");
  EXPECT_EQ(S(t->checked_type()), "(Tensor[(2, 2), float32], Tensor[(2, 2), float32])");

  Var w = MakeVar("w", T({4}));
  IRModule bad = IRModule::FromExpr(MakeFunction({x}, MakeLet(w, MakeOpCall("nn.relu", {x}), w)));
  ExpectError([&] { InferTypes(bad); }, ErrorKind::kType,
              "in @main: let %w is annotated Tensor[(4), float32] but bound to a value of type "
              "Tensor[(2, 2), float32]");

  Var free = MakeVar("free");
  IRModule unbound = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("add", {x, free})));
  ExpectError([&] { InferTypes(unbound); }, ErrorKind::kType,
              "variable %free has no type: it is neither annotated nor bound by an enclosing let");
}

TEST(InferType, NestedPrimitiveFunctionsAreRebuiltWithRetTypeAndShared) {
  // %0 = fn (%p0) { nn.relu(add(%p0, 1)) } Primitive=1, called twice: %0(%0(%x)).
  Var p0 = MakeVar("p0", T({1, 3}));
  Function prim =
      WithAttr(MakeFunction({p0}, MakeOpCall("nn.relu", {MakeOpCall("add", {p0, Ones({3})})})),
               attr::kPrimitive, 1);
  Var x = MakeVar("x", T({1, 3}));
  Expr inner_call = MakeCall(prim, {x});
  Expr outer_call = MakeCall(prim, {inner_call});
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, outer_call)));
  Function main = mod.LookupFunction("main");
  EXPECT_EQ(S(main->ret_type), "Tensor[(1, 3), float32]");
  const auto* outer = main->body.as<CallNode>();
  ASSERT_NE(outer, nullptr);
  const auto* inner = outer->args[0].as<CallNode>();
  ASSERT_NE(inner, nullptr);
  const auto* fn = outer->callee.as<FunctionNode>();
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(S(fn->ret_type), "Tensor[(1, 3), float32]");
  EXPECT_EQ(GetIntAttr(fn, attr::kPrimitive), 1);
  EXPECT_TRUE(outer->callee.same_as(inner->callee));  // sharing survives the rebuild
  EXPECT_FALSE(outer->callee.same_as(prim));
  EXPECT_TRUE(fn->body.same_as(prim->body));
  EXPECT_EQ(S(outer->callee->checked_type()),
            "fn (Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32]");
  EXPECT_EQ(S(main->body->checked_type()), "Tensor[(1, 3), float32]");

  Var y = MakeVar("y", T({2, 3}));
  IRModule bad = IRModule::FromExpr(MakeFunction({y}, MakeCall(prim, {y})));
  ExpectError([&] { InferTypes(bad); }, ErrorKind::kType,
              "in @main: argument 0 of call to a nested function (parameter %p0): expected "
              "Tensor[(1, 3), float32] but got Tensor[(2, 3), float32]");
}

TEST(InferType, LetBoundFunctionCall) {
  Var p = MakeVar("p", T({2}));
  Var f = MakeVar("f");
  Var x = MakeVar("x", T({2}));
  Expr body = MakeLet(f, MakeFunction({p}, MakeOpCall("nn.relu", {p})), MakeCall(f, {x}));
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  EXPECT_EQ(S(mod.LookupFunction("main")->ret_type), "Tensor[(2), float32]");
  const auto* let = mod.LookupFunction("main")->body.as<LetNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_EQ(S(let->value.as<FunctionNode>()->ret_type), "Tensor[(2), float32]");
  IRModule arity =
      IRModule::FromExpr(MakeFunction({x}, MakeLet(f, let->value, MakeCall(f, {x, x}))));
  ExpectError([&] { InferTypes(arity); }, ErrorKind::kType,
              "in @main: %f takes 1 argument(s) but 2 were given");
}

TEST(InferType, RetTypeMismatchNamesFunctionAndBothTypes) {
  Var x = MakeVar("x", T({1, 3}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("nn.relu", {x}), T({1, 4})));
  ExpectError([&] { InferTypes(mod); }, ErrorKind::kType,
              "in @main: @main declares return type Tensor[(1, 4), float32] but its body has type "
              "Tensor[(1, 3), float32]");
}

TEST(InferType, CallTirChecksBuffersAndOutType) {
  tir::PrimFunc mm = MatmulPrimFunc(2, 3, 2);
  Var a = MakeVar("a", T({2, 3})), b = MakeVar("b", T({3, 2}));
  auto module_with = [&](Expr args, Type out) {
    Expr call = MakeOpCall(kCallTirOp, {MakeGlobalVar("mm"), args}, {}, {out});
    return IRModule::FromExpr(MakeFunction({a, b}, call)).WithFunction("mm", mm);
  };
  IRModule typed = InferTypes(module_with(MakeTuple({a, b}), T({2, 2})));
  EXPECT_EQ(S(typed.LookupFunction("main")->ret_type), "Tensor[(2, 2), float32]");
  EXPECT_TRUE(typed.Lookup("mm").same_as(mm));

  Var b4 = MakeVar("b4", T({4, 2}));
  ExpectError(
      [&] {
        InferTypes(module_with(MakeTuple({a, b4}), T({2, 2})));
      },
      ErrorKind::kType,
      "in @main: call_tir @mm: input buffer 'B' is Tensor[(3, 2), float32] but argument 1 "
      "has type Tensor[(4, 2), float32]");
  ExpectError(
      [&] {
        InferTypes(module_with(MakeTuple({a}), T({2, 2})));
      },
      ErrorKind::kType, "call_tir @mm: expects 2 input buffer(s) (A, B) but got 1 argument(s)");
  ExpectError(
      [&] {
        InferTypes(module_with(MakeTuple({a, b}), T({2, 3})));
      },
      ErrorKind::kType,
      "call_tir @mm: output buffer 'C' is Tensor[(2, 2), float32] but out_type gives "
      "Tensor[(2, 3), float32]");
  ExpectError(
      [&] {
        InferTypes(module_with(MakeTuple({a, b}), T({2, 2}, DType::kFloat16)));
      },
      ErrorKind::kType, "output buffer 'C'");

  Var x = MakeVar("x", T({2}));
  IRModule not_prim = IRModule::FromExpr(MakeFunction(
      {x}, MakeOpCall(kCallTirOp, {MakeGlobalVar("main"), MakeTuple({x})}, {}, {T({2})})));
  ExpectError([&] { InferTypes(not_prim); }, ErrorKind::kType,
              "in @main: call_tir target @main is not a PrimFunc");
  IRModule direct = IRModule::FromExpr(MakeFunction({a, b}, MakeCall(MakeGlobalVar("mm"), {a, b})))
                        .WithFunction("mm", mm);
  ExpectError([&] { InferTypes(direct); }, ErrorKind::kType,
              "in @main: @mm is a PrimFunc; call it with call_tir");
}

TEST(InferType, MalformedPrimFuncIsRejected) {
  tir::Buffer a = tir::MakeBuffer("A", {2});
  // Built directly: the builder itself refuses this.
  tir::PrimFunc bad =
      MakeNode<const tir::PrimFuncNode>(std::vector<tir::Buffer>{a}, 2, tir::MakeSeq({}), Attrs{});
  IRModule mod = IRModule().WithFunction("bad", bad);
  ExpectError([&] { InferTypes(mod); }, ErrorKind::kType,
              "PrimFunc @bad declares 2 output(s) but has 1 buffer parameter(s)");
}

TEST(InferType, TwentyThousandOpChainAndLetChain) {
  constexpr int kDepth = 20000;
  Var x = MakeVar("x", T({2, 3}));
  Expr one = MakeConstant(NDArray::Scalar(1.0, DType::kFloat32));
  Expr e = x;
  for (int i = 0; i < kDepth; ++i) e = MakeOpCall("add", {e, one});
  IRModule typed = InferTypes(IRModule::FromExpr(MakeFunction({x}, e)));
  EXPECT_EQ(S(typed.LookupFunction("main")->ret_type), "Tensor[(2, 3), float32]");

  // let %v1 = add(x, 1); let %v2 = add(%v1, 1); ...; the innermost body calls a nested
  // function, so every let on the path is rebuilt.
  std::vector<Var> vars;
  std::vector<Expr> values;
  Expr prev = x;
  for (int i = 0; i < kDepth; ++i) {
    vars.push_back(MakeVar("v" + std::to_string(i)));
    values.push_back(MakeOpCall("add", {prev, one}));
    prev = vars.back();
  }
  Var p = MakeVar("p", T({2, 3}));
  Expr body = MakeCall(MakeFunction({p}, MakeOpCall("nn.relu", {p})), {prev});
  for (int i = kDepth - 1; i >= 0; --i) body = MakeLet(vars[i], values[i], body);
  IRModule lets = InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  Function main = lets.LookupFunction("main");
  EXPECT_EQ(S(main->ret_type), "Tensor[(2, 3), float32]");
  Expr cur = main->body;
  while (const auto* let = cur.as<LetNode>()) cur = let->body;
  ASSERT_NE(cur.as<CallNode>(), nullptr);
  EXPECT_EQ(S(cur.as<CallNode>()->callee.as<FunctionNode>()->ret_type), "Tensor[(2, 3), float32]");
}

TEST(InferType, InferExprTypeOfStandaloneExpression) {
  Var x = MakeVar("x", T({4}));
  EXPECT_EQ(S(InferExprType(MakeTuple({x, MakeOpCall("nn.relu", {x})}))),
            "(Tensor[(4), float32], Tensor[(4), float32])");
  Var a = MakeVar("a", T({4}));
  IRModule mod = IRModule().WithFunction("f", MakeFunction({a}, a));
  EXPECT_EQ(S(InferExprType(MakeCall(MakeGlobalVar("f"), {x}), mod)), "Tensor[(4), float32]");
  ExpectError(
      [&] {
        InferExprType(MakeOpCall("add", {x, Ones({3})}));
      },
      ErrorKind::kType, "in expression: op 'add': shapes [4] and [3] cannot be broadcast together");
}

TEST(InferType, TupleResultOpsWhenRegistered) {
  // nn.batch_norm is registered by the nn op library; its relation returns a 3-tuple.
  if (!OpRegistry::Global().Find("nn.batch_norm")) GTEST_SKIP() << "nn.batch_norm not registered";
  Var x = MakeVar("x", T({1, 2, 3, 3}));
  std::vector<Expr> params;
  for (int i = 0; i < 4; ++i) params.push_back(Ones({2}));
  std::vector<Expr> args = {x};
  args.insert(args.end(), params.begin(), params.end());
  Expr bn = MakeOpCall("nn.batch_norm", args);
  IRModule mod = InferTypes(IRModule::FromExpr(MakeFunction({x}, MakeTupleGetItem(bn, 0))));
  EXPECT_EQ(S(mod.LookupFunction("main")->ret_type), "Tensor[(1, 2, 3, 3), float32]");
  const auto* tt = bn->checked_type().as<TupleTypeNode>();
  ASSERT_NE(tt, nullptr);
  EXPECT_EQ(tt->fields.size(), 3u);
}

}  // namespace
}  // namespace tessera
