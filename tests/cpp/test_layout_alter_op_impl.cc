// AlterOpImpl: IR in, expected IR out for TVM's cases (one output, replacement only,
// implicit padding), the registry's text form naming PrimFuncs of the module, PlanLayouts
// cancelling the rewrites between two replaced ops, the same numbers throughout, and
// clear errors for replacements that do not fit.
#include <gtest/gtest.h>

#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/ir/printer.h"
#include "tessera/layout_plan/layout_passes.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {
namespace testing {
namespace {

using layout::IndexMap;

// An add of two (4, 4) buffers: the replacement of an add of (16,) vectors under
// i -> (i // 4, i % 4).
const char* kAdd4x4 = R"(
primfn @add_4x4(%A: Buffer[(4, 4), float32], %B: Buffer[(4, 4), float32]) -> (%C: Buffer[(4, 4), float32]) {
  for %i: int32 in 0 +: 4 {
    for %j: int32 in 0 +: 4 {
      block "C"(%vi: int32 in 0 +: 4 spatial = %i, %vj: int32 in 0 +: 4 spatial = %j) reads(%A[%vi, %vj], %B[%vi, %vj]) writes(%C[%vi, %vj]) {
        %C[%vi, %vj] = %A[%vi, %vj] + %B[%vi, %vj];
      }
    }
  }
}
)";

// A relu of a (1, 16) buffer: the replacement of a relu of (14,) under
// i -> (i // 16, i % 16), which pads.
const char* kRelu1x16 = R"(
primfn @relu_1x16(%A: Buffer[(1, 16), float32]) -> (%C: Buffer[(1, 16), float32]) {
  for %i: int32 in 0 +: 1 {
    for %j: int32 in 0 +: 16 {
      block "C"(%vi: int32 in 0 +: 1 spatial = %i, %vj: int32 in 0 +: 16 spatial = %j) reads(%A[%vi, %vj]) writes(%C[%vi, %vj]) {
        %C[%vi, %vj] = max(%A[%vi, %vj], 0f);
      }
    }
  }
}
)";

tir::PrimFunc PrimFuncOf(const char* text, const char* name) {
  return tir::PrimFunc(ParseModule(text).Lookup(name).as<tir::PrimFuncNode>());
}

IndexMap Split4() { return IndexMap::Parse("lambda i: (i // 4, i % 4)"); }

std::string Text(const IRModule& mod) {
  PrintOptions options;
  options.show_meta_data = false;
  return PrintModule(mod, options);
}

// The replacement's text under the name the pass gives it.
std::string Renamed(const char* text, const std::string& from, const std::string& to) {
  std::string s = text;
  size_t at = s.find("@" + from + "(");
  s.replace(at, from.size() + 1, "@" + to);
  size_t close = s.find(") -> (");
  // The copy carries its global symbol (after the last parameter).
  s.insert(close, ", global_symbol=\"" + to + "\"");
  return s;
}

TEST(AlterOpImpl, OneOutputWithBufferTransforms) {
  // TVM's test_single_output.
  OpImpl impl{PrimFuncOf(kAdd4x4, "add_4x4"), {Split4(), Split4(), Split4()}, ""};
  CheckPass(AlterOpImpl({{"add", impl}}), R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  add(%x, %y)
})IR",
            R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  %0 = layout_transform(%x, index_map="lambda i: (i // 4, i % 4)", pad_value=0f);
  %1 = layout_transform(%y, index_map="lambda i: (i // 4, i % 4)", pad_value=0f);
  %2 = call_tir(@add_replacement, (%0, %1), Tensor[(4, 4), float32], frozen_layout=True);
  layout_transform(%2, index_map="lambda a, b: (a * 4 + b)")
}
)IR" + Renamed(kAdd4x4, "add_4x4", "add_replacement"));
}

TEST(AlterOpImpl, ReplacementOnlyAndOneCopyForEveryCall) {
  // TVM's test_empty_layout_changes; two calls share the one replacement.
  OpImpl impl{PrimFuncOf(kAdd4x4, "add_4x4"), {}, ""};
  CheckPass(AlterOpImpl({{"add", impl}}), R"IR(
def @main(%x: Tensor[(4, 4), float32], %y: Tensor[(4, 4), float32]) {
  %0 = add(%x, %y);
  add(%0, %y)
})IR",
            R"IR(
def @main(%x: Tensor[(4, 4), float32], %y: Tensor[(4, 4), float32]) {
  %0 = call_tir(@add_replacement, (%x, %y), Tensor[(4, 4), float32], frozen_layout=True);
  call_tir(@add_replacement, (%0, %y), Tensor[(4, 4), float32], frozen_layout=True)
}
)IR" + Renamed(kAdd4x4, "add_4x4", "add_replacement"));
}

TEST(AlterOpImpl, AResultMapThatPadsIsCroppedBack) {
  // TVM's test_supported_implicit_padding: (14,) runs as (1, 16), zero in the padding.
  IndexMap pad16 = IndexMap::Parse("lambda i: (i // 16, i % 16)");
  OpImpl impl{PrimFuncOf(kRelu1x16, "relu_1x16"), {pad16, pad16}, ""};
  CheckPass(AlterOpImpl({{"nn.relu", impl}}), R"IR(
def @main(%x: Tensor[(14), float32]) {
  nn.relu(%x)
})IR",
            R"IR(
def @main(%x: Tensor[(14), float32]) {
  %0 = layout_transform(%x, index_map="lambda i: (i // 16, i % 16)", pad_value=0f);
  %1 = call_tir(@nn_relu_replacement, (%0,), Tensor[(1, 16), float32], frozen_layout=True);
  %2 = layout_transform(%1, index_map="lambda a, b: (b,)");
  crop(%2, begin=[0], sizes=[14])
}
)IR" + Renamed(kRelu1x16, "relu_1x16", "nn_relu_replacement"));
}

TEST(AlterOpImpl, PlanLayoutsCancelsTheRewritesBetweenReplacedOps) {
  // TVM's OptimizeLayoutTransform case: two chained replaced adds exchange (4, 4) tensors.
  OpImpl impl{PrimFuncOf(kAdd4x4, "add_4x4"), {Split4(), Split4(), Split4()}, ""};
  IRModule in = ParseModule(R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  %0 = add(%x, %y);
  add(%0, %y)
})IR");
  PassContext::Scope scope(PassContext::Create(3));
  IRModule out = InferTypes(Sequential({AlterOpImpl({{"add", impl}}), PlanLayouts()})(in));
  // y's transform is shared, the middle pair cancelled: x, y in and the result out.
  EXPECT_EQ(CountOpCalls(out, "layout_transform"), 3) << Text(out);
  EXPECT_EQ(CountOpCalls(out, "call_tir"), 2) << Text(out);
  auto inputs = RandomInputs(in);
  EXPECT_LE(MaxAbsDiff(RunMain(in, inputs), RunMain(out, inputs)), 1e-6);
}

TEST(AlterOpImpl, TheTextFormNamesPrimFuncsOfTheModule) {
  std::string text = std::string(R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  add(%x, %y)
}
)IR") + kAdd4x4;
  Pass pass = ParsePipeline(
      "AlterOpImpl{op_impls=\"add=@add_4x4\", op_buffer_transforms=\"add:lambda i: (i // 4, i % "
      "4)|lambda i: (i // 4, i % 4)|lambda i: (i // 4, i % 4)\"}");
  CheckPass(pass, text, std::string(R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  %0 = layout_transform(%x, index_map="lambda i: (i // 4, i % 4)", pad_value=0f);
  %1 = layout_transform(%y, index_map="lambda i: (i // 4, i % 4)", pad_value=0f);
  %2 = call_tir(@add_4x4, (%0, %1), Tensor[(4, 4), float32], frozen_layout=True);
  layout_transform(%2, index_map="lambda a, b: (a * 4 + b)")
}
)IR") + kAdd4x4);
}

TEST(AlterOpImpl, ReplacementsThatDoNotFitAreClearErrors) {
  IRModule add16 = ParseModule(R"IR(
def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {
  add(%x, %y)
})IR");
  tir::PrimFunc add = PrimFuncOf(kAdd4x4, "add_4x4");
  tir::PrimFunc relu = PrimFuncOf(kRelu1x16, "relu_1x16");
  IndexMap transpose = IndexMap::Parse("lambda i, j: (j, i)");
  // Without maps the (16,) operands do not match the (4, 4) parameters.
  ExpectError([&] { AlterOpImpl({{"add", OpImpl{add, {}, ""}}})(add16); }, ErrorKind::kType,
              "replacement of op 'add' takes parameter 0 ('A') as [4, 4] float32, but the "
              "operand 0 is [16] float32");
  ExpectError([&] { AlterOpImpl({{"add", OpImpl{relu, {}, ""}}})(add16); }, ErrorKind::kValue,
              "op 'add' has 2 operand(s) and one result, but its replacement takes 1 input(s)");
  ExpectError([&] { AlterOpImpl({{"add", OpImpl{add, {Split4()}, ""}}})(add16); },
              ErrorKind::kValue, "so 3 buffer transforms (or none), got 1");
  ExpectError(
      [&] { AlterOpImpl({{"add", OpImpl{add, {transpose, Split4(), Split4()}, ""}}})(add16); },
      ErrorKind::kType, "takes 2 indices but the operand has rank 1");
  IndexMap split8 = IndexMap::Parse("lambda i: (i // 8, i % 8)");
  ExpectError([&] { AlterOpImpl({{"add", OpImpl{add, {Split4(), split8, Split4()}, ""}}})(add16); },
              ErrorKind::kType, "operand 1 under lambda i: (i // 8, i % 8) is [2, 8]");
  IndexMap folds = IndexMap::Parse("lambda i: (i % 4, i % 4)");
  ExpectError([&] { AlterOpImpl({{"add", OpImpl{add, {folds, Split4(), Split4()}, ""}}})(add16); },
              ErrorKind::kValue, "of op 'add's operand 0 is not injective on [16]");
  ExpectError([&] { AlterOpImpl({}); }, ErrorKind::kValue, "needs at least one op");
  ExpectError([&] { GetPass("AlterOpImpl", Attrs{{"op_impls", "add=f;add=g"}}); },
              ErrorKind::kValue, "op 'add' is given two replacements");
  ExpectError([&] { AlterOpImpl({{"nn.nope", OpImpl{add, {}, ""}}}); }, ErrorKind::kNotFound,
              "unknown op 'nn.nope'");
  ExpectError([&] { GetPass("AlterOpImpl", Attrs{{"op_impls", "add=@nowhere"}})(add16); },
              ErrorKind::kNotFound, "the replacement 'nowhere' of op 'add' is not a PrimFunc");
  ExpectError([&] { GetPass("AlterOpImpl", Attrs{{"op_impls", "add"}}); }, ErrorKind::kValue,
              "must be op=prim_func");
  ExpectError(
      [&] {
        GetPass("AlterOpImpl", Attrs{{"op_impls", "add=f"}, {"op_buffer_transforms", "nn.relu:"}});
      },
      ErrorKind::kValue, "names op 'nn.relu', which op_impls gives no replacement");
}

}  // namespace
}  // namespace testing
}  // namespace tessera
