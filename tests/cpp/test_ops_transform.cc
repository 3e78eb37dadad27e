// Transform ops: reshape (special values), transpose, squeeze, expand_dims, concatenate,
// split, strided_slice, take and layout_transform.
#include "ops_math_test_util.h"

namespace tessera {
namespace {

using namespace math_test;  // NOLINT

using Shape = std::vector<int64_t>;

void ExpectValues(const NDArray& a, const std::vector<double>& want) {
  EXPECT_EQ(Values(a), want) << a.Describe();
}

Attrs NewShape(Shape s) {
  return Attrs{{"newshape", AttrValue::Ints(s)}};
}

Shape ReshapeOf(const Shape& in, const Shape& newshape, bool allowzero = false) {
  return ShapeOf(Infer("reshape", {F32(in)}, NewShape(newshape).With("allowzero", allowzero)));
}

/// Runs an op whose single argument is a tuple of `fields`; the kernel sees them flattened.
std::vector<NDArray> RunOnTuple(const std::string& name, const std::vector<NDArray>& fields,
                                const Attrs& attrs) {
  std::vector<Expr> vars;
  for (size_t i = 0; i < fields.size(); ++i)
    vars.push_back(
        MakeVar("f" + std::to_string(i), MakeTensorType(fields[i].shape(), fields[i].dtype())));
  Call call = MakeOpCall(name, {MakeTuple(vars)}, attrs);
  const OpDef& def = OpRegistry::Global().Get(name);
  Type t = def.type_rel({MakeTupleType(TypesOf(fields))}, call->attrs, {});
  return def.kernel(fields, call->attrs, t);
}

Type InferOnTuple(const std::string& name, const std::vector<Type>& fields, const Attrs& attrs) {
  std::vector<Expr> vars;
  for (size_t i = 0; i < fields.size(); ++i)
    vars.push_back(MakeVar("f" + std::to_string(i), fields[i]));
  Call call = MakeOpCall(name, {MakeTuple(vars)}, attrs);
  return OpRegistry::Global().Get(name).type_rel({MakeTupleType(fields)}, call->attrs, {});
}

// ---- reshape ------------------------------------------------------------------------

TEST(OpsTransformReshape, PlainAndInferred) {
  NDArray out = RunOp("reshape", {Iota({2, 3})}, NewShape({3, 2}));
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  ExpectValues(out, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {-1}), (Shape{24}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {6, -1, 2}), (Shape{6, 2, 2}));
  EXPECT_EQ(ReshapeOf({3, 5}, {15}), (Shape{15}));
  // More output dimensions than input ones (positive values need no input dimension).
  EXPECT_EQ(ReshapeOf({4}, {4, 1, 1, 1}), (Shape{4, 1, 1, 1}));
  EXPECT_EQ(ReshapeOf({4}, {1, 1, -1, 1}), (Shape{1, 1, 4, 1}));
}

TEST(OpsTransformReshape, SpecialValuesFollowRelay) {
  // The examples of Relay's reshape documentation.
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {0, -1}), (Shape{2, 12}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {-2}), (Shape{2, 3, 4}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {2, -2}), (Shape{2, 3, 4}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {-3, 4}), (Shape{6, 4}));
  EXPECT_EQ(ReshapeOf({2, 3, 4, 5}, {-3, -3}), (Shape{6, 20}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {0, -3}), (Shape{2, 12}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {-3, -2}), (Shape{6, 4}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {-4, 1, 2, -2}), (Shape{1, 2, 3, 4}));
  EXPECT_EQ(ReshapeOf({2, 3, 4}, {2, -4, -1, 3, -2}), (Shape{2, 1, 3, 4}));
  EXPECT_EQ(ReshapeOf({6, 5}, {-4, 2, -1, 0}), (Shape{2, 3, 5}));
  EXPECT_EQ(ReshapeOf({6, 5}, {-4, -1, 3, -2}), (Shape{2, 3, 5}));
  // allowzero keeps a 0 literally.
  EXPECT_EQ(ReshapeOf({0, 3}, {3, 0}, true), (Shape{3, 0}));
  // Without it the 0 copies input dimension 1 (3), so the counts differ.
  auto msg = ErrorOf([] { ReshapeOf({0, 3}, {3, 0}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "element counts differ (0 vs 9 in [3, 3])");
}

TEST(OpsTransformReshape, CountMismatchNamesBothShapes) {
  auto msg = ErrorOf([] { Infer("reshape", {F32({2, 3})}, NewShape({4, 2})); }, ErrorKind::kType);
  EXPECT_HAS(msg, "cannot reshape [2, 3] with newshape [4, 2]: element counts differ (6 vs 8");
  msg = ErrorOf([] { Infer("reshape", {F32({2, 3})}, NewShape({4, -1})); }, ErrorKind::kType);
  EXPECT_HAS(msg, "cannot infer the -1 dimension (6 elements over 4)");
  msg = ErrorOf([] { Infer("reshape", {F32({2, 3})}, NewShape({0, 0, 0})); }, ErrorKind::kType);
  EXPECT_HAS(msg, "special value 0 at position 2 has no input dimension left");
  msg = ErrorOf([] { Infer("reshape", {F32({6})}, NewShape({-4, 4, -1})); }, ErrorKind::kType);
  EXPECT_HAS(msg, "-4 cannot split dimension 6 into [4, -1]");
  msg = ErrorOf([] { Infer("reshape", {F32({6})}, NewShape({-3})); }, ErrorKind::kType);
  EXPECT_HAS(msg, "special value -3 at position 0 has no input dimension left");
}

TEST(OpsTransformReshape, BadNewShapeAttributes) {
  Var x = MakeVar("x", F32({6}));
  auto msg = ErrorOf([&] { MakeOpCall("reshape", {x}, NewShape({-1, -1})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'reshape': newshape [-1, -1] has more than one -1");
  msg = ErrorOf([&] { MakeOpCall("reshape", {x}, NewShape({-5})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "unsupported special value -5");
  msg = ErrorOf([&] { MakeOpCall("reshape", {x}, NewShape({-4, 2})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "-4 must be followed by two values");
  msg = ErrorOf([&] { MakeOpCall("reshape", {x}, NewShape({-4, -1, -1})); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "the two values after -4 must be positive, one of them may be -1");
  msg = ErrorOf([&] { MakeOpCall("reshape", {x}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'reshape': attribute 'newshape' is required");
  msg = ErrorOf([&] { MakeOpCall("reshape", {x}, Attrs{{"newshape", "6"}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'newshape' must be an array of integers, got \"6\"");
}

// ---- transpose / squeeze / expand_dims ----------------------------------------------

TEST(OpsTransformTranspose, DefaultReversesAxes) {
  NDArray out = RunOp("transpose", {Iota({2, 3})});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  ExpectValues(out, {0, 3, 1, 4, 2, 5});
}

TEST(OpsTransformTranspose, ExplicitAxesWithNegatives) {
  NDArray out = RunOp("transpose", {Iota({2, 3, 4}, DType::kInt64)},
                      Attrs{{"axes", AttrValue::Ints({1, -1, 0})}});
  EXPECT_EQ(out.shape(), (Shape{3, 4, 2}));
  std::vector<double> want;
  for (int j = 0; j < 3; ++j)
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i) want.push_back(12 * i + 4 * j + k);
  ExpectValues(out, want);
}

TEST(OpsTransformTranspose, BadAxes) {
  auto msg = ErrorOf(
      [] {
        Infer("transpose", {F32({2, 3})}, Attrs{{"axes", AttrValue::Ints({0, 0})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 0 is repeated in [0, 0]");
  msg = ErrorOf(
      [] {
        Infer("transpose", {F32({2, 3})}, Attrs{{"axes", AttrValue::Ints({0})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axes [0] must list each of the 2 axes once");
  msg = ErrorOf(
      [] {
        Infer("transpose", {F32({2, 3})}, Attrs{{"axes", AttrValue::Ints({0, 2})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 2 is out of range for rank 2");
}

TEST(OpsTransformSqueeze, AllOnesOrChosenAxes) {
  NDArray out = RunOp("squeeze", {Iota({1, 3, 1, 2})});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  ExpectValues(out, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(ShapeOf(Infer("squeeze", {F32({1, 3, 1, 2})}, Attrs{{"axis", AttrValue::Ints({-2})}})),
            (Shape{1, 3, 2}));
  EXPECT_EQ(ShapeOf(Infer("squeeze", {F32({1, 3, 1, 2})}, Attrs{{"axis", AttrValue::Ints({})}})),
            (Shape{1, 3, 1, 2}));
  auto msg = ErrorOf(
      [] {
        Infer("squeeze", {F32({1, 3, 1, 2})}, Attrs{{"axis", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "cannot squeeze axis 1 of shape [1, 3, 1, 2]: its size is 3, not 1");
  msg = ErrorOf([] { Infer("squeeze", {F32({1, 3})}, Attrs{{"axis", 4}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 4 is out of range for rank 2");
}

TEST(OpsTransformExpandDims, InsertsAxes) {
  NDArray out = RunOp("expand_dims", {Iota({2, 3})}, Attrs{{"axis", 1}, {"num_newaxis", 2}});
  EXPECT_EQ(out.shape(), (Shape{2, 1, 1, 3}));
  ExpectValues(out, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(ShapeOf(Infer("expand_dims", {F32({2, 3})}, Attrs{{"axis", -1}})), (Shape{2, 3, 1}));
  EXPECT_EQ(ShapeOf(Infer("expand_dims", {F32({2, 3})}, Attrs{{"axis", -3}})), (Shape{1, 2, 3}));
  EXPECT_EQ(ShapeOf(Infer("expand_dims", {F32({2, 3})}, Attrs{{"axis", 0}, {"num_newaxis", 0}})),
            (Shape{2, 3}));
  auto msg = ErrorOf(
      [] {
        Infer("expand_dims", {F32({2, 3})}, Attrs{{"axis", 3}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 3 is out of range for rank 3");
  Var x = MakeVar("x", F32({2}));
  msg = ErrorOf(
      [&] {
        MakeOpCall("expand_dims", {x}, Attrs{{"axis", 0}, {"num_newaxis", -1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'expand_dims': num_newaxis -1 must not be negative");
  msg = ErrorOf([&] { MakeOpCall("expand_dims", {x}, Attrs{{"axis", 1.5}}); }, ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'axis' must be an integer, got 1.5");
}

// ---- concatenate / split ------------------------------------------------------------

TEST(OpsTransformConcatenate, AlongLastAndFirstAxes) {
  std::vector<NDArray> out =
      RunOnTuple("concatenate", {Arr({2, 1}, {0, 1}), Arr({2, 3}, {10, 11, 12, 13, 14, 15})},
                 Attrs{{"axis", -1}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 4}));
  ExpectValues(out[0], {0, 10, 11, 12, 1, 13, 14, 15});
  out = RunOnTuple("concatenate", {Arr({1, 3}, {1, 2, 3}), Iota({2, 3}), Arr({0, 3}, {})}, {});
  EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
  ExpectValues(out[0], {1, 2, 3, 0, 1, 2, 3, 4, 5});
}

TEST(OpsTransformConcatenate, TypeErrors) {
  auto msg = ErrorOf(
      [] {
        InferOnTuple("concatenate", {F32({2, 3}), F32({3, 3})}, Attrs{{"axis", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(
      msg,
      "input 1 has shape [3, 3] but input 0 has shape [2, 3]; they must agree except on axis 1");
  msg = ErrorOf(
      [] {
        InferOnTuple("concatenate", {F32({2}), MakeTensorType({2}, DType::kInt32)}, {});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "input 1 has dtype int32 but input 0 has float32");
  msg = ErrorOf([] { InferOnTuple("concatenate", {F32({2}), F32({2, 1})}, {}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "input 1 has shape [2, 1] but input 0 has shape [2]");
  msg = ErrorOf(
      [] {
        InferOnTuple("concatenate", {F32({2})}, Attrs{{"axis", 1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 1 is out of range for rank 1");
  msg = ErrorOf([] { Infer("concatenate", {F32({2})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "data must be a tuple of tensors, got Tensor[(2), float32]");
  msg = ErrorOf([] { InferOnTuple("concatenate", {}, {}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "data must not be an empty tuple");
}

TEST(OpsTransformSplit, EqualSections) {
  std::vector<NDArray> out =
      RunAll("split", {Iota({2, 6})}, Attrs{{"indices_or_sections", 3}, {"axis", 1}});
  ASSERT_EQ(out.size(), 3u);
  for (const NDArray& o : out) EXPECT_EQ(o.shape(), (Shape{2, 2}));
  ExpectValues(out[0], {0, 1, 6, 7});
  ExpectValues(out[1], {2, 3, 8, 9});
  ExpectValues(out[2], {4, 5, 10, 11});
  Type t = Infer("split", {F32({2, 6})}, Attrs{{"indices_or_sections", 2}});
  ASSERT_NE(t.as<TupleTypeNode>(), nullptr);
  EXPECT_EQ(TypeToString(t), "(Tensor[(1, 6), float32], Tensor[(1, 6), float32])");
}

TEST(OpsTransformSplit, AtIndices) {
  std::vector<NDArray> out =
      RunAll("split", {Iota({2, 6})},
             Attrs{{"indices_or_sections", AttrValue::Ints({1, 4})}, {"axis", -1}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 2}));
  ExpectValues(out[0], {0, 6});
  ExpectValues(out[1], {1, 2, 3, 7, 8, 9});
  ExpectValues(out[2], {4, 5, 10, 11});
  out = RunAll("split", {Iota({3})}, Attrs{{"indices_or_sections", AttrValue::Ints({})}});
  ASSERT_EQ(out.size(), 1u);
  ExpectValues(out[0], {0, 1, 2});
}

TEST(OpsTransformSplit, Errors) {
  auto msg = ErrorOf(
      [] {
        Infer("split", {F32({2, 6})}, Attrs{{"indices_or_sections", 4}, {"axis", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "cannot split axis 1 of shape [2, 6] into 4 equal sections");
  msg = ErrorOf(
      [] {
        Infer("split", {F32({2, 6})},
              Attrs{{"indices_or_sections", AttrValue::Ints({6})}, {"axis", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "split index 6 is not below the size 6 of axis 1");
  Var x = MakeVar("x", F32({6}));
  msg = ErrorOf(
      [&] {
        MakeOpCall("split", {x}, Attrs{{"indices_or_sections", AttrValue::Ints({3, 2})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg,
             "op 'split': indices_or_sections [3, 2] must be positive and strictly increasing");
  msg = ErrorOf(
      [&] {
        MakeOpCall("split", {x}, Attrs{{"indices_or_sections", 0}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "indices_or_sections 0 must be a positive count");
  msg = ErrorOf(
      [&] {
        MakeOpCall("split", {x}, Attrs{{"indices_or_sections", 1.5}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'indices_or_sections' must be an integer or an array of integers");
  msg = ErrorOf(
      [] {
        Infer("split", {F32({})}, Attrs{{"indices_or_sections", 1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 0 is out of range for rank 0");
}

// ---- strided_slice ------------------------------------------------------------------

Attrs Slice(Shape begin, Shape end) {
  return Attrs{{"begin", AttrValue::Ints(begin)}, {"end", AttrValue::Ints(end)}};
}

TEST(OpsTransformStridedSlice, PositiveStridesAndNegativeBegin) {
  NDArray out = RunOp("strided_slice", {Iota({3, 5})},
                      Slice({1, -4}, {3, 5}).With("strides", AttrValue::Ints({1, 2})));
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  ExpectValues(out, {6, 8, 11, 13});
  // Only the leading axes are sliced when fewer entries are given.
  ExpectValues(RunOp("strided_slice", {Iota({3, 5})}, Slice({1}, {2})), {5, 6, 7, 8, 9});
  // Out-of-range indices clamp.
  ExpectValues(RunOp("strided_slice", {Iota({5})}, Slice({-100}, {100})), {0, 1, 2, 3, 4});
  EXPECT_EQ(RunOp("strided_slice", {Iota({5})}, Slice({3}, {1})).shape(), (Shape{0}));
}

TEST(OpsTransformStridedSlice, NegativeStrides) {
  Attrs back = Slice({4}, {0}).With("strides", AttrValue::Ints({-2}));
  ExpectValues(RunOp("strided_slice", {Iota({5})}, back), {4, 2});
  // An end below -dim clamps to "before index 0": the whole axis reversed.
  ExpectValues(
      RunOp("strided_slice", {Iota({5})}, Slice({-1}, {-6}).With("strides", AttrValue::Ints({-1}))),
      {4, 3, 2, 1, 0});
  NDArray out = RunOp("strided_slice", {Iota({3, 5})},
                      Slice({-1, 10}, {-4, -100}).With("strides", AttrValue::Ints({-1, -2})));
  EXPECT_EQ(out.shape(), (Shape{3, 3}));
  ExpectValues(out, {14, 12, 10, 9, 7, 5, 4, 2, 0});
  EXPECT_EQ(
      RunOp("strided_slice", {Iota({5})}, Slice({1}, {3}).With("strides", AttrValue::Ints({-1})))
          .shape(),
      (Shape{0}));
}

TEST(OpsTransformStridedSlice, AxesAndSizeMode) {
  NDArray out = RunOp("strided_slice", {Iota({2, 3, 4})},
                      Slice({1}, {3}).With("axes", AttrValue::Ints({-1})));
  EXPECT_EQ(out.shape(), (Shape{2, 3, 2}));
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) want.push_back(12 * i + 4 * j + 1 + k);
  ExpectValues(out, want);
  // In size mode `end` holds sizes (-1 = to the end) and strides are ignored.
  NDArray sized = RunOp(
      "strided_slice", {Iota({3, 5})},
      Slice({1, 2}, {-1, 2}).With("slice_mode", "size").With("strides", AttrValue::Ints({3, 3})));
  EXPECT_EQ(sized.shape(), (Shape{2, 2}));
  ExpectValues(sized, {7, 8, 12, 13});
}

TEST(OpsTransformStridedSlice, Errors) {
  Var x = MakeVar("x", F32({3, 5}));
  auto msg = ErrorOf(
      [&] {
        MakeOpCall("strided_slice", {x}, Slice({0}, {1}).With("strides", AttrValue::Ints({0})));
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'strided_slice': strides [0] contain a 0");
  msg = ErrorOf(
      [&] { MakeOpCall("strided_slice", {x}, Slice({0}, {1}).With("slice_mode", "start")); },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "slice_mode must be \"end\" or \"size\", got \"start\"");
  msg = ErrorOf(
      [&] {
        MakeOpCall("strided_slice", {x}, Slice({0, 0}, {1}).With("axes", AttrValue::Ints({0, 1})));
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "begin [0, 0] and end [1] must have one entry per axis in axes [0, 1]");
  msg = ErrorOf(
      [&] {
        MakeOpCall("strided_slice", {x}, Attrs{{"begin", AttrValue::Ints({0})}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "attribute 'end' is required");
  msg = ErrorOf(
      [] {
        Infer("strided_slice", {F32({3, 5})}, Slice({0, 0, 0}, {1, 1, 1}));
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "slice 3 axes but the data shape [3, 5] has rank 2");
  msg = ErrorOf(
      [] {
        Infer("strided_slice", {F32({3, 5})}, Slice({0}, {1}).With("axes", AttrValue::Ints({2})));
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 2 is out of range for rank 2");
}

// ---- take ---------------------------------------------------------------------------

TEST(OpsTransformTake, FlattenedWithClipWrapAndFast) {
  NDArray data = Iota({2, 3});
  NDArray idx = Arr({2, 2}, {0, 5, 7, -1}, DType::kInt32);
  NDArray clip = RunOp("take", {data, idx});
  EXPECT_EQ(clip.shape(), (Shape{2, 2}));
  ExpectValues(clip, {0, 5, 5, 0});
  ExpectValues(RunOp("take", {data, idx}, Attrs{{"mode", "wrap"}}), {0, 5, 1, 5});
  ExpectValues(RunOp("take", {data, Arr({2}, {4, 1}, DType::kInt64)}, Attrs{{"mode", "fast"}}),
               {4, 1});
  auto msg = ErrorOf(
      [&] {
        RunOp("take", {data, idx}, Attrs{{"mode", "fast"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "index 7 is out of range for an axis of size 6 (mode \"fast\" does not clip)");
}

TEST(OpsTransformTake, AlongAnAxis) {
  NDArray data = Iota({2, 3});
  NDArray out = RunOp("take", {data, Arr({2}, {2, 0}, DType::kInt64)}, Attrs{{"axis", 1}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  ExpectValues(out, {2, 0, 5, 3});
  out = RunOp("take", {data, Arr({2, 1}, {1, 0}, DType::kInt32)}, Attrs{{"axis", 0}});
  EXPECT_EQ(out.shape(), (Shape{2, 1, 3}));
  ExpectValues(out, {3, 4, 5, 0, 1, 2});
  ExpectValues(
      RunOp("take", {data, Arr({1}, {-1}, DType::kInt32)}, Attrs{{"axis", -1}, {"mode", "wrap"}}),
      {2, 5});
  // A scalar index drops the axis.
  out = RunOp("take", {data, Arr({}, {1}, DType::kInt32)}, Attrs{{"axis", 0}});
  EXPECT_EQ(out.shape(), (Shape{3}));
  ExpectValues(out, {3, 4, 5});
}

TEST(OpsTransformTake, BatchDims) {
  NDArray out = RunOp("take", {Iota({2, 3}), Arr({2, 2}, {0, 2, 1, 1}, DType::kInt32)},
                      Attrs{{"axis", 1}, {"batch_dims", 1}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  ExpectValues(out, {0, 2, 4, 4});
  EXPECT_EQ(ShapeOf(Infer("take", {F32({2, 3, 4}), MakeTensorType({2, 5}, DType::kInt32)},
                          Attrs{{"axis", 2}, {"batch_dims", -1}})),
            (Shape{2, 3, 5}));
}

TEST(OpsTransformTake, Errors) {
  auto i32 = [](Shape s) { return MakeTensorType(std::move(s), DType::kInt32); };
  auto msg = ErrorOf([] { Infer("take", {F32({2, 3}), F32({2})}); }, ErrorKind::kType);
  EXPECT_HAS(msg, "indices must be int32 or int64, got float32");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 3}), i32({3, 2})}, Attrs{{"axis", 1}, {"batch_dims", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "batch dimension 0 differs: data shape [2, 3], indices shape [3, 2]");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 3}), i32({2, 2})}, Attrs{{"axis", 0}, {"batch_dims", 1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "batch_dims 1 must not exceed axis 0");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 3}), i32({2})}, Attrs{{"axis", 2}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "axis 2 is out of range for rank 2");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 0}), i32({1})}, Attrs{{"axis", 1}});
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "cannot take from an empty axis (data shape [2, 0])");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 3}), i32({1})}, Attrs{{"mode", "nan"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "op 'take': mode must be \"clip\", \"wrap\" or \"fast\", got \"nan\"");
  msg = ErrorOf(
      [&] {
        Infer("take", {F32({2, 3}), i32({1})}, Attrs{{"batch_dims", 1}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg, "batch_dims must be 0 when axis is None, got 1");
}

// ---- layout_transform ---------------------------------------------------------------

Attrs Layouts(const char* src, const char* dst) {
  return Attrs{{"src_layout", src}, {"dst_layout", dst}};
}

TEST(OpsTransformLayout, NCHWToNCHW4cAndBack) {
  NDArray x = Iota({1, 8, 2, 2});
  NDArray blocked = RunOp("layout_transform", {x}, Layouts("NCHW", "NCHW4c"));
  EXPECT_EQ(blocked.shape(), (Shape{1, 2, 2, 2, 4}));
  // out[0, C, h, w, c] = x[0, 4C + c, h, w] = 4 * (4C + c) + 2h + w.
  std::vector<double> want;
  for (int C = 0; C < 2; ++C)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        for (int c = 0; c < 4; ++c) want.push_back(4 * (4 * C + c) + 2 * h + w);
  ExpectValues(blocked, want);
  NDArray back = RunOp("layout_transform", {blocked}, Layouts("NCHW4c", "NCHW"));
  EXPECT_TRUE(back.BitwiseEqual(x));
  // Re-blocking NCHW4c -> NCHW8c equals blocking directly.
  NDArray x16 = Iota({1, 16, 1, 3}, DType::kInt32);
  NDArray via =
      RunOp("layout_transform", {RunOp("layout_transform", {x16}, Layouts("NCHW", "NCHW4c"))},
            Layouts("NCHW4c", "NCHW8c"));
  EXPECT_EQ(via.shape(), (Shape{1, 2, 1, 3, 8}));
  EXPECT_TRUE(via.BitwiseEqual(RunOp("layout_transform", {x16}, Layouts("NCHW", "NCHW8c"))));
}

TEST(OpsTransformLayout, NCHWToNHWC) {
  NDArray out = RunOp("layout_transform", {Iota({1, 2, 2, 3})}, Layouts("NCHW", "NHWC"));
  EXPECT_EQ(out.shape(), (Shape{1, 2, 3, 2}));
  ExpectValues(out, {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11});
  EXPECT_TRUE(
      RunOp("layout_transform", {out}, Layouts("NHWC", "NCHW")).BitwiseEqual(Iota({1, 2, 2, 3})));
}

TEST(OpsTransformLayout, WeightLayoutWithTwoSubAxes) {
  NDArray w = Iota({4, 6, 1, 1});
  NDArray out = RunOp("layout_transform", {w}, Layouts("OIHW", "OIHW2i2o"));
  EXPECT_EQ(out.shape(), (Shape{2, 3, 1, 1, 2, 2}));
  // out[O, I, 0, 0, i, o] = w[2O + o, 2I + i] = 6 (2O + o) + 2I + i.
  std::vector<double> want;
  for (int O = 0; O < 2; ++O)
    for (int I = 0; I < 3; ++I)
      for (int i = 0; i < 2; ++i)
        for (int o = 0; o < 2; ++o) want.push_back(6 * (2 * O + o) + 2 * I + i);
  ExpectValues(out, want);
  EXPECT_TRUE(RunOp("layout_transform", {out}, Layouts("OIHW2i2o", "OIHW")).BitwiseEqual(w));
}

TEST(OpsTransformLayout, LayoutSugarErrors) {
  // The index map's own errors (rank, injectivity, pad_value) are in test_ops_layout.cc.
  auto msg = ErrorOf(
      [] {
        Infer("layout_transform", {F32({2, 3})}, Layouts("NCHW", "NHWC"));
      },
      ErrorKind::kType);
  EXPECT_HAS(msg, "index map `lambda i0, i1, i2, i3: (i0, i2, i3, i1)` takes 4 indices but data has "
                  "rank 2 (shape [2, 3])");
  Var x = MakeVar("x", F32({1, 8, 2, 2}));
  auto attr_error = [&](const char* src, const char* dst) {
    return ErrorOf([&] { MakeOpCall("layout_transform", {x}, Layouts(src, dst)); },
                   ErrorKind::kValue);
  };
  EXPECT_HAS(attr_error("NCHW", "NHW"), "must have the same primal axes (axis C is in only one)");
  EXPECT_HAS(attr_error("NCHW4", "NCHW"),
             "source layout \"NCHW4\": a size must be followed by a letter");
  EXPECT_HAS(attr_error("NCHW", "NCHWc"),
             "destination layout \"NCHWc\": unexpected 'c' at position 4");
  EXPECT_HAS(attr_error("NCHW", "NCHW4c4c"), "repeats sub-axis c");
  EXPECT_HAS(attr_error("NCHW", "NCCHW"), "repeats axis C");
  EXPECT_HAS(attr_error("NCHW", "NCHW4k"), "has sub-axis k without its primal axis K");
  EXPECT_HAS(attr_error("NCHW", "NCHW0c"), "sub-axis c must have a positive size");
  EXPECT_HAS(attr_error("", "NCHW"),
             "op 'layout_transform': src_layout and dst_layout go together (got only "
             "dst_layout \"NCHW\")");
  auto msg2 = ErrorOf(
      [&] {
        MakeOpCall("layout_transform", {x}, Attrs{{"src_layout", "NCHW"}});
      },
      ErrorKind::kValue);
  EXPECT_HAS(msg2, "got only src_layout \"NCHW\"");
}

}  // namespace
}  // namespace tessera
