// Text format, graph level: exact printing, round trips of every construct, Relay input.
#include <cmath>
#include <cstring>
#include <limits>

#include "test_text_util.h"

namespace tessera {
namespace {

using testing::ExpectRoundTrip;
using testing::F32;

Function FuncOf(const IRModule& m, const char* name) {
  return m.LookupFunction(name);
}

// The module of the text-format spec, with ops every build registers.
const char* kGolden = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  %0 = add(%x, 0f);
  %1 = add(%0, %w);
  %2 = (%1, %1);
  %3 = %2.0;
  %4 = fn (%p0: Tensor[(1, 8), float32], Primitive=1) -> Tensor[(1, 8), float32] {
    nn.relu(%p0)
  };
  %5 = %4(%3);
  %6 = @other(%5);
  let %y: Tensor[(1, 8), float32] = add(%6, meta[Constant][0]);
  %y
}

def @other(%a: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
  nn.relu(%a)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[8],"data":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}
)";

TEST(TextGraph, GoldenModulePrintsExactlyAndKeepsSharing) {
  IRModule m = ParseModule(kGolden, "golden");
  EXPECT_EQ(PrintModule(m), kGolden);
  ExpectRoundTrip(m);
  // %2 = (%1, %1) holds the same node twice; the let var is the body.
  Function main = FuncOf(m, "main");
  auto* let = main->body.as<LetNode>();
  ASSERT_NE(let, nullptr);
  EXPECT_TRUE(let->body.same_as(let->var));
  auto* outer = let->value.as<CallNode>();
  auto* other = outer->args[0].as<CallNode>();
  EXPECT_EQ(other->callee.as<GlobalVarNode>()->name, "other");
  auto* call = other->args[0].as<CallNode>();
  auto* fn = call->callee.as<FunctionNode>();
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->attrs.GetInt("Primitive"), 1);
  auto* proj = call->args[0].as<TupleGetItemNode>();
  auto* tuple = proj->tuple.as<TupleNode>();
  EXPECT_TRUE(tuple->fields[0].same_as(tuple->fields[1]));
  auto* meta = outer->args[1].as<ConstantNode>();
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->data.shape(), std::vector<int64_t>{8});
  EXPECT_EQ(meta->data.GetFloat(3), 0.0);
}

TEST(TextGraph, SpecExampleWithRelayOpsRoundTrips) {
  std::string text = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 28, 28), float32], %w: Tensor[(8, 1, 5, 5), float32]) -> Tensor[(1, 8, 28, 28), float32] {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [2, 2], [2, 2]]);
  %1 = nn.conv2d(%0, %w, channels=8, kernel_size=[5, 5]);
  %2 = (%1, %1);
  %3 = %2.0;
  %4 = fn (%p0: Tensor[(1, 8, 28, 28), float32], Primitive=1) -> Tensor[(1, 8, 28, 28), float32] {
    nn.relu(%p0)
  };
  %5 = %4(%3);
  %6 = @other(%5);
  let %y: Tensor[(1, 8, 28, 28), float32] = add(%6, meta[Constant][0]);
  %y
}
def @other(%a: Tensor[(1, 8, 28, 28), float32]) { %a }
#[metadata]
{"Constant": [{"dtype": "float32", "shape": [8, 1, 1], "data": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}
)";
  IRModule m = ParseModule(text, "spec");
  ExpectRoundTrip(m);
  auto* sum = FuncOf(m, "main")->body.as<LetNode>()->value.as<CallNode>();
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->op()->name, "add");
}

TEST(TextGraph, EveryExpressionKindRoundTrips) {
  Var x = MakeVar("x", F32({2, 3}));
  Var y = MakeVar("y", F32({2, 3}));
  Var untyped = MakeVar("u");
  Expr a = MakeOpCall("add", {x, y});
  Expr r = MakeOpCall("nn.relu", {a});
  Expr tup = MakeTuple({a, r, x});
  Expr one = MakeTuple({r});
  Expr empty = MakeTuple({});
  Expr nested_proj = MakeTupleGetItem(MakeTupleGetItem(MakeTuple({tup, one}), 0), 2);
  Var p = MakeVar("p", F32({2, 3}));
  Var q = MakeVar("q", F32({2, 3}));
  Function inner =
      MakeFunction({q}, MakeOpCall("nn.relu", {q}), F32({2, 3}), Attrs{{"Composite", "dnnl.relu"}});
  Function outer = MakeFunction({p}, MakeCall(inner, {p}), nullptr,
                                Attrs{{"Primitive", 1}, {"Compiler", "dnnl"}});
  Var lv = MakeVar("lv", F32({2, 3}));
  Var lw = MakeVar("lw");
  Expr body = MakeLet(lv, MakeCall(outer, {nested_proj}),
                      MakeLet(lw, MakeTuple({lv, one, empty, MakeCall(MakeGlobalVar("g"), {lv})}),
                              MakeTupleGetItem(lw, 0)));
  Function main = MakeFunction({x, y, untyped}, body, nullptr, Attrs{{"global_symbol", "main"}});
  Var gx = MakeVar("gx", F32({2, 3}));
  Function g = MakeFunction({gx}, gx, F32({2, 3}));
  IRModule m = IRModule().WithFunction("g", g).WithFunction("main", main);
  m = m.WithAttr("executor", "graph").WithAttr("opt_level", 3);
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("#[attrs(executor=\"graph\", opt_level=3)]"), std::string::npos) << text;
  EXPECT_NE(text.find("(%1,)"), std::string::npos) << text;
  EXPECT_NE(text.find("fn (%q: Tensor[(2, 3), float32], Composite=\"dnnl.relu\")"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("let %lw = ("), std::string::npos) << text;
}

TEST(TextGraph, ClosuresQuotedGlobalsAndEmptyModules) {
  // A nested function that uses a node bound outside it refers to that binding.
  Var x = MakeVar("x", F32({3}));
  Expr shared = MakeOpCall("nn.relu", {x});
  Var p = MakeVar("p", F32({3}));
  Function closure = MakeFunction({p}, MakeOpCall("add", {p, shared}));
  Expr body = MakeOpCall("add", {MakeCall(closure, {shared}), MakeCall(MakeGlobalVar("a b"), {x})});
  Var q = MakeVar("q", F32({3}));
  IRModule m = IRModule()
                   .WithFunction("main", MakeFunction({x}, body))
                   .WithFunction("a b", MakeFunction({q}, q, nullptr, Attrs{{"odd.key", 1}}));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("  %0 = nn.relu(%x);\n  %1 = fn (%p: Tensor[(3), float32]) {\n    add(%p, "
                      "%0)\n  };\n  %2 = %1(%0);\n  %3 = @\"a b\"(%x);\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("def @\"a b\"(%q: Tensor[(3), float32], odd.key=1) {"), std::string::npos)
      << text;
  EXPECT_EQ(PrintModule(IRModule()), "#[version = \"0.0.5\"]\n");
  EXPECT_TRUE(ParseModule(PrintModule(IRModule())).functions().empty());
}

TEST(TextGraph, LetInsideAnOperandPrintsAsABraceBlock) {
  Var x = MakeVar("x", F32({3}));
  Var t = MakeVar("t", F32({3}));
  Expr inner = MakeLet(t, MakeOpCall("nn.relu", {x}), MakeOpCall("add", {t, t}));
  Expr body = MakeOpCall("add", {inner, x});
  IRModule m = IRModule::FromExpr(MakeFunction({x}, body));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(
      text.find("%0 = {\n    let %t: Tensor[(3), float32] = nn.relu(%x);\n    add(%t, %t)\n  };"),
      std::string::npos)
      << text;
}

TEST(TextGraph, DuplicateDigitAndOddVariableNamesAreDisambiguated) {
  Var a1 = MakeVar("a", F32({1}));
  Var a2 = MakeVar("a", F32({1}));
  Var digits = MakeVar("0", F32({1}));
  Var odd = MakeVar("in put:0", F32({1}));
  Var empty = MakeVar("", F32({1}));
  Expr body = MakeOpCall("add", {MakeOpCall("add", {a1, a2}),
                                 MakeOpCall("add", {digits, MakeOpCall("add", {odd, empty})})});
  IRModule m = IRModule::FromExpr(MakeFunction({a1, a2, digits, odd, empty}, body));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("def @main(%a: Tensor[(1), float32], %a_1: Tensor[(1), float32], %v0: "
                      "Tensor[(1), float32], %in_put_0: Tensor[(1), float32], %v: "),
            std::string::npos)
      << text;
  Function parsed = ParseModule(text).LookupFunction("main");
  EXPECT_EQ(parsed->params[1]->name_hint, "a_1");
}

TEST(TextGraph, InlineConstantsOfEveryLiteralDtype) {
  struct Case {
    DType dtype;
    double value;
    const char* text;
  };
  const Case cases[] = {
      {DType::kFloat32, 1.0, "1f"},
      {DType::kFloat32, -0.5, "-0.5f"},
      {DType::kFloat32, 0.1, "0.1f"},
      {DType::kFloat32, 1e-05, "1e-05f"},
      {DType::kFloat32, -0.0, "-0f"},
      {DType::kFloat64, 0.1, "0.1f64"},
      {DType::kFloat16, 1.5, "1.5f16"},
      {DType::kInt32, -7, "-7"},
      {DType::kInt64, 1e15, "1000000000000000i64"},
      {DType::kInt8, -128, "-128i8"},
      {DType::kUInt8, 255, "255u8"},
      {DType::kBool, 1, "True"},
      {DType::kBool, 0, "False"},
  };
  for (const Case& c : cases) {
    Expr k = MakeConstant(NDArray::Scalar(c.value, c.dtype));
    IRModule m = IRModule::FromExpr(MakeFunction({}, MakeTuple({k, k})));
    std::string text = ExpectRoundTrip(m);
    EXPECT_NE(text.find(std::string("(") + c.text + ", " + c.text + ")"), std::string::npos)
        << text;
    EXPECT_EQ(text.find("meta"), std::string::npos) << text;
  }
  // Bit-exact float32 round trip of awkward values.
  for (float v : {3.4028235e38f, 1.17549435e-38f, 1e-45f, 0.3f, 16777217.0f, -123.456f}) {
    Expr k = MakeConstant(NDArray::Scalar(v, DType::kFloat32));
    IRModule m = IRModule::FromExpr(MakeFunction({}, k));
    IRModule p = ParseModule(PrintModule(m));
    float got =
        static_cast<float>(p.LookupFunction("main")->body.as<ConstantNode>()->data.GetFloat(0));
    EXPECT_EQ(std::memcmp(&got, &v, sizeof v), 0) << PrintModule(m);
  }
}

TEST(TextGraph, NonFiniteBFloat16AndTensorConstantsGoToMetadata) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  std::vector<Expr> fields = {
      MakeConstant(NDArray::Scalar(nan, DType::kFloat32)),
      MakeConstant(NDArray::Scalar(-inf, DType::kFloat64)),
      MakeConstant(NDArray::Scalar(inf, DType::kFloat16)),
      MakeConstant(NDArray::Scalar(1.0, DType::kBFloat16)),
      MakeConstant(NDArray::FromFloats({2, 2}, {1, 2, 3, 4})),
      MakeConstant(NDArray::Zeros({0, 3}, DType::kInt64)),
  };
  fields.push_back(fields[4]);  // shared: the same meta index
  IRModule m = IRModule::FromExpr(MakeFunction({}, MakeTuple(fields)));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("(meta[Constant][0], meta[Constant][1], meta[Constant][2], "
                      "meta[Constant][3], meta[Constant][4], meta[Constant][5], "
                      "meta[Constant][4])"),
            std::string::npos)
      << text;
  IRModule parsed = ParseModule(text);
  auto* t = parsed.LookupFunction("main")->body.as<TupleNode>();
  EXPECT_TRUE(t->fields[4].same_as(t->fields[6]));
  EXPECT_TRUE(std::isnan(t->fields[0].as<ConstantNode>()->data.GetFloat(0)));
  EXPECT_EQ(t->fields[1].as<ConstantNode>()->data.GetFloat(0), -inf);
  EXPECT_EQ(t->fields[4].as<ConstantNode>()->data.GetFloat(3), 4.0);
  // Without the data the text names the constants but has no metadata section.
  PrintOptions no_meta;
  no_meta.show_meta_data = false;
  EXPECT_EQ(PrintModule(m, no_meta).find("#[metadata]"), std::string::npos);
}

TEST(TextGraph, AttributeValuesOfEveryKind) {
  Attrs attrs{{"i", -3},
              {"big", int64_t{1} << 40},
              {"f", 1e-05},
              {"half", 0.5},
              {"whole", 2.0},
              {"neg_zero", -0.0},
              {"inf", std::numeric_limits<double>::infinity()},
              {"ninf", -std::numeric_limits<double>::infinity()},
              {"s", "quote\" backslash\\ newline\n tab\t bell\x07 utf8 \xc3\xa9"},
              {"empty_s", ""},
              {"t", true},
              {"no", false},
              {"none", AttrValue()},
              {"nested", AttrValue{AttrValue::Ints({0, 0}), AttrValue::Ints({1, 2})}},
              {"mixed", AttrValue{1, 2.5, "x", AttrValue(), AttrValue(std::vector<AttrValue>{})}},
              {"weird key!", 1}};
  Var x = MakeVar("x", F32({1}));
  IRModule m = IRModule::FromExpr(MakeFunction({x}, x, nullptr, attrs));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("i=-3, big=1099511627776, f=1e-05f, half=0.5f, whole=2f, neg_zero=-0f, "
                      "inf=inff, ninf=-inff, s=\"quote\\\" backslash\\\\ newline\\n tab\\t "
                      "bell\\x07 utf8 \xc3\xa9\", empty_s=\"\", t=True, no=False, none=None, "
                      "nested=[[0, 0], [1, 2]], mixed=[1, 2.5f, \"x\", None, []], "
                      "\"weird key!\"=1"),
            std::string::npos)
      << text;
  // NaN attributes parse (structural equality treats them by value, so check directly).
  Function f =
      ParseModule("def @main(a=nanf, b=-nan, c=0.25, d=7f, e=1e3) { 0f }").LookupFunction("main");
  EXPECT_TRUE(std::isnan(f->attrs.GetFloat("a")));
  EXPECT_TRUE(std::isnan(f->attrs.GetFloat("b")));
  EXPECT_EQ(f->attrs.GetFloat("c"), 0.25);
  EXPECT_TRUE(f->attrs.Get("d").is_float());
  EXPECT_EQ(f->attrs.GetFloat("e"), 1000.0);
}

TEST(TextGraph, OpCallsOmitDefaultsAndNonOpCallsKeepAttributes) {
  Var x = MakeVar("x", F32({1}));
  Expr custom = MakeCall(MakeGlobalVar("g"), {x}, Attrs{{"hint", 2}}, {F32({1})});
  Expr tir = MakeOpCall(kCallTirOp, {MakeGlobalVar("g"), MakeTuple({x})}, {}, {F32({1})});
  Var y = MakeVar("y", F32({1}));
  IRModule m = IRModule()
                   .WithFunction("main", MakeFunction({x}, MakeTuple({custom, tir})))
                   .WithFunction("g", MakeFunction({y}, y));
  std::string text = ExpectRoundTrip(m);
  EXPECT_NE(text.find("@g(%x, type_args=[Tensor[(1), float32]], hint=2)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("call_tir(@g, (%x,), Tensor[(1), float32])"), std::string::npos) << text;
}

TEST(TextGraph, ShowTypesAddsComments) {
  Var x = MakeVar("x", F32({2}));
  Expr r = MakeOpCall("nn.relu", {x});
  r->set_checked_type(F32({2}));
  Expr body = MakeOpCall("add", {r, r});
  body->set_checked_type(F32({2}));
  PrintOptions opts;
  opts.show_types = true;
  std::string text = PrintModule(IRModule::FromExpr(MakeFunction({x}, body)), opts);
  EXPECT_NE(text.find("%0 = nn.relu(%x) /* ty=Tensor[(2), float32] */;\n  add(%0, %0) /* "
                      "ty=Tensor[(2), float32] */\n"),
            std::string::npos)
      << text;
  ParseModule(text);  // the comments parse away
}

TEST(TextGraph, PrintExprAndParseExpr) {
  Var x = MakeVar("x", F32({2}));
  Function f =
      MakeFunction({x}, MakeOpCall("add", {x, MakeConstant(NDArray::FromFloats({2}, {1, 2}))}));
  std::string text = PrintExpr(f);
  EXPECT_EQ(text.substr(0, 38), "fn (%x: Tensor[(2), float32]) {\n  add(") << text;
  Expr parsed = ParseExpr(text);
  EXPECT_TRUE(StructuralEqual(f, parsed));
  EXPECT_EQ(PrintExpr(parsed), text);
  Expr block = ParseExpr("%0 = (1f, 2i64);\nlet %t = %0.1;\n%t");
  EXPECT_NE(block.as<LetNode>(), nullptr);
}

TEST(TextGraph, ParserAcceptsRelaySpellings) {
  IRModule m = ParseModule(R"(
// a leading comment
fn (%x: Tensor[(10,), float32], %s: float32, %t: (Tensor[(2), float32],), %f: fn (float32) -> float32,
    %e: ()) -> Tensor[(10), float32] {
  # a hash comment
  %a = (%t,);
  %b1 = %a.0.0;  /* nested projection */
  %c = (((%x)));
  %2 = fn (%p) { %p }(%c);
  %d = (fn (%q) { %q })(%2);
  let %z: Tensor[(10), float32] = add(%d, 1.5);
  add(%z, meta[relay.Constant][0] /*Tensor[(10), float32]*/)
}
#[metadata]
{"Constant": [{"dtype": "float32", "shape": [10],
               "data": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="}]}
)");
  Function main = m.LookupFunction("main");
  EXPECT_EQ(main->params.size(), 5u);
  EXPECT_EQ(TypeToString(main->params[1]->type_annotation), "Tensor[(), float32]");
  EXPECT_EQ(TypeToString(main->params[2]->type_annotation), "(Tensor[(2), float32],)");
  EXPECT_EQ(TypeToString(main->params[3]->type_annotation),
            "fn (Tensor[(), float32]) -> Tensor[(), float32]");
  ExpectRoundTrip(m);
}

TEST(TextGraph, TwentyThousandCallChainPrintsAndParses) {
  Var x = MakeVar("x", F32({4}));
  Expr e = x;
  for (int i = 0; i < 20000; ++i)
    e = i % 2 ? MakeOpCall("nn.relu", {e}) : MakeOpCall("add", {e, x});
  IRModule m = IRModule::FromExpr(MakeFunction({x}, e));
  std::string text = PrintModule(m);
  EXPECT_NE(text.find("  %19998 = add(%19997, %x);\n  nn.relu(%19998)\n}"), std::string::npos);
  IRModule parsed = ParseModule(text);
  EXPECT_EQ(PrintModule(parsed), text);
  EXPECT_TRUE(StructuralEqual(m, parsed));
  // A chain of 20,000 lets too.
  Expr body = x;
  std::vector<Var> vars;
  for (int i = 0; i < 20000; ++i) vars.push_back(MakeVar("v", F32({4})));
  for (int i = 19999; i >= 0; --i)
    body = MakeLet(vars[i], MakeOpCall("nn.relu", {i ? Expr(vars[i - 1]) : Expr(x)}), body);
  IRModule lets = IRModule::FromExpr(MakeFunction({x}, body));
  std::string let_text = PrintModule(lets);
  EXPECT_EQ(PrintModule(ParseModule(let_text)), let_text);
}

TEST(TextGraph, DesignDocMnistWithMetadataParses) {
  // The constants' data comes from printing a module that holds them.
  std::vector<std::vector<int64_t>> shapes = {{8, 1, 5, 5}, {8, 1, 1}, {16, 8, 5, 5},
                                              {16, 1, 1},   {10, 256}, {1, 10}};
  std::vector<Expr> consts;
  for (size_t k = 0; k < shapes.size(); ++k) {
    NDArray a = NDArray::Empty(shapes[k], DType::kFloat32);
    for (int64_t i = 0; i < a.NumElements(); ++i)
      a.SetFloat(i, 0.01 * static_cast<double>((i * 7 + k) % 13) - 0.06);
    consts.push_back(MakeConstant(a));
  }
  std::string holder = PrintModule(IRModule::FromExpr(MakeFunction({}, MakeTuple(consts))));
  std::string metadata = holder.substr(holder.find("#[metadata]"));
  std::string text = R"(fn (%x: Tensor[(1, 1, 28, 28), float32]) -> Tensor[(1, 10), float32] {
  %0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 0], [2, 2], [2, 2]]);
  %1 = nn.conv2d(%0, meta[relay.Constant][0] /*Tensor[(8, 1, 5, 5), float32]*/,
                 padding=[0, 0, 0, 0], channels=8, kernel_size=[5, 5]);
  %2 = add(%1, meta[relay.Constant][1] /*Tensor[(8, 1, 1), float32]*/);
  %3 = nn.relu(%2);
  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %5 = nn.pad(%4, 0f, pad_width=[[0, 0], [0, 0], [2, 2], [2, 2]]);
  %6 = nn.conv2d(%5, meta[relay.Constant][2] /*Tensor[(16, 8, 5, 5), float32]*/,
                 padding=[0, 0, 0, 0], channels=16, kernel_size=[5, 5]);
  %7 = add(%6, meta[relay.Constant][3] /*Tensor[(16, 1, 1), float32]*/);
  %8 = nn.relu(%7);
  %9 = nn.max_pool2d(%8, pool_size=[3, 3], strides=[3, 3], padding=[0, 0, 0, 0]);
  %10 = reshape(%9, newshape=[1, 256]);
  %11 = nn.dense(%10, meta[relay.Constant][4] /*Tensor[(10, 256), float32]*/, units=None, out_dtype="float32");
  add(%11, meta[relay.Constant][5] /*Tensor[(1, 10), float32]*/)
}
)" + metadata;
  IRModule m = ParseModule(text, "mnist");
  std::string printed = ExpectRoundTrip(m);
  auto* last = m.LookupFunction("main")->body.as<CallNode>();
  ASSERT_NE(last, nullptr);
  EXPECT_TRUE(
      last->args[1].as<ConstantNode>()->data.BitwiseEqual(consts[5].as<ConstantNode>()->data));
  EXPECT_NE(printed.find("reshape(%9, newshape=[1, 256])"), std::string::npos) << printed;
}

}  // namespace
}  // namespace tessera
