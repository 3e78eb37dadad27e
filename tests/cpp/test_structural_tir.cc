// Structural equality, hashing and difference reports on tensor IR and PrimFuncs, and
// the operand access of scalar expressions (PrimExprChildren, WithChildren, VisitPrimExpr).
#include <gtest/gtest.h>

#include "tessera/ir/op.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "test_util.h"

namespace tessera {
namespace {

using namespace tir;  // variables are spelled tir::Var: both namespaces define Var

/// Options that vary one aspect of the test matmul.
struct MatmulSpec {
  std::string suffix;  ///< appended to every name (renaming must not matter)
  ForKind outer_kind = ForKind::kSerial;
  int64_t k_extent = 8;
  bool with_init = true;
  bool reuse_loop_var = false;  ///< one Var object for the two init loops
  IterKind k_kind = IterKind::kReduce;
};

/// C[16, 16] = A[16, K] * B[K, 16] as loops around a block, after zeroing C in a
/// separate loop nest.
PrimFunc Matmul(const MatmulSpec& s) {
  const std::string& n = s.suffix;
  Buffer a = MakeBuffer("A" + n, {16, s.k_extent});
  Buffer b = MakeBuffer("B" + n, {s.k_extent, 16});
  Buffer c = MakeBuffer("C" + n, {16, 16});
  tir::Var i = tir::MakeVar("i" + n), j = tir::MakeVar("j" + n), k = tir::MakeVar("k" + n);
  tir::Var vi = tir::MakeVar("vi" + n), vj = tir::MakeVar("vj" + n), vk = tir::MakeVar("vk" + n);
  PrimExpr zero = IntImm(0);
  std::vector<IterVar> ivs = {{vi, {zero, IntImm(16)}, IterKind::kSpatial, i},
                              {vj, {zero, IntImm(16)}, IterKind::kSpatial, j},
                              {vk, {zero, IntImm(s.k_extent)}, s.k_kind, k}};
  std::vector<BufferRegion> reads = {{a, {{vi, IntImm(1)}, {zero, IntImm(s.k_extent)}}},
                                     {b, {{zero, IntImm(s.k_extent)}, {vj, IntImm(1)}}}};
  std::vector<BufferRegion> writes = {{c, {{vi, IntImm(1)}, {vj, IntImm(1)}}}};
  Stmt init = s.with_init ? MakeStore(c, FloatImm(0), {vi, vj}) : nullptr;
  Stmt body =
      MakeStore(c, MakeLoad(c, {vi, vj}) + MakeLoad(a, {vi, vk}) * MakeLoad(b, {vk, vj}), {vi, vj});
  Stmt block = MakeBlock("matmul", ivs, reads, writes, init, body);
  Stmt nest = MakeFor(i, zero, IntImm(16), s.outer_kind,
                      MakeFor(j, zero, IntImm(16), ForKind::kSerial,
                              MakeFor(k, zero, IntImm(s.k_extent), ForKind::kSerial, block)));
  // A second nest with scratch memory, a branch, intrinsics, casts and selects.
  tir::Var p = tir::MakeVar("p" + n);
  tir::Var q = s.reuse_loop_var ? p : tir::MakeVar("q" + n);
  Buffer t = MakeBuffer("T" + n, {16});
  Stmt fill = MakeFor(p, zero, IntImm(16), ForKind::kSerial,
                      MakeStore(t, MakeIntrinsic("exp", {MakeCast(DType::kFloat32, p)}), {p}));
  PrimExpr cond = MakeBinary(BinaryOp::kLT, q, IntImm(4));
  Stmt use = MakeFor(
      q, zero, IntImm(16), ForKind::kUnrolled,
      MakeIfThenElse(cond, MakeStore(c, MakeSelect(MakeNot(cond), MakeLoad(t, {q}), FloatImm(1)),
                                     {q, FloorMod(q + 3, IntImm(16))})));
  Stmt scratch = MakeAllocate(t, MakeSeq({fill, use}));
  return MakePrimFunc({a, b, c}, 1, MakeSeq({nest, scratch}), Attrs{{"global_symbol", "mm"}});
}

std::string Diff(const PrimFunc& a, const PrimFunc& b) {
  auto d = StructuralDiff(Expr(a), Expr(b));
  return d ? *d : "<equal>";
}

TEST(StructuralTir, PrimFuncsEqualUpToRenaming) {
  PrimFunc a = Matmul({"_a"});
  PrimFunc b = Matmul({"_b"});
  EXPECT_TRUE(StructuralEqual(Expr(a), Expr(b))) << Diff(a, b);
  EXPECT_EQ(StructuralHash(Expr(a)), StructuralHash(Expr(b)));
  // Reusing one loop variable object for two sibling loops is the same program.
  PrimFunc reused = Matmul({"_c", ForKind::kSerial, 8, true, true});
  EXPECT_TRUE(StructuralEqual(Expr(a), Expr(reused))) << Diff(a, reused);
  EXPECT_EQ(StructuralHash(Expr(a)), StructuralHash(Expr(reused)));
}

TEST(StructuralTir, LoopKindExtentInitAndBuffersMatter) {
  PrimFunc a = Matmul({"_a"});
  PrimFunc parallel = Matmul({"_b", ForKind::kParallel});
  EXPECT_FALSE(StructuralEqual(Expr(a), Expr(parallel)));
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(parallel)));
  EXPECT_NE(Diff(a, parallel).find("loop kind serial vs parallel"), std::string::npos);

  PrimFunc no_init = Matmul({"_b", ForKind::kSerial, 8, false});
  EXPECT_FALSE(StructuralEqual(Expr(a), Expr(no_init)));
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(no_init)));
  EXPECT_NE(Diff(a, no_init).find("block 'matmul' init present only in lhs"), std::string::npos)
      << Diff(a, no_init);

  PrimFunc k4 = Matmul({"_b", ForKind::kSerial, 4});
  EXPECT_FALSE(StructuralEqual(Expr(a), Expr(k4)));
  EXPECT_NE(StructuralHash(Expr(a)), StructuralHash(Expr(k4)));
  EXPECT_NE(Diff(a, k4).find("primfunc parameter 0: buffer A_a vs A_b: shape [16, 8] vs [16, 4]"),
            std::string::npos)
      << Diff(a, k4);

  PrimFunc spatial_k = Matmul({"_b", ForKind::kSerial, 8, true, false, IterKind::kSpatial});
  EXPECT_FALSE(StructuralEqual(Expr(a), Expr(spatial_k)));
  EXPECT_NE(Diff(a, spatial_k).find("block 'matmul' iteration variable 2 kind reduce vs spatial"),
            std::string::npos);
}

TEST(StructuralTir, ExtentDifferenceIsReported) {
  Buffer a = MakeBuffer("A", {16});
  tir::Var i = tir::MakeVar("i");
  Stmt s16 = MakeFor(i, IntImm(0), IntImm(16), ForKind::kSerial, MakeStore(a, FloatImm(1), {i}));
  Stmt s8 = MakeFor(i, IntImm(0), IntImm(8), ForKind::kSerial, MakeStore(a, FloatImm(1), {i}));
  PrimFunc f16 = MakePrimFunc({a}, 1, s16);
  PrimFunc f8 = MakePrimFunc({MakeBuffer("B", {16})}, 1, s8);
  std::string diff = Diff(f16, f8);
  EXPECT_NE(diff.find("loop extent: 16 vs 8"), std::string::npos) << diff;
  EXPECT_NE(diff.find("lhs: for i in [0, 0 + 16) serial"), std::string::npos) << diff;
  EXPECT_NE(Diff(f16, MakePrimFunc({a}, 0, s16)).find("primfunc output count 1 vs 0"),
            std::string::npos);
  EXPECT_NE(Diff(f16, MakePrimFunc({a}, 1, s16, Attrs{{"global_symbol", "f"}}))
                .find("primfunc attribute 'global_symbol' only in rhs"),
            std::string::npos);
}

TEST(StructuralTir, StandaloneExpressionsAndStatements) {
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  EXPECT_TRUE(StructuralEqual(i + 1, i + 1));
  EXPECT_EQ(StructuralHash(i + 1), StructuralHash(i + 1));
  EXPECT_FALSE(StructuralEqual(i + 1, j + 1));
  EXPECT_TRUE(StructuralEqual(i + 1, j + 1, /*map_free_vars=*/true));
  EXPECT_EQ(StructuralHash(i + 1), StructuralHash(j + 1));
  EXPECT_FALSE(StructuralEqual(i + j, i + i, true));
  EXPECT_FALSE(StructuralEqual(i + 1, i * 1));
  EXPECT_NE(StructuralHash(i + 1), StructuralHash(i * 1));
  EXPECT_FALSE(StructuralEqual(IntImm(1), IntImm(1, DType::kInt64)));
  EXPECT_FALSE(StructuralEqual(FloatImm(0.0), FloatImm(-0.0)));
  EXPECT_FALSE(
      StructuralEqual(MakeIntrinsic("exp", {FloatImm(1)}), MakeIntrinsic("log", {FloatImm(1)})));
  EXPECT_FALSE(StructuralEqual(PrimExpr(i), PrimExpr(tir::MakeVar("k", DType::kInt64)), true));

  Buffer a = MakeBuffer("A", {4});
  Buffer b = MakeBuffer("B", {4});
  Stmt sa = MakeStore(a, FloatImm(1), {i});
  Stmt sb = MakeStore(b, FloatImm(1), {j});
  EXPECT_FALSE(StructuralEqual(sa, sb));
  EXPECT_TRUE(StructuralEqual(sa, sb, true));
  EXPECT_EQ(StructuralHash(sa), StructuralHash(sb));
  EXPECT_FALSE(StructuralEqual(sa, MakeStore(MakeBuffer("C", {5}), FloatImm(1), {i}), true));
  // Statements binding their own variables need no mapping.
  Stmt la = MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, sa);
  Stmt lb = MakeFor(j, IntImm(0), IntImm(4), ForKind::kSerial, MakeStore(a, FloatImm(1), {j}));
  EXPECT_TRUE(StructuralEqual(la, lb));
  EXPECT_EQ(StructuralHash(la), StructuralHash(lb));
  EXPECT_FALSE(StructuralEqual(la, MakeIfThenElse(MakeBinary(BinaryOp::kLT, i, IntImm(1)), sa)));
  EXPECT_FALSE(StructuralEqual(MakeIfThenElse(MakeBinary(BinaryOp::kLT, i, IntImm(1)), sa, sa),
                               MakeIfThenElse(MakeBinary(BinaryOp::kLT, i, IntImm(1)), sa)));
}

TEST(StructuralTir, CallTirModules) {
  auto module = [](const std::string& n, int64_t size) {
    Buffer in = MakeBuffer("in" + n, {size});
    Buffer out = MakeBuffer("out" + n, {size});
    tir::Var i = tir::MakeVar("i" + n);
    PrimFunc kernel =
        MakePrimFunc({in, out}, 1,
                     MakeFor(i, IntImm(0), IntImm(size), ForKind::kVectorized,
                             MakeStore(out, MakeIntrinsic("sqrt", {MakeLoad(in, {i})}), {i})));
    tessera::Var x = tessera::MakeVar("x" + n, MakeTensorType({size}));
    Expr call = MakeOpCall(kCallTirOp, {MakeGlobalVar("kernel"), MakeTuple({x})}, {},
                           {MakeTensorType({size})});
    return IRModule().WithFunction("kernel", kernel).WithFunction("main", MakeFunction({x}, call));
  };
  EXPECT_TRUE(StructuralEqual(module("a", 8), module("b", 8)));
  EXPECT_EQ(StructuralHash(module("a", 8)), StructuralHash(module("b", 8)));
  EXPECT_FALSE(StructuralEqual(module("a", 8), module("b", 9)));
  EXPECT_NE(StructuralHash(module("a", 8)), StructuralHash(module("b", 9)));
  std::string diff = *StructuralDiff(module("a", 8), module("b", 9));
  EXPECT_EQ(diff.rfind("in @kernel: primfunc parameter 0: buffer ina vs inb: shape [8] vs [9]", 0),
            0u)
      << diff;
  // A PrimFunc against a graph function of the same name.
  IRModule swapped = module("a", 8).WithFunction("kernel", MakeFunction({}, MakeTuple({})));
  EXPECT_NE(StructuralDiff(module("a", 8), swapped)->find("expression kind primfunc vs function"),
            std::string::npos);
}

// ---- Operands of scalar expressions -----------------------------------------------

/// True when `got` holds exactly the nodes `want`, in order.
bool SameNodes(const std::vector<PrimExpr>& got, const std::vector<PrimExpr>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i)
    if (!got[i].same_as(want[i])) return false;
  return true;
}

TEST(TirOperands, ChildrenOfEveryKind) {
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  Buffer a = MakeBuffer("A", {4, 4});
  PrimExpr x = MakeLoad(a, {i, j});
  PrimExpr y = FloatImm(2);
  PrimExpr cond = MakeBinary(BinaryOp::kLT, i, j);
  EXPECT_TRUE(SameNodes(PrimExprChildren(MakeBinary(BinaryOp::kMul, x, y)), {x, y}));
  EXPECT_TRUE(SameNodes(PrimExprChildren(MakeNot(cond)), {cond}));
  EXPECT_TRUE(SameNodes(PrimExprChildren(MakeSelect(cond, x, y)), {cond, x, y}));
  EXPECT_TRUE(SameNodes(PrimExprChildren(MakeCast(DType::kFloat32, i)), {i}));
  EXPECT_TRUE(SameNodes(PrimExprChildren(x), {i, j}));
  EXPECT_TRUE(SameNodes(PrimExprChildren(MakeIntrinsic("pow", {x, y})), {x, y}));
  EXPECT_TRUE(PrimExprChildren(i).empty());
  EXPECT_TRUE(PrimExprChildren(IntImm(3)).empty());
  EXPECT_TRUE(PrimExprChildren(y).empty());
}

TEST(TirOperands, WithChildrenRebuildsOrKeepsTheNode) {
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j");
  Buffer a = MakeBuffer("A", {4, 4});
  PrimExpr x = MakeLoad(a, {i, j});
  PrimExpr y = FloatImm(2);
  PrimExpr cond = MakeBinary(BinaryOp::kLT, i, j);
  for (PrimExpr e : {MakeBinary(BinaryOp::kMul, x, y), MakeNot(cond), MakeSelect(cond, x, y),
                     MakeCast(DType::kFloat32, i), x, MakeIntrinsic("exp", {x}), PrimExpr(i), y})
    EXPECT_TRUE(WithChildren(e, PrimExprChildren(e)).same_as(e)) << PrintPrimExpr(e);

  // The operator, cast dtype, buffer and intrinsic name stay; the dtype is derived.
  PrimExpr ge = WithChildren(cond, {j, IntImm(0)});
  ASSERT_NE(ge.as<BinaryNode>(), nullptr);
  EXPECT_EQ(ge.as<BinaryNode>()->op, BinaryOp::kLT);
  EXPECT_EQ(ge->dtype, DType::kBool);
  EXPECT_TRUE(PrimExprChildren(ge)[0].same_as(j));
  PrimExpr sel = WithChildren(MakeSelect(cond, x, y), {MakeNot(cond), y, x});
  EXPECT_TRUE(StructuralEqual(sel, MakeSelect(MakeNot(cond), y, x)));
  PrimExpr cast = WithChildren(MakeCast(DType::kFloat64, i), {j});
  EXPECT_EQ(cast->dtype, DType::kFloat64);
  EXPECT_TRUE(cast.as<CastNode>()->value.same_as(j));
  PrimExpr load = WithChildren(x, {j, i});
  EXPECT_TRUE(load.as<BufferLoadNode>()->buffer.same_as(a));
  EXPECT_TRUE(SameNodes(PrimExprChildren(load), {j, i}));
  PrimExpr call = WithChildren(MakeIntrinsic("abs", {y}), {IntImm(-3)});
  EXPECT_EQ(call.as<IntrinsicNode>()->name, "abs");
  EXPECT_EQ(call->dtype, DType::kInt32);  // follows the new argument, as MakeIntrinsic does

  using testing::ExpectError;
  PrimExpr exp = MakeIntrinsic("exp", {x}), sum = i + j;
  ExpectError(
      [&] {
        WithChildren(exp, {x, y});
      },
      ErrorKind::kValue,
      "cannot rebuild a scalar expression (intrinsic 'exp') from 2 operand(s); it has 1");
  ExpectError([&] { WithChildren(i, {j}); }, ErrorKind::kValue,
              "(variable) from 1 operand(s); it has 0");
  ExpectError([&] { WithChildren(MakeNot(cond), {PrimExpr()}); }, ErrorKind::kValue,
              "operand 0 of a scalar expression (not) is null");
  ExpectError([&] { WithChildren(sum, {i, y}); }, ErrorKind::kType, "different dtypes");
}

TEST(TirOperands, VisitIsPreOrderIterativeAndStops) {
  tir::Var i = tir::MakeVar("i");
  Buffer a = MakeBuffer("A", {4});
  PrimExpr e = MakeSelect(MakeBinary(BinaryOp::kLT, i, IntImm(2)),
                          MakeIntrinsic("exp", {MakeLoad(a, {i})}), MakeCast(DType::kFloat32, i));
  std::vector<std::string> order;
  EXPECT_TRUE(VisitPrimExpr(e, [&](const PrimExprNode* n) {
    order.push_back(PrintPrimExpr(PrimExpr(n)));
    return true;
  }));
  EXPECT_EQ(order, (std::vector<std::string>{PrintPrimExpr(e), "%i < 2", "%i", "2", "exp(%A[%i])",
                                             "%A[%i]", "%i", "float32(%i)", "%i"}));

  size_t seen = 0;
  EXPECT_FALSE(VisitPrimExpr(e, [&](const PrimExprNode*) { return ++seen < 3; }));
  EXPECT_EQ(seen, 3u);
  EXPECT_TRUE(VisitPrimExpr(PrimExpr(), [](const PrimExprNode*) { return false; }));

  // A deep chain is walked without recursion.
  PrimExpr deep = i;
  for (int k = 0; k < 200000; ++k) deep = MakeBinary(BinaryOp::kAdd, deep, IntImm(1));
  seen = 0;
  EXPECT_TRUE(VisitPrimExpr(deep, [&](const PrimExprNode*) { return ++seen > 0; }));
  EXPECT_EQ(seen, 400001u);
}

}  // namespace
}  // namespace tessera
