// IndexMap tests: TVM's acceptance list (shapes, inverses with padding, Apply), layouts,
// composition and identity proofs, alpha-equivalence, the text form, and errors.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "tessera/layout/index_map.h"
#include "tessera/support/error.h"
#include "test_util.h"

namespace tessera::layout {
namespace {

using Shape = std::vector<int64_t>;
using tessera::testing::ExpectError;

IndexMap P(const std::string& text) {
  return IndexMap::Parse(text);
}

/// Every index of `shape` in row-major order.
std::vector<Shape> AllIndices(const Shape& shape) {
  std::vector<Shape> out;
  Shape idx(shape.size(), 0);
  int64_t total = 1;
  for (int64_t e : shape) total *= e;
  for (int64_t n = 0; n < total; ++n) {
    out.push_back(idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/// Evaluates an index or predicate expression with `vars` bound to `values`.
int64_t Eval(const tir::PrimExpr& e, const std::vector<tir::Var>& vars, const Shape& values) {
  if (auto* imm = e.as<tir::IntImmNode>()) return imm->value;
  if (auto* v = e.as<tir::VarNode>()) {
    for (size_t k = 0; k < vars.size(); ++k)
      if (vars[k].get() == v) return values[k];
    ADD_FAILURE() << "unbound variable " << v->name;
    return 0;
  }
  if (auto* n = e.as<tir::NotNode>()) return !Eval(n->a, vars, values);
  auto* b = e.as<tir::BinaryNode>();
  EXPECT_NE(b, nullptr);
  if (!b) return 0;
  int64_t x = Eval(b->a, vars, values), y = Eval(b->b, vars, values);
  auto fdiv = [](int64_t p, int64_t q) { return p / q - ((p % q != 0) && ((p < 0) != (q < 0))); };
  switch (b->op) {
    case tir::BinaryOp::kAdd:
      return x + y;
    case tir::BinaryOp::kSub:
      return x - y;
    case tir::BinaryOp::kMul:
      return x * y;
    case tir::BinaryOp::kFloorDiv:
      return fdiv(x, y);
    case tir::BinaryOp::kFloorMod:
      return x - fdiv(x, y) * y;
    case tir::BinaryOp::kEQ:
      return x == y;
    case tir::BinaryOp::kNE:
      return x != y;
    case tir::BinaryOp::kLT:
      return x < y;
    case tir::BinaryOp::kLE:
      return x <= y;
    case tir::BinaryOp::kGT:
      return x > y;
    case tir::BinaryOp::kGE:
      return x >= y;
    case tir::BinaryOp::kAnd:
      return x && y;
    case tir::BinaryOp::kOr:
      return x || y;
    default:
      ADD_FAILURE() << "unexpected operator";
      return 0;
  }
}

/// Checks NonSurjectiveInverse over `shape`: the post-shape, that the predicate holds
/// exactly off the forward image, that the inverse undoes the map on the image, and that
/// the predicate equals `expected_pad` (a reference predicate on post-shape indices).
void CheckNonSurjective(const IndexMap& map, const Shape& shape, const Shape& post,
                        const std::function<bool(const Shape&)>& expected_pad) {
  SCOPED_TRACE(map.ToString());
  EXPECT_EQ(map.MapShape(shape), post);
  IndexMap::InverseResult inv = map.NonSurjectiveInverse(shape);
  std::map<Shape, Shape> image;
  for (const Shape& i : AllIndices(shape)) image[map.MapIndices(i)] = i;
  for (const Shape& o : AllIndices(post)) {
    bool pad = Eval(inv.padding_predicate, inv.inverse.initial_indices(), o) != 0;
    EXPECT_EQ(pad, image.count(o) == 0) << "at " << ShapeToString(o);
    EXPECT_EQ(pad, expected_pad(o)) << "at " << ShapeToString(o);
    if (!pad) EXPECT_EQ(inv.inverse.MapIndices(o), image[o]) << "at " << ShapeToString(o);
  }
  EXPECT_EQ(map.IsBijective(shape), image.size() == static_cast<size_t>(ShapeNumElements(post)));
  EXPECT_TRUE(map.IsInjective(shape));
}

// ---- TVM's acceptance list -------------------------------------------------------------

TEST(IndexMap, SplitShapes) {
  IndexMap m = P("lambda i: (i // 4, i % 4)");
  EXPECT_EQ(m.MapShape({4}), (Shape{1, 4}));
  EXPECT_EQ(m.MapShape({16}), (Shape{4, 4}));
  EXPECT_EQ(m.MapShape({14}), (Shape{4, 4}));
  EXPECT_EQ(m.MapShape({3}), (Shape{1, 4}));
}

TEST(IndexMap, InverseOfSplit) {
  IndexMap m = P("lambda i: (i // 4, i % 4)");
  IndexMap inv = m.Inverse({16});
  EXPECT_EQ(inv, P("lambda i, j: (4 * i + j)"));
  EXPECT_TRUE(inv.EqualOn(P("lambda a, b: (b + a * 4,)"), {4, 4}));
  EXPECT_TRUE(m.ComposeWith(inv).IsIdentity({16}));
  EXPECT_TRUE(inv.ComposeWith(m).IsIdentity({4, 4}));
  EXPECT_TRUE(m.IsBijective({16}));
  EXPECT_FALSE(m.IsBijective({14}));
  ExpectError([&] { m.Inverse({14}); }, ErrorKind::kValue,
              {"is not a bijection on shape [14]", "pads to [4, 4]"});
}

TEST(IndexMap, NonSurjectiveRightPadding) {
  CheckNonSurjective(P("lambda i: (i // 4, i % 4)"), {15}, {4, 4},
                     [](const Shape& o) { return o[0] == 3 && o[1] == 3; });
}

TEST(IndexMap, NonSurjectiveLeftPadding) {
  IndexMap m = P("lambda i: ((i + 1) // 4, (i + 1) % 4)");
  CheckNonSurjective(m, {15}, {4, 4}, [](const Shape& o) { return o[0] == 0 && o[1] < 1; });
  EXPECT_TRUE(
      m.NonSurjectiveInverse({15}).inverse.EqualOn(P("lambda i, j: (4 * i + j - 1,)"), {4, 4}));
}

TEST(IndexMap, NonSurjectiveLeftAndRightPadding) {
  CheckNonSurjective(P("lambda i: ((i + 1) // 4, (i + 1) % 4)"), {14}, {4, 4}, [](const Shape& o) {
    return (o[0] == 0 && o[1] < 1) || (o[0] == 3 && o[1] == 3);
  });
}

TEST(IndexMap, NonSurjective2d) {
  IndexMap m = P("lambda i, j: ((i + 1) // 4, (j + 5) // 8, (i + 1) % 4, (j + 5) % 8)");
  CheckNonSurjective(m, {14, 31}, {4, 5, 4, 8}, [](const Shape& o) {
    int64_t i = 4 * o[0] + o[2] - 1, j = 8 * o[1] + o[3] - 5;
    return i < 0 || i >= 14 || j < 0 || j >= 31;
  });
}

TEST(IndexMap, NonSurjectiveMultipleRightPaddingTranspose) {
  CheckNonSurjective(P("lambda i: ((i // 4) % 8, i // 32, i % 4)"), {116}, {8, 4, 4},
                     [](const Shape& o) { return o[1] == 3 && 4 * o[0] + o[2] >= 20; });
}

TEST(IndexMap, NonSurjectiveOuterLoopExtentOne) {
  CheckNonSurjective(P("lambda i: (i // 4, i % 4)"), {3}, {1, 4},
                     [](const Shape& o) { return o[1] == 3; });
}

TEST(IndexMap, InverseDropsUnitAxes) {
  IndexMap m = P("lambda i0, i1, i2, i3: (i3 // 32, i2 // 2, i2 % 2, i3 % 32)");
  Shape shape{1, 1, 64, 64};
  IndexMap inv = m.Inverse(shape);
  Shape post = m.MapShape(shape);
  EXPECT_EQ(post, (Shape{2, 32, 2, 32}));
  EXPECT_TRUE(inv.EqualOn(P("lambda i0, i1, i2, i3: (0, 0, i2 + 2 * i1, i3 + 32 * i0)"), post));
  EXPECT_TRUE(m.ComposeWith(inv).IsIdentity(shape));
  EXPECT_TRUE(inv.ComposeWith(m).IsIdentity(post));
}

// ---- Apply -------------------------------------------------------------------------------

/// A float32 array holding 0, 1, 2, ...
NDArray Arange(const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(ShapeNumElements(shape)));
  std::iota(v.begin(), v.end(), 0.0f);
  return NDArray::FromFloats(shape, v);
}

/// out[map(i)] = x[i] the slow way, pad elsewhere.
std::vector<double> Reference(const IndexMap& m, const NDArray& x, double pad) {
  Shape post = m.MapShape(x.shape());
  std::vector<double> out(static_cast<size_t>(ShapeNumElements(post)), pad);
  int64_t flat = 0;
  for (const Shape& i : AllIndices(x.shape())) {
    Shape o = m.MapIndices(i);
    int64_t off = 0;
    for (size_t d = 0; d < o.size(); ++d) off = off * post[d] + o[d];
    out[static_cast<size_t>(off)] = x.GetFloat(flat++);
  }
  return out;
}

void ExpectApply(const IndexMap& m, const NDArray& x, double pad = 0.0) {
  SCOPED_TRACE(m.ToString());
  NDArray y = m.Apply(x, pad);
  EXPECT_EQ(y.shape(), m.MapShape(x.shape()));
  EXPECT_EQ(y.dtype(), x.dtype());
  std::vector<double> want = Reference(m, x, pad);
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(y.GetFloat(static_cast<int64_t>(k)), want[k]) << k;
}

TEST(IndexMap, ApplySplit) {
  IndexMap m = P("lambda i: (i // 4, i % 4)");
  NDArray y = m.Apply(Arange({16}));
  EXPECT_EQ(y.shape(), (Shape{4, 4}));
  for (int k = 0; k < 16; ++k) EXPECT_EQ(y.GetFloat(k), k);
}

TEST(IndexMap, ApplyPermutation) {
  IndexMap m = IndexMap::Permutation({0, 2, 3, 1});
  NDArray x = Arange({2, 3, 4, 5});
  NDArray y = m.Apply(x);
  EXPECT_EQ(y.shape(), (Shape{2, 4, 5, 3}));
  EXPECT_EQ(y.GetFloat(((1 * 4 + 2) * 5 + 3) * 3 + 1), x.GetFloat(((1 * 3 + 1) * 4 + 2) * 5 + 3));
  ExpectApply(m, x);
}

TEST(IndexMap, ApplyHWIOPacking) {
  IndexMap m =
      P("lambda i0, i1, i2, i3: (i3 // 32, i0, i2 // 8, (i3 % 32) // 16, i1, i2 % 8, i3 % 16)");
  NDArray x = Arange({3, 3, 64, 64});
  EXPECT_EQ(m.MapShape(x.shape()), (Shape{2, 3, 8, 2, 3, 8, 16}));
  ExpectApply(m, x);
  NDArray back = m.Inverse(x.shape()).Apply(m.Apply(x));
  EXPECT_TRUE(back.BitwiseEqual(x));
}

TEST(IndexMap, ApplyPadsAndKeepsDtype) {
  IndexMap m = P("lambda i, j: ((i + 1) // 4, j, (i + 1) % 4)");
  ExpectApply(m, Arange({6, 3}), -7.0);
  NDArray ints = NDArray::Empty({10}, DType::kInt64);
  for (int k = 0; k < 10; ++k) ints.SetInt(k, 1000 + k);
  NDArray y = P("lambda i: (i // 4, i % 4)").Apply(ints, 5);
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(y.GetInt(9), 1009);
  EXPECT_EQ(y.shape(), (Shape{3, 4}));
  EXPECT_EQ(y.GetInt(10), 5);
  EXPECT_EQ(y.GetInt(11), 5);
  NDArray h = NDArray::Empty({5}, DType::kFloat16);
  for (int k = 0; k < 5; ++k) h.SetFloat(k, k * 0.5);
  ExpectApply(P("lambda i: (i % 2, i // 2)"), h, 3.0);
  ExpectApply(IndexMap::Identity(0), NDArray::Scalar(2.5, DType::kFloat64));
}

TEST(IndexMap, ApplyRejectsNonInjectiveMaps) {
  ExpectError([] { P("lambda i: (i // 4,)").Apply(Arange({16})); }, ErrorKind::kValue,
              "is not injective on shape [16]");
  ExpectError([] { P("lambda i, j: (i, j)").Apply(Arange({16})); }, ErrorKind::kType,
              "takes 2 indices but the array is float32[16]");
}

// ---- Layouts, composition, identity ------------------------------------------------------

TEST(IndexMap, FromLayouts) {
  EXPECT_EQ(IndexMap::FromLayouts("NCHW", "NCHW16c"),
            P("lambda n, c, h, w: (n, c // 16, h, w, c % 16)"));
  EXPECT_EQ(IndexMap::FromLayouts("NCHW", "NHWC"), IndexMap::Permutation({0, 2, 3, 1}));
  EXPECT_EQ(IndexMap::FromLayouts("NCHW", "NCHW16c").ToString(),
            "lambda n, c, h, w: (n, c // 16, h, w, c % 16)");
  EXPECT_EQ(IndexMap::FromLayouts("NCHW4c", "NCHW4c"), IndexMap::Identity(5));
  IndexMap oihw = IndexMap::FromLayouts("OIHW", "OIHW4i4o");
  EXPECT_EQ(oihw, P("lambda o, i, h, w: (o // 4, i // 4, h, w, i % 4, o % 4)"));
  EXPECT_TRUE(IndexMap::FromLayouts("NCHW4c", "NCHW").IsBijective({1, 2, 3, 3, 4}));
  // Re-blocking 4c -> 16c composes to the direct blocking.
  IndexMap reblock = IndexMap::FromLayouts("NCHW4c", "NCHW16c");
  EXPECT_TRUE(IndexMap::FromLayouts("NCHW", "NCHW4c")
                  .ComposeWith(reblock)
                  .EqualOn(IndexMap::FromLayouts("NCHW", "NCHW16c"), {1, 64, 8, 8}));
}

TEST(IndexMap, ComposeToIdentity) {
  IndexMap to16 = IndexMap::FromLayouts("NCHW", "NCHW16c");
  IndexMap from16 = IndexMap::FromLayouts("NCHW16c", "NCHW");
  IndexMap round = to16.ComposeWith(from16);
  EXPECT_TRUE(round.IsIdentity({1, 64, 8, 8}));
  EXPECT_EQ(round, IndexMap::Identity(4));  // exact even without a domain
  EXPECT_TRUE(from16.ComposeWith(to16).IsIdentity({1, 4, 8, 8, 16}));
  IndexMap nhwc = IndexMap::FromLayouts("NCHW", "NHWC");
  IndexMap nchw = IndexMap::FromLayouts("NHWC", "NCHW");
  EXPECT_TRUE(nhwc.ComposeWith(nchw).IsIdentity({1, 3, 8, 8}));
  EXPECT_EQ(nhwc.ComposeWith(nchw), IndexMap::Identity(4));
}

TEST(IndexMap, PermutationsOfASquareAreNotIdentity) {
  // Same shapes in and out do not make a map the identity (TVM's shape test would say so).
  IndexMap a = IndexMap::Permutation({1, 0});
  EXPECT_FALSE(a.IsIdentity({8, 8}));
  EXPECT_FALSE(a.ComposeWith(IndexMap::Permutation({1, 0})).ComposeWith(a).IsIdentity({8, 8}));
  EXPECT_TRUE(a.ComposeWith(a).IsIdentity({8, 8}));
  EXPECT_FALSE(a.EqualOn(IndexMap::Identity(2), {8, 8}));
  EXPECT_TRUE(a.EqualOn(IndexMap::Identity(2), {1, 1}));
}

TEST(IndexMap, EqualOnUsesTheDomain) {
  IndexMap a = P("lambda c: (c % 64,)");
  EXPECT_TRUE(a.EqualOn(IndexMap::Identity(1), {64}));
  EXPECT_TRUE(a.EqualOn(IndexMap::Identity(1), {10}));
  EXPECT_FALSE(a.EqualOn(IndexMap::Identity(1), {65}));
  EXPECT_FALSE(a == IndexMap::Identity(1));
  // (x + 3) // 4 takes the values of x on [0, 2): equal although the normal forms differ.
  EXPECT_TRUE(P("lambda x: ((x + 3) // 4,)").EqualOn(IndexMap::Identity(1), {2}));
  EXPECT_FALSE(P("lambda x: ((x + 3) // 4,)").EqualOn(IndexMap::Identity(1), {3}));
  EXPECT_TRUE(P("lambda x, y: (x // 8 + y,)").EqualOn(P("lambda x, y: (y,)"), {8, 5}));
  EXPECT_TRUE(P("lambda x, y: (x + y,)").EqualOn(P("lambda x, y: (x + y % 7 + 0 * x,)"), {3, 7}));
  EXPECT_FALSE(P("lambda x, y: (x, y)").EqualOn(P("lambda x, y: (x,)"), {3, 7}));
  ExpectError(
      [&] {
        a.EqualOn(IndexMap::Identity(2), {4, 4});
      },
      ErrorKind::kValue, "takes 1 indices but");
}

TEST(IndexMap, IsPermutation) {
  std::vector<int64_t> axes;
  EXPECT_TRUE(IndexMap::FromLayouts("NCHW", "NHWC").IsPermutation(&axes));
  EXPECT_EQ(axes, (std::vector<int64_t>{0, 2, 3, 1}));
  EXPECT_FALSE(IndexMap::FromLayouts("NCHW", "NCHW4c").IsPermutation());
  EXPECT_FALSE(P("lambda i, j: (i, i)").IsPermutation());
  EXPECT_TRUE(IndexMap::Identity(3).IsPermutation());
}

TEST(IndexMap, AlphaEquivalence) {
  IndexMap a = P("lambda n, c: (n, c // 4, c % 4)");
  IndexMap b = P("lambda x, y: (x, floordiv(y, 4), floormod(y, 4))");
  IndexMap c = P("lambda x, y: (y, x // 4, x % 4)");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.Hash(), b.Hash());
  EXPECT_NE(a, c);
  EXPECT_EQ(P("lambda i: (i // 4 * 4 + i % 4,)"), IndexMap::Identity(1));
  EXPECT_EQ(P("lambda i: (i // 4 * 4 + i % 4,)").Hash(), IndexMap::Identity(1).Hash());
  EXPECT_EQ(P("lambda i: ((i + 5) // 4, (i + 5) % 4)"),
            P("lambda i: ((i + 1) // 4 + 1, (i + 1) % 4)"));
  EXPECT_NE(IndexMap::Identity(2), IndexMap::Identity(3));
  EXPECT_FALSE(IndexMap().defined());
  EXPECT_TRUE(IndexMap::Identity(0).defined() || IndexMap::Identity(0).arity() == 0);
}

TEST(IndexMap, TextRoundTrip) {
  const char* texts[] = {
      "lambda n, c, h, w: (n, c // 4, h, w, c % 4)",
      "lambda i: ((i + 1) // 4, (i + 1) % 4)",
      "lambda i: (i // 4 % 8, i // 32, i % 4)",
      "lambda i, j: (i * 4 + j - 1,)",
      "lambda i, j: (15 - i, j * -2, -i - j - 3)",
      "lambda i0, i1, i2, i3: (i3 // 32, i0, i2 // 8, i3 % 32 // 16, i1, i2 % 8, i3 % 16)",
      "lambda x: (x % 6 // 3 * 7 + 2,)",
      "lambda x, y: ((x * 2 + 3) // 4, (x % 8 + y * 8) % 16, 3)",
      "lambda: ()",
      "lambda a: (a,)",
  };
  for (const char* t : texts) {
    IndexMap m = P(t);
    SCOPED_TRACE(t);
    EXPECT_EQ(P(m.ToString()), m) << m.ToString();
    EXPECT_EQ(P(m.ToString()).ToString(), m.ToString());
  }
  EXPECT_EQ(P("lambda i: (i // 4 * 4 + i % 4)").ToString(), "lambda i: (i,)");
  EXPECT_EQ(P("lambda i: ((i + 5) // 4,)").ToString(), "lambda i: ((i + 1) // 4 + 1,)");
  EXPECT_EQ(P("lambda x, y: ((x * 2 + 3) // 4,)").ToString(), "lambda x, y: ((x + 1) // 2,)");
  EXPECT_EQ(P("lambda i: i + 1").num_outputs(), 1);
}

TEST(IndexMap, MapIndices) {
  IndexMap m = P("lambda n, c: (n, c // 4, c % 4)");
  EXPECT_EQ(m.MapIndices(Shape{1, 13}), (Shape{1, 3, 1}));
  tir::Var a = tir::MakeVar("a");
  std::vector<tir::PrimExpr> out = m.MapIndices(std::vector<tir::PrimExpr>{tir::IntImm(0), a * 4});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Eval(out[1], {a}, {5}), 5);
  EXPECT_EQ(Eval(out[2], {a}, {5}), 0);
  ExpectError([&] { m.MapIndices(Shape{1}); }, ErrorKind::kValue, "takes 2 indices, got 1");
}

// ---- Randomized checks against direct evaluation ---------------------------------------

/// A random index expression over `vars` from +, -, * const, // const, % const.
tir::PrimExpr RandomExpr(std::mt19937& rng, const std::vector<tir::Var>& vars, int depth) {
  std::uniform_int_distribution<int> pick(0, depth <= 0 ? 1 : 6);
  std::uniform_int_distribution<int> small(1, 8);
  switch (pick(rng)) {
    case 0:
      return vars[std::uniform_int_distribution<size_t>(0, vars.size() - 1)(rng)];
    case 1:
      return tir::IntImm(small(rng) - 2);
    case 2:
      return RandomExpr(rng, vars, depth - 1) + RandomExpr(rng, vars, depth - 1);
    case 3:
      return RandomExpr(rng, vars, depth - 1) - RandomExpr(rng, vars, depth - 1);
    case 4:
      return RandomExpr(rng, vars, depth - 1) * tir::IntImm(small(rng));
    case 5:
      return tir::FloorDiv(RandomExpr(rng, vars, depth - 1), tir::IntImm(small(rng)));
    default:
      return tir::FloorMod(RandomExpr(rng, vars, depth - 1), tir::IntImm(small(rng)));
  }
}

TEST(IndexMap, RandomMapsAgreeWithDirectEvaluation) {
  std::mt19937 rng(7);
  int accepted = 0, equal_pairs = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<tir::Var> vars{tir::MakeVar("x"), tir::MakeVar("y")};
    tir::PrimExpr e = RandomExpr(rng, vars, 3), f = RandomExpr(rng, vars, 3);
    IndexMap m, n;
    try {
      m = IndexMap(vars, {e});
      n = IndexMap(vars, {f});
    } catch (const Error& err) {
      ASSERT_EQ(err.kind(), ErrorKind::kValue) << err.what();
      continue;
    }
    ++accepted;
    SCOPED_TRACE(m.ToString() + " vs " + n.ToString());
    // Normalization without a domain holds on every non-negative index.
    for (const Shape& i : AllIndices({9, 9}))
      ASSERT_EQ(m.MapIndices(i)[0], Eval(e, vars, i)) << ShapeToString(i);
    ASSERT_EQ(P(m.ToString()), m);
    // EqualOn is exact: it agrees with comparing every point of small domains.
    for (const Shape& shape : {Shape{1, 3}, Shape{2, 2}, Shape{5, 1}, Shape{4, 6}}) {
      bool same = true;
      for (const Shape& i : AllIndices(shape)) same = same && Eval(e, vars, i) == Eval(f, vars, i);
      ASSERT_EQ(m.EqualOn(n, shape), same) << ShapeToString(shape);
      ASSERT_TRUE(m.EqualOn(m, shape));
      equal_pairs += same;
      // MapShape bounds every image when the outputs are non-negative.
      bool negative = false;
      int64_t top = 0;
      for (const Shape& i : AllIndices(shape)) {
        negative = negative || Eval(e, vars, i) < 0;
        top = std::max(top, Eval(e, vars, i));
      }
      if (!negative) {
        try {
          EXPECT_GT(m.MapShape(shape)[0], top);
        } catch (const Error& err) {
          EXPECT_NE(std::string(err.what()).find("can be negative"), std::string::npos);
        }
      }
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(equal_pairs, 50);
}

TEST(IndexMap, PaddedInversesOverManyShapes) {
  for (int o = 0; o < 4; ++o)
    for (int l = 1; l <= 5; ++l)
      for (int64_t e = 1; e <= 12; ++e) {
        std::string x = o ? "(i + " + std::to_string(o) + ")" : "i";
        std::string ls = std::to_string(l);
        for (const std::string& text :
             {"lambda i, j: (" + x + " // " + ls + ", j, " + x + " % " + ls + ")",
              "lambda i, j: (" + x + " % " + ls + ", " + x + " // " + ls + " * 3 + j)",
              "lambda i, j: (j * " + ls + " + " + x + " % " + ls + ", " + x + " // " + ls + ")"}) {
          IndexMap m = P(text);
          Shape shape{e, 3};
          std::set<Shape> image;
          for (const Shape& i : AllIndices(shape)) image.insert(m.MapIndices(i));
          CheckNonSurjective(m, shape, m.MapShape(shape),
                             [&](const Shape& out) { return image.count(out) == 0; });
        }
      }
}

TEST(IndexMap, RandomLayoutCompositions) {
  const char* layouts[] = {"NCHW", "NHWC", "NCHW4c", "NCHW8c", "NCHW16c", "NHWC2c", "CNHW2c"};
  Shape nchw{2, 32, 3, 2};
  for (const char* a : layouts)
    for (const char* b : layouts)
      for (const char* c : layouts) {
        SCOPED_TRACE(std::string(a) + " -> " + b + " -> " + c);
        IndexMap ab = IndexMap::FromLayouts(a, b), bc = IndexMap::FromLayouts(b, c);
        IndexMap ac = IndexMap::FromLayouts(a, c);
        Shape sa = IndexMap::FromLayouts("NCHW", a).MapShape(nchw);
        EXPECT_TRUE(ab.ComposeWith(bc).EqualOn(ac, sa));
        EXPECT_TRUE(ab.IsBijective(sa));
        EXPECT_EQ(ab.MapShape(sa), IndexMap::FromLayouts("NCHW", b).MapShape(nchw));
        EXPECT_TRUE(ab.ComposeWith(ab.Inverse(sa)).IsIdentity(sa));
      }
}

// ---- Errors ------------------------------------------------------------------------------

TEST(IndexMap, Errors) {
  ExpectError([] { P("lambda i: (i // 4, i %% 4)"); }, ErrorKind::kParse,
              {"at position 22", "expected an index expression"});
  ExpectError([] { P("lambda i j: (i)"); }, ErrorKind::kParse, {"expected ':' at position 9"});
  ExpectError([] { P("lambda i: (k,)"); }, ErrorKind::kParse,
              "unknown variable 'k' at position 11");
  ExpectError([] { P("lambda i: (i # 2)"); }, ErrorKind::kParse, "unexpected character '#'");
  ExpectError([] { P("lambda i, j: (i * j,)"); }, ErrorKind::kValue,
              {"index map output 0 `i * j` is not an affine split/fuse of the input variables",
               "multiplies two index expressions"});
  ExpectError([] { P("lambda i: (i * 3 // 4,)"); }, ErrorKind::kValue,
              "is not an affine split/fuse");
  ExpectError([] { P("lambda i: (i // 0,)"); }, ErrorKind::kValue, "positive constant");
  ExpectError(
      [] {
        P("lambda i: (i,)").MapShape({4, 4});
      },
      ErrorKind::kType,
      {"MapShape: index map `lambda i: (i,)` takes 1 indices but shape [4, 4] has rank 2"});
  ExpectError([] { P("lambda i: (i - 1,)").MapShape({4}); }, ErrorKind::kValue, "can be negative");
  ExpectError([] { P("lambda i: (i // 4,)").NonSurjectiveInverse({16}); }, ErrorKind::kValue,
              {"index map `lambda i: (i // 4,)` is not injective on shape [16]"});
  ExpectError(
      [] {
        P("lambda i, j: (i,)").NonSurjectiveInverse({4, 2});
      },
      ErrorKind::kValue, "variable `j` (extent 2) is dropped");
  ExpectError([] { P("lambda i: (i % 4,)").NonSurjectiveInverse({16}); }, ErrorKind::kValue,
              "wraps");
  ExpectError([] { IndexMap::FromLayouts("NCHW", "NCHW16k"); }, ErrorKind::kValue,
              "has sub-axis k without its primal axis K");
  ExpectError([] { IndexMap::FromLayouts("NCHW", "NCDW"); }, ErrorKind::kValue,
              "must have the same primal axes");
  ExpectError([] { IndexMap::FromLayouts("NCHW", "NC?W"); }, ErrorKind::kValue,
              "unexpected '?' at position 2");
  ExpectError([] { IndexMap::Permutation({0, 0}); }, ErrorKind::kValue, "not a permutation");
  ExpectError([] { P("lambda i: (i,)").ComposeWith(IndexMap::Identity(2)); }, ErrorKind::kValue,
              "cannot compose");
  tir::Var x = tir::MakeVar("x"), y = tir::MakeVar("y");
  ExpectError([&] { IndexMap({x}, {y}); }, ErrorKind::kValue,
              "variable `y` is not an input of the map");
  ExpectError([&] { IndexMap({tir::MakeVar("x", DType::kInt64)}, {}); }, ErrorKind::kValue,
              "index variables are int32");
}

}  // namespace
}  // namespace tessera::layout
