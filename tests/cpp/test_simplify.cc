// tir::Simplify tests: exact forms for targeted rewrites, statement simplification, and a
// randomised check that simplified index expressions keep their value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <unordered_map>

#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"

namespace tessera::tir {
namespace {

PrimExpr I(int64_t v) {
  return IntImm(v);
}
PrimExpr B(bool v) {
  return IntImm(v, DType::kBool);
}

/// The value of an IntImm result, failing the test otherwise.
int64_t IntValue(const PrimExpr& e) {
  auto* n = e.as<IntImmNode>();
  EXPECT_NE(n, nullptr) << "expected an IntImm, got type index "
                        << static_cast<int>(e->type_index());
  return n ? n->value : 0;
}

const BinaryNode* AsBinary(const PrimExpr& e, BinaryOp op) {
  auto* n = e.as<BinaryNode>();
  EXPECT_NE(n, nullptr) << "expected a binary node";
  if (n) EXPECT_EQ(n->op, op) << "got " << BinaryOpName(n->op) << ", expected " << BinaryOpName(op);
  return n && n->op == op ? n : nullptr;
}

/// Checks that `e` is exactly `term * coef` (or `term` when coef == 1).
void ExpectScaled(const PrimExpr& e, const PrimExpr& term, int64_t coef) {
  if (coef == 1) {
    EXPECT_TRUE(e.same_as(term));
    return;
  }
  auto* mul = AsBinary(e, BinaryOp::kMul);
  ASSERT_NE(mul, nullptr);
  EXPECT_TRUE(mul->a.same_as(term));
  EXPECT_EQ(IntValue(mul->b), coef);
}

// ---- Evaluation for the randomised check --------------------------------------------

using Env = std::unordered_map<const Object*, int64_t>;

int64_t FloorDivRef(int64_t a, int64_t b) {
  return static_cast<int64_t>(std::floor(static_cast<double>(a) / b));
}
int64_t FloorModRef(int64_t a, int64_t b) {
  return a - b * FloorDivRef(a, b);
}

int64_t Eval(const PrimExpr& e, const Env& env) {
  if (auto* n = e.as<IntImmNode>()) return n->value;
  if (e.as<VarNode>()) return env.at(e.get());
  if (auto* n = e.as<NotNode>()) return !Eval(n->a, env);
  if (auto* n = e.as<SelectNode>())
    return Eval(n->cond, env) ? Eval(n->true_value, env) : Eval(n->false_value, env);
  auto* n = e.as<BinaryNode>();
  if (!n) throw std::runtime_error("cannot evaluate node");
  int64_t a = Eval(n->a, env), b = Eval(n->b, env);
  switch (n->op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kFloorDiv:
      return FloorDivRef(a, b);
    case BinaryOp::kFloorMod:
      return FloorModRef(a, b);
    case BinaryOp::kMin:
      return std::min(a, b);
    case BinaryOp::kMax:
      return std::max(a, b);
    case BinaryOp::kEQ:
      return a == b;
    case BinaryOp::kNE:
      return a != b;
    case BinaryOp::kLT:
      return a < b;
    case BinaryOp::kLE:
      return a <= b;
    case BinaryOp::kGT:
      return a > b;
    case BinaryOp::kGE:
      return a >= b;
    case BinaryOp::kAnd:
      return a && b;
    case BinaryOp::kOr:
      return a || b;
  }
  return 0;
}

// ---- Targeted forms -----------------------------------------------------------------

TEST(Simplify, FloorDivOfAffineByDividingConstant) {
  Var x = MakeVar("x");
  PrimExpr s = Simplify(FloorDiv(x * 4 + 8, I(4)));
  auto* add = AsBinary(s, BinaryOp::kAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(x));
  EXPECT_EQ(IntValue(add->b), 2);
}

TEST(Simplify, IntIdentities) {
  Var x = MakeVar("x");
  EXPECT_TRUE(Simplify(x + I(0)).same_as(x));
  EXPECT_TRUE(Simplify(I(0) + x).same_as(x));
  EXPECT_TRUE(Simplify(x - I(0)).same_as(x));
  EXPECT_TRUE(Simplify(x * I(1)).same_as(x));
  EXPECT_TRUE(Simplify(I(1) * x).same_as(x));
  EXPECT_EQ(IntValue(Simplify(x * I(0))), 0);
  EXPECT_EQ(IntValue(Simplify(I(0) * x)), 0);
  EXPECT_EQ(IntValue(Simplify(x - x)), 0);
  EXPECT_TRUE(Simplify(MakeBinary(BinaryOp::kDiv, x, I(1))).same_as(x));
  EXPECT_TRUE(Simplify(FloorDiv(x, I(1))).same_as(x));
  EXPECT_EQ(IntValue(Simplify(FloorMod(x, I(1)))), 0);
  EXPECT_TRUE(Simplify(PrimExpr(x)).same_as(x));
}

TEST(Simplify, IntConstantFolding) {
  auto fold = [](BinaryOp op, int64_t a, int64_t b) {
    return IntValue(Simplify(MakeBinary(op, I(a), I(b))));
  };
  EXPECT_EQ(fold(BinaryOp::kAdd, 3, 4), 7);
  EXPECT_EQ(fold(BinaryOp::kSub, 3, 4), -1);
  EXPECT_EQ(fold(BinaryOp::kMul, -3, 4), -12);
  EXPECT_EQ(fold(BinaryOp::kDiv, 7, -2), -3);  // truncates
  EXPECT_EQ(fold(BinaryOp::kDiv, -7, 2), -3);
  EXPECT_EQ(fold(BinaryOp::kFloorDiv, 7, -2), -4);
  EXPECT_EQ(fold(BinaryOp::kFloorDiv, -7, 2), -4);
  EXPECT_EQ(fold(BinaryOp::kFloorMod, 7, -2), -1);
  EXPECT_EQ(fold(BinaryOp::kFloorMod, -7, 2), 1);
  EXPECT_EQ(fold(BinaryOp::kMin, 3, 5), 3);
  EXPECT_EQ(fold(BinaryOp::kMax, 3, 5), 5);
  PrimExpr lt = Simplify(MakeBinary(BinaryOp::kLT, I(3), I(2)));
  EXPECT_EQ(lt->dtype, DType::kBool);
  EXPECT_EQ(IntValue(lt), 0);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kGE, I(3), I(3)))), 1);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kNE, I(3), I(3)))), 0);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kAnd, B(true), B(false)))), 0);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kOr, B(true), B(false)))), 1);
  // The folded constant keeps the operand dtype.
  EXPECT_EQ(Simplify(IntImm(2, DType::kInt64) + IntImm(3, DType::kInt64))->dtype, DType::kInt64);
}

TEST(Simplify, DivisionByZeroAndOverflowAreNotFolded) {
  for (BinaryOp op : {BinaryOp::kDiv, BinaryOp::kFloorDiv, BinaryOp::kFloorMod}) {
    PrimExpr s = Simplify(MakeBinary(op, I(5), I(0)));
    auto* n = AsBinary(s, op);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(IntValue(n->b), 0);
  }
  Var x = MakeVar("x");
  EXPECT_NE(Simplify(FloorDiv(x * 4, I(0))).as<BinaryNode>(), nullptr);
  // int32 overflow stays as written rather than wrapping silently.
  PrimExpr big = Simplify(I(INT32_MAX) + I(1));
  EXPECT_NE(AsBinary(big, BinaryOp::kAdd), nullptr);
  EXPECT_EQ(IntValue(Simplify(IntImm(INT32_MAX, DType::kInt64) + IntImm(1, DType::kInt64))),
            int64_t{INT32_MAX} + 1);
}

TEST(Simplify, ConstantMultipliersCompose) {
  Var x = MakeVar("x");
  ExpectScaled(Simplify((x * I(2)) * I(3)), x, 6);
  ExpectScaled(Simplify(I(3) * (I(2) * x)), x, 6);
}

TEST(Simplify, AffineNormalFormOrderAndCancellation) {
  Var x = MakeVar("x"), y = MakeVar("y");
  EXPECT_TRUE(Simplify(x + y - x).same_as(y));
  // x*2 + y + x -> x*3 + y: terms in first-appearance order.
  PrimExpr s = Simplify(x * I(2) + y + x);
  auto* add = AsBinary(s, BinaryOp::kAdd);
  ASSERT_NE(add, nullptr);
  ExpectScaled(add->a, x, 3);
  EXPECT_TRUE(add->b.same_as(y));
  // (x + 2) * 3 - 6 -> x*3; y - x*2 + 5 -> (y - x*2) + 5.
  ExpectScaled(Simplify((x + I(2)) * I(3) - I(6)), x, 3);
  PrimExpr t = Simplify(y - x * I(2) + I(5));
  auto* outer = AsBinary(t, BinaryOp::kAdd);
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(IntValue(outer->b), 5);
  auto* sub = AsBinary(outer->a, BinaryOp::kSub);
  ASSERT_NE(sub, nullptr);
  EXPECT_TRUE(sub->a.same_as(y));
  ExpectScaled(sub->b, x, 2);
  // A negative constant is subtracted; a lone negative term keeps its coefficient.
  PrimExpr u = Simplify(x - I(3) - I(4));
  auto* usub = AsBinary(u, BinaryOp::kSub);
  ASSERT_NE(usub, nullptr);
  EXPECT_EQ(IntValue(usub->b), 7);
  ExpectScaled(Simplify(I(0) - x), x, -1);
}

TEST(Simplify, LoadsAreTermsMergedByStructure) {
  Buffer a = MakeBuffer("A", {8}, DType::kInt32);
  Var i = MakeVar("i");
  PrimExpr s = Simplify(MakeLoad(a, {i + I(0)}) + MakeLoad(a, {i}));
  auto* mul = AsBinary(s, BinaryOp::kMul);
  ASSERT_NE(mul, nullptr);
  auto* load = mul->a.as<BufferLoadNode>();
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->indices[0].same_as(i));
  EXPECT_EQ(IntValue(mul->b), 2);
}

TEST(Simplify, FloorDivModSplitsDivisibleTerms) {
  Var x = MakeVar("x"), y = MakeVar("y");
  // floormod(x*4 + 6, 4) -> 2
  EXPECT_EQ(IntValue(Simplify(FloorMod(x * 4 + I(6), I(4)))), 2);
  // floordiv(x*4 + y, 4) -> x + floordiv(y, 4)
  PrimExpr d = Simplify(FloorDiv(x * 4 + y, I(4)));
  auto* add = AsBinary(d, BinaryOp::kAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(x));
  auto* fd = AsBinary(add->b, BinaryOp::kFloorDiv);
  ASSERT_NE(fd, nullptr);
  EXPECT_TRUE(fd->a.same_as(y));
  EXPECT_EQ(IntValue(fd->b), 4);
  // floormod(x*8 + y + 9, 4) -> floormod(y + 1, 4)
  PrimExpr m = Simplify(FloorMod(x * 8 + y + I(9), I(4)));
  auto* fm = AsBinary(m, BinaryOp::kFloorMod);
  ASSERT_NE(fm, nullptr);
  auto* inner = AsBinary(fm->a, BinaryOp::kAdd);
  ASSERT_NE(inner, nullptr);
  EXPECT_TRUE(inner->a.same_as(y));
  EXPECT_EQ(IntValue(inner->b), 1);
  // Nothing divisible: the division stays, over the normalised numerator.
  PrimExpr keep = Simplify(FloorDiv(x * 3 + I(1), I(4)));
  EXPECT_NE(AsBinary(keep, BinaryOp::kFloorDiv), nullptr);
}

TEST(Simplify, NestedFloorDivMod) {
  Var x = MakeVar("x");
  PrimExpr sd = Simplify(FloorDiv(FloorDiv(x, I(2)), I(3)));
  auto* d = AsBinary(sd, BinaryOp::kFloorDiv);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->a.same_as(x));
  EXPECT_EQ(IntValue(d->b), 6);
  PrimExpr sm = Simplify(FloorMod(FloorMod(x, I(8)), I(4)));
  auto* m = AsBinary(sm, BinaryOp::kFloorMod);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->a.same_as(x));
  EXPECT_EQ(IntValue(m->b), 4);
  // floormod(floormod(x, 6), 4) is not floormod(x, 4).
  PrimExpr sk = Simplify(FloorMod(FloorMod(x, I(6)), I(4)));
  auto* keep = AsBinary(sk, BinaryOp::kFloorMod);
  ASSERT_NE(keep, nullptr);
  EXPECT_NE(keep->a.as<BinaryNode>(), nullptr);
}

TEST(Simplify, MinMaxSelectNotCompare) {
  Var x = MakeVar("x"), y = MakeVar("y");
  PrimExpr mn = Simplify(MakeBinary(BinaryOp::kMin, x + I(1), x + I(3)));
  auto* add = AsBinary(mn, BinaryOp::kAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(IntValue(add->b), 1);
  EXPECT_TRUE(Simplify(MakeBinary(BinaryOp::kMax, y, y)).same_as(y));
  EXPECT_TRUE(Simplify(MakeBinary(BinaryOp::kMax, x, x - I(1))).same_as(x));
  EXPECT_TRUE(Simplify(MakeSelect(B(true), x, y)).same_as(x));
  EXPECT_TRUE(Simplify(MakeSelect(B(false), x, y)).same_as(y));
  Var c = MakeVar("c", DType::kBool);
  EXPECT_TRUE(Simplify(MakeSelect(c, x + I(0), x)).same_as(x));
  EXPECT_TRUE(Simplify(MakeNot(MakeNot(c))).same_as(c));
  EXPECT_EQ(IntValue(Simplify(MakeNot(B(true)))), 0);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kLT, x + I(1), x + I(2)))), 1);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kEQ, x * I(2), x + x))), 1);
  EXPECT_TRUE(Simplify(MakeBinary(BinaryOp::kAnd, B(true), c)).same_as(c));
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kAnd, c, B(false)))), 0);
  EXPECT_EQ(IntValue(Simplify(MakeBinary(BinaryOp::kOr, c, B(true)))), 1);
  EXPECT_TRUE(Simplify(MakeBinary(BinaryOp::kOr, B(false), c)).same_as(c));
  // x < y stays.
  EXPECT_NE(Simplify(MakeBinary(BinaryOp::kLT, x, y)).as<BinaryNode>(), nullptr);
}

TEST(Simplify, CastFolding) {
  PrimExpr f_holder = Simplify(MakeCast(DType::kFloat32, I(3)));
  auto* f = f_holder.as<FloatImmNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, 3.0);
  EXPECT_EQ(f->dtype, DType::kFloat32);
  EXPECT_EQ(IntValue(Simplify(MakeCast(DType::kInt8, I(300)))), 44);
  EXPECT_EQ(IntValue(Simplify(MakeCast(DType::kInt32, FloatImm(-2.7)))), -2);
  EXPECT_EQ(IntValue(Simplify(MakeCast(DType::kBool, I(5)))), 1);
  // Out of range and NaN float-to-int casts stay.
  EXPECT_NE(Simplify(MakeCast(DType::kInt32, FloatImm(1e20))).as<CastNode>(), nullptr);
  EXPECT_NE(Simplify(MakeCast(DType::kInt32, FloatImm(NAN))).as<CastNode>(), nullptr);
  // float64 -> float32 rounds.
  PrimExpr r_holder = Simplify(MakeCast(DType::kFloat32, FloatImm(0.1, DType::kFloat64)));
  auto* r = r_holder.as<FloatImmNode>();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->value, static_cast<double>(0.1f));
  Var x = MakeVar("x");
  EXPECT_TRUE(Simplify(MakeCast(DType::kInt32, x)).same_as(x));
}

TEST(Simplify, FloatsFoldOnlyConstantsAndExactIdentities) {
  PrimExpr sum_holder = Simplify(FloatImm(1.5) + FloatImm(2.25));
  auto* sum = sum_holder.as<FloatImmNode>();
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->value, 3.75);
  PrimExpr third_holder = Simplify(MakeBinary(BinaryOp::kDiv, FloatImm(1.0), FloatImm(3.0)));
  auto* third = third_holder.as<FloatImmNode>();
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->value, static_cast<double>(1.0f / 3.0f));  // rounded to float32
  EXPECT_NE(Simplify(MakeBinary(BinaryOp::kDiv, FloatImm(1.0), FloatImm(0.0))).as<BinaryNode>(),
            nullptr);
  Var f = MakeVar("f", DType::kFloat32);
  EXPECT_TRUE(Simplify(f * FloatImm(1.0)).same_as(f));
  EXPECT_TRUE(Simplify(FloatImm(1.0) * f).same_as(f));
  EXPECT_TRUE(Simplify(f + FloatImm(0.0)).same_as(f));
  EXPECT_TRUE(Simplify(FloatImm(0.0) + f).same_as(f));
  // x*0 and x-x are not 0 for NaN or inf; no reassociation of float sums.
  EXPECT_NE(Simplify(f * FloatImm(0.0)).as<BinaryNode>(), nullptr);
  EXPECT_NE(Simplify(f - f).as<BinaryNode>(), nullptr);
  EXPECT_NE(Simplify(MakeBinary(BinaryOp::kEQ, f, f)).as<BinaryNode>(), nullptr);
  PrimExpr nested = (f + FloatImm(1.0)) + FloatImm(2.0);
  EXPECT_NE(Simplify(nested).as<BinaryNode>()->a.as<BinaryNode>(), nullptr);
}

TEST(Simplify, UnchangedExpressionIsReturnedAsIs) {
  Var x = MakeVar("x"), y = MakeVar("y");
  PrimExpr e = x * y + FloorDiv(x, I(3));
  EXPECT_TRUE(Simplify(e).same_as(e));
  // Idempotent on results.
  PrimExpr s = Simplify(x * I(3) + y * I(2) - I(4));
  EXPECT_TRUE(Simplify(s).same_as(s));
}

// ---- Statements -----------------------------------------------------------------------

TEST(SimplifyStmt, RemovesEmptyLoopsAndDeadBranches) {
  Buffer out = MakeBuffer("out", {16}, DType::kInt32);
  Var i = MakeVar("i"), j = MakeVar("j");
  Stmt store = MakeStore(out, i + I(0), {i * I(1)});
  Stmt zero_loop = MakeFor(j, I(0), I(3) - I(3), ForKind::kSerial, store);
  Stmt simplified = Simplify(zero_loop);
  auto* seq = simplified.as<SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  EXPECT_TRUE(seq->seq.empty());

  Stmt loop = MakeFor(i, I(0), I(4) * I(4), ForKind::kParallel, store);
  Stmt branch = MakeIfThenElse(MakeBinary(BinaryOp::kLT, I(1), I(2)), loop, zero_loop);
  Stmt s = Simplify(MakeSeq({branch, zero_loop}));
  auto* f = s.as<ForNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->loop_var.same_as(i));
  EXPECT_EQ(IntValue(f->extent), 16);
  EXPECT_EQ(f->kind, ForKind::kParallel);
  auto* st = f->body.as<BufferStoreNode>();
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(st->value.same_as(i));
  EXPECT_TRUE(st->indices[0].same_as(i));

  // A false condition without else leaves nothing.
  Stmt none = Simplify(MakeIfThenElse(B(false), store));
  ASSERT_NE(none.as<SeqStmtNode>(), nullptr);
  EXPECT_TRUE(none.as<SeqStmtNode>()->seq.empty());
  // A non-constant condition is kept and simplified.
  Stmt kept_holder = Simplify(MakeIfThenElse(MakeBinary(BinaryOp::kLT, i + I(0), I(3)), store));
  auto* kept = kept_holder.as<IfThenElseNode>();
  ASSERT_NE(kept, nullptr);
  EXPECT_TRUE(kept->cond.as<BinaryNode>()->a.same_as(i));
}

TEST(SimplifyStmt, BlockPartsAndAllocate) {
  Buffer a = MakeBuffer("A", {4, 4}), c = MakeBuffer("C", {4});
  Buffer tmp = MakeBuffer("tmp", {4});
  Var i = MakeVar("i"), k = MakeVar("k"), vi = MakeVar("vi"), vk = MakeVar("vk");
  std::vector<IterVar> ivs = {
      {vi, {I(0), I(2) + I(2)}, IterKind::kSpatial, i * I(1)},
      {vk, {I(0) * i, I(4)}, IterKind::kReduce, k + I(0)},
  };
  Stmt init = MakeStore(c, FloatImm(0.0), {vi + I(0)});
  Stmt body = MakeStore(c, MakeLoad(c, {vi}) + MakeLoad(a, {vi, vk}) * FloatImm(1.0), {vi});
  Stmt block = MakeBlock("sum", ivs, {{a, {{vi, I(1)}, {I(0), I(2) * I(2)}}}},
                         {{c, {{vi - I(0), I(1)}}}}, init, body);
  Stmt nest = MakeAllocate(tmp, MakeFor(i, I(0), I(4), ForKind::kSerial,
                                        MakeFor(k, I(0), I(4), ForKind::kSerial, block)));
  Stmt s = Simplify(nest);
  auto* alloc = s.as<AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  auto* b = alloc->body.as<ForNode>()->body.as<ForNode>()->body.as<BlockNode>();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(IntValue(b->iter_vars[0].dom.extent), 4);
  EXPECT_TRUE(b->iter_vars[0].binding.same_as(i));
  EXPECT_EQ(IntValue(b->iter_vars[1].dom.min), 0);
  EXPECT_TRUE(b->iter_vars[1].binding.same_as(k));
  EXPECT_EQ(b->iter_vars[1].kind, IterKind::kReduce);
  EXPECT_EQ(IntValue(b->reads[0].region[1].extent), 4);
  EXPECT_TRUE(b->writes[0].region[0].min.same_as(vi));
  EXPECT_TRUE(b->init.as<BufferStoreNode>()->indices[0].same_as(vi));
  auto* value = b->body.as<BufferStoreNode>()->value.as<BinaryNode>();
  ASSERT_NE(value, nullptr);
  EXPECT_NE(value->b.as<BufferLoadNode>(), nullptr);  // load * 1.0 -> load

  // Nothing to simplify: the very same statement comes back.
  Stmt clean = MakeFor(i, I(0), I(4), ForKind::kSerial, MakeStore(c, FloatImm(1.0), {i}));
  EXPECT_TRUE(Simplify(clean).same_as(clean));
}

TEST(SimplifyStmt, DivisionsWithinOneMultipleOverLoopRangesFold) {
  // An operand read through a fused transpose: k < 64 and i * 12 < 64 make every division
  // but none of the loads vanish.
  Buffer a = MakeBuffer("A", {16384}), c = MakeBuffer("C", {256});
  Var i = MakeVar("i"), k = MakeVar("k"), t = MakeVar("t");
  PrimExpr index = FloorDiv(k, I(64)) * I(4096) +
                   FloorMod(i * I(12) + FloorDiv(k, I(256)), I(64)) * I(64) + FloorMod(k, I(64)) +
                   MakeBinary(BinaryOp::kDiv, t, I(2));
  Stmt nest = MakeFor(
      t, I(0), I(2), ForKind::kSerial,
      MakeFor(i, I(0), I(5), ForKind::kSerial,
              MakeFor(k, I(0), I(64), ForKind::kSerial, MakeStore(c, MakeLoad(a, {index}), {k}))));
  Stmt simplified = Simplify(nest);
  auto* store =
      simplified.as<ForNode>()->body.as<ForNode>()->body.as<ForNode>()->body.as<BufferStoreNode>();
  ASSERT_NE(store, nullptr);
  auto* load = store->value.as<BufferLoadNode>();
  ASSERT_NE(load, nullptr) << PrintStmt(simplified);
  EXPECT_TRUE(StructuralEqual(load->indices[0], i * I(768) + k)) << "got a different index";

  // Beyond one multiple, or without a constant range, the divisions stay.
  Var n = MakeVar("n");
  for (const auto& [extent, divisor] : {std::pair<PrimExpr, int64_t>{I(65), 64}, {n, 64}}) {
    Stmt loop = MakeFor(k, I(0), extent, ForKind::kSerial,
                        MakeStore(c, FloatImm(1.0), {FloorMod(k, I(divisor))}));
    Stmt out = Simplify(loop);
    auto* kept = out.as<ForNode>()->body.as<BufferStoreNode>();
    ASSERT_NE(kept, nullptr);
    EXPECT_NE(kept->indices[0].as<BinaryNode>(), nullptr);
  }
  // Outside the loop the same expression knows no range.
  EXPECT_NE(Simplify(FloorMod(k, I(64))).as<BinaryNode>(), nullptr);
}

TEST(SimplifyStmt, RandomExpressionsKeepTheirValueOverTheirLoopRanges) {
  std::mt19937 rng(20261127);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::vector<Var> vars = {MakeVar("x"), MakeVar("y")};
  std::function<PrimExpr(int)> gen = [&](int depth) -> PrimExpr {
    if (depth == 0 || pick(4) == 0)
      return pick(3) == 0 ? I(pick(21) - 10) : PrimExpr(vars[pick(2)]);
    switch (pick(6)) {
      case 0:
        return gen(depth - 1) + gen(depth - 1);
      case 1:
        return gen(depth - 1) * I(pick(9) - 4);
      case 2:
        return FloorDiv(gen(depth - 1), I(pick(12) + 1));
      case 3:
        return FloorMod(gen(depth - 1), I(pick(12) + 1));
      case 4:
        return MakeBinary(BinaryOp::kDiv, gen(depth - 1), I(pick(12) + 1));
      default:
        return gen(depth - 1) - gen(depth - 1);
    }
  };
  Buffer c = MakeBuffer("C", {1});
  int changed = 0;
  for (int round = 0; round < 1500; ++round) {
    int64_t lo[2], n[2];
    for (int v = 0; v < 2; ++v) {
      lo[v] = pick(2) ? 0 : pick(21) - 10;
      n[v] = pick(16) + 1;
    }
    PrimExpr e = gen(4);
    Stmt nest = MakeFor(vars[0], I(lo[0]), I(n[0]), ForKind::kSerial,
                        MakeFor(vars[1], I(lo[1]), I(n[1]), ForKind::kSerial,
                                MakeStore(c, FloatImm(0.0), {e})));
    Stmt out = Simplify(nest);
    auto* store = out.as<ForNode>()->body.as<ForNode>()->body.as<BufferStoreNode>();
    ASSERT_NE(store, nullptr);
    const PrimExpr& s = store->indices[0];
    if (!StructuralEqual(s, Simplify(e))) ++changed;
    for (int64_t x = lo[0]; x < lo[0] + n[0]; ++x)
      for (int64_t y = lo[1]; y < lo[1] + n[1]; ++y) {
        Env env{{vars[0].get(), x}, {vars[1].get(), y}};
        ASSERT_EQ(Eval(e, env), Eval(s, env)) << "round " << round << " x=" << x << " y=" << y;
      }
  }
  EXPECT_GT(changed, 100);  // the ranges enabled real rewrites
}

// ---- Randomised value preservation -----------------------------------------------------

TEST(Simplify, RandomAffineExpressionsKeepTheirValue) {
  std::mt19937 rng(20240611);
  std::vector<Var> vars = {MakeVar("x"), MakeVar("y"), MakeVar("z")};
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  auto nonzero = [&]() {
    int v = pick(9) - 4;
    return v == 0 ? 3 : v;
  };
  std::function<PrimExpr(int)> gen = [&](int depth) -> PrimExpr {
    if (depth == 0 || pick(5) == 0) {
      return pick(3) == 0 ? I(pick(21) - 10) : PrimExpr(vars[pick(3)]);
    }
    switch (pick(10)) {
      case 0:
      case 1:
        return gen(depth - 1) + gen(depth - 1);
      case 2:
        return gen(depth - 1) - gen(depth - 1);
      case 3:
        return gen(depth - 1) * I(pick(7) - 3);
      case 4:
        return I(pick(5)) * gen(depth - 1);
      case 5:
        return FloorDiv(gen(depth - 1), I(nonzero()));
      case 6:
        return FloorMod(gen(depth - 1), I(nonzero()));
      case 7:
        return MakeBinary(pick(2) ? BinaryOp::kMin : BinaryOp::kMax, gen(depth - 1),
                          gen(depth - 1));
      case 8:  // products of two leaves only, so values stay far from int32 overflow
        if (depth == 1) return gen(0) * gen(0);
        return gen(depth - 1) + I(pick(5));
      default:
        return MakeSelect(MakeBinary(BinaryOp::kLT, gen(depth - 1), gen(depth - 1)), gen(depth - 1),
                          gen(depth - 1));
    }
  };
  int changed = 0, not_idempotent = 0;
  for (int round = 0; round < 1500; ++round) {
    PrimExpr e = gen(4);
    PrimExpr s = Simplify(e);
    if (!s.same_as(e)) ++changed;
    ASSERT_EQ(s->dtype, e->dtype);
    if (!Simplify(s).same_as(s)) ++not_idempotent;
    for (int trial = 0; trial < 12; ++trial) {
      Env env;
      for (const auto& v : vars) env[v.get()] = pick(41) - 20;
      int64_t want = Eval(e, env), got = Eval(s, env);
      ASSERT_EQ(want, got) << "round " << round << " x=" << env[vars[0].get()]
                           << " y=" << env[vars[1].get()] << " z=" << env[vars[2].get()];
    }
  }
  EXPECT_GT(changed, 500);       // the check exercised real rewrites
  EXPECT_EQ(not_idempotent, 0);  // simplified forms are fixed points
}

}  // namespace
}  // namespace tessera::tir
