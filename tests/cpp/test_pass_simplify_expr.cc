// SimplifyExpr: IR in, expected IR out (structural equality).
#include "pass_test_util.h"
#include "test_util.h"
#include "tessera/transform/passes.h"

namespace tessera::testing {
namespace {

TEST(PassSimplifyExpr, IdentitiesAndChains) {
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(2, 3, 4), float32]) {
  %0 = multiply(%x, 1f);
  %1 = add(%0, 0f);
  %2 = reshape(%1, newshape=[6, 4]);
  %3 = reshape(%2, newshape=[4, 6]);
  %4 = transpose(%3, axes=[1, 0]);
  %5 = transpose(%4, axes=[1, 0]);
  %6 = negative(%5);
  %7 = negative(%6);
  cast(%7, dtype="float32")
})",
            R"(
def @main(%x: Tensor[(2, 3, 4), float32]) {
  reshape(%x, newshape=[4, 6])
})");
}

TEST(PassSimplifyExpr, ScalesMoveAfterProductsAndReshapesBeforeThem) {
  // A scalar scale of an operand becomes a scale of the product (its epilogue); a reshape
  // of a dense layer's rows moves to its operand, so the residual add after it fuses; a
  // transpose that only moves axes of length 1 is a reshape.
  CheckPass(SimplifyExpr(), R"(
def @main(%q: Tensor[(2, 4, 8), float32], %k: Tensor[(2, 8, 4), float32],
          %a: Tensor[(4, 8), float32], %w: Tensor[(8, 8), float32], %r: Tensor[(1, 4, 8), float32]) {
  %0 = divide(%q, 2f);
  %1 = nn.batch_matmul(%0, %k, transpose_b=False);
  %2 = nn.dense(%a, %w);
  %3 = reshape(%2, newshape=[4, 1, 8]);
  %4 = transpose(%3, axes=[1, 0, 2]);
  %5 = add(%r, %4);
  (%1, %5)
})",
            R"(
def @main(%q: Tensor[(2, 4, 8), float32], %k: Tensor[(2, 8, 4), float32],
          %a: Tensor[(4, 8), float32], %w: Tensor[(8, 8), float32], %r: Tensor[(1, 4, 8), float32]) {
  %0 = nn.batch_matmul(%q, %k, transpose_b=False);
  %1 = divide(%0, 2f);
  %2 = reshape(%a, newshape=[1, 4, 8]);
  %3 = nn.dense(%2, %w);
  %4 = add(%r, %3);
  (%1, %4)
})");
}

TEST(PassSimplifyExpr, ScalesAndReshapesOthersReadStayWhereTheyAre) {
  // The scaled operand is also a result, and the dense layer's result is read twice: moving
  // either would compute it twice. An integer division does not move past a sum.
  const char* text = R"(
def @main(%q: Tensor[(2, 4, 8), float32], %k: Tensor[(2, 8, 4), float32],
          %a: Tensor[(4, 8), float32], %w: Tensor[(8, 8), float32],
          %i: Tensor[(2, 4, 8), int32], %j: Tensor[(2, 8, 4), int32]) {
  %0 = multiply(%q, 2f);
  %1 = nn.batch_matmul(%0, %k, transpose_b=False);
  %2 = nn.dense(%a, %w);
  %3 = reshape(%2, newshape=[1, 4, 8]);
  %4 = divide(%i, 2);
  %5 = nn.batch_matmul(%4, %j, transpose_b=False);
  (%0, %1, %2, %3, %5)
})";
  CheckPass(SimplifyExpr(), text, text);
}

TEST(PassSimplifyExpr, NestedConcatenationsAlongOneAxisAreFlattened) {
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(1, 2, 3), float32], %y: Tensor[(1, 4, 3), float32]) {
  %0 = concatenate((%x, %y), axis=1);
  %1 = concatenate((%y, %0, %x), axis=-2);
  %2 = concatenate((%1, %1), axis=2);
  concatenate((%2, %2), axis=1)
})",
            R"(
def @main(%x: Tensor[(1, 2, 3), float32], %y: Tensor[(1, 4, 3), float32]) {
  %0 = concatenate((%y, %x, %y, %x), axis=1);
  %1 = concatenate((%0, %0), axis=2);
  concatenate((%1, %1), axis=1)
})");
}

TEST(PassSimplifyExpr, LayerNormsWrittenOpByOpBecomeOneOp) {
  // ONNX exporters before opset 17 write x's layer norm out: the mean over the last axis,
  // the variance as the mean of power(d, 2) or d * d, then gamma and beta. Beta before gamma
  // keeps gamma outside; a mean over another axis is no layer norm.
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(3, 4), float32], %y: Tensor[(3, 4), float32]) {
  %0 = mean(%x, axis=[1], keepdims=True);
  %1 = subtract(%x, %0);
  %2 = power(%1, 2f);
  %3 = mean(%2, axis=[-1], keepdims=True);
  %4 = add(%3, 1e-05f);
  %5 = sqrt(%4);
  %6 = divide(%1, %5);
  %7 = multiply(%6, meta[Constant][0]);
  %8 = add(meta[Constant][1], %7);
  %9 = mean(%y, axis=[1], keepdims=True);
  %10 = subtract(%y, %9);
  %11 = multiply(%10, %10);
  %12 = mean(%11, axis=[1], keepdims=True);
  %13 = add(0.001f, %12);
  %14 = sqrt(%13);
  %15 = divide(%10, %14);
  %16 = add(%15, meta[Constant][1]);
  %17 = multiply(%16, meta[Constant][0]);
  %18 = mean(%x, axis=[0], keepdims=True);
  %19 = subtract(%x, %18);
  %20 = power(%19, 2f);
  %21 = mean(%20, axis=[0], keepdims=True);
  %22 = add(%21, 1e-05f);
  %23 = sqrt(%22);
  %24 = divide(%19, %23);
  (%8, %17, %24)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[4],"data":"AADAPwAAAD8AAABAAACAvw=="},{"dtype":"float32","shape":[4],"data":"AACAPgAAAL8AAAAAAACAPw=="}]}
)",
            R"(
def @main(%x: Tensor[(3, 4), float32], %y: Tensor[(3, 4), float32]) -> (Tensor[(3, 4), float32], Tensor[(3, 4), float32], Tensor[(3, 4), float32]) {
  %0 = nn.layer_norm(%x, meta[Constant][0], meta[Constant][1], epsilon=9.999999747378752e-06f);
  %1 = nn.layer_norm(%y, meta[Constant][2], meta[Constant][3], epsilon=0.0010000000474974513f, scale=False);
  %2 = multiply(%1, meta[Constant][4]);
  %3 = mean(%x, axis=[0], keepdims=True);
  %4 = subtract(%x, %3);
  %5 = power(%4, 2f);
  %6 = mean(%5, axis=[0], keepdims=True);
  %7 = add(%6, 1e-05f);
  %8 = sqrt(%7);
  %9 = divide(%4, %8);
  (%0, %2, %9)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[4],"data":"AADAPwAAAD8AAABAAACAvw=="},{"dtype":"float32","shape":[4],"data":"AACAPgAAAL8AAAAAAACAPw=="},{"dtype":"float32","shape":[4],"data":"AACAPwAAgD8AAIA/AACAPw=="},{"dtype":"float32","shape":[4],"data":"AACAPgAAAL8AAAAAAACAPw=="},{"dtype":"float32","shape":[4],"data":"AADAPwAAAD8AAABAAACAvw=="}]}
)");
}

TEST(PassSimplifyExpr, LayerNormsOnlyWhereNothingElseReadsTheStepsOrBroadcasts) {
  // A gamma of shape [1, 4] would widen x's [4]: it stays a multiply. The second pattern's
  // d is also a result: nothing changes there.
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(3, 4), float32]) {
  %0 = mean(%x, axis=[0], keepdims=True);
  %1 = subtract(%x, %0);
  %2 = power(%1, 2f);
  %3 = mean(%2, axis=[0], keepdims=True);
  %4 = add(%3, 1e-05f);
  %5 = sqrt(%4);
  %6 = divide(%1, %5);
  %7 = multiply(%6, meta[Constant][0]);
  %8 = mean(%y, axis=[1], keepdims=True);
  %9 = subtract(%y, %8);
  %10 = power(%9, 2f);
  %11 = mean(%10, axis=[1], keepdims=True);
  %12 = add(%11, 1e-05f);
  %13 = sqrt(%12);
  %14 = divide(%9, %13);
  (%7, %14, %9)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[1, 4],"data":"AADAPwAAAD8AAABAAACAvw=="}]}
)",
            R"(
def @main(%x: Tensor[(4), float32], %y: Tensor[(3, 4), float32]) -> (Tensor[(1, 4), float32], Tensor[(3, 4), float32], Tensor[(3, 4), float32]) {
  %0 = nn.layer_norm(%x, meta[Constant][0], meta[Constant][1], epsilon=9.999999747378752e-06f, center=False, scale=False);
  %1 = multiply(%0, meta[Constant][2]);
  %2 = mean(%y, axis=[1], keepdims=True);
  %3 = subtract(%y, %2);
  %4 = power(%3, 2f);
  %5 = mean(%4, axis=[1], keepdims=True);
  %6 = add(%5, 1e-05f);
  %7 = sqrt(%6);
  %8 = divide(%3, %7);
  (%1, %8, %3)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[4],"data":"AACAPwAAgD8AAIA/AACAPw=="},{"dtype":"float32","shape":[4],"data":"AAAAAAAAAAAAAAAAAAAAAA=="},{"dtype":"float32","shape":[1,4],"data":"AADAPwAAAD8AAABAAACAvw=="}]}
)");
}

TEST(PassSimplifyExpr, LayerNormsSimplifyInferenceExpandedBecomeOneOpAgain) {
  CheckPass(Sequential({SimplifyInference(), SimplifyExpr()}), R"(
def @main(%x: Tensor[(3, 4), float32]) {
  nn.layer_norm(%x, meta[Constant][0], meta[Constant][1], epsilon=0.001f)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[4],"data":"AADAPwAAAD8AAABAAACAvw=="},)"
            R"({"dtype":"float32","shape":[4],"data":"AACAPgAAAL8AAAAAAACAPw=="}]}
)",
            R"(
def @main(%x: Tensor[(3, 4), float32]) {
  nn.layer_norm(%x, meta[Constant][0], meta[Constant][1], epsilon=0.0010000000474974513f)
}
#[metadata]
{"Constant":[{"dtype":"float32","shape":[4],"data":"AADAPwAAAD8AAABAAACAvw=="},)"
            R"({"dtype":"float32","shape":[4],"data":"AACAPgAAAL8AAAAAAACAPw=="}]}
)");
}

// ---- A ResNet-block pipeline end to end ------------------------------------------------

TEST(PassSimplifyExpr, ReshapesOfReshapedProductsKeepTheirTypes) {
  // The inner reshape moves before its dense layer first; the outer one then sees a dense
  // layer where the original graph had a reshape, and must not read the reshape's types as
  // a product's.
  CheckPass(SimplifyExpr(), R"(
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = reshape(%0, newshape=[2, 2, 16]);
  reshape(%1, newshape=[2, 32])
})",
            R"(
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32]) {
  %0 = reshape(%x, newshape=[2, 2, 8]);
  %1 = nn.dense(%0, %w);
  reshape(%1, newshape=[2, 32])
})");
}

}  // namespace
}  // namespace tessera::testing
