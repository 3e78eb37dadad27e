// HoistLayoutRewrite and the TIR lifting under it (LiftLayoutRewrites): IR in, expected IR
// out, the same numbers (interpreter and native build), constant weights folded by
// SimplifyLayoutTransforms, and what is left alone.
#include <gtest/gtest.h>

#include <random>

#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/backend/build.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"
#include "tessera/layout/lift_layout_rewrite.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace testing {
namespace {

using layout::IndexMap;

// The seed's appendix: a 16x16 matmul whose prologue rewrites its weight into
// B_[j, k // 4, k % 4], the layout its inner loop reads.
const char* kMatmulKernel = R"(
primfn @matmul(%A: Buffer[(16, 16), float32], %B: Buffer[(16, 16), float32]) -> (%C: Buffer[(16, 16), float32]) {
  allocate %B_: Buffer[(16, 4, 4), float32] {
    for %i0: int32 in 0 +: 16 {
      for %i1: int32 in 0 +: 16 {
        block "B_rewrite"(%v0: int32 in 0 +: 16 spatial = %i0, %v1: int32 in 0 +: 16 spatial = %i1) reads(%B[%v0, %v1]) writes(%B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)]) {
          %B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)] = %B[%v0, %v1];
        }
      }
    }
    for %i: int32 in 0 +: 16 {
      for %j: int32 in 0 +: 16 {
        for %k: int32 in 0 +: 16 {
          block "C"(%vi: int32 in 0 +: 16 spatial = %i, %vj: int32 in 0 +: 16 spatial = %j, %vk: int32 in 0 +: 16 reduce = %k) reads(%A[%vi, %vk], %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)]) writes(%C[%vi, %vj]) {
            init {
              %C[%vi, %vj] = 0f;
            }
            %C[%vi, %vj] = %C[%vi, %vj] + %A[%vi, %vk] * %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)];
          }
        }
      }
    }
  }
}
)";

// The kernel after hoisting: it takes the rewritten weight.
const char* kMatmulHoisted = R"(
primfn @matmul(%A: Buffer[(16, 16), float32], %B_: Buffer[(16, 4, 4), float32]) -> (%C: Buffer[(16, 16), float32]) {
  for %i: int32 in 0 +: 16 {
    for %j: int32 in 0 +: 16 {
      for %k: int32 in 0 +: 16 {
        block "C"(%vi: int32 in 0 +: 16 spatial = %i, %vj: int32 in 0 +: 16 spatial = %j, %vk: int32 in 0 +: 16 reduce = %k) reads(%A[%vi, %vk], %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)]) writes(%C[%vi, %vj]) {
          init {
            %C[%vi, %vj] = 0f;
          }
          %C[%vi, %vj] = %C[%vi, %vj] + %A[%vi, %vk] * %B_[%vj, floordiv(%vk, 4), floormod(%vk, 4)];
        }
      }
    }
  }
}
)";

const char* kRewriteKernel = R"(
primfn @matmul_layout_rewrite(%B: Buffer[(16, 16), float32]) -> (%B_: Buffer[(16, 4, 4), float32]) {
  for %i0: int32 in 0 +: 16 {
    for %i1: int32 in 0 +: 16 {
      block "B_rewrite"(%v0: int32 in 0 +: 16 spatial = %i0, %v1: int32 in 0 +: 16 spatial = %i1) reads(%B[%v0, %v1]) writes(%B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)]) {
        %B_[%v1, floordiv(%v0, 4), floormod(%v0, 4)] = %B[%v0, %v1];
      }
    }
  }
}
)";

const char* kMain = R"(
def @main(%x: Tensor[(16, 16), float32], %w: Tensor[(16, 16), float32]) {
  call_tir(@matmul, (%x, %w), Tensor[(16, 16), float32])
}
)";

/// @main of `mod` with parameter `name` bound to a seeded random constant.
IRModule BindWeight(const IRModule& mod, const std::string& name) {
  Function main = mod.LookupFunction("main");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::unordered_map<const VarNode*, Expr> bind;
  std::vector<Var> params;
  for (const Var& p : main->params) {
    if (p->name_hint != name) {
      params.push_back(p);
      continue;
    }
    const auto* t = p->type_annotation.as<TensorTypeNode>();
    NDArray a = NDArray::Empty(t->shape, t->dtype);
    for (int64_t i = 0; i < a.NumElements(); ++i) a.SetFloat(i, dist(rng));
    bind[p.get()] = MakeConstant(a);
  }
  return InferTypes(mod.WithFunction(
      "main", MakeFunction(params, Substitute(main->body, bind), nullptr, main->attrs)));
}

/// The one call_tir of @matmul in @main.
const CallNode* MatmulCall(const IRModule& mod) {
  const CallNode* found = nullptr;
  PostOrderVisit(mod.LookupFunction("main")->body, [&](const Expr& e) {
    const auto* c = e.as<CallNode>();
    if (c && c->op() && c->op()->name == kCallTirOp && c->args[0].as<GlobalVarNode>()->name == "matmul")
      found = c;
  });
  return found;
}

TEST(HoistLayoutRewrite, RewriteOfAParameterBecomesItsOwnKernel) {
  CheckPass(HoistLayoutRewrite(), std::string(kMain) + kMatmulKernel, std::string(R"(
def @main(%x: Tensor[(16, 16), float32], %w: Tensor[(16, 16), float32]) {
  %0 = call_tir(@matmul_layout_rewrite, (%w,), Tensor[(16, 4, 4), float32]);
  call_tir(@matmul, (%x, %0), Tensor[(16, 16), float32], frozen_layout=True)
}
)") + kMatmulHoisted + kRewriteKernel);
}

TEST(HoistLayoutRewrite, ConstantWeightFoldsIntoTheRewrittenLayout) {
  IRModule in = BindWeight(ParseModule(std::string(kMain) + kMatmulKernel), "w");
  IRModule hoisted = HoistLayoutRewrite()(in);
  // The kernel takes the rewritten weight; the graph rewrites the constant by the map the
  // copy applied, and no rewrite kernel is needed.
  EXPECT_TRUE(StructuralEqual(IRModule().WithFunction("matmul", hoisted.Lookup("matmul")),
                              ParseModule(kMatmulHoisted)))
      << PrintModule(hoisted);
  EXPECT_FALSE(hoisted.Contains("matmul_layout_rewrite"));
  const CallNode* call = MatmulCall(hoisted);
  ASSERT_NE(call, nullptr);
  const auto* lt = call->args[1].as<TupleNode>()->fields[1].as<CallNode>();
  ASSERT_TRUE(lt && lt->op() && lt->op()->name == "layout_transform") << PrintModule(hoisted);
  IndexMap map = IndexMap::Parse("lambda k, n: (n, k // 4, k % 4)");
  EXPECT_EQ(IndexMap::Parse(lt->attrs.GetString("index_map")), map);

  IRModule folded = SimplifyLayoutTransforms()(hoisted);
  const auto* w = MatmulCall(folded)->args[1].as<TupleNode>()->fields[1].as<ConstantNode>();
  ASSERT_NE(w, nullptr) << PrintModule(folded);
  EXPECT_EQ(w->data.shape(), (std::vector<int64_t>{16, 4, 4}));
  const auto* original = MatmulCall(in)->args[1].as<TupleNode>()->fields[1].as<ConstantNode>();
  NDArray want = map.Apply(original->data);
  for (int64_t i = 0; i < want.NumElements(); ++i)
    ASSERT_EQ(want.GetFloat(i), w->data.GetFloat(i)) << "element " << i;

  auto inputs = RandomInputs(in);
  Value expect = RunMain(in, inputs);
  EXPECT_EQ(MaxAbsDiff(expect, RunMain(folded, inputs)), 0.0);
  // And natively: the build takes a module already calling PrimFuncs.
  runtime::Executor native(Build(folded, "native"));
  std::vector<NDArray> got = native.Run(inputs);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_LE(MaxAbsDiff(expect, Value(got[0])), 1e-5);
}

TEST(HoistLayoutRewrite, ThroughTheRegistryAndAPipeline) {
  IRModule in = BindWeight(ParseModule(std::string(kMain) + kMatmulKernel), "w");
  // PlanLayouts is opt_level 3.
  PassContext ctx = PassContext::Create(3);
  PassContext::Scope scope(ctx);
  IRModule out = ParsePipeline("HoistLayoutRewrite,PlanLayouts")(in);
  EXPECT_NE(MatmulCall(out)->args[1].as<TupleNode>()->fields[1].as<ConstantNode>(), nullptr)
      << PrintModule(out);
  auto inputs = RandomInputs(in);
  EXPECT_EQ(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 0.0);
}

TEST(HoistLayoutRewrite, WhatCannotBeHoistedStaysInTheKernel) {
  // The prologue scales while copying: not a layout rewrite.
  std::string scaled = kMatmulKernel;
  std::string from = "= %B[%v0, %v1];";
  scaled.replace(scaled.find(from), from.size(), "= %B[%v0, %v1] * 2f;");
  IRModule in = ParseModule(std::string(kMain) + scaled);
  EXPECT_TRUE(StructuralEqual(HoistLayoutRewrite()(in), InferTypes(in)));
  // The source is read again after the copy: the kernel still needs it.
  std::string reread = kMatmulKernel;
  std::string use = "%A[%vi, %vk] * %B_";
  reread.replace(reread.find(use), use.size(), "%A[%vi, %vk] * %B[%vk, %vj] * %B_");
  in = ParseModule(std::string(kMain) + reread);
  EXPECT_TRUE(StructuralEqual(HoistLayoutRewrite()(in), InferTypes(in)));
  // A call inside a kernel the pass does not rewrite pins the callee's signature.
  in = ParseModule(std::string(R"(
def @main(%x: Tensor[(16, 16), float32], %w: Tensor[(16, 16), float32]) {
  %0 = fn (%p: Tensor[(16, 16), float32], %q: Tensor[(16, 16), float32], Primitive=1) {
    call_tir(@matmul, (%p, %q), Tensor[(16, 16), float32])
  };
  %0(%x, %w)
}
)") + kMatmulKernel);
  EXPECT_TRUE(StructuralEqual(HoistLayoutRewrite()(in), InferTypes(in)));
}

TEST(LiftLayoutRewrites, PaddingCopyRecoversTheMap) {
  // C = 6 into NCHW4c (padded to 8): the lifted map pads, the kernel reads only real lanes.
  IRModule m = ParseModule(R"(
primfn @f(%X: Buffer[(6, 2), float32]) -> (%Y: Buffer[(6, 2), float32]) {
  allocate %X_: Buffer[(2, 2, 4), float32] {
    for %i0: int32 in 0 +: 6 {
      for %i1: int32 in 0 +: 2 {
        block "X_rewrite"(%v0: int32 in 0 +: 6 spatial = %i0, %v1: int32 in 0 +: 2 spatial = %i1) reads(%X[%v0, %v1]) writes(%X_[floordiv(%v0, 4), %v1, floormod(%v0, 4)]) {
          %X_[floordiv(%v0, 4), %v1, floormod(%v0, 4)] = %X[%v0, %v1];
        }
      }
    }
    for %i: int32 in 0 +: 6 {
      for %j: int32 in 0 +: 2 {
        block "Y"(%vi: int32 in 0 +: 6 spatial = %i, %vj: int32 in 0 +: 2 spatial = %j) reads(%X_[floordiv(%vi, 4), %vj, floormod(%vi, 4)]) writes(%Y[%vi, %vj]) {
          %Y[%vi, %vj] = %X_[floordiv(%vi, 4), %vj, floormod(%vi, 4)] + 1f;
        }
      }
    }
  }
})");
  tir::PrimFunc f(static_cast<const tir::PrimFuncNode*>(m.Lookup("f").get()));
  layout::LiftedLayoutRewrites lifted = layout::LiftLayoutRewrites(f);
  ASSERT_EQ(lifted.rewrites.size(), 1u);
  EXPECT_EQ(lifted.rewrites[0].param_index, 0);
  EXPECT_EQ(lifted.rewrites[0].map, IndexMap::FromLayouts("CW", "CW4c"));
  EXPECT_EQ(lifted.func->params[0]->shape, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(lifted.rewrites[0].rewrite->params[1]->shape, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(lifted.func->body.as<tir::ForNode>() != nullptr, true) << "the allocation is gone";
}

}  // namespace
}  // namespace testing
}  // namespace tessera
