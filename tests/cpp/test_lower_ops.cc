// Every op lowered alone (LowerPrimitive, ScheduleDefault, LowerToTIR) against the graph
// interpreter, with odd and even shapes and attribute variants.
#include <gtest/gtest.h>

#include "lower_test_util.h"
#include "tessera/backend/lower/compute.h"
#include "tessera/ir/op.h"

namespace tessera {
namespace {

using testing_lower::CheckLowering;

using testing_lower::Main;
using testing_lower::T;

TEST(LowerOps, EveryOpHasAComputeRule) {
  for (const std::string& name : OpRegistry::Global().ListOps()) {
    if (name == kCallTirOp) continue;
    EXPECT_NE(lower::ComputeRegistry::Global().Find(name), nullptr) << name;
  }
}

TEST(LowerOps, Unary) {
  for (const char* op : {"negative", "exp", "tanh", "sigmoid", "erf", "abs", "floor", "ceil",
                         "round", "nn.relu", "copy"})
    for (const char* shape : {"3, 5", "4, 8"})
      CheckLowering(Main("%x: " + T(shape), std::string(op) + "(%x)"));
  CheckLowering(Main("%x: " + T("7"), "log(abs(%x))"));
  CheckLowering(Main("%x: " + T("7"), "sqrt(abs(%x))"));
  CheckLowering(Main("%x: " + T("7"), "rsqrt(abs(%x))"));
  for (const char* op : {"negative", "abs", "nn.relu", "floor"})
    CheckLowering(Main("%x: " + T("3, 5", "int32"), std::string(op) + "(%x)"));
  CheckLowering(Main("%x: " + T("9"), "nn.leaky_relu(%x, alpha=0.2f)"));
  CheckLowering(Main("%x: " + T("9"), "nn.gelu(%x)"));
  CheckLowering(Main("%x: " + T("9"), "nn.gelu(%x, approximate=\"tanh\")"));
  CheckLowering(Main("%x: " + T("2, 9"), "clip(%x, a_min=-1f, a_max=0.5f)"));
  CheckLowering(Main("%x: " + T("2, 9", "int32"), "clip(%x, a_min=-1f, a_max=3f)"));
}

TEST(LowerOps, CastsAndFills) {
  CheckLowering(Main("%x: " + T("3, 4"), "cast(%x, dtype=\"int32\")"));
  CheckLowering(Main("%x: " + T("3, 4", "int32"), "cast(%x, dtype=\"float32\")"));
  CheckLowering(Main("%x: " + T("3, 4", "int32"), "cast(%x, dtype=\"int8\")"));
  CheckLowering(Main("%x: " + T("3, 4"), "cast(%x, dtype=\"bool\")"));
  CheckLowering(Main("%x: " + T("3, 4"), "add(%x, zeros(shape=[3, 4]))"));
  CheckLowering(Main("%x: " + T("3, 4"), "add(%x, ones(shape=[4]))"));
  CheckLowering(Main("%v: " + T(""), "full(%v, shape=[2, 3])"));
  CheckLowering(Main("%v: " + T(""), "full(%v, shape=[2, 3], dtype=\"int32\")"));
  CheckLowering(Main("%x: " + T("5"), "%0 = nn.dropout(%x); %0.0"));
}

TEST(LowerOps, BinaryBroadcast) {
  for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum", "equal",
                         "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
    CheckLowering(Main("%a: " + T("3, 5") + ", %b: " + T("3, 5"), std::string(op) + "(%a, %b)"));
    CheckLowering(Main("%a: " + T("2, 3, 4") + ", %b: " + T("3, 1"), std::string(op) + "(%a, %b)"));
    CheckLowering(Main("%a: " + T("1, 4", "int32") + ", %b: " + T("3, 1", "int32"),
                       std::string(op) + "(%a, %b)"));
  }
  CheckLowering(Main("%a: " + T("3, 5") + ", %b: " + T("5"), "power(abs(%a), %b)"));
  CheckLowering(
      Main("%a: " + T("3, 5", "int32") + ", %b: " + T("5", "int32"), "power(%a, abs(%b))"));
  CheckLowering(Main("%c: " + T("3, 1", "bool") + ", %a: " + T("3, 4") + ", %b: " + T("4"),
                     "where(%c, %a, %b)"));
}

TEST(LowerOps, SquareIsAProduct) {
  // power(x, 2) (a layer norm's variance) lowers to x * x, so the reduction over it is
  // vectorized instead of calling pow per element; other exponents keep the call.
  for (const char* e : {"2f", "1f", "3f", "0.5f"}) {
    std::string text = Main("%x: " + T("3, 40"), std::string("mean(power(%x, ") + e + "), axis=[-1])");
    CheckLowering(text);
    IRModule mod = InferTypes(ParseModule(text));
    lower::LoweredPrimitive lowered = lower::LowerPrimitiveWithConstants(
        WithAttr(mod.LookupFunction("main"), attr::kPrimitive, int64_t{1}), "k");
    bool pow_call = PrintStmt(lowered.func->body).find("pow(") != std::string::npos;
    EXPECT_EQ(pow_call, std::string(e) == "3f" || std::string(e) == "0.5f") << e;
  }
}

TEST(LowerOps, Reductions) {
  for (const char* op : {"sum", "mean", "max", "min"}) {
    std::string o(op);
    CheckLowering(Main("%x: " + T("3, 4, 5"), o + "(%x)"));
    CheckLowering(Main("%x: " + T("3, 4, 5"), o + "(%x, axis=[1])"));
    CheckLowering(Main("%x: " + T("3, 4, 5"), o + "(%x, axis=[0, 2], keepdims=True)"));
    CheckLowering(Main("%x: " + T("3, 4, 5"), o + "(%x, axis=[1], exclude=True)"));
    CheckLowering(Main("%x: " + T("3, 4, 5"), o + "(%x, axis=[-1])"));
    CheckLowering(Main("%x: " + T("2, 6", "int32"), o + "(%x, axis=[1])"));
    CheckLowering(Main("%x: " + T("2, 0"), o + "(%x, axis=[1])"));  // empty: the identity
  }
}

TEST(LowerOps, Shapes) {
  CheckLowering(Main("%x: " + T("2, 3, 4"), "reshape(%x, newshape=[6, 4])"));
  CheckLowering(Main("%x: " + T("2, 3, 4"), "reshape(%x, newshape=[4, -1])"));
  CheckLowering(Main("%x: " + T("2, 3, 4"), "transpose(%x)"));
  CheckLowering(Main("%x: " + T("2, 3, 4"), "transpose(%x, axes=[1, 0, 2])"));
  CheckLowering(Main("%x: " + T("2, 1, 3, 1"), "squeeze(%x)"));
  CheckLowering(Main("%x: " + T("2, 1, 3, 1"), "squeeze(%x, axis=[1])"));
  CheckLowering(Main("%x: " + T("2, 3"), "expand_dims(%x, axis=1, num_newaxis=2)"));
  CheckLowering(Main("%x: " + T("2, 3, 2, 2"), "nn.batch_flatten(%x)"));
  CheckLowering(Main("%x: " + T("2, 3, 4, 4"),
                     "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\")"));
  CheckLowering(Main("%x: " + T("2, 4, 3, 3"),
                     "layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW2c\")"));
  CheckLowering(Main("%x: " + T("2, 2, 3, 3, 2"),
                     "layout_transform(%x, src_layout=\"NCHW2c\", dst_layout=\"NHWC\")"));
}

TEST(LowerOps, Indexing) {
  CheckLowering(Main("%a: " + T("2, 3") + ", %b: " + T("2, 5"), "concatenate((%a, %b), axis=1)"));
  CheckLowering(Main("%a: " + T("2, 3") + ", %b: " + T("1, 3") + ", %c: " + T("3, 3"),
                     "concatenate((%a, %b, %c))"));
  CheckLowering(Main("%x: " + T("2, 6"), "split(%x, indices_or_sections=3, axis=1)"));
  CheckLowering(Main("%x: " + T("7, 2"), "split(%x, indices_or_sections=[2, 5])"));
  CheckLowering(Main("%x: " + T("5, 6"), "strided_slice(%x, begin=[1, 0], end=[4, 6])"));
  CheckLowering(
      Main("%x: " + T("5, 6"), "strided_slice(%x, begin=[0, 1], end=[5, 6], strides=[2, 2])"));
  CheckLowering(Main("%x: " + T("5, 6"), "strided_slice(%x, begin=[-1], end=[-6], strides=[-2])"));
  CheckLowering(Main("%x: " + T("5, 6"),
                     "strided_slice(%x, begin=[1], end=[2], axes=[1], slice_mode=\"size\")"));
  CheckLowering(Main("%x: " + T("5, 6") + ", %i: " + T("2, 3", "int32"), "take(%x, %i, axis=1)"),
                3);
  CheckLowering(
      Main("%x: " + T("5, 6") + ", %i: " + T("4", "int32"), "take(%x, %i, axis=0, mode=\"wrap\")"),
      3);
  CheckLowering(Main("%x: " + T("5, 6") + ", %i: " + T("4", "int64"), "take(%x, %i)"), 3, 30);
  CheckLowering(Main("%x: " + T("5, 6") + ", %i: " + T("5, 2", "int32"),
                     "take(%x, %i, axis=1, batch_dims=1, mode=\"fast\")"),
                3, 6);
  CheckLowering(
      Main("%x: " + T("2, 3, 3"), "nn.pad(%x, 1.5f, pad_width=[[0, 0], [1, 2], [2, 1]])"));
  CheckLowering(Main("%x: " + T("2, 3, 3"),
                     "nn.pad(%x, 0f, pad_width=[[0, 0], [1, 2], [2, 1]], pad_mode=\"edge\")"));
  CheckLowering(Main("%x: " + T("2, 4, 3"),
                     "nn.pad(%x, 0f, pad_width=[[1, 1], [2, 3], [2, 1]], pad_mode=\"reflect\")"));
}

TEST(LowerOps, Conv2D) {
  std::string nchw = "%x: " + T("1, 4, 7, 7") + ", %w: " + T("6, 4, 3, 3");
  CheckLowering(Main(nchw, "nn.conv2d(%x, %w)"));
  CheckLowering(Main(nchw, "nn.conv2d(%x, %w, padding=[1, 1])"));
  CheckLowering(Main(nchw, "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 2, 0, 1])"));
  CheckLowering(Main(nchw, "nn.conv2d(%x, %w, dilation=[2, 2], padding=[2, 2])"));
  CheckLowering(Main("%x: " + T("2, 4, 6, 6") + ", %w: " + T("6, 2, 3, 3"),
                     "nn.conv2d(%x, %w, groups=2, padding=[1, 1])"));
  CheckLowering(Main("%x: " + T("1, 4, 5, 5") + ", %w: " + T("4, 1, 3, 3"),
                     "nn.conv2d(%x, %w, groups=4, padding=[1, 1])"));
  CheckLowering(
      Main("%x: " + T("1, 6, 6, 3") + ", %w: " + T("3, 3, 3, 5"),
           "nn.conv2d(%x, %w, padding=[1, 1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")"));
  CheckLowering(Main("%x: " + T("1, 2, 5, 5", "int8") + ", %w: " + T("3, 2, 1, 1", "int8"),
                     "nn.conv2d(%x, %w, out_dtype=\"int32\")"));
}

TEST(LowerOps, MatmulFamily) {
  CheckLowering(Main("%x: " + T("3, 5") + ", %w: " + T("4, 5"), "nn.dense(%x, %w)"));
  CheckLowering(Main("%x: " + T("2, 3, 5") + ", %w: " + T("7, 5"), "nn.dense(%x, %w)"));
  CheckLowering(Main("%a: " + T("3, 5") + ", %b: " + T("5, 4"), "nn.matmul(%a, %b)"));
  CheckLowering(Main("%a: " + T("5, 3") + ", %b: " + T("4, 5"),
                     "nn.matmul(%a, %b, transpose_a=True, transpose_b=True)"));
  CheckLowering(Main("%a: " + T("2, 3, 5") + ", %b: " + T("5, 4"), "nn.matmul(%a, %b)"));
  CheckLowering(Main("%a: " + T("5") + ", %b: " + T("5, 4"), "nn.matmul(%a, %b)"));
  CheckLowering(Main("%x: " + T("2, 3, 5") + ", %y: " + T("2, 4, 5"), "nn.batch_matmul(%x, %y)"));
  CheckLowering(Main("%x: " + T("1, 5, 3") + ", %y: " + T("2, 5, 4"),
                     "nn.batch_matmul(%x, %y, transpose_a=True, transpose_b=False)"));
}

TEST(LowerOps, Norms) {
  std::string v = T("4");
  CheckLowering(Main("%x: " + T("2, 4, 3") + ", %b: " + v, "nn.bias_add(%x, %b)"));
  CheckLowering(Main("%x: " + T("2, 3, 4") + ", %b: " + v, "nn.bias_add(%x, %b, axis=-1)"));
  std::string bn =
      "%x: " + T("2, 4, 3, 3") + ", %g: " + v + ", %b: " + v + ", %m: " + v + ", %v: " + v;
  CheckLowering(Main(bn, "%0 = nn.batch_norm(%x, %g, %b, %m, abs(%v)); %0.0"));
  CheckLowering(Main(bn, "nn.batch_norm(%x, %g, %b, %m, abs(%v), center=False, scale=False)"));
  CheckLowering(Main("%x: " + T("3, 5") + ", %g: " + T("5") + ", %b: " + T("5"),
                     "nn.layer_norm(%x, %g, %b)"));
  CheckLowering(Main("%x: " + T("3, 4, 2") + ", %g: " + v + ", %b: " + v,
                     "nn.layer_norm(%x, %g, %b, axis=1, epsilon=0.01f, center=False)"));
  CheckLowering(Main("%x: " + T("3, 7"), "nn.softmax(%x)"));
  CheckLowering(Main("%x: " + T("3, 4, 2"), "nn.softmax(%x, axis=1)"));
  CheckLowering(Main("%x: " + T("3, 7"), "nn.log_softmax(%x)"));
}

TEST(LowerOps, Pooling) {
  std::string x = "%x: " + T("1, 3, 7, 7");
  for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    std::string o(op);
    CheckLowering(Main(x, o + "(%x, pool_size=[2, 2], strides=[2, 2])"));
    CheckLowering(Main(x, o + "(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])"));
    CheckLowering(Main(x, o + "(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)"));
    CheckLowering(Main(x, o + "(%x, pool_size=[2, 2], dilation=[2, 2], padding=[1, 0, 0, 1])"));
    CheckLowering(
        Main("%x: " + T("1, 6, 6, 2"),
             o + "(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout=\"NHWC\")"));
  }
  CheckLowering(Main(x,
                     "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], "
                     "count_include_pad=True)"));
  CheckLowering(Main(x,
                     "nn.avg_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], "
                     "ceil_mode=True, count_include_pad=True)"));
  CheckLowering(Main(x, "nn.global_avg_pool2d(%x)"));
  CheckLowering(Main(x, "nn.global_max_pool2d(%x)"));
  CheckLowering(Main("%x: " + T("1, 5, 5, 2"), "nn.global_max_pool2d(%x, layout=\"NHWC\")"));
  CheckLowering(Main(x, "nn.adaptive_avg_pool2d(%x, output_size=[3, 2])"));
  CheckLowering(Main(x, "nn.adaptive_avg_pool2d(%x, output_size=[4])"));
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(LowerOps, NaNsPropagateAsInTheReference) {
  std::string x = "%x: Tensor[(3, 6), float32]";
  std::string y = ", %y: Tensor[(3, 6), float32]";
  for (const char* body : {"max(sqrt(%x), axis=[1])", "min(sqrt(%x))", "maximum(sqrt(%x), %y)",
                           "minimum(%y, sqrt(%x))", "nn.relu(sqrt(%x))",
                           "clip(sqrt(%x), a_min=0f, a_max=1f)", "cast(sqrt(%x), dtype=\"int32\")",
                           "nn.max_pool2d(expand_dims(sqrt(%x), axis=0, "
                           "num_newaxis=2), pool_size=[2, 2])"})
    testing_lower::CheckLowering("def @main(" + x + y + ") {\n  " + body + "\n}\n");
}

}  // namespace
}  // namespace tessera
