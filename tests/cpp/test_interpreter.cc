// The reference interpreter: graph evaluation, call_tir, the tensor-IR interpreter and
// argument checking.
#include <gtest/gtest.h>

#include <cmath>

#include "interp_test_util.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/op.h"

namespace tessera {
namespace {

using testing_interp::ExpectError;
using testing_interp::MatmulPrimFunc;

TensorType T(std::vector<int64_t> shape, DType dtype = DType::kFloat32) {
  return MakeTensorType(std::move(shape), dtype);
}
NDArray F(std::vector<int64_t> shape, std::vector<float> values) {
  return NDArray::FromFloats(shape, values);
}
NDArray I32(std::vector<int64_t> shape, std::vector<int64_t> values) {
  NDArray a = NDArray::Empty(shape, DType::kInt32);
  for (size_t i = 0; i < values.size(); ++i) a.SetInt(static_cast<int64_t>(i), values[i]);
  return a;
}
std::vector<float> Floats(const NDArray& a) {
  std::vector<float> out;
  for (int64_t i = 0; i < a.NumElements(); ++i) out.push_back(static_cast<float>(a.GetFloat(i)));
  return out;
}
std::vector<int64_t> Ints(const NDArray& a) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < a.NumElements(); ++i) out.push_back(a.GetInt(i));
  return out;
}

TEST(Interp, AddReluWithBroadcast) {
  Var x = MakeVar("x", T({2, 3}));
  Expr bias = MakeConstant(F({3}, {1, -2, 0.5f}));
  IRModule mod =
      IRModule::FromExpr(MakeFunction({x}, MakeOpCall("nn.relu", {MakeOpCall("add", {x, bias})})));
  NDArray out = RunMain(mod, {{"x", F({2, 3}, {0, 1, 2, -3, 4, -5})}}).tensor();
  EXPECT_EQ(out.Describe(), "float32[2, 3]");
  EXPECT_EQ(Floats(out), (std::vector<float>{1, 0, 2.5f, 0, 2, 0}));
}

TEST(Interp, TwentyThousandAddChainIsExact) {
  constexpr int kDepth = 20000;
  Var x = MakeVar("x", T({3}));
  Expr one = MakeConstant(NDArray::Scalar(1.0, DType::kFloat32));
  Expr e = x;
  for (int i = 0; i < kDepth; ++i) e = MakeOpCall("add", {e, one});
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, e));
  NDArray out = RunMain(mod, {{"x", F({3}, {0.5f, -100, 7})}}).tensor();
  EXPECT_EQ(Floats(out), (std::vector<float>{20000.5f, 19900, 20007}));
}

TEST(Interp, MatmulPrimFuncThroughCallTir) {
  Var a = MakeVar("a", T({2, 3})), b = MakeVar("b", T({3, 2}));
  Expr mm = MakeOpCall(kCallTirOp, {MakeGlobalVar("mm"), MakeTuple({a, b})}, {}, {T({2, 2})});
  Expr body = MakeOpCall("add", {mm, MakeConstant(F({2}, {10, 20}))});
  IRModule mod =
      IRModule::FromExpr(MakeFunction({a, b}, body)).WithFunction("mm", MatmulPrimFunc(2, 3, 2));
  NDArray out =
      RunMain(mod, {{"a", F({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", F({3, 2}, {7, 8, 9, 10, 11, 12})}})
          .tensor();
  // [1 2 3; 4 5 6] @ [7 8; 9 10; 11 12] = [58 64; 139 154], plus [10 20] per row.
  EXPECT_EQ(Floats(out), (std::vector<float>{68, 84, 149, 174}));
}

TEST(Interp, BlockInitRunsOnlyAtTheFirstReduceStep) {
  tir::PrimFunc mm = MatmulPrimFunc(1, 2, 2, /*init=*/0.5);
  NDArray c = F({1, 2}, {100, 100});  // garbage the init must overwrite
  RunPrimFunc(mm, {F({1, 2}, {1, 2}), F({2, 2}, {3, 4, 5, 6}), c});
  EXPECT_EQ(Floats(c), (std::vector<float>{0.5f + 13, 0.5f + 16}));
}

TEST(Interp, TupleOutputsOfCallTirAndTupleGetItem) {
  using tir::MakeLoad, tir::MakeStore;
  tir::Buffer a = tir::MakeBuffer("A", {2}), o1 = tir::MakeBuffer("O1", {2}),
              o2 = tir::MakeBuffer("O2", {2});
  tir::Var i = tir::MakeVar("i");
  tir::Stmt body =
      tir::MakeFor(i, tir::IntImm(0), tir::IntImm(2), tir::ForKind::kVectorized,
                   tir::MakeSeq({MakeStore(o1, MakeLoad(a, {i}) * MakeLoad(a, {i}), {i}),
                                 MakeStore(o2, MakeLoad(a, {i}) + tir::FloatImm(1), {i})}));
  tir::PrimFunc pf = tir::MakePrimFunc({a, o1, o2}, 2, body);
  Var x = MakeVar("x", T({2}));
  Expr call = MakeOpCall(kCallTirOp, {MakeGlobalVar("sq_inc"), MakeTuple({x})}, {},
                         {MakeTupleType({T({2}), T({2})})});
  Var t = MakeVar("t");
  Expr body_expr = MakeLet(t, call, MakeTuple({MakeTupleGetItem(t, 1), t}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, body_expr)).WithFunction("sq_inc", pf);
  Value v = RunMain(mod, {{"x", F({2}, {3, -2})}});
  ASSERT_TRUE(v.is_tuple());
  EXPECT_EQ(Floats(v.fields()[0].tensor()), (std::vector<float>{4, -1}));
  std::vector<NDArray> flat = v.Flatten();
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(Floats(flat[1]), (std::vector<float>{9, 4}));
  EXPECT_EQ(Floats(flat[2]), (std::vector<float>{4, -1}));
}

TEST(Interp, NestedGlobalAndLetBoundFunctions) {
  // @double(a) = add(a, a); @main(x) = %prim(@double(x)) + let %g = fn(q) {relu(q)}; %g(x)
  Var a = MakeVar("a", T({3}));
  Function dbl = MakeFunction({a}, MakeOpCall("add", {a, a}));
  Var p0 = MakeVar("p0", T({3}));
  Function prim = WithAttr(
      MakeFunction(
          {p0}, MakeOpCall("nn.relu", {MakeOpCall("add", {p0, MakeConstant(F({3}, {1, 1, 1}))})})),
      attr::kPrimitive, 1);
  Var x = MakeVar("x", T({3}));
  Var q = MakeVar("q", T({3}));
  Var g = MakeVar("g");
  Expr lhs = MakeCall(prim, {MakeCall(MakeGlobalVar("double"), {x})});
  Expr rhs = MakeLet(g, MakeFunction({q}, MakeOpCall("nn.relu", {q})), MakeCall(g, {x}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("add", {lhs, rhs})))
                     .WithFunction("double", dbl);
  NDArray out = RunMain(mod, {{"x", F({3}, {-1, 0.5f, 2})}}).tensor();
  // relu(2x + 1) + relu(x)
  EXPECT_EQ(Floats(out), (std::vector<float>{0, 2.5f, 7}));
  Value via_evaluate = Evaluate(mod, "double", {Value(F({3}, {1, 2, 3}))});
  EXPECT_EQ(Floats(via_evaluate.tensor()), (std::vector<float>{2, 4, 6}));
}

TEST(Interp, NestedFunctionCapturesEnclosingLet) {
  Var x = MakeVar("x", T({2}));
  Var c = MakeVar("c");
  Var q = MakeVar("q", T({2}));
  Expr closure = MakeFunction({q}, MakeOpCall("add", {q, c}));
  Expr body = MakeLet(c, MakeOpCall("add", {x, x}), MakeCall(closure, {x}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, body));
  EXPECT_EQ(Floats(RunMain(mod, {{"x", F({2}, {1, 2})}}).tensor()), (std::vector<float>{3, 6}));
}

TEST(Interp, BatchNormTupleResultWhenRegistered) {
  if (!OpRegistry::Global().Find("nn.batch_norm")) GTEST_SKIP() << "nn.batch_norm not registered";
  if (!OpRegistry::Global().Find("nn.batch_norm")->kernel) GTEST_SKIP() << "no kernel yet";
  Var x = MakeVar("x", T({1, 2, 1, 1}));
  Expr gamma = MakeConstant(F({2}, {1, 2})), beta = MakeConstant(F({2}, {0, 1}));
  Expr mean = MakeConstant(F({2}, {1, 1})), var = MakeConstant(F({2}, {4, 1}));
  Expr bn = MakeOpCall("nn.batch_norm", {x, gamma, beta, mean, var}, {{"epsilon", 0.0}});
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeTupleGetItem(bn, 0)));
  NDArray out = RunMain(mod, {{"x", F({1, 2, 1, 1}, {5, 3})}}).tensor();
  // (5 - 1) / 2 * 1 + 0 = 2; (3 - 1) / 1 * 2 + 1 = 5
  EXPECT_EQ(Floats(out), (std::vector<float>{2, 5}));
}

TEST(Interp, RunMainInputErrors) {
  Var x = MakeVar("x", T({1, 3})), y = MakeVar("y", T({1, 3}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x, y}, MakeOpCall("add", {x, y})));
  NDArray good = F({1, 3}, {1, 2, 3});
  ExpectError(
      [&] {
        RunMain(mod, {{"x", good}});
      },
      ErrorKind::kValue, "missing input 'y' for @main (expected: x, y)");
  ExpectError(
      [&] {
        RunMain(mod, {{"x", good}, {"y", good}, {"z", good}});
      },
      ErrorKind::kValue, "unknown input 'z' for @main (valid: x, y)");
  ExpectError(
      [&] {
        RunMain(mod, {{"x", good}, {"y", F({1, 4}, {1, 2, 3, 4})}});
      },
      ErrorKind::kType, "input 'y': expected float32[1, 3] but got float32[1, 4]");
  ExpectError(
      [&] {
        RunMain(mod, {{"x", I32({1, 3}, {1, 2, 3})}, {"y", good}});
      },
      ErrorKind::kType, "input 'x': expected float32[1, 3] but got int32[1, 3]");
  ExpectError([&] { Evaluate(mod, "main", {Value(good)}); }, ErrorKind::kValue,
              "@main takes 2 input(s) (x, y) but 1 were given");
  ExpectError(
      [&] {
        Evaluate(mod, "main", {Value::TupleOf({Value(good)}), Value(good)});
      },
      ErrorKind::kType, "input 'x': expected float32[1, 3] but got (float32[1, 3])");
  EXPECT_EQ(Floats(RunMain(mod, {{"x", good}, {"y", good}}).tensor()),
            (std::vector<float>{2, 4, 6}));
}

TEST(Interp, ValueAccessors) {
  Value t = Value::TupleOf({Value(F({1}, {1})), Value::TupleOf({Value(F({1}, {2}))})});
  EXPECT_TRUE(t.is_tuple());
  ExpectError([&] { t.tensor(); }, ErrorKind::kType,
              "value is a tuple of 2 field(s), not a tensor");
  ExpectError([&] { Value(F({1}, {1})).fields(); }, ErrorKind::kType, "not a tuple");
  std::vector<NDArray> flat = t.Flatten();
  ASSERT_EQ(flat.size(), 2u);
  EXPECT_EQ(flat[1].GetFloat(0), 2.0);
}

TEST(Interp, OutOfBoundsLoadIsAClearError) {
  using tir::MakeLoad, tir::MakeStore;
  tir::Buffer a = tir::MakeBuffer("A", {2, 3}), b = tir::MakeBuffer("B", {2, 3});
  tir::Var i = tir::MakeVar("i");
  // Reads A[i, i + 1] for i in [0, 3): A[0, 1] and A[1, 2] are fine, A[2, 3] is not.
  tir::Stmt body = tir::MakeFor(i, tir::IntImm(0), tir::IntImm(3), tir::ForKind::kSerial,
                                MakeStore(b, MakeLoad(a, {i, i + 1}), {tir::IntImm(0), i}));
  tir::PrimFunc pf = tir::MakePrimFunc({a, b}, 1, body, {{attr::kGlobalSymbol, "shift"}});
  ExpectError(
      [&] {
        RunPrimFunc(
            pf, {NDArray::Zeros({2, 3}, DType::kFloat32), NDArray::Zeros({2, 3}, DType::kFloat32)});
      },
      ErrorKind::kValue,
      "in PrimFunc @shift: load A[2, 3] is out of bounds for buffer 'A' of shape [2, 3]");
}

TEST(Interp, RunPrimFuncChecksBuffersAndInputsAreReadOnly) {
  tir::PrimFunc mm = MatmulPrimFunc(2, 2, 2);
  NDArray a = F({2, 2}, {1, 2, 3, 4});
  ExpectError(
      [&] {
        RunPrimFunc(mm, {a, a});
      },
      ErrorKind::kValue, "takes 3 buffer(s) (A, B, C) but 2 were given");
  ExpectError(
      [&] {
        RunPrimFunc(mm, {a, F({2, 1}, {1, 2}), a});
      },
      ErrorKind::kType, "buffer param 'B': expected float32[2, 2] but got float32[2, 1]");
  tir::Buffer in = tir::MakeBuffer("In", {1}), out = tir::MakeBuffer("Out", {1});
  tir::PrimFunc writes_input =
      tir::MakePrimFunc({in, out}, 1, tir::MakeStore(in, tir::FloatImm(1), {tir::IntImm(0)}));
  ExpectError(
      [&] {
        RunPrimFunc(writes_input, {F({1}, {0}), F({1}, {0})});
      },
      ErrorKind::kValue, "store into input buffer 'In'");
}

/// A PrimFunc computing out[k] = exprs[k](x[0], x[1]) over int32 inputs.
tir::PrimFunc IntProgram(
    const std::vector<std::function<tir::PrimExpr(tir::PrimExpr, tir::PrimExpr)>>& exprs,
    DType out_dtype = DType::kInt32) {
  tir::Buffer x = tir::MakeBuffer("X", {2}, DType::kInt32);
  tir::Buffer out = tir::MakeBuffer("Out", {static_cast<int64_t>(exprs.size())}, out_dtype);
  tir::PrimExpr a = tir::MakeLoad(x, {tir::IntImm(0)}), b = tir::MakeLoad(x, {tir::IntImm(1)});
  std::vector<tir::Stmt> stores;
  for (size_t k = 0; k < exprs.size(); ++k)
    stores.push_back(tir::MakeStore(out, exprs[k](a, b), {tir::IntImm(static_cast<int64_t>(k))}));
  return tir::MakePrimFunc({x, out}, 1, tir::MakeSeq(stores));
}

TEST(Interp, IntegerSemantics) {
  using tir::BinaryOp, tir::MakeBinary, tir::PrimExpr;
  auto op = [](BinaryOp o) { return [o](PrimExpr a, PrimExpr b) { return MakeBinary(o, a, b); }; };
  tir::PrimFunc pf =
      IntProgram({op(BinaryOp::kFloorDiv), op(BinaryOp::kFloorMod), op(BinaryOp::kDiv),
                  [](PrimExpr a, PrimExpr b) { return FloorDiv(b, a); },
                  [](PrimExpr a, PrimExpr b) { return FloorMod(b, a); }, op(BinaryOp::kMin),
                  op(BinaryOp::kMax)});
  NDArray out = NDArray::Zeros({7}, DType::kInt32);
  RunPrimFunc(pf, {I32({2}, {-7, 2}), out});
  // floordiv(-7, 2) = -4, floormod(-7, 2) = 1, -7 / 2 = -3, floordiv(2, -7) = -1,
  // floormod(2, -7) = -5.
  EXPECT_EQ(Ints(out), (std::vector<int64_t>{-4, 1, -3, -1, -5, -7, 2}));
  RunPrimFunc(pf, {I32({2}, {7, -2}), out});
  EXPECT_EQ(Ints(out), (std::vector<int64_t>{-4, -1, -3, -1, 5, -2, 7}));

  // int32 arithmetic wraps: INT32_MAX + 1 and INT32_MIN * -1.
  tir::PrimFunc wrap = IntProgram({[](PrimExpr a, PrimExpr b) { return a + b; },
                                   [](PrimExpr a, PrimExpr b) { return (a + b) * tir::IntImm(-1); },
                                   [](PrimExpr a, PrimExpr b) {
                                     return tir::MakeSelect(MakeBinary(BinaryOp::kLT, a + b, a),
                                                            tir::IntImm(1), tir::IntImm(0));
                                   }});
  NDArray w = NDArray::Zeros({3}, DType::kInt32);
  RunPrimFunc(wrap, {I32({2}, {2147483647, 1}), w});
  EXPECT_EQ(Ints(w), (std::vector<int64_t>{-2147483648LL, -2147483648LL, 1}));

  ExpectError(
      [&] {
        RunPrimFunc(pf, {I32({2}, {5, 0}), out});
      },
      ErrorKind::kValue, "integer division by zero in 'floordiv'");
}

TEST(Interp, CastsIntrinsicsAndSelect) {
  using tir::FloatImm, tir::MakeCast, tir::MakeIntrinsic, tir::MakeLoad, tir::MakeStore;
  tir::Buffer x = tir::MakeBuffer("X", {4});
  tir::Buffer o = tir::MakeBuffer("O", {6});
  tir::Buffer n = tir::MakeBuffer("N", {3}, DType::kInt8);
  auto ld = [&](int64_t k) { return MakeLoad(x, {tir::IntImm(k)}); };
  auto at = [](int64_t k) { return std::vector<tir::PrimExpr>{tir::IntImm(k)}; };
  tir::Stmt body = tir::MakeSeq({
      MakeStore(o, MakeIntrinsic("sigmoid", {ld(0)}), at(0)),
      MakeStore(o, MakeIntrinsic("rsqrt", {ld(1)}), at(1)),
      MakeStore(o, MakeIntrinsic("round", {ld(2)}), at(2)),
      MakeStore(o, MakeIntrinsic("round", {ld(2) + FloatImm(1)}), at(3)),
      MakeStore(o,
                tir::MakeSelect(tir::MakeBinary(tir::BinaryOp::kGT, ld(3), FloatImm(0)),
                                MakeIntrinsic("exp", {ld(3)}), FloatImm(-1)),
                at(4)),
      MakeStore(o, MakeCast(DType::kFloat32, MakeCast(DType::kInt32, ld(3) * FloatImm(-1))), at(5)),
      // 300 wraps to 44 in int8; -2.7 truncates to -2.
      MakeStore(n, MakeCast(DType::kInt8, tir::IntImm(300)), at(0)),
      MakeStore(n, MakeCast(DType::kInt8, ld(3) * FloatImm(-1)), at(1)),
      MakeStore(n, MakeCast(DType::kInt8, MakeCast(DType::kBool, ld(0))), at(2)),
  });
  tir::PrimFunc pf = tir::MakePrimFunc({x, o, n}, 2, body);
  NDArray out = NDArray::Zeros({6}, DType::kFloat32), ints = NDArray::Zeros({3}, DType::kInt8);
  RunPrimFunc(pf, {F({4}, {0, 4, 2.5f, 2.7f}), out, ints});
  EXPECT_EQ(out.GetFloat(0), 0.5);
  EXPECT_EQ(out.GetFloat(1), 0.5);
  EXPECT_EQ(out.GetFloat(2), 2.0);  // half to even
  EXPECT_EQ(out.GetFloat(3), 4.0);
  EXPECT_EQ(out.GetFloat(4), static_cast<float>(std::exp(static_cast<double>(2.7f))));
  EXPECT_EQ(out.GetFloat(5), -2.0);
  EXPECT_EQ(Ints(ints), (std::vector<int64_t>{44, -2, 0}));
}

TEST(Interp, AllocateIfThenElseAndBlockDomain) {
  using tir::IntImm, tir::MakeLoad, tir::MakeStore;
  // tmp = x * 2 (scratch); out[i] = i < 2 ? tmp[i] : -tmp[i].
  tir::Buffer x = tir::MakeBuffer("X", {4}), out = tir::MakeBuffer("Out", {4});
  tir::Buffer tmp = tir::MakeBuffer("tmp", {4});
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  tir::Stmt fill = tir::MakeFor(i, IntImm(0), IntImm(4), tir::ForKind::kSerial,
                                MakeStore(tmp, MakeLoad(x, {i}) * tir::FloatImm(2), {i}));
  tir::Stmt use = tir::MakeFor(
      j, IntImm(0), IntImm(4), tir::ForKind::kSerial,
      tir::MakeIfThenElse(tir::MakeBinary(tir::BinaryOp::kLT, j, IntImm(2)),
                          MakeStore(out, MakeLoad(tmp, {j}), {j}),
                          MakeStore(out, MakeLoad(tmp, {j}) * tir::FloatImm(-1), {j})));
  tir::PrimFunc pf =
      tir::MakePrimFunc({x, out}, 1, tir::MakeAllocate(tmp, tir::MakeSeq({fill, use})));
  NDArray o = NDArray::Zeros({4}, DType::kFloat32);
  RunPrimFunc(pf, {F({4}, {1, 2, 3, 4}), o});
  EXPECT_EQ(Floats(o), (std::vector<float>{2, 4, -6, -8}));

  // A block whose binding leaves its declared domain is reported.
  tir::Var vi = tir::MakeVar("vi");
  tir::Stmt block =
      tir::MakeBlock("B", {{vi, {IntImm(0), IntImm(3)}, tir::IterKind::kSpatial, i}}, {},
                     {{out, {}}}, nullptr, MakeStore(out, tir::FloatImm(1), {vi}));
  tir::PrimFunc bad = tir::MakePrimFunc(
      {x, out}, 1, tir::MakeFor(i, IntImm(0), IntImm(4), tir::ForKind::kSerial, block));
  ExpectError(
      [&] {
        RunPrimFunc(bad, {F({4}, {1, 2, 3, 4}), o});
      },
      ErrorKind::kValue, "block 'B': iter var 'vi' is bound to 3, outside its domain [0, 3)");
}

TEST(Interp, Float16StoresRound) {
  tir::Buffer x = tir::MakeBuffer("X", {1}), h = tir::MakeBuffer("H", {1}, DType::kFloat16);
  tir::PrimFunc pf = tir::MakePrimFunc(
      {x, h}, 1,
      tir::MakeStore(h, tir::MakeCast(DType::kFloat16, tir::MakeLoad(x, {tir::IntImm(0)})),
                     {tir::IntImm(0)}));
  NDArray out = NDArray::Zeros({1}, DType::kFloat16);
  RunPrimFunc(pf, {F({1}, {1.0009765625f + 0.0001f}), out});
  EXPECT_EQ(out.GetFloat(0), 1.0009765625);
}

TEST(Interp, OpWithoutKernelIsUnsupported) {
  // An op that type-checks but has no reference kernel (as a backend-only op would) must be
  // reported by name, not crash. The op is registered once for this test.
  const std::string name = "test.no_kernel";
  if (!OpRegistry::Global().Find(name)) {
    OpDef def;
    def.name = name;
    def.description = "a unary op without a reference kernel (test only)";
    def.inputs = {"data"};
    def.pattern = OpPatternKind::kElemwise;
    def.type_rel = [](const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
      return args.at(0);
    };
    OpRegistry::Global().Register(std::move(def));
  }
  Var x = MakeVar("x", T({2}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeCall(GetOp(name), {x}, {})));
  ExpectError(
      [&] {
        RunMain(mod, {{"x", F({2}, {1, 2})}});
      },
      ErrorKind::kUnsupported, {"op '" + name + "' has no reference kernel"});
}

TEST(Interp, UnboundedRecursionIsReported) {
  Var x = MakeVar("x", T({2}));
  IRModule mod =
      IRModule::FromExpr(MakeFunction({x}, MakeCall(MakeGlobalVar("main"), {x}), T({2})));
  ExpectError(
      [&] {
        RunMain(mod, {{"x", F({2}, {1, 2})}});
      },
      ErrorKind::kUnsupported, "call depth exceeds 1000");
}

}  // namespace
}  // namespace tessera
