// Core object model, attributes, types, NDArray and module tests.
#include <gtest/gtest.h>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {
namespace {

TEST(Object, DeepChainDestroysWithoutRecursion) {
  Var x = MakeVar("x", MakeTensorType({4}));
  Expr e = x;
  for (int i = 0; i < 200000; ++i) e = MakeOpCall("nn.relu", {e});
  EXPECT_EQ(e->use_count(), 1);
  e = nullptr;  // must not overflow the stack
  EXPECT_EQ(x->use_count(), 1);
}

TEST(Object, AsAndFamilies) {
  Expr v = MakeVar("x");
  EXPECT_NE(v.as<VarNode>(), nullptr);
  EXPECT_NE(v.as<ExprNode>(), nullptr);
  EXPECT_EQ(v.as<CallNode>(), nullptr);
  Function f = MakeFunction({}, v);
  EXPECT_NE(Expr(f).as<BaseFuncNode>(), nullptr);
  tir::PrimFunc pf = tir::MakePrimFunc({}, 0, tir::MakeSeq({}), {});
  EXPECT_NE(Expr(pf).as<BaseFuncNode>(), nullptr);
  EXPECT_EQ(Expr(pf).as<FunctionNode>(), nullptr);
}

TEST(Attrs, EqualityIgnoresOrder) {
  Attrs a{{"x", 1}, {"y", "s"}};
  Attrs b{{"y", "s"}, {"x", 1}};
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.Hash(), b.Hash());
  EXPECT_FALSE(a == b.With("x", 2));
  EXPECT_EQ(AttrValue({AttrValue::Ints({0, 0}), AttrValue::Ints({2, 2})}).ToString(),
            "[[0, 0], [2, 2]]");
  EXPECT_EQ(AttrValue(1e-5).ToString(), "1e-05f");
  EXPECT_EQ(AttrValue(0.5).ToString(), "0.5f");
}

TEST(OpRegistry, UnknownOpAndAttributeErrors) {
  Var x = MakeVar("x", MakeTensorType({4}));
  try {
    MakeOpCall("nn.frobnicate", {x});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_NE(std::string(e.what()).find("nn.frobnicate"), std::string::npos);
  }
  try {
    MakeOpCall("nn.relu", {x}, Attrs{{"alpha", 1}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown attribute 'alpha'"), std::string::npos);
  }
  EXPECT_THROW(MakeOpCall("add", {x}), Error);
}

TEST(NDArray, AlignedAndHalfConversions) {
  NDArray a = NDArray::Empty({3, 5}, DType::kFloat32);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u);
  EXPECT_EQ(a.NumBytes(), 60u);
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 1e-6f}) {
    EXPECT_NEAR(HalfToFloat(FloatToHalf(f)), f, std::abs(f) * 1e-3 + 1e-7);
    EXPECT_NEAR(BFloat16ToFloat(FloatToBFloat16(f)), f, std::abs(f) * 1e-2);
  }
}

TEST(IRModule, LookupErrorsListFunctions) {
  Var x = MakeVar("x", MakeTensorType({4}));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, x));
  EXPECT_TRUE(mod.Contains("main"));
  try {
    mod.Lookup("nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("@main"), std::string::npos);
  }
  IRModule two = mod.WithFunction("g", MakeFunction({}, x));
  EXPECT_EQ(two.functions().size(), 2u);
  EXPECT_EQ(mod.functions().size(), 1u);
}

}  // namespace
}  // namespace tessera
