// nn.dense / nn.matmul / nn.batch_matmul and the per-axis ops (bias_add, norms, softmax).
#include <gtest/gtest.h>

#include <cmath>

#include "ops_nn_test_util.h"

namespace tessera {
namespace {

using nn_test::ErrorOf;
using nn_test::ExpectClose;
using nn_test::Infer;
using nn_test::RandomArray;
using nn_test::RunOp;

/// at(a, {i, j, ...}) for a row-major array.
double At(const NDArray& a, const std::vector<int64_t>& idx) {
  int64_t flat = 0;
  for (size_t d = 0; d < idx.size(); ++d) flat = flat * a.shape()[d] + idx[d];
  return a.GetFloat(flat);
}

TEST(OpsNNDense, MatchesHandLoop) {
  NDArray x = RandomArray({2, 3, 5}, 1), w = RandomArray({4, 5}, 2);
  std::vector<double> want;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t m = 0; m < 3; ++m)
      for (int64_t n = 0; n < 4; ++n) {
        double s = 0;
        for (int64_t k = 0; k < 5; ++k) s += At(x, {b, m, k}) * At(w, {n, k});
        want.push_back(s);
      }
  ExpectClose(RunOp("nn.dense", {x, w}, {{"units", 4}}), {2, 3, 4}, want, 1e-5);
  ExpectClose(RunOp("nn.dense", {x.Reshaped({6, 5}), w}), {6, 4}, want, 1e-5);
  NDArray v = RunOp("nn.dense", {RandomArray({5}, 3), w});
  EXPECT_EQ(v.shape(), (std::vector<int64_t>{4}));
}

TEST(OpsNNDense, TypeErrors) {
  auto err = [](std::vector<int64_t> d, std::vector<int64_t> w, Attrs attrs = {}) {
    return ErrorOf(
        [&] {
          Infer("nn.dense", {MakeTensorType(d), MakeTensorType(w)}, attrs);
        },
        ErrorKind::kType);
  };
  EXPECT_NE(err({2, 5}, {3, 4})
                .find("data shape [2, 5] and weight shape [3, 4] disagree on "
                      "in-features (5 vs 4)"),
            std::string::npos);
  EXPECT_NE(err({2, 4}, {3, 4}, {{"units", 7}}).find("units 7 does not match weight shape [3, 4]"),
            std::string::npos);
  EXPECT_NE(err({2, 4}, {3, 4, 1}).find("weight must be 2-D"), std::string::npos);
}

TEST(OpsNNMatmul, TransposesMatchHandLoop) {
  // a logical [3, 4] x b logical [4, 5].
  NDArray a = RandomArray({3, 4}, 4), b = RandomArray({4, 5}, 5);
  std::vector<double> want;
  for (int64_t m = 0; m < 3; ++m)
    for (int64_t n = 0; n < 5; ++n) {
      double s = 0;
      for (int64_t k = 0; k < 4; ++k) s += At(a, {m, k}) * At(b, {k, n});
      want.push_back(s);
    }
  auto transpose = [](const NDArray& x) {
    NDArray t = NDArray::Empty({x.shape()[1], x.shape()[0]}, x.dtype());
    for (int64_t i = 0; i < x.shape()[0]; ++i)
      for (int64_t j = 0; j < x.shape()[1]; ++j) t.SetFloat(j * x.shape()[0] + i, At(x, {i, j}));
    return t;
  };
  NDArray at = transpose(a), bt = transpose(b);
  ExpectClose(RunOp("nn.matmul", {a, b}), {3, 5}, want);
  ExpectClose(RunOp("nn.matmul", {at, b}, {{"transpose_a", true}}), {3, 5}, want);
  ExpectClose(RunOp("nn.matmul", {a, bt}, {{"transpose_b", true}, {"units", 5}}), {3, 5}, want);
  ExpectClose(RunOp("nn.matmul", {at, bt}, {{"transpose_a", true}, {"transpose_b", true}}), {3, 5},
              want);
  // Leading batch axes of tensor_a are kept.
  NDArray a2 = RandomArray({2, 3, 4}, 6);
  NDArray r = RunOp("nn.matmul", {a2, b});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{2, 3, 5}));
  double s = 0;
  for (int64_t k = 0; k < 4; ++k) s += At(a2, {1, 2, k}) * At(b, {k, 3});
  EXPECT_NEAR(At(r, {1, 2, 3}), s, 1e-5);

  std::string e = ErrorOf(
      [] {
        Infer("nn.matmul", {MakeTensorType({3, 4}), MakeTensorType({5, 4})});
      },
      ErrorKind::kType);
  EXPECT_NE(e.find("disagree on the reduction dimension (4 vs 5, transpose_a=False, "
                   "transpose_b=False)"),
            std::string::npos)
      << e;
}

TEST(OpsNNBatchMatmul, TransposesAndBatchBroadcast) {
  NDArray x = RandomArray({1, 3, 4}, 7);  // batch 1 broadcasts
  NDArray y = RandomArray({2, 5, 4}, 8);  // [B, N, K] (transpose_b default)
  NDArray r = RunOp("nn.batch_matmul", {x, y});
  std::vector<double> want;
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t m = 0; m < 3; ++m)
      for (int64_t n = 0; n < 5; ++n) {
        double s = 0;
        for (int64_t k = 0; k < 4; ++k) s += At(x, {0, m, k}) * At(y, {bb, n, k});
        want.push_back(s);
      }
  ExpectClose(r, {2, 3, 5}, want);

  // transpose_a=True, transpose_b=False: x [B, K, M], y [B, K, N].
  NDArray xt = RandomArray({2, 4, 3}, 9), yn = RandomArray({1, 4, 5}, 10);
  NDArray r2 = RunOp("nn.batch_matmul", {xt, yn}, {{"transpose_a", true}, {"transpose_b", false}});
  want.clear();
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t m = 0; m < 3; ++m)
      for (int64_t n = 0; n < 5; ++n) {
        double s = 0;
        for (int64_t k = 0; k < 4; ++k) s += At(xt, {bb, k, m}) * At(yn, {0, k, n});
        want.push_back(s);
      }
  ExpectClose(r2, {2, 3, 5}, want);

  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.batch_matmul", {MakeTensorType({2, 3, 4}), MakeTensorType({3, 5, 4})});
                },
                ErrorKind::kType)
                .find("batch dimensions of x shape [2, 3, 4] and y shape [3, 5, 4] cannot be "
                      "broadcast"),
            std::string::npos);
  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.batch_matmul", {MakeTensorType({3, 4}), MakeTensorType({3, 5, 4})});
                },
                ErrorKind::kType)
                .find("x must be 3-D, got shape [3, 4]"),
            std::string::npos);
}

TEST(OpsNNBiasAdd, AddsAlongAxis) {
  NDArray x = NDArray::FromFloats({1, 2, 2}, {1, 2, 3, 4});
  NDArray b = NDArray::FromFloats({2}, {10, 20});
  ExpectClose(RunOp("nn.bias_add", {x, b}), {1, 2, 2}, {11, 12, 23, 24});
  ExpectClose(RunOp("nn.bias_add", {x, b}, {{"axis", -1}}), {1, 2, 2}, {11, 22, 13, 24});
  EXPECT_NE(
      ErrorOf(
          [] {
            Infer("nn.bias_add", {MakeTensorType({1, 3, 2}), MakeTensorType({2})});
          },
          ErrorKind::kType)
          .find("bias shape [2] does not match data shape [1, 3, 2] at axis 1 (expected [3])"),
      std::string::npos);
  EXPECT_EQ(OpRegistry::Global().Get("nn.bias_add").pattern, OpPatternKind::kBroadcast);
}

TEST(OpsNNBatchNorm, InferenceFormulaAndTupleResult) {
  NDArray x = NDArray::FromFloats({1, 2, 1, 2}, {1, 2, 3, 5});
  NDArray gamma = NDArray::FromFloats({2}, {2, 0.5f});
  NDArray beta = NDArray::FromFloats({2}, {1, -1});
  NDArray mean = NDArray::FromFloats({2}, {1.5f, 4});
  NDArray var = NDArray::FromFloats({2}, {0.25f, 4});
  double eps = 1e-5;
  std::vector<NDArray> out = nn_test::RunAll("nn.batch_norm", {x, gamma, beta, mean, var});
  ASSERT_EQ(out.size(), 3u);
  auto f = [&](double v, double m, double va, double g, double b) {
    return (v - m) / std::sqrt(va + eps) * g + b;
  };
  ExpectClose(
      out[0], {1, 2, 1, 2},
      {f(1, 1.5, 0.25, 2, 1), f(2, 1.5, 0.25, 2, 1), f(3, 4, 4, 0.5, -1), f(5, 4, 4, 0.5, -1)});
  ExpectClose(out[1], {2}, {1.5, 4});
  ExpectClose(out[2], {2}, {0.25, 4});
  // center=False, scale=False, epsilon=0.75, channel axis last.
  std::vector<NDArray> o2 =
      nn_test::RunAll("nn.batch_norm", {x, gamma, beta, mean, var},
                      {{"axis", 3}, {"epsilon", 0.75}, {"center", false}, {"scale", false}});
  ExpectClose(
      o2[0], {1, 2, 1, 2},
      {(1 - 1.5) / 1.0, (2 - 4) / std::sqrt(4.75), (3 - 1.5) / 1.0, (5 - 4) / std::sqrt(4.75)});
  Type t = Infer("nn.batch_norm", {MakeTensorType({1, 2, 1, 2}), MakeTensorType({2}),
                                   MakeTensorType({2}), MakeTensorType({2}), MakeTensorType({2})});
  const auto* tuple = t.as<TupleTypeNode>();
  ASSERT_NE(tuple, nullptr);
  ASSERT_EQ(tuple->fields.size(), 3u);
  EXPECT_EQ(tuple->fields[2].as<TensorTypeNode>()->shape, (std::vector<int64_t>{2}));
  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.batch_norm",
                        {MakeTensorType({1, 2, 3}), MakeTensorType({2}), MakeTensorType({2}),
                         MakeTensorType({3}), MakeTensorType({2})});
                },
                ErrorKind::kType)
                .find("moving_mean shape [3] does not match data shape [1, 2, 3] at axis 1"),
            std::string::npos);
  EXPECT_EQ(OpRegistry::Global().Get("nn.batch_norm").pattern, OpPatternKind::kOpaque);
}

TEST(OpsNNLayerNorm, NormalisesLastAxis) {
  NDArray x = NDArray::FromFloats({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  NDArray g = NDArray::FromFloats({4}, {1, 2, 1, 1});
  NDArray b = NDArray::FromFloats({4}, {0, 0, 0, 1});
  double s = std::sqrt(1.25 + 1e-5);
  ExpectClose(RunOp("nn.layer_norm", {x, g, b}), {2, 4},
              {-1.5 / s, -0.5 / s * 2, 0.5 / s, 1.5 / s + 1, 0, 0, 0, 1});
  // axis=0 normalises columns; a two-element column (a, b) becomes (-1, 1) when a < b.
  NDArray x2 = NDArray::FromFloats({2, 4}, {1, 4, 3, 4, 3, 2, 5, 0});
  NDArray g2 = NDArray::FromFloats({2}, {1, 1}), b2 = NDArray::FromFloats({2}, {0, 0});
  NDArray r = RunOp("nn.layer_norm", {x2, g2, b2}, {{"axis", 0}, {"epsilon", 0.0}});
  ExpectClose(r, {2, 4}, {-1, 1, -1, 1, 1, -1, 1, -1}, 1e-6);
}

TEST(OpsNNSoftmax, StableClosedForm) {
  NDArray x = NDArray::FromFloats({2, 3}, {1, 2, 3, 1000, 1001, 1002});
  double z = 1 + std::exp(1.0) + std::exp(2.0);
  std::vector<double> p = {1 / z, std::exp(1.0) / z, std::exp(2.0) / z};
  ExpectClose(RunOp("nn.softmax", {x}), {2, 3}, {p[0], p[1], p[2], p[0], p[1], p[2]}, 1e-6);
  ExpectClose(RunOp("nn.log_softmax", {x}), {2, 3},
              {std::log(p[0]), std::log(p[1]), std::log(p[2]), std::log(p[0]), std::log(p[1]),
               std::log(p[2])},
              1e-5);
  // axis=0 on the same data: columns (1, 1000) etc.
  NDArray c = RunOp("nn.softmax", {x}, {{"axis", 0}});
  EXPECT_NEAR(c.GetFloat(0), 0.0, 1e-12);
  EXPECT_NEAR(c.GetFloat(3), 1.0, 1e-7);
  // A middle axis of a 3-D tensor.
  NDArray y = NDArray::FromFloats({1, 2, 2}, {0, 0, std::log(3.0f), 0});
  ExpectClose(RunOp("nn.softmax", {y}, {{"axis", 1}}), {1, 2, 2}, {0.25, 0.5, 0.75, 0.5}, 1e-6);
  EXPECT_NE(ErrorOf(
                [] {
                  Infer("nn.softmax", {MakeTensorType({2, 3})}, {{"axis", 2}});
                },
                ErrorKind::kValue)
                .find("axis 2 is out of range for rank 2"),
            std::string::npos);
  EXPECT_EQ(OpRegistry::Global().Get("nn.softmax").pattern, OpPatternKind::kOpaque);
}

}  // namespace
}  // namespace tessera
