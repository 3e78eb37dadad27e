// JSON module format tests: round trips of every node kind, sharing and identity,
// bit-exact floats, a 20,000-node chain, and errors for malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tessera/ir/json.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera::tir {
namespace {

/// A PrimFunc using every tensor-IR node kind, loop kind and binary operator.
PrimFunc EveryTirNode() {
  Buffer A = MakeBuffer("A", {4, 4}), B = MakeBuffer("B", {4}, DType::kInt32);
  Buffer C = MakeBuffer("C", {4}), T = MakeBuffer("T", {4}, DType::kFloat16);
  Var i = MakeVar("i"), j = MakeVar("j"), k = MakeVar("k"), u = MakeVar("u"), w = MakeVar("w");
  Var vi = MakeVar("vi"), vk = MakeVar("vk");
  std::vector<Stmt> stores;
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv,
                      BinaryOp::kFloorDiv, BinaryOp::kFloorMod, BinaryOp::kMin, BinaryOp::kMax})
    stores.push_back(MakeStore(B, MakeBinary(op, i, IntImm(3)), {i}));
  for (BinaryOp op :
       {BinaryOp::kEQ, BinaryOp::kNE, BinaryOp::kLT, BinaryOp::kLE, BinaryOp::kGT, BinaryOp::kGE})
    stores.push_back(MakeStore(B, MakeSelect(MakeBinary(op, i, IntImm(1)), i, IntImm(-1)), {i}));
  PrimExpr both =
      MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kLT, i, IntImm(2)), IntImm(1, DType::kBool));
  PrimExpr either = MakeBinary(BinaryOp::kOr, MakeNot(both), IntImm(0, DType::kBool));
  stores.push_back(MakeStore(
      B,
      MakeSelect(either,
                 MakeCast(DType::kInt32, MakeCast(DType::kInt64, i) + IntImm(5, DType::kInt64)),
                 MakeCast(DType::kInt32, IntImm(-3, DType::kInt8)) +
                     MakeCast(DType::kInt32, IntImm(200, DType::kUInt8))),
      {i}));
  PrimExpr fval =
      MakeIntrinsic("exp", {MakeLoad(A, {i, IntImm(0)})}) +
      MakeSelect(MakeIntrinsic("isnan", {MakeLoad(C, {i})}), FloatImm(1.5), FloatImm(NAN)) *
          MakeCast(DType::kFloat32, i) +
      MakeIntrinsic("pow", {FloatImm(INFINITY), FloatImm(-0.0)});
  stores.push_back(MakePrefetch(A, {i + 1, IntImm(0)}));
  stores.push_back(MakeStore(C, fval, {i}));
  Stmt loop_i = MakeFor(i, IntImm(0), IntImm(4), ForKind::kSerial, MakeSeq(stores));

  std::vector<IterVar> ivs = {{vi, {IntImm(0), IntImm(4)}, IterKind::kSpatial, j},
                              {vk, {IntImm(0), IntImm(4)}, IterKind::kReduce, k}};
  Stmt block = MakeBlock("reduce", ivs,
                         {{A, {{vi, IntImm(1)}, {IntImm(0), IntImm(4)}}}, {C, {{vi, IntImm(1)}}}},
                         {{C, {{vi, IntImm(1)}}}}, MakeStore(C, FloatImm(0.0), {vi}),
                         MakeStore(C, MakeLoad(C, {vi}) + MakeLoad(A, {vi, vk}), {vi}));
  Stmt loop_jk = MakeFor(j, IntImm(0), IntImm(4), ForKind::kVectorized,
                         MakeFor(k, IntImm(0), IntImm(4), ForKind::kSerial, block));
  Stmt loop_u = MakeFor(u, IntImm(0), IntImm(2), ForKind::kUnrolled,
                        MakeIfThenElse(MakeBinary(BinaryOp::kLT, u, IntImm(1)),
                                       MakeStore(B, u, {u}), MakeStore(B, IntImm(7), {u})));
  Stmt alloc =
      MakeAllocate(T, MakeFor(w, IntImm(0), IntImm(4), ForKind::kParallel,
                              MakeIfThenElse(MakeBinary(BinaryOp::kGE, w, IntImm(0)),
                                             MakeStore(T, FloatImm(0.5, DType::kFloat16), {w}))));
  return MakePrimFunc({A, B, C}, 2, MakeSeq({loop_i, loop_jk, loop_u, alloc}),
                      Attrs{{"global_symbol", "prim"}, {"tir.noalias", true}});
}

/// PrimFuncs with an empty body and a block without init (nullable parts).
IRModule NullablePartsModule() {
  Buffer b = MakeBuffer("b", {});
  Stmt blk = MakeBlock("scalar", {}, {}, {{b, {}}}, nullptr, MakeStore(b, FloatImm(2.0), {}));
  return IRModule()
      .WithFunction("empty", MakePrimFunc({}, 0, MakeSeq({})))
      .WithFunction("blk", MakePrimFunc({b}, 1, blk));
}

}  // namespace
}  // namespace tessera::tir

namespace tessera {
namespace {

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

uint64_t Bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

/// Attribute equality that compares floats by bit pattern (so NaN equals itself).
bool SameAttr(const AttrValue& a, const AttrValue& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_float()) return Bits(a.AsFloat()) == Bits(b.AsFloat());
  if (!a.is_array()) return a == b;
  if (a.AsArray().size() != b.AsArray().size()) return false;
  for (size_t i = 0; i < a.AsArray().size(); ++i)
    if (!SameAttr(a.AsArray()[i], b.AsArray()[i])) return false;
  return true;
}

void ExpectSameAttrs(const Attrs& a, const Attrs& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.items()[i].first, b.items()[i].first);  // order is kept too
    EXPECT_TRUE(SameAttr(a.items()[i].second, b.items()[i].second)) << a.items()[i].first;
  }
}

/// StructuralEqual, with the first difference in the failure message.
void ExpectStructurallyEqual(const IRModule& a, const IRModule& b) {
  EXPECT_TRUE(StructuralEqual(a, b)) << StructuralDiff(a, b).value_or("(no diff)");
}

/// Round-trips `mod`, checks text stability and (unless `structural` is false, for
/// modules with NaN attributes, which Attrs equality never equates) structural equality.
IRModule RoundTrip(const IRModule& mod, bool structural = true) {
  std::string json = ModuleToJson(mod);
  IRModule back = ModuleFromJson(json);
  EXPECT_EQ(ModuleToJson(back), json);
  EXPECT_EQ(ModuleToJson(back, 2), ModuleToJson(mod, 2));
  if (structural) ExpectStructurallyEqual(mod, back);
  return back;
}

/// Attributes of every kind; `with_nan` adds NaN values.
Attrs AllAttrKinds(bool with_nan) {
  Attrs attrs{
      {"int", 3},
      {"int_min", AttrValue(std::numeric_limits<int64_t>::min())},
      {"float_integral", 1.0},
      {"float", 0.1},
      {"neg_zero", -0.0},
      {"tiny", 5e-324},
      {"inf", std::numeric_limits<double>::infinity()},
      {"neg_inf", -std::numeric_limits<double>::infinity()},
      {"bool", true},
      {"none", AttrValue()},
      {"string", "NCHW"},
      {"ints", AttrValue::Ints({1, 2})},
      {"nested", {AttrValue::Ints({0, 0}), AttrValue::Ints({1, 1})}},
      {"mixed",
       {AttrValue(1), AttrValue(2.5), AttrValue("x"), AttrValue(), AttrValue(false),
        AttrValue(std::vector<AttrValue>{})}},
  };
  if (with_nan) {
    attrs.Set("nan", std::numeric_limits<double>::quiet_NaN());
    attrs.Set("nan_payload", FromBits(0xfff8000000000123ull));
  }
  return attrs;
}

IRModule GraphModule(bool with_nan = false) {
  Var a = MakeVar("a", MakeTensorType({2}));
  Var b = MakeVar("b", MakeTensorType({2}));
  Function helper =
      MakeFunction({a, b}, MakeOpCall("nn.relu", {MakeOpCall("add", {a, b})}), MakeTensorType({2}),
                   Attrs{{"Primitive", 1}, {"Composite", "x.add_relu"}});
  Var x = MakeVar("x", MakeTensorType({2, 2}));
  Var y = MakeVar("y", MakeTupleType({MakeTensorType({2}), MakeTensorType({}, DType::kInt64)}));
  Var f = MakeVar("f", MakeFuncType({MakeTensorType({2})}, MakeTensorType({2})));
  Var t = MakeVar("t");
  NDArray weird = NDArray::FromFloats({2, 2}, {1.0f, -0.0f, std::nanf(""), -INFINITY});
  NDArray i64 = NDArray::Empty({}, DType::kInt64);
  i64.SetInt(0, -123456789012345);
  NDArray bools = NDArray::Zeros({3}, DType::kBool);
  bools.SetInt(1, 1);
  Constant c = MakeConstant(weird);
  // Op call attributes are stored as given (already normalised by the builder).
  Expr sum = MakeCall(GetOp("add"), {x, c}, AllAttrKinds(with_nan));
  Expr call_tir =
      MakeOpCall(kCallTirOp, {MakeGlobalVar("prim"), MakeTuple({x})}, {}, {MakeTensorType({2, 2})});
  Expr tup = MakeTuple({sum, MakeTupleGetItem(y, 1), MakeCall(MakeGlobalVar("helper"), {c, c}),
                        MakeCall(f, {MakeTupleGetItem(y, 0)}), call_tir, MakeConstant(i64),
                        MakeConstant(bools), MakeConstant(NDArray::Empty({0, 3}, DType::kFloat16)),
                        MakeFunction({}, x), MakeTuple({})});
  Function main = MakeFunction({x, y, f}, MakeLet(t, tup, MakeTupleGetItem(t, 0)), nullptr,
                               AllAttrKinds(with_nan).With(attr::kGlobalSymbol, "main"));
  return IRModule()
      .WithFunction("main", main)
      .WithFunction("helper", helper)
      .WithAttr("executor", "graph")
      .WithAttr("opt_level", 3)
      .WithAttr("scale", 2.0);
}

TEST(Json, TinyModuleHasTheDocumentedFormat) {
  Var x = MakeVar("x", MakeTensorType({2}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, MakeOpCall("nn.relu", {x})));
  EXPECT_EQ(
      ModuleToJson(mod),
      R"({"format":"tessera-ir","version":1,"nodes":[)"
      R"({"kind":"Var","name":"x","type":{"kind":"TensorType","shape":[2],"dtype":"float32"}},)"
      R"({"kind":"Op","name":"nn.relu"},)"
      R"({"kind":"Call","callee":1,"args":[0],"attrs":{},"type_args":[]},)"
      R"({"kind":"Function","params":[0],"body":2,"ret_type":null,"attrs":{}}],)"
      R"("functions":[{"name":"main","node":3}],"attrs":{}})");
  RoundTrip(mod);
}

TEST(Json, GraphNodesRoundTrip) {
  IRModule mod = GraphModule();
  IRModule back = RoundTrip(mod);
  ASSERT_EQ(back.functions().size(), 2u);
  EXPECT_EQ(back.functions()[0].first, "main");
  EXPECT_EQ(back.functions()[1].first, "helper");
  ExpectSameAttrs(back.attrs(), mod.attrs());
  EXPECT_TRUE(back.attrs().Get("scale").is_float());
  EXPECT_TRUE(back.attrs().Get("opt_level").is_int());

  Function main = back.LookupFunction("main");
  ExpectSameAttrs(main->attrs, mod.LookupFunction("main")->attrs);
  auto* let = main->body.as<LetNode>();
  ASSERT_NE(let, nullptr);
  // The let variable is one node: bound by the let and used in its body.
  EXPECT_TRUE(let->body.as<TupleGetItemNode>()->tuple.same_as(let->var));
  EXPECT_EQ(let->var->type_annotation, nullptr);
  auto* tup = let->value.as<TupleNode>();
  ASSERT_EQ(tup->fields.size(), 10u);
  auto* sum = tup->fields[0].as<CallNode>();
  ASSERT_NE(sum->op(), nullptr);
  EXPECT_TRUE(sum->callee.same_as(GetOp("add")));  // interned op
  EXPECT_TRUE(sum->args[0].same_as(main->params[0]));
  ExpectSameAttrs(sum->attrs, AllAttrKinds(false));
  EXPECT_TRUE(sum->attrs.Get("float_integral").is_float());
  EXPECT_EQ(Bits(sum->attrs.Get("neg_zero").AsFloat()), Bits(-0.0));
  // Constants keep dtype, shape and bytes; the constant used three times is one node.
  auto* c = sum->args[1].as<ConstantNode>();
  ASSERT_NE(c, nullptr);
  auto* orig_c = mod.LookupFunction("main")
                     ->body.as<LetNode>()
                     ->value.as<TupleNode>()
                     ->fields[0]
                     .as<CallNode>()
                     ->args[1]
                     .as<ConstantNode>();
  EXPECT_TRUE(c->data.BitwiseEqual(orig_c->data));
  auto* helper_call = tup->fields[2].as<CallNode>();
  EXPECT_EQ(helper_call->callee.as<GlobalVarNode>()->name, "helper");
  EXPECT_TRUE(helper_call->args[0].same_as(sum->args[1]));
  EXPECT_TRUE(helper_call->args[1].same_as(sum->args[1]));
  auto* ct = tup->fields[4].as<CallNode>();
  EXPECT_EQ(ct->op()->name, kCallTirOp);
  ASSERT_EQ(ct->type_args.size(), 1u);
  EXPECT_TRUE(TypeEqual(ct->type_args[0], MakeTensorType({2, 2})));
  EXPECT_EQ(tup->fields[5].as<ConstantNode>()->data.GetInt(0), -123456789012345);
  EXPECT_EQ(tup->fields[6].as<ConstantNode>()->data.dtype(), DType::kBool);
  EXPECT_EQ(tup->fields[7].as<ConstantNode>()->data.shape(), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(TypeEqual(main->params[1]->type_annotation,
                        mod.LookupFunction("main")->params[1]->type_annotation));
  EXPECT_TRUE(TypeEqual(main->params[2]->type_annotation,
                        mod.LookupFunction("main")->params[2]->type_annotation));
  Function helper = back.LookupFunction("helper");
  EXPECT_TRUE(TypeEqual(helper->ret_type, MakeTensorType({2})));
  EXPECT_EQ(helper->attrs.GetInt("Primitive"), 1);
}

TEST(Json, AttrKindsAndNaNBitsSurvive) {
  IRModule mod = GraphModule(/*with_nan=*/true);
  IRModule back = RoundTrip(mod, /*structural=*/false);
  Function main = back.LookupFunction("main");
  ExpectSameAttrs(main->attrs, AllAttrKinds(true).With(attr::kGlobalSymbol, "main"));
  auto* sum = main->body.as<LetNode>()->value.as<TupleNode>()->fields[0].as<CallNode>();
  ExpectSameAttrs(sum->attrs, AllAttrKinds(true));
  EXPECT_EQ(Bits(sum->attrs.Get("nan_payload").AsFloat()), 0xfff8000000000123ull);
  EXPECT_TRUE(sum->attrs.Get("int").is_int());
  EXPECT_TRUE(sum->attrs.Get("bool").is_bool());
  EXPECT_TRUE(sum->attrs.Get("none").is_none());
  EXPECT_TRUE(sum->attrs.Get("mixed").AsArray()[1].is_float());
}

TEST(Json, TirNodesRoundTripWithIdentity) {
  tir::PrimFunc prim = tir::EveryTirNode();
  IRModule mod = GraphModule().WithFunction("prim", prim);
  IRModule back = RoundTrip(mod);
  auto* pf = back.Lookup("prim").as<tir::PrimFuncNode>();
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->num_outputs, 2);
  ASSERT_EQ(pf->params.size(), 3u);
  EXPECT_EQ(pf->params[1]->dtype, DType::kInt32);
  EXPECT_EQ(pf->attrs.GetBool("tir.noalias"), true);
  auto* seq = pf->body.as<tir::SeqStmtNode>();
  ASSERT_EQ(seq->seq.size(), 4u);
  // Loop variables and buffers keep their identity across all their uses.
  auto* loop_i = seq->seq[0].as<tir::ForNode>();
  auto* first = loop_i->body.as<tir::SeqStmtNode>()->seq[0].as<tir::BufferStoreNode>();
  EXPECT_TRUE(first->indices[0].same_as(loop_i->loop_var));
  EXPECT_TRUE(first->buffer.same_as(pf->params[1]));
  EXPECT_EQ(first->value.as<tir::BinaryNode>()->op, tir::BinaryOp::kAdd);
  auto* loop_j = seq->seq[1].as<tir::ForNode>();
  EXPECT_EQ(loop_j->kind, tir::ForKind::kVectorized);
  auto* block = loop_j->body.as<tir::ForNode>()->body.as<tir::BlockNode>();
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->name, "reduce");
  EXPECT_EQ(block->iter_vars[1].kind, tir::IterKind::kReduce);
  EXPECT_TRUE(block->iter_vars[0].binding.same_as(loop_j->loop_var));
  EXPECT_TRUE(block->reads[0].region[0].min.same_as(block->iter_vars[0].var));
  EXPECT_TRUE(block->reads[1].buffer.same_as(pf->params[2]));
  EXPECT_NE(block->init, nullptr);
  EXPECT_EQ(seq->seq[2].as<tir::ForNode>()->kind, tir::ForKind::kUnrolled);
  EXPECT_NE(seq->seq[2].as<tir::ForNode>()->body.as<tir::IfThenElseNode>()->else_case, nullptr);
  auto* alloc = seq->seq[3].as<tir::AllocateNode>();
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->buffer->dtype, DType::kFloat16);
  auto* loop_w = alloc->body.as<tir::ForNode>();
  EXPECT_EQ(loop_w->kind, tir::ForKind::kParallel);
  auto* ite = loop_w->body.as<tir::IfThenElseNode>();
  EXPECT_EQ(ite->else_case, nullptr);
  EXPECT_TRUE(ite->then_case.as<tir::BufferStoreNode>()->buffer.same_as(alloc->buffer));
  // Float literals are bit-exact: NaN, inf and -0.0 included.
  auto stores = loop_i->body.as<tir::SeqStmtNode>()->seq;
  auto* prefetch = stores[stores.size() - 2].as<tir::PrefetchNode>();
  ASSERT_NE(prefetch, nullptr);
  EXPECT_TRUE(prefetch->buffer.same_as(pf->params[0]));
  auto* fstore = stores.back().as<tir::BufferStoreNode>();
  auto* pow = fstore->value.as<tir::BinaryNode>()->b.as<tir::IntrinsicNode>();
  ASSERT_NE(pow, nullptr);
  EXPECT_EQ(pow->name, "pow");
  EXPECT_TRUE(std::isinf(pow->args[0].as<tir::FloatImmNode>()->value));
  EXPECT_EQ(Bits(pow->args[1].as<tir::FloatImmNode>()->value), Bits(-0.0));
}

TEST(Json, SharedNodesStayShared) {
  Var x = MakeVar("x", MakeTensorType({4}));
  Expr r = MakeOpCall("nn.relu", {x});
  Expr s = MakeOpCall("add", {r, r});
  Expr t = MakeOpCall("add", {s, MakeOpCall("nn.relu", {s})});
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, t));
  std::string json = ModuleToJson(mod);
  // x, relu, r, add, s, relu(s), t, fn: each distinct node once.
  EXPECT_EQ(nlohmann::json::parse(json)["nodes"].size(), 8u);
  IRModule back = RoundTrip(mod);
  auto* tc = back.LookupFunction("main")->body.as<CallNode>();
  auto* sc = tc->args[0].as<CallNode>();
  EXPECT_TRUE(sc->args[0].same_as(sc->args[1]));
  EXPECT_TRUE(tc->args[1].as<CallNode>()->args[0].same_as(tc->args[0]));
  EXPECT_TRUE(tc->args[1].as<CallNode>()->callee.same_as(sc->args[0].as<CallNode>()->callee));

  // A function object shared by two module entries stays one node.
  Function f = back.LookupFunction("main");
  IRModule twice = back.WithFunction("alias", f);
  IRModule again = ModuleFromJson(ModuleToJson(twice));
  EXPECT_TRUE(again.Lookup("main").same_as(again.Lookup("alias")));
}

TEST(Json, LongChainIsIterative) {
  Var x = MakeVar("x", MakeTensorType({4}));
  Expr e = x;
  for (int i = 0; i < 20000; ++i)
    e = MakeOpCall(i % 2 ? "nn.relu" : "add",
                   i % 2 ? std::vector<Expr>{e} : std::vector<Expr>{e, x});
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, e));
  std::string json = ModuleToJson(mod);
  EXPECT_EQ(nlohmann::json::parse(json)["nodes"].size(), 20000u + 4u);  // + x, two ops, fn
  IRModule back = ModuleFromJson(json);
  EXPECT_EQ(ModuleToJson(back), json);
  ExpectStructurallyEqual(mod, back);
}

TEST(Json, EmptyModuleAndNullableParts) {
  RoundTrip(IRModule());
  IRModule back = RoundTrip(tir::NullablePartsModule());
  EXPECT_EQ(back.Lookup("blk").as<tir::PrimFuncNode>()->body.as<tir::BlockNode>()->init, nullptr);
}

/// Runs ModuleFromJson on `text`, expecting a parse error containing `substring`.
void ExpectParseError(const std::string& text, const std::string& substring) {
  try {
    ModuleFromJson(text);
    ADD_FAILURE() << "expected a parse error containing '" << substring << "' for " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

/// A module document around `nodes`, with `main` at node `main_id`.
std::string Doc(const std::string& nodes, int main_id, const std::string& attrs = "{}") {
  return R"({"format":"tessera-ir","version":1,"nodes":[)" + nodes +
         R"(],"functions":[{"name":"main","node":)" + std::to_string(main_id) + R"(}],"attrs":)" +
         attrs + "}";
}

const char kVarX[] =
    R"({"kind":"Var","name":"x","type":{"kind":"TensorType","shape":[2],"dtype":"float32"}})";

TEST(Json, MalformedDocuments) {
  ExpectParseError("not json", "invalid JSON");
  ExpectParseError("[1, 2]", "$: expected an object, got array");
  ExpectParseError(R"({"format":"onnx","version":1,"nodes":[],"functions":[],"attrs":{}})",
                   "$.format: expected \"tessera-ir\", got \"onnx\"");
  ExpectParseError(R"({"format":"tessera-ir","version":2,"nodes":[],"functions":[],"attrs":{}})",
                   "$.version: unsupported version 2");
  ExpectParseError(R"({"format":"tessera-ir","version":1,"nodes":{},"functions":[],"attrs":{}})",
                   "nodes: expected an array, got object");
  ExpectParseError(R"({"format":"tessera-ir","version":1,"nodes":[],"attrs":{}})",
                   "$: missing field 'functions'");
  ExpectParseError(
      R"({"format":"tessera-ir","version":1,"nodes":[],"functions":[],"attrs":{"a":0.5}})",
      "attrs.a: a float attribute must be written {\"float\": value}");
}

TEST(Json, MalformedNodes) {
  std::string x = kVarX;
  std::string relu = R"({"kind":"Op","name":"nn.relu"})";
  std::string fn = R"({"kind":"Function","params":[0],"body":2,"ret_type":null,"attrs":{}})";
  // Sanity: the pieces make a valid module.
  EXPECT_NO_THROW(ModuleFromJson(Doc(
      x + "," + relu + R"(,{"kind":"Call","callee":1,"args":[0],"attrs":{},"type_args":[]},)" + fn,
      3)));
  ExpectParseError(
      Doc(x + "," + relu +
              R"(,{"kind":"Call","callee":1,"args":[0,3],"attrs":{},"type_args":[]},)" + fn,
          3),
      "nodes[2].args[1]: node id 3 is not defined yet");
  ExpectParseError(
      Doc(x + "," + relu +
              R"(,{"kind":"Call","callee":1,"args":[0,40],"attrs":{},"type_args":[]},)" + fn,
          3),
      "nodes[2].args[1]: node id 40 does not exist (the table has 4 nodes)");
  ExpectParseError(
      Doc(x + "," + relu + R"(,{"kind":"Call","callee":1,"args":[-1],"attrs":{},"type_args":[]},)" +
              fn,
          3),
      "nodes[2].args[0]: node id -1 is negative");
  ExpectParseError(Doc(x, 99),
                   "functions[0].node: node id 99 does not exist (the table has 1 nodes)");
  ExpectParseError(Doc(x, 0),
                   "functions[0].node: node 0 is a Var, expected a Function or PrimFunc");
  ExpectParseError(Doc(R"({"kind":"Frob"})", 0), "nodes[0].kind: unknown node kind 'Frob'");
  ExpectParseError(Doc(R"({"kind":"Var"})", 0), "nodes[0]: missing field 'name'");
  ExpectParseError(Doc(R"({"kind":"Var","name":5,"type":null})", 0),
                   "nodes[0].name: expected a string, got integer");
  ExpectParseError(
      Doc(R"({"kind":"Var","name":"x","type":{"kind":"TensorType","shape":[2],"dtype":"float7"}})",
          0),
      "nodes[0].type.dtype: unknown dtype 'float7'");
  ExpectParseError(Doc(R"({"kind":"Constant","dtype":"float32","shape":[2],"data":"AB$="})", 0),
                   "nodes[0].data: invalid base64 character at offset 2");
  ExpectParseError(Doc(R"({"kind":"Constant","dtype":"float32","shape":[2],"data":"AACAPw=="})", 0),
                   "nodes[0].data: 4 bytes of data for float32[2] (expected 8)");
  ExpectParseError(Doc(R"({"kind":"Constant","dtype":"float32","shape":[2],"data":"AACAPw="})", 0),
                   "nodes[0].data: base64 length 7 is not a multiple of 4");
  ExpectParseError(Doc(x + R"(,{"kind":"Op","name":"nn.frobnicate"})", 0),
                   "nodes[1].name: unknown op 'nn.frobnicate'");
  ExpectParseError(
      Doc(R"({"kind":"TirVar","name":"i","dtype":"int32"},{"kind":"Function","params":[],"body":0,"ret_type":null,"attrs":{}})",
          1),
      "nodes[1].body: node 0 is a TirVar, expected a graph expression");
  ExpectParseError(
      Doc(R"({"kind":"TirVar","name":"i","dtype":"int32"},{"kind":"FloatImm","dtype":"float32","value":1.5},)"
          R"({"kind":"Binary","op":"add","a":0,"b":1})",
          0),
      "nodes[2] (Binary): operands of '+' have different dtypes: int32 and float32");
  ExpectParseError(
      Doc(R"({"kind":"TirVar","name":"i","dtype":"int32"},{"kind":"Binary","op":"pow","a":0,"b":0})",
          0),
      "nodes[1].op: unknown binary operator 'pow'");
  ExpectParseError(Doc(R"({"kind":"FloatImm","dtype":"float32","value":"nope"})", 0),
                   "nodes[0].value: expected a number, \"inf\", \"-inf\" or \"nan\"");
  ExpectParseError(
      Doc(x + "," + relu +
              R"(,{"kind":"Call","callee":1,"args":[0],"attrs":{"alpha":1.5},"type_args":[]},)" +
              fn,
          3),
      "nodes[2].attrs.alpha: a float attribute must be written");
  ExpectParseError(Doc(x + R"(,{"kind":"TupleGetItem","tuple":0,"index":-2})", 0),
                   "nodes[1].index: value -2 is out of range");
  // Hostile nesting is rejected, not recursed into without bound.
  std::string deep = R"({"kind":"TensorType","shape":[],"dtype":"float32"})";
  for (int i = 0; i < 1000; ++i) deep = R"({"kind":"TupleType","fields":[)" + deep + "]}";
  ExpectParseError(Doc(R"({"kind":"Var","name":"x","type":)" + deep + "}", 0),
                   "types nest too deeply");
}

TEST(Json, NonFiniteFloatSpellings) {
  Var x = MakeVar("x", MakeTensorType({2}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, x))
                     .WithAttr("a", std::numeric_limits<double>::quiet_NaN())
                     .WithAttr("b", -std::numeric_limits<double>::infinity())
                     .WithAttr("c", FromBits(0x7ff0000000000001ull));  // signalling NaN payload
  std::string json = ModuleToJson(mod);
  EXPECT_NE(json.find(R"("a":{"float":"nan"})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("b":{"float":"-inf"})"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("c":{"float":"nan:0x7ff0000000000001"})"), std::string::npos) << json;
  IRModule back = ModuleFromJson(json);
  EXPECT_EQ(Bits(back.attrs().Get("c").AsFloat()), 0x7ff0000000000001ull);
  std::string fn = R"(,{"kind":"Function","params":[0],"body":0,"ret_type":null,"attrs":{}})";
  ExpectParseError(Doc(kVarX + fn, 1, R"({"a":{"float":"nan:0x7ff0000000000000"}})"),
                   "attrs.a.float: expected a number");
}

TEST(Json, RandomlyCorruptedDocumentsOnlyRaiseParseErrors) {
  using OJson = nlohmann::ordered_json;
  const OJson valid =
      OJson::parse(ModuleToJson(GraphModule().WithFunction("prim", tir::EveryTirNode())));
  const OJson replacements[] = {nullptr,
                                -1,
                                0,
                                1,
                                7,
                                100000,
                                1e300,
                                3.5,
                                "x",
                                "float32",
                                true,
                                OJson::array(),
                                OJson::object(),
                                OJson::array({0, 1})};
  std::mt19937 rng(7);
  int accepted = 0;
  for (int round = 0; round < 600; ++round) {
    OJson doc = valid;
    OJson& nodes = doc["nodes"];
    OJson& node = nodes[rng() % nodes.size()];
    // Replace, or delete, one field of one node (ids, kinds, dtypes, shapes, data, attrs...).
    auto it = node.begin();
    std::advance(it, rng() % node.size());
    std::string key = it.key();
    if (rng() % 5 == 0)
      node.erase(key);
    else
      node[key] = replacements[rng() % std::size(replacements)];
    std::string text = doc.dump();
    try {
      IRModule mod = ModuleFromJson(text);
      ++accepted;
      ModuleToJson(mod);  // whatever was accepted is a well-formed module
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what() << " for " << key;
    }
  }
  EXPECT_LT(accepted, 600);
}

}  // namespace
}  // namespace tessera
