// The layout ops of layout planning: crop (and, with an index map, layout_transform): type
// relations, reference kernels, errors, native lowering against the interpreter, text and
// JSON round trips.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "ops_math_test_util.h"
#include "test_text_util.h"
#include "test_util.h"
#include "tessera/ir/json.h"

namespace tessera {
namespace {

using math_test::Arr;
using math_test::Infer;
using math_test::Iota;
using math_test::RunOp;
using math_test::Values;
using testing::ErrorOf;
using testing::ExpectError;
using testing::ExpectRoundTrip;
using testing_lower::CheckLowering;
using testing_lower::Main;
using testing_lower::T;

TensorType F32(std::vector<int64_t> shape) { return MakeTensorType(std::move(shape)); }

/// The type error InferTypes gives for @main of `text` (the op's name comes first).
std::string InferError(const std::string& text) {
  return ErrorOf([&] { InferTypes(ParseModule(text)); });
}

// ---- crop ---------------------------------------------------------------------------

Attrs CropAttrs(std::vector<int64_t> begin, std::vector<int64_t> sizes) {
  return Attrs{{"begin", AttrValue::Ints(begin)}, {"sizes", AttrValue::Ints(sizes)}};
}

TEST(OpsCrop, TypeIsTheWindow) {
  Type t = Infer("crop", {F32({2, 5, 7})}, CropAttrs({0, 1, 2}, {2, 3, 5}));
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{2, 3, 5}));
  // Empty windows, at the very end too.
  t = Infer("crop", {F32({2, 5})}, CropAttrs({2, 5}, {0, 0}));
  EXPECT_EQ(t.as<TensorTypeNode>()->shape, (std::vector<int64_t>{0, 0}));
  Type i8 = Infer("crop", {MakeTensorType({4}, DType::kInt8)}, CropAttrs({1}, {2}));
  EXPECT_EQ(i8.as<TensorTypeNode>()->dtype, DType::kInt8);
}

TEST(OpsCrop, KernelReadsTheWindow) {
  // [[0 1 2 3] [4 5 6 7] [8 9 10 11]] cropped to rows 1..2, columns 1..2.
  NDArray out = RunOp("crop", {Iota({3, 4})}, CropAttrs({1, 1}, {2, 2}));
  EXPECT_EQ(Values(out), (std::vector<double>{5, 6, 9, 10}));
  NDArray ints = RunOp("crop", {Iota({2, 3, 4}, DType::kInt32)}, CropAttrs({1, 0, 3}, {1, 3, 1}));
  EXPECT_EQ(Values(ints), (std::vector<double>{15, 19, 23}));
  EXPECT_EQ(RunOp("crop", {Iota({3, 4})}, CropAttrs({3, 0}, {0, 4})).NumElements(), 0);
}

TEST(OpsCrop, UndoesAConstantPad) {
  NDArray x = Iota({2, 3});
  NDArray padded = RunOp("nn.pad", {x, NDArray::Scalar(-1.0, DType::kFloat32)},
                         Attrs{{"pad_width", AttrValue{AttrValue::Ints({1, 0}),
                                                      AttrValue::Ints({2, 1})}}});
  Attrs attrs = CropAttrs({1, 2}, {2, 3});
  attrs.Set("cropped_value", -1.0);
  EXPECT_TRUE(RunOp("crop", {padded}, attrs).BitwiseEqual(x));
}

TEST(OpsCrop, Errors) {
  EXPECT_NE(InferError(Main("%x: " + T("2, 5"), "crop(%x, begin=[0, 1, 0], sizes=[2, 3, 1])"))
                .find("op 'crop': begin [0, 1, 0] and sizes [2, 3, 1] have 3 entries but data "
                      "shape [2, 5] has rank 2"),
            std::string::npos);
  EXPECT_NE(InferError(Main("%x: " + T("2, 5"), "crop(%x, begin=[0, 3], sizes=[2, 3])"))
                .find("op 'crop': the window begin [0, 3], sizes [2, 3] leaves data shape [2, 5] "
                      "at axis 1 (3 + 3 > 5)"),
            std::string::npos);
  EXPECT_NE(InferError(Main("%x: " + T("2, 5"), "crop(%x, begin=[4, 0], sizes=[0, 5])"))
                .find("leaves data shape [2, 5] at axis 0 (4 + 0 > 2)"),
            std::string::npos);
  Var x = MakeVar("x", F32({2, 5}));
  ExpectError([&] { MakeOpCall("crop", {x}, CropAttrs({0, -1}, {2, 3})); }, ErrorKind::kValue,
              "op 'crop': begin [0, -1] is negative at axis 1");
  ExpectError([&] { MakeOpCall("crop", {x}, CropAttrs({0, 0}, {2, -3})); }, ErrorKind::kValue,
              "op 'crop': sizes [2, -3] is negative at axis 1");
  ExpectError([&] { MakeOpCall("crop", {x}, CropAttrs({0}, {2, 3})); }, ErrorKind::kValue,
              "op 'crop': begin [0] and sizes [2, 3] must have one entry per axis each");
  ExpectError([&] { MakeOpCall("crop", {x}, Attrs{{"begin", AttrValue::Ints({0, 0})}}); },
              ErrorKind::kValue, "op 'crop': attribute 'sizes' is required");
  ExpectError(
      [&] {
        Attrs a = CropAttrs({0, 0}, {1, 1});
        a.Set("cropped_value", "zero");
        MakeOpCall("crop", {x}, a);
      },
      ErrorKind::kValue, "op 'crop': attribute 'cropped_value' must be a number or None");
}

TEST(OpsCrop, LowersLikeTheInterpreter) {
  CheckLowering(Main("%x: " + T("5, 6"), "crop(%x, begin=[1, 2], sizes=[3, 4])"));
  CheckLowering(Main("%x: " + T("1, 4, 9, 9"), "crop(%x, begin=[0, 1, 1, 0], sizes=[1, 3, 7, 8])"));
  CheckLowering(Main("%x: " + T("3, 7", "int32"), "crop(%x, begin=[0, 0], sizes=[3, 7])"));
  // Fused with a pad before and an elementwise op after: the pattern layout planning makes.
  CheckLowering(Main("%x: " + T("2, 14"),
                     "%0 = nn.pad(%x, 0f, pad_width=[[0, 0], [0, 2]]);\n"
                     "  %1 = nn.relu(%0);\n"
                     "  crop(%1, begin=[0, 0], sizes=[2, 14], cropped_value=0f)"));
}

TEST(OpsCrop, TextAndJsonRoundTrip) {
  IRModule mod = ParseModule(Main("%x: " + T("4, 6"),
                                  "%0 = crop(%x, begin=[1, 2], sizes=[2, 3], cropped_value=0f);\n"
                                  "  crop(%0, begin=[0, 0], sizes=[1, 3], frozen_layout=True)"));
  std::string text = ExpectRoundTrip(mod);
  EXPECT_NE(text.find("crop(%x, begin=[1, 2], sizes=[2, 3], cropped_value=0f)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("crop(%0, begin=[0, 0], sizes=[1, 3], frozen_layout=True)"),
            std::string::npos)
      << text;
  EXPECT_TRUE(StructuralEqual(ModuleFromJson(ModuleToJson(mod)), mod));
}

}  // namespace
}  // namespace tessera
