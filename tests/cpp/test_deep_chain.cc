// The 20,000-op chain of the foundation issue through every stage: print, parse, infer
// types, compare, hash, JSON, interpret, and the standard pipeline.
#include <gtest/gtest.h>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/json.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/op.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace {

constexpr int kDepth = 20000;

/// x -> add(x, 1f) -> nn.relu -> add(., 1f) -> ... (alternating), 20,000 ops deep.
IRModule DeepChain() {
  Var x = MakeVar("x", MakeTensorType({2, 3}));
  Expr one = MakeConstant(NDArray::Scalar(1.0, DType::kFloat32));
  Expr e = x;
  for (int i = 0; i < kDepth; ++i) e = i % 2 ? MakeOpCall("nn.relu", {e}) : MakeOpCall("add", {e, one});
  return IRModule::FromExpr(MakeFunction({x}, e));
}

TEST(DeepChain, EveryStageHandlesTwentyThousandOps) {
  IRModule mod = DeepChain();
  IRModule typed = InferTypes(mod);
  EXPECT_EQ(TypeToString(typed.LookupFunction("main")->ret_type), "Tensor[(2, 3), float32]");

  std::string text = PrintModule(mod);
  IRModule parsed = ParseModule(text);
  EXPECT_TRUE(StructuralEqual(mod, parsed));
  EXPECT_EQ(StructuralHash(mod), StructuralHash(parsed));
  EXPECT_EQ(PrintModule(parsed), text);

  IRModule from_json = ModuleFromJson(ModuleToJson(mod));
  EXPECT_TRUE(StructuralEqual(mod, from_json));

  NDArray input = NDArray::FromFloats({2, 3}, {-5, -1, 0, 1, 2, 3});
  NDArray out = RunMain(mod, {{"x", input}}).tensor();
  // Each add-then-relu pair adds 1 and clamps at 0: after 10,000 pairs, max(x, 0) + 10000
  // for the first step's max(x + 1, 0) ... computed exactly in float32 below.
  for (int i = 0; i < 6; ++i) {
    float v = input.data_as<float>()[i];
    for (int k = 0; k < kDepth / 2; ++k) v = std::max(v + 1.0f, 0.0f);
    EXPECT_EQ(out.data_as<float>()[i], v);
  }

  IRModule fused = ParsePipeline("FoldConstant,FuseOps{max_depth=64}")(mod);
  NDArray fused_out = RunMain(fused, {{"x", input}}).tensor();
  EXPECT_TRUE(fused_out.BitwiseEqual(out));
}

TEST(DeepChain, DifferenceAtTheBottomIsDetected) {
  IRModule a = DeepChain();
  Var x = MakeVar("x", MakeTensorType({2, 3}));
  Expr two = MakeConstant(NDArray::Scalar(2.0, DType::kFloat32));
  Expr one = MakeConstant(NDArray::Scalar(1.0, DType::kFloat32));
  Expr e = MakeOpCall("add", {x, two});  // differs only in the first op's constant
  for (int i = 1; i < kDepth; ++i) e = i % 2 ? MakeOpCall("nn.relu", {e}) : MakeOpCall("add", {e, one});
  IRModule b = IRModule::FromExpr(MakeFunction({x}, e));
  EXPECT_FALSE(StructuralEqual(a, b));
  EXPECT_TRUE(StructuralDiff(a, b).has_value());
}

}  // namespace
}  // namespace tessera
