// SuggestLayoutTransforms on single-op PrimFuncs: elementwise, reduction, broadcast,
// pooling windows, where the flow stops, and bad input.
#include <gtest/gtest.h>

#include "test_util.h"
#include "tessera/backend/lower/lower_primitive.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/layout/suggest_layout_transforms.h"

namespace tessera {
namespace {

using layout::IndexMap;
using layout::SuggestLayoutTransforms;

/// @main of `text` lowered to one PrimFunc (params: main's, then the result).
tir::PrimFunc LowerMain(const std::string& text) {
  IRModule mod = InferTypes(ParseModule(text));
  return lower::LowerPrimitive(WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}),
                               "k");
}

void ExpectMap(const IndexMap& got, const std::string& want, const std::vector<int64_t>& shape) {
  ASSERT_TRUE(got.defined()) << "no map, wanted " << want;
  IndexMap w = IndexMap::Parse(want);
  EXPECT_TRUE(got.EqualOn(w, shape)) << got.ToString() << " vs " << want;
}

TEST(SuggestLayoutTransforms, ElementwiseTakesTheResultMap) {
  auto f = LowerMain(R"(def @main(%x: Tensor[(2, 8, 4, 4), float32]) { nn.relu(%x) })");
  auto s = SuggestLayoutTransforms(f, {IndexMap::FromLayouts("NCHW", "NHWC")});
  ExpectMap(s.params[0], "lambda n, c, h, w: (n, h, w, c)", {2, 8, 4, 4});
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_TRUE(s.conflicts.empty());
}

TEST(SuggestLayoutTransforms, ReductionAxesBecomeNewAxesInPlace) {
  // TVM's NCHW16c case: a sum over H and W with a blocked result blocks the input.
  auto f = LowerMain(R"(def @main(%x: Tensor[(2, 32, 4, 4), float32]) { sum(%x, axis=[2, 3]) })");
  auto s = SuggestLayoutTransforms(f, {IndexMap::Parse("lambda n, c: (n, c // 16, c % 16)")});
  ExpectMap(s.params[0], "lambda n, c, h, w: (n, c // 16, h, w, c % 16)", {2, 32, 4, 4});
}

TEST(SuggestLayoutTransforms, BroadcastOperandDropsAxesItLacks) {
  auto f = LowerMain(R"(
def @main(%x: Tensor[(2, 8, 4, 4), float32], %y: Tensor[(8, 4, 4), float32]) { add(%x, %y) })");
  auto s = SuggestLayoutTransforms(
      f, {IndexMap::Parse("lambda n, c, h, w: (n, h, w, c // 4, c % 4)")});
  ExpectMap(s.params[0], "lambda n, c, h, w: (n, h, w, c // 4, c % 4)", {2, 8, 4, 4});
  ExpectMap(s.params[1], "lambda c, h, w: (h, w, c // 4, c % 4)", {8, 4, 4});
}

TEST(SuggestLayoutTransforms, BiasOfExtentOneAxesKeepsThem) {
  // The seed's broadcast example: a (C, 1, 1) bias under NCHW4c is (c // 4, 0, 0, c % 4).
  auto f = LowerMain(R"(
def @main(%x: Tensor[(1, 8, 4, 4), float32], %b: Tensor[(8, 1, 1), float32]) { add(%x, %b) })");
  auto s = SuggestLayoutTransforms(f, {IndexMap::FromLayouts("NCHW", "NCHW4c")});
  ExpectMap(s.params[1], "lambda c, j, k: (c // 4, j, k, c % 4)", {8, 1, 1});
}

TEST(SuggestLayoutTransforms, AccessesOutsideBlocksStopTheFlow) {
  // The pooling template de-interleaves its input in a loop nest before the block, so the
  // input is read only through a scratch buffer nobody's block writes: no suggestion (the
  // planner then uses the pool's layout attribute instead).
  auto f = LowerMain(R"(
def @main(%x: Tensor[(1, 8, 8, 8), float32]) { nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2]) })");
  auto s = SuggestLayoutTransforms(f, {IndexMap::FromLayouts("NCHW", "NCHW4c")});
  EXPECT_FALSE(s.params[0].defined()) << s.params[0].ToString();
  ASSERT_EQ(s.blocks.size(), 1u);
}

TEST(SuggestLayoutTransforms, TransposedReadStopsTheFlow) {
  auto f = LowerMain(
      R"(def @main(%x: Tensor[(2, 3, 4), float32]) { transpose(%x, axes=[0, 2, 1]) })");
  auto s = SuggestLayoutTransforms(f, {IndexMap::Parse("lambda a, b, c: (c, a, b)")});
  EXPECT_FALSE(s.params[0].defined()) << s.params[0].ToString();
  ExpectMap(s.params[1], "lambda a, b, c: (c, a, b)", {2, 4, 3});
}

TEST(SuggestLayoutTransforms, BadInputIsAClearError) {
  auto f = LowerMain(R"(def @main(%x: Tensor[(2, 8), float32]) { nn.relu(%x) })");
  testing::ExpectError([&] { SuggestLayoutTransforms(f, {IndexMap::Identity(2), IndexMap::Identity(2)}); },
                       ErrorKind::kValue, "2 maps given but the PrimFunc has 1 outputs");
  testing::ExpectError([&] { SuggestLayoutTransforms(f, {IndexMap::Identity(3)}); },
                       ErrorKind::kType, "takes 3 indices but output");
  // No maps: nothing to suggest.
  auto s = SuggestLayoutTransforms(f, {});
  EXPECT_FALSE(s.params[0].defined());
}

}  // namespace
}  // namespace tessera
