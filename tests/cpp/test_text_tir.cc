// Text format, tensor level: primfn printing, parsing and round trips of every construct.
#include <cmath>
#include <limits>

#include "tessera/ir/json.h"
#include "test_text_util.h"

namespace tessera {
namespace {

using testing::ErrorOf;
using testing::ExpectRoundTrip;
using tir::BinaryOp;
using tir::BlockNode;
using tir::Buffer;
using tir::BufferRegion;
using tir::BufferStoreNode;
using tir::FloatImm;
using tir::FloorDiv;
using tir::FloorMod;
using tir::ForKind;
using tir::ForNode;
using tir::IntImm;
using tir::IntImmNode;
using tir::IntrinsicNames;
using tir::IterKind;
using tir::IterVar;
using tir::MakeAllocate;
using tir::MakeBinary;
using tir::MakeBlock;
using tir::MakeBuffer;
using tir::MakeCast;
using tir::MakeFor;
using tir::MakeIfThenElse;
using tir::MakeIntrinsic;
using tir::MakeLoad;
using tir::MakeNot;
using tir::MakePrimFunc;
using tir::MakeSelect;
using tir::MakeSeq;
using tir::MakeStore;
using tir::PrimExpr;
using tir::PrimFunc;
using tir::PrimFuncNode;
using tir::Range;
using tir::Stmt;

const char* kAddOne = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(10), float32]) {
  call_tir(@add_one, (%x,), Tensor[(10), float32])
}

primfn @add_one(%A: Buffer[(10), float32], global_symbol="add_one") -> (%B: Buffer[(10), float32]) {
  for %i: int32 in 0 +: 10 parallel {
    block "compute"(%vi: int32 in 0 +: 10 spatial = %i) reads(%A[%vi]) writes(%B[%vi]) {
      %B[%vi] = %A[%vi] + 1f;
    }
  }
}
)";

TEST(TextTir, AddOneGoldenTextRoundTripsExactly) {
  IRModule m = ParseModule(kAddOne, "add_one");
  EXPECT_EQ(PrintModule(m), kAddOne);
  ExpectRoundTrip(m);
  auto* f = m.Lookup("add_one").as<PrimFuncNode>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->num_outputs, 1);
  EXPECT_EQ(f->params[0]->name, "A");
  auto* loop = f->body.as<ForNode>();
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->kind, ForKind::kParallel);
  auto* block = loop->body.as<BlockNode>();
  ASSERT_NE(block, nullptr);
  EXPECT_TRUE(block->iter_vars[0].binding.same_as(loop->loop_var));
  EXPECT_EQ(block->reads[0].region[0].extent.as<IntImmNode>()->value, 1);
  auto* store = block->body.as<BufferStoreNode>();
  EXPECT_TRUE(store->buffer.same_as(f->params[1]));
}

PrimFunc EveryConstruct() {
  Buffer a = MakeBuffer("A", {4, 8});
  Buffer b = MakeBuffer("B", {8, 4});
  Buffer c = MakeBuffer("C", {4, 4});
  Buffer q = MakeBuffer("Q", {2}, DType::kInt64);
  tir::Var i = tir::MakeVar("i"), j = tir::MakeVar("j"), k = tir::MakeVar("k");
  tir::Var vi = tir::MakeVar("vi"), vj = tir::MakeVar("vj"), vk = tir::MakeVar("vk");
  auto iv = [](tir::Var v, int64_t extent, IterKind kind, PrimExpr bind) {
    return IterVar{v, Range{IntImm(0), IntImm(extent)}, kind, bind};
  };
  Stmt init = MakeStore(c, FloatImm(0), {vi, vj});
  Stmt update =
      MakeStore(c, MakeLoad(c, {vi, vj}) + MakeLoad(a, {vi, vk}) * MakeLoad(b, {vk, vj}), {vi, vj});
  Stmt block =
      MakeBlock("matmul",
                {iv(vi, 4, IterKind::kSpatial, i), iv(vj, 4, IterKind::kSpatial, j),
                 iv(vk, 8, IterKind::kReduce, k)},
                {BufferRegion{a, {Range{vi, IntImm(1)}, Range{IntImm(0), IntImm(8)}}},
                 BufferRegion{b, {Range{IntImm(0), IntImm(8)}, Range{vj, IntImm(1)}}}},
                {BufferRegion{c, {Range{vi, IntImm(1)}, Range{vj, IntImm(1)}}}}, init, update);
  Stmt nest = MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial,
                      MakeFor(j, IntImm(0), IntImm(4), ForKind::kVectorized,
                              MakeFor(k, IntImm(0), IntImm(8), ForKind::kUnrolled, block)));
  // Scratch buffer, branches and every kind of scalar expression.
  Buffer t = MakeBuffer("T", {16});
  tir::Var m = tir::MakeVar("m");
  tir::Var w = tir::MakeVar("w", DType::kInt64);
  PrimExpr x = MakeCast(DType::kFloat32, m);
  std::vector<PrimExpr> math;
  for (const auto& [name, arity] : IntrinsicNames()) {
    if (name == "isnan") continue;
    std::vector<PrimExpr> args(static_cast<size_t>(arity), x);
    math.push_back(MakeIntrinsic(name, args));
  }
  PrimExpr sum = FloatImm(-std::numeric_limits<double>::infinity());
  for (const auto& e : math) sum = sum + e;
  PrimExpr cond = MakeBinary(BinaryOp::kOr,
                             MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kLT, m, IntImm(4)),
                                        MakeBinary(BinaryOp::kGE, m, IntImm(-2))),
                             MakeNot(MakeBinary(BinaryOp::kEQ, FloorMod(m, IntImm(3)), IntImm(1))));
  PrimExpr cmp = MakeBinary(BinaryOp::kAnd,
                            MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kNE, m, IntImm(5)),
                                       MakeBinary(BinaryOp::kLE, m, IntImm(9))),
                            MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kGT, m, IntImm(-1)),
                                       MakeIntrinsic("isnan", {x})));
  PrimExpr ints = MakeBinary(BinaryOp::kMin, FloorDiv(m, IntImm(2)), IntImm(7)) -
                  MakeBinary(BinaryOp::kMax, MakeBinary(BinaryOp::kDiv, m, IntImm(3)), IntImm(0)) -
                  (IntImm(1) - m);
  PrimExpr sel = MakeSelect(MakeBinary(BinaryOp::kOr, cmp, IntImm(0, DType::kBool)), sum,
                            FloatImm(std::numeric_limits<double>::quiet_NaN()));
  PrimExpr literals =
      MakeCast(DType::kFloat32, FloatImm(0.1, DType::kFloat64) + FloatImm(-2.5, DType::kFloat64)) +
      MakeCast(DType::kFloat32, FloatImm(1.5, DType::kFloat16)) +
      MakeCast(DType::kFloat32, FloatImm(0.75, DType::kBFloat16)) +
      MakeCast(DType::kFloat32, IntImm(-5, DType::kInt8) + IntImm(-128, DType::kInt8)) +
      MakeCast(DType::kFloat32, IntImm(200, DType::kUInt8)) +
      MakeCast(DType::kFloat32, IntImm(std::numeric_limits<int64_t>::min(), DType::kInt64)) +
      MakeCast(DType::kFloat32,
               MakeSelect(IntImm(1, DType::kBool), IntImm(3), IntImm(-2147483648)));
  Stmt scratch = MakeAllocate(
      t,
      MakeSeq({MakeStore(t, sel, {ints}),
               MakeIfThenElse(cond, MakeStore(t, literals, {m}),
                              MakeIfThenElse(cmp, MakeStore(t, x, {m}))),
               MakeIfThenElse(cmp, MakeStore(t, FloatImm(-0.0), {m})),
               MakeStore(q, MakeCast(DType::kInt64, m) * IntImm(3, DType::kInt64) + w, {w}),
               MakePrefetch(a, {m + 4, IntImm(0)}),
               MakeBlock("empty", {}, {}, {BufferRegion{q, {Range{w, IntImm(1, DType::kInt64)}}}},
                         nullptr, MakeSeq({}))}));
  Stmt tail = MakeFor(
      m, IntImm(0), IntImm(16), ForKind::kSerial,
      MakeFor(w, IntImm(0, DType::kInt64), IntImm(2, DType::kInt64), ForKind::kParallel, scratch));
  return MakePrimFunc({a, b, c, q}, 2, MakeSeq({nest, tail}),
                      Attrs{{"global_symbol", "every"}, {"tir.noalias", true}});
}

TEST(TextTir, EveryStatementAndExpressionRoundTrips) {
  PrimFunc f = EveryConstruct();
  tessera::Var x = tessera::MakeVar("x", testing::F32({4, 8}));
  tessera::Var y = tessera::MakeVar("y", testing::F32({8, 4}));
  Expr call =
      MakeOpCall(kCallTirOp, {MakeGlobalVar("every"), MakeTuple({x, y})}, {},
                 {MakeTupleType({testing::F32({4, 4}), MakeTensorType({2}, DType::kInt64)})});
  IRModule m = IRModule().WithFunction("every", f).WithFunction("main", MakeFunction({x, y}, call));
  std::string text = ExpectRoundTrip(m);
  for (const char* piece :
       {"for %k: int32 in 0 +: 8 unrolled {",
        "for %j: int32 in 0 +: 4 vectorized {",
        "%vk: int32 in 0 +: 8 reduce = %k",
        "reads(%A[%vi, 0 +: 8], %B[0 +: 8, %vj])",
        "    init {\n            %C[%vi, %vj] = 0f;\n          }",
        "%C[%vi, %vj] = %C[%vi, %vj] + %A[%vi, %vk] * %B[%vk, %vj];",
        "allocate %T: Buffer[(16), float32] {",
        "} else {",
        "-inff + exp(float32(%m))",
        "pow(float32(%m), float32(%m))",
        "%m < 4 && %m >= -2 || !(floormod(%m, 3) == 1)",
        "min(floordiv(%m, 2), 7) - max(%m / 3, 0) - (1 - %m)",
        "nanf",
        "0.1f64 + -2.5f64",
        "1.5f16",
        "0.75bf16",
        "-5i8 + -128i8",
        "200u8",
        "-9223372036854775808i64",
        "select(True, 3, -2147483648)",
        "%Q[%w] = int64(%m) * 3i64 + %w;",
        "prefetch %A[%m + 4, 0];",
        "block \"empty\"() reads() writes(%Q[%w]) {\n",
        "-0f",
        "tir.noalias=True",
        "-> (%C: Buffer[(4, 4), float32], %Q: Buffer[(2), int64])",
        "call_tir(@every, (%x, %y), (Tensor[(4, 4), float32], Tensor[(2), int64]))"})
    EXPECT_NE(text.find(piece), std::string::npos) << piece << "\n" << text;
}

TEST(TextTir, UninitializedAllocationsRoundTripAndDifferFromZeroFilled) {
  Buffer a = MakeBuffer("A", {4}), t = MakeBuffer("T", {4});
  tir::Var i = tir::MakeVar("i");
  Stmt body = MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial,
                      MakeStore(t, MakeLoad(a, {i}), {i}));
  PrimFunc uninit = MakePrimFunc({a}, 0, MakeAllocate(t, body, /*zero_fill=*/false));
  PrimFunc zeroed = MakePrimFunc({a}, 0, MakeAllocate(t, body));
  std::string text = ExpectRoundTrip(IRModule().WithFunction("f", uninit));
  EXPECT_NE(text.find("allocate %T: Buffer[(4), float32] uninitialized {"), std::string::npos)
      << text;
  EXPECT_FALSE(StructuralEqual(IRModule().WithFunction("f", uninit),
                               IRModule().WithFunction("f", zeroed)));
  std::string json = ModuleToJson(IRModule().WithFunction("f", uninit));
  IRModule back = ModuleFromJson(json);
  EXPECT_FALSE(back.Lookup("f").as<tir::PrimFuncNode>()->body.as<tir::AllocateNode>()->zero_fill);
  size_t at = json.find("\"zero_fill\":false");
  ASSERT_NE(at, std::string::npos) << json;
  json.replace(at, std::string("\"zero_fill\":false").size(), "\"zero_fill\":1");
  std::string err = ErrorOf([&] { ModuleFromJson(json); });
  EXPECT_NE(err.find("zero_fill: expected a bool"), std::string::npos) << err;
}

TEST(TextTir, PrecedenceAndAssociativity) {
  auto parse = [](const std::string& expr) {
    std::string text =
        "primfn @f(%A: Buffer[(1), int32]) -> () { for %a: int32 in 0 +: 1 { "
        "for %b: int32 in 0 +: 1 { for %c: int32 in 0 +: 1 { %A[0] = " +
        expr + "; } } } }";
    IRModule m = ParseModule(text);
    const auto* f = m.Lookup("f").as<PrimFuncNode>();
    const auto* loop = f->body.as<ForNode>()->body.as<ForNode>()->body.as<ForNode>();
    return PrintPrimExpr(loop->body.as<BufferStoreNode>()->value);
  };
  EXPECT_EQ(parse("%a + %b * %c"), "%a + %b * %c");
  EXPECT_EQ(parse("(%a + %b) * %c"), "(%a + %b) * %c");
  EXPECT_EQ(parse("%a - (%b - %c)"), "%a - (%b - %c)");
  EXPECT_EQ(parse("(%a - %b) - %c"), "%a - %b - %c");
  EXPECT_EQ(parse("-%a"), "0 - %a");
  EXPECT_EQ(parse("- 3 * %a"), "-3 * %a");
  EXPECT_EQ(parse("%a - -3"), "%a - -3");
  EXPECT_EQ(parse("int32(%a < %b || %b < %c && %a == %c)"),
            "int32(%a < %b || %b < %c && %a == %c)");
  EXPECT_EQ(parse("int32(!(%a < %b))"), "int32(!(%a < %b))");
  EXPECT_EQ(parse("select(%a <= %b, max(%a, %b), floordiv(%c, 2))"),
            "select(%a <= %b, max(%a, %b), floordiv(%c, 2))");
}

TEST(TextTir, PrintStmtAndExprStandalone) {
  Buffer b = MakeBuffer("out", {2});
  tir::Var i = tir::MakeVar("i");
  Stmt s = MakeFor(i, IntImm(0), IntImm(2), ForKind::kSerial,
                   MakeStore(b, FloatImm(0.5) * MakeCast(DType::kFloat32, i), {i}));
  EXPECT_EQ(PrintStmt(s),
            "for %i: int32 in 0 +: 2 serial {\n  %out[%i] = 0.5f * float32(%i);\n}\n");
  EXPECT_EQ(PrintPrimExpr(IntImm(3, DType::kInt64) + IntImm(4, DType::kInt64)), "3i64 + 4i64");
  PrimFunc f = MakePrimFunc({b}, 1, s);
  std::string text = PrintExpr(f);
  EXPECT_EQ(text.substr(0, 40), "primfn () -> (%out: Buffer[(2), float32]") << text;
  EXPECT_TRUE(StructuralEqual(Expr(f), ParseExpr(text)));
}

TEST(TextTir, TypeErrorsFromBuildersAreLocated) {
  auto err = [](const std::string& body) {
    return ErrorOf([&] {
      ParseModule(
          "primfn @f(%A: Buffer[(4), float32], %I: Buffer[(4), int32]) -> () {\n" + body + "\n}",
          "t");
    });
  };
  EXPECT_EQ(err("  %A[0] = 1;"), "t:2:3: store of int32 into float32 buffer 'A'");
  EXPECT_EQ(err("  %A[0] = %A[0] + %I[0];"),
            "t:2:17: operands of '+' have different dtypes: float32 and int32");
  EXPECT_EQ(err("  %A[0, 1] = 1f;"), "t:2:3: store to buffer 'A' of rank 1 with 2 indices");
  EXPECT_EQ(err("  %A[0] = exp(1f, 2f);"), "t:2:11: intrinsic 'exp' takes 1 argument(s), got 2");
  EXPECT_EQ(err("  %A[0] = frob(1f);"),
            "t:2:11: unknown intrinsic 'frob' (valid: exp, log, sqrt, rsqrt, tanh, erf, sigmoid, "
            "abs, floor, ceil, round, sin, cos, pow, isnan, fmod)");
  EXPECT_EQ(err("  %A[0] = min(1f);"), "t:2:11: 'min' takes 2 argument(s), got 1");
  EXPECT_EQ(err("  %X[0] = 1f;"), "t:2:3: undefined buffer '%X'");
  EXPECT_EQ(err("  prefetch %A[0, 1];"), "t:2:12: prefetch of buffer 'A' of rank 1 with 2 indices");
  EXPECT_EQ(err("  prefetch %A[1.5f];"), "t:2:12: index into buffer 'A' is a float");
  EXPECT_EQ(err("  prefetch %Y[0];"), "t:2:12: undefined buffer '%Y'");
  EXPECT_EQ(err("  %A[%i] = 1f;"), "t:2:6: undefined variable '%i'");
  EXPECT_EQ(err("  for %i: int32 in 0 +: 4 sideways { }"),
            "t:2:27: unknown loop kind 'sideways' (valid: serial, parallel, vectorized, unrolled)");
  EXPECT_EQ(err("  if (1) { }"), "t:2:3: if condition must be bool, got int32");
  EXPECT_EQ(err("  block \"b\"() reads(%A[0, 1]) writes() { }"),
            "t:2:21: region of buffer '%A' has 2 range(s) but the buffer has rank 1");
  EXPECT_EQ(err("  %A[0] = 300i8;"), "t:2:11: integer literal '300i8' is out of range for int8");
  EXPECT_EQ(err("  %A[0] = 1.5i32;"),
            "t:2:11: literal '1.5i32' is not an integer but has the int32 suffix 'i32'");
}

}  // namespace
}  // namespace tessera
