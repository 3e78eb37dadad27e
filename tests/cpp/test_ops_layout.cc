// The layout ops of layout planning, crop and layout_transform with an index map: type
// relations, reference kernels, errors, native lowering against the interpreter, text and
// JSON round trips.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "ops_math_test_util.h"
#include "tessera/ir/json.h"
#include "test_text_util.h"
#include "test_util.h"

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

TensorType F32(std::vector<int64_t> shape) {
  return MakeTensorType(std::move(shape));
}

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
  NDArray padded =
      RunOp("nn.pad", {x, NDArray::Scalar(-1.0, DType::kFloat32)},
            Attrs{{"pad_width", AttrValue{AttrValue::Ints({1, 0}), AttrValue::Ints({2, 1})}}});
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
  ExpectError(
      [&] {
        MakeOpCall("crop", {x}, CropAttrs({0, -1}, {2, 3}));
      },
      ErrorKind::kValue, "op 'crop': begin [0, -1] is negative at axis 1");
  ExpectError(
      [&] {
        MakeOpCall("crop", {x}, CropAttrs({0, 0}, {2, -3}));
      },
      ErrorKind::kValue, "op 'crop': sizes [2, -3] is negative at axis 1");
  ExpectError(
      [&] {
        MakeOpCall("crop", {x}, CropAttrs({0}, {2, 3}));
      },
      ErrorKind::kValue, "op 'crop': begin [0] and sizes [2, 3] must have one entry per axis each");
  ExpectError(
      [&] {
        MakeOpCall("crop", {x}, Attrs{{"begin", AttrValue::Ints({0, 0})}});
      },
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
  EXPECT_NE(text.find("crop(%x, begin=[1, 2], sizes=[2, 3], cropped_value=0f)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("crop(%0, begin=[0, 0], sizes=[1, 3], frozen_layout=True)"),
            std::string::npos)
      << text;
  EXPECT_TRUE(StructuralEqual(ModuleFromJson(ModuleToJson(mod)), mod));
}

// ---- layout_transform with an index map ----------------------------------------------

Attrs MapAttrs(const std::string& map, AttrValue pad = AttrValue()) {
  Attrs a{{"index_map", map}};
  if (!pad.is_none()) a.Set("pad_value", pad);
  return a;
}

TEST(OpsLayoutTransform, LayoutsAreSugarForTheIndexMap) {
  Var x = MakeVar("x", F32({1, 64, 4, 4}));
  Call sugar =
      MakeOpCall("layout_transform", {x}, Attrs{{"src_layout", "NCHW"}, {"dst_layout", "NCHW16c"}});
  Call direct = MakeOpCall("layout_transform", {x},
                           MapAttrs("lambda n, c, h, w: (n, c // 16, h, w, c % 16)"));
  EXPECT_TRUE(StructuralEqual(Expr(sugar), Expr(direct)));
  EXPECT_FALSE(sugar->attrs.Has("src_layout"));
  EXPECT_EQ(sugar->attrs.GetString("index_map"), "lambda i0, i1, i2, i3: (i0, i1 // 16, i2, i3, i1 % 16)");
  // The text is kept in IndexMap's canonical form.
  Call spaced = MakeOpCall("layout_transform", {x},
                           MapAttrs("lambda n,c,h,w:(n, floordiv(c, 16), h, w, floormod(c, 16))"));
  EXPECT_TRUE(StructuralEqual(Expr(spaced), Expr(direct)));
  IRModule mod = IRModule::FromExpr(MakeFunction({x}, sugar));
  std::string text = ExpectRoundTrip(mod);
  EXPECT_NE(text.find("layout_transform(%x, index_map=\"lambda i0, i1, i2, i3: (i0, i1 // 16, i2, i3, "
                      "i1 % 16)\")"),
            std::string::npos)
      << text;
}

TEST(OpsLayoutTransform, TypeIsTheMappedShape) {
  auto shape_of = [](std::vector<int64_t> in, const std::string& map) {
    return Infer("layout_transform", {F32(in)}, MapAttrs(map)).as<TensorTypeNode>()->shape;
  };
  using Shape = std::vector<int64_t>;
  EXPECT_EQ(shape_of({1, 64, 5, 7}, "lambda n, c, h, w: (n, c // 16, h, w, c % 16)"),
            (Shape{1, 4, 5, 7, 16}));
  // 6 channels blocked by 4 pad to 8.
  EXPECT_EQ(shape_of({1, 6, 2, 2}, "lambda n, c, h, w: (n, c // 4, h, w, c % 4)"),
            (Shape{1, 2, 2, 2, 4}));
  EXPECT_EQ(shape_of({2, 3}, "lambda i, j: (j, i)"), (Shape{3, 2}));
  EXPECT_EQ(shape_of({14}, "lambda i: ((i + 1) // 4, (i + 1) % 4)"), (Shape{4, 4}));
  Type i8 = Infer("layout_transform", {MakeTensorType({2, 3}, DType::kInt8)},
                  MapAttrs("lambda i, j: (j, i)"));
  EXPECT_EQ(i8.as<TensorTypeNode>()->dtype, DType::kInt8);
}

TEST(OpsLayoutTransform, KernelMovesElementsAndPadsWithPadValue) {
  // NCHW -> NCHW4c over 6 channels: channels 6 and 7 of the second block are padding.
  NDArray x = Iota({1, 6, 1, 2});
  std::string map = "lambda n, c, h, w: (n, c // 4, h, w, c % 4)";
  NDArray out = RunOp("layout_transform", {x}, MapAttrs(map, -1.5));
  std::vector<double> want;
  for (int C = 0; C < 2; ++C)
    for (int w = 0; w < 2; ++w)
      for (int c = 0; c < 4; ++c) want.push_back(4 * C + c < 6 ? 2 * (4 * C + c) + w : -1.5);
  EXPECT_EQ(Values(out), want);
  // None: the kernel writes 0.
  NDArray zero = RunOp("layout_transform", {x}, MapAttrs(map));
  EXPECT_EQ(Values(zero)[14], 0.0);
  EXPECT_EQ(Values(zero)[15], 0.0);
  // A leading offset pads at the front and the back: [14] -> [4, 4], positions 0 and 15.
  NDArray shifted = RunOp("layout_transform", {Iota({14}, DType::kInt32)},
                          MapAttrs("lambda i: ((i + 1) // 4, (i + 1) % 4)", int64_t{-7}));
  std::vector<double> expect = {-7};
  for (int i = 0; i < 14; ++i) expect.push_back(i);
  expect.push_back(-7);
  EXPECT_EQ(Values(shifted), expect);
  EXPECT_EQ(shifted.dtype(), DType::kInt32);
  // A transpose written as a map, and a bijection the layout strings cannot say.
  EXPECT_EQ(Values(RunOp("layout_transform", {Iota({2, 3})}, MapAttrs("lambda i, j: (j, i)"))),
            (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Values(RunOp("layout_transform", {Iota({2, 4})},
                         MapAttrs("lambda i, j: (j // 2, i, j % 2)"))),
            (std::vector<double>{0, 1, 4, 5, 2, 3, 6, 7}));
}

TEST(OpsLayoutTransform, Errors) {
  auto main_with = [](const std::string& type, const std::string& attrs) {
    return Main("%x: " + T(type.substr(0, type.find(';')), type.substr(type.find(';') + 1)),
                "layout_transform(%x, " + attrs + ")");
  };
  EXPECT_NE(InferError(main_with("2, 3, 4;float32",
                                 "index_map=\"lambda n, c, h, w: (n, c // 4, h, w, c % 4)\""))
                .find("op 'layout_transform': index map `lambda i0, i1, i2, i3: (i0, i1 // 4, i2, "
                      "i3, i1 % 4)` takes 4 indices but data has rank 3 (shape [2, 3, 4])"),
            std::string::npos);
  std::string folds = InferError(main_with("2, 3;float32", "index_map=\"lambda i, j: (i + j,)\""));
  // (Maps are stored with variables renamed i0, i1, ..., so errors show that spelling.)
  EXPECT_NE(folds.find("op 'layout_transform': index map `lambda i0, i1: (i0 + i1,)` is not "
                       "injective on shape [2, 3]"),
            std::string::npos)
      << folds;
  std::string drops = InferError(main_with("4;float32", "index_map=\"lambda i: (i // 2,)\""));
  EXPECT_NE(drops.find("is not injective on shape [4]"), std::string::npos) << drops;
  // pad_value must fit the dtype when the map pads; a bijection ignores it.
  std::string pad = "index_map=\"lambda i: (i // 4, i % 4)\", pad_value=";
  EXPECT_NE(InferError(main_with("6;int8", pad + "300f"))
                .find("op 'layout_transform': index map `lambda i0: (i0 // 4, i0 % 4)` pads data "
                      "shape [6] to [2, 4] but pad_value 300 does not fit data's dtype int8"),
            std::string::npos);
  EXPECT_NE(InferError(main_with("6;int32", pad + "0.5f")).find("does not fit data's dtype int32"),
            std::string::npos);
  EXPECT_NE(InferError(main_with("6;float16", pad + "1e6f")).find("dtype float16"),
            std::string::npos);
  EXPECT_EQ(InferError(main_with("8;int8", pad + "300f")), "");
  EXPECT_EQ(InferError(main_with("6;int8", pad + "-128f")), "");
  EXPECT_EQ(InferError(main_with("6;float32", pad + "-inf")), "");
  // Attribute errors: unknown axes, a bad map text, both spellings, neither.
  Var x = MakeVar("x", F32({1, 8, 2, 2}));
  auto attr_error = [&](const Attrs& a) {
    return ErrorOf([&] { MakeOpCall("layout_transform", {x}, a); });
  };
  EXPECT_NE(attr_error(Attrs{{"src_layout", "NCHW"}, {"dst_layout", "NCHW4q"}})
                .find("op 'layout_transform': destination layout \"NCHW4q\" has sub-axis q "
                      "without its primal axis Q"),
            std::string::npos);
  EXPECT_NE(attr_error(Attrs{{"src_layout", "NCHW"}, {"dst_layout", "NCDW"}})
                .find("must have the same primal axes"),
            std::string::npos);
  EXPECT_NE(attr_error(MapAttrs("lambda n, c: (n, c"))
                .find("op 'layout_transform': index map "
                      "text \"lambda n, c: (n, c\""),
            std::string::npos);
  EXPECT_NE(
      attr_error(
          Attrs{{"index_map", "lambda i: (i,)"}, {"src_layout", "NCHW"}, {"dst_layout", "NHWC"}})
          .find("give either index_map or src_layout and dst_layout, not both"),
      std::string::npos);
  EXPECT_NE(attr_error({}).find("op 'layout_transform': needs index_map (or src_layout and "
                                "dst_layout)"),
            std::string::npos);
}

TEST(OpsLayoutTransform, LowersLikeTheInterpreter) {
  auto lt = [](const std::string& map, const std::string& more = "") {
    return "layout_transform(%x, index_map=\"" + map + "\"" + more + ")";
  };
  CheckLowering(
      Main("%x: " + T("1, 32, 5, 3"), lt("lambda n, c, h, w: (n, c // 16, h, w, c % 16)")));
  CheckLowering(
      Main("%x: " + T("1, 2, 5, 3, 16"), lt("lambda n, C, h, w, c: (n, C * 16 + c, h, w)")));
  CheckLowering(Main("%x: " + T("2, 3, 4"), lt("lambda a, b, c: (c, a, b)")));
  // Padding, with a value, without (0), in an integer dtype and at both ends.
  CheckLowering(Main("%x: " + T("1, 6, 3, 3"),
                     lt("lambda n, c, h, w: (n, c // 4, h, w, c % 4)", ", pad_value=-2.5f")));
  CheckLowering(Main("%x: " + T("1, 6, 3, 3"), lt("lambda n, c, h, w: (n, c // 4, h, w, c % 4)")));
  CheckLowering(Main("%x: " + T("5, 14", "int32"),
                     lt("lambda i, j: (i, (j + 1) // 4, (j + 1) % 4)", ", pad_value=9f")));
  // Fused between elementwise ops, and the sugar spelling.
  CheckLowering(Main("%x: " + T("1, 8, 3, 3"),
                     "%0 = nn.relu(%x);\n  %1 = " +
                         lt("lambda n, c, h, w: (n, c // 4, h, w, c % 4)") + ";\n  exp(%1)"));
  CheckLowering(Main("%x: " + T("1, 6, 2, 2"),
                     "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\", "
                     "pad_value=1f)"));
}

TEST(OpsLayoutTransform, TextAndJsonRoundTrip) {
  IRModule mod = ParseModule(
      Main("%x: " + T("1, 6, 2, 2"),
           "%0 = layout_transform(%x, index_map=\"lambda n, c, h, w: (n, c // 4, h, w, c % 4)\", "
           "pad_value=0.5f, frozen_layout=True);\n"
           "  layout_transform(%0, src_layout=\"NCHW4c\", dst_layout=\"NHWC4c\")"));
  std::string text = ExpectRoundTrip(mod);
  EXPECT_NE(text.find("index_map=\"lambda i0, i1, i2, i3: (i0, i1 // 4, i2, i3, i1 % 4)\", "
                      "pad_value=0.5f, frozen_layout=True)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("src_layout"), std::string::npos) << text;
  EXPECT_TRUE(StructuralEqual(ModuleFromJson(ModuleToJson(mod)), mod));
}

}  // namespace
}  // namespace tessera
