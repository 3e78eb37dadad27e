// Randomly generated, well-typed modules round-trip through the text format and JSON and
// still type-check and evaluate: the generator mixes every graph construct (lets, tuples,
// projections, nested functions, global calls, constants, attributes) with PrimFuncs.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/json.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"

namespace tessera {
namespace {

/// Builds random expressions over tensors of one shape, so that any two combine.
class RandomModuleBuilder {
 public:
  explicit RandomModuleBuilder(uint32_t seed) : rng_(seed) {}

  IRModule Build() {
    int rank = Pick(1, 3);
    for (int i = 0; i < rank; ++i) shape_.push_back(Pick(1, 4));
    IRModule mod;
    // A PrimFunc adding a constant to every element, called through call_tir.
    mod = mod.WithFunction("add_c", MakeAddPrimFunc());
    // A helper graph function with typed params and return type, called from main.
    std::vector<Var> hp = {MakeVar("a", TensorT()), MakeVar("b", TensorT())};
    Attrs hattrs;
    if (Coin()) hattrs.Set("global_symbol", AttrValue("helper_sym"));
    mod = mod.WithFunction("helper", MakeFunction(hp, Body({hp[0], hp[1]}, 6), TensorT(), hattrs));

    std::vector<Var> params;
    for (int i = 0, n = Pick(1, 3); i < n; ++i)
      params.push_back(MakeVar("x" + std::to_string(i), TensorT()));
    std::vector<Expr> pool(params.begin(), params.end());
    pool.push_back(MakeCall(MakeGlobalVar("helper"), {Choose(pool), Choose(pool)}));
    pool.push_back(MakeOpCall(kCallTirOp, {MakeGlobalVar("add_c"), MakeTuple({Choose(pool)})}, {},
                              {TensorT()}));
    Expr body = Body(pool, Pick(4, 12));
    if (Coin()) body = MakeTuple({body, MakeOpCall("sum", {body}, SumAttrs())});
    return mod.WithFunction("main", MakeFunction(params, body));
  }

 private:
  int Pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin() { return Pick(0, 1) == 1; }
  Expr Choose(const std::vector<Expr>& pool) { return pool[Pick(0, int(pool.size()) - 1)]; }
  TensorType TensorT() { return MakeTensorType(shape_); }

  Attrs SumAttrs() {
    Attrs a;
    a.Set("axis", AttrValue(std::vector<AttrValue>{AttrValue(int64_t(0))}));
    a.Set("keepdims", AttrValue(Coin()));
    return a;
  }

  Expr RandomConstant() {
    if (Coin()) return MakeConstant(NDArray::Scalar(Pick(-3, 3) * 0.5, DType::kFloat32));
    NDArray data = NDArray::Empty(shape_, DType::kFloat32);
    for (int64_t i = 0; i < data.NumElements(); ++i) data.SetFloat(i, Pick(-8, 8) * 0.25);
    return MakeConstant(data);
  }

  /// One op call, a nested function, a tuple projection or a constant over `pool`.
  Expr Step(const std::vector<Expr>& pool) {
    switch (Pick(0, 7)) {
      case 0: {
        static const char* kUnary[] = {"nn.relu", "negative", "tanh", "sigmoid", "exp", "abs"};
        return MakeOpCall(kUnary[Pick(0, 5)], {Choose(pool)});
      }
      case 1: {
        static const char* kBinary[] = {"add", "subtract", "multiply", "maximum", "minimum"};
        return MakeOpCall(kBinary[Pick(0, 4)], {Choose(pool), Choose(pool)});
      }
      case 2: {
        Attrs a;
        a.Set("a_min", AttrValue(-1.5));
        a.Set("a_max", AttrValue(Pick(1, 4) * 0.5));
        return MakeOpCall("clip", {Choose(pool)}, a);
      }
      case 3: {
        Attrs a;
        a.Set("alpha", AttrValue(0.125 * Pick(1, 4)));
        return MakeOpCall("nn.leaky_relu", {Choose(pool)}, a);
      }
      case 4: {  // a nested (maybe Primitive) function called inline
        Var p = MakeVar("p", TensorT());
        Attrs fa;
        if (Coin()) fa.Set("Primitive", AttrValue(int64_t(1)));
        Function fn =
            MakeFunction({p}, MakeOpCall("nn.relu", {MakeOpCall("add", {p, p})}), TensorT(), fa);
        return MakeCall(fn, {Choose(pool)});
      }
      case 5:
        return MakeTupleGetItem(MakeTuple({Choose(pool), Choose(pool)}), Pick(0, 1));
      case 6:
        return MakeOpCall("add", {Choose(pool), RandomConstant()});
      default:
        return MakeOpCall("multiply", {Choose(pool), Choose(pool)});
    }
  }

  /// A body of `steps` steps; some are let-bound, the rest stay as dataflow.
  Expr Body(std::vector<Expr> pool, int steps) {
    std::vector<std::pair<Var, Expr>> lets;
    for (int i = 0; i < steps; ++i) {
      Expr e = Step(pool);
      if (Pick(0, 2) == 0) {
        Var v = MakeVar("v" + std::to_string(i), Coin() ? Type(TensorT()) : Type());
        lets.emplace_back(v, e);
        pool.push_back(v);
      } else {
        pool.push_back(e);
      }
    }
    Expr body = pool.back();
    for (size_t i = lets.size(); i-- > 0;) body = MakeLet(lets[i].first, lets[i].second, body);
    return body;
  }

  BaseFunc MakeAddPrimFunc() {
    using namespace tir;
    Buffer a = MakeBuffer("A", shape_), b = MakeBuffer("B", shape_);
    std::vector<IterVar> iters;
    std::vector<tir::Var> loops;
    std::vector<PrimExpr> idx;
    std::vector<Range> region;
    for (size_t d = 0; d < shape_.size(); ++d) {
      loops.push_back(tir::MakeVar("i" + std::to_string(d)));
      tir::Var v = tir::MakeVar("v" + std::to_string(d));
      iters.push_back({v, {IntImm(0), IntImm(shape_[d])}, IterKind::kSpatial, loops.back()});
      idx.push_back(v);
      region.push_back({v, IntImm(1)});
    }
    Stmt body =
        MakeBlock("add_c", iters, {{a, region}}, {{b, region}}, nullptr,
                  MakeStore(b, MakeBinary(BinaryOp::kAdd, MakeLoad(a, idx), FloatImm(0.5)), idx));
    for (size_t d = shape_.size(); d-- > 0;)
      body = MakeFor(loops[d], IntImm(0), IntImm(shape_[d]),
                     Coin() ? ForKind::kParallel : ForKind::kSerial, body);
    return MakePrimFunc({a, b}, 1, body);
  }

  std::mt19937 rng_;
  std::vector<int64_t> shape_;
};

TEST(RandomModules, RoundTripThroughTextAndJsonAndStillEvaluate) {
  std::string all_text;  // to check that the generator covers every construct
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    IRModule mod = RandomModuleBuilder(seed).Build();
    std::string text = PrintModule(mod);
    all_text += text;
    IRModule parsed = ParseModule(text, "random");
    ASSERT_TRUE(StructuralEqual(mod, parsed)) << StructuralDiff(mod, parsed).value_or("") << text;
    EXPECT_EQ(PrintModule(parsed), text);
    IRModule from_json = ModuleFromJson(ModuleToJson(mod));
    ASSERT_TRUE(StructuralEqual(mod, from_json)) << StructuralDiff(mod, from_json).value_or("");

    IRModule typed = InferTypes(parsed);
    IRModule typed_again = ParseModule(PrintModule(typed), "typed");
    EXPECT_TRUE(StructuralEqual(typed, InferTypes(typed_again)));
    std::map<std::string, NDArray> inputs;
    const auto* main = typed.Lookup("main").as<FunctionNode>();
    for (const Var& p : main->params) {
      const auto* t = p->type_annotation.as<TensorTypeNode>();
      NDArray x = NDArray::Empty(t->shape, t->dtype);
      for (int64_t i = 0; i < x.NumElements(); ++i) x.SetFloat(i, 0.25 * double(i % 7) - 0.5);
      inputs[p->name_hint] = x;
    }
    std::vector<NDArray> a = RunMain(mod, inputs).Flatten();
    std::vector<NDArray> b = RunMain(parsed, inputs).Flatten();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].BitwiseEqual(b[i]));
  }
  for (const char* construct : {"let %", "meta[", "Primitive=1", "call_tir(@add_c", ".1", "fn (",
                                "@helper(", "global_symbol=", "keepdims=", "parallel", "clip("})
    EXPECT_NE(all_text.find(construct), std::string::npos) << construct;
}

}  // namespace
}  // namespace tessera
