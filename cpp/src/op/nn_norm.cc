// Per-axis ops: nn.bias_add, nn.batch_norm (inference), nn.layer_norm, nn.softmax, nn.log_softmax.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

/// A shape split around one axis: outer x len x inner elements.
struct AxisSplit {
  int64_t outer = 1, len = 1, inner = 1;
};

AxisSplit SplitAt(const std::vector<int64_t>& shape, int axis) {
  AxisSplit s;
  for (int i = 0; i < static_cast<int>(shape.size()); ++i) {
    if (i < axis)
      s.outer *= shape[i];
    else if (i == axis)
      s.len = shape[i];
    else
      s.inner *= shape[i];
  }
  return s;
}

/// Checks a per-channel parameter: 1-D of length data.shape[axis], data's dtype.
void ExpectChannelVector(const std::vector<Type>& args, size_t index, const char* name,
                         const TensorTypeNode* data, int axis) {
  const auto* v = ExpectTensor(args, index);
  int64_t len = data->shape[axis];
  if (v->ndim() != 1 || v->shape[0] != len)
    TS_THROW(kType) << name << " shape " << ShapeToString(v->shape) << " does not match data shape "
                    << ShapeToString(data->shape) << " at axis " << axis << " (expected [" << len
                    << "])";
  nn::ExpectSameDType(data, "data", v, name);
}

int AxisOf(const Attrs& attrs, const TensorTypeNode* data) {
  return NormalizeAxis(attrs.GetInt("axis"), data->ndim());
}

Type BiasAddRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  int axis = AxisOf(attrs, data);
  ExpectChannelVector(args, 1, "bias", data, axis);
  return MakeTensorType(data->shape, data->dtype);
}

std::vector<NDArray> BiasAddKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                   const Type& out_type) {
  AxisSplit s = SplitAt(in[0].shape(), NormalizeAxis(attrs.GetInt("axis"), in[0].ndim()));
  std::vector<double> x = nn::ToDoubles(in[0]), bias = nn::ToDoubles(in[1]);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t c = 0; c < s.len; ++c) {
      double* row = x.data() + (o * s.len + c) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) row[i] += bias[c];
    }
  return {nn::FromDoubles(x, out_type)};
}

Type BatchNormRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  int axis = AxisOf(attrs, data);
  const char* names[] = {"gamma", "beta", "moving_mean", "moving_var"};
  for (size_t i = 0; i < 4; ++i) ExpectChannelVector(args, i + 1, names[i], data, axis);
  Type vec = MakeTensorType({data->shape[axis]}, data->dtype);
  return MakeTupleType({MakeTensorType(data->shape, data->dtype), vec, vec});
}

std::vector<NDArray> BatchNormKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                     const Type& out_type) {
  const auto* tuple = out_type.as<TupleTypeNode>();
  TS_ICHECK(tuple && tuple->fields.size() == 3) << "nn.batch_norm kernel: bad output type";
  AxisSplit s = SplitAt(in[0].shape(), NormalizeAxis(attrs.GetInt("axis"), in[0].ndim()));
  double eps = attrs.GetFloat("epsilon");
  bool center = attrs.GetBool("center"), scale = attrs.GetBool("scale");
  std::vector<double> x = nn::ToDoubles(in[0]);
  std::vector<double> gamma = nn::ToDoubles(in[1]), beta = nn::ToDoubles(in[2]);
  std::vector<double> mean = nn::ToDoubles(in[3]), var = nn::ToDoubles(in[4]);
  std::vector<double> mul(s.len), add(s.len);
  for (int64_t c = 0; c < s.len; ++c) {
    mul[c] = (scale ? gamma[c] : 1.0) / std::sqrt(var[c] + eps);
    add[c] = center ? beta[c] : 0.0;
  }
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t c = 0; c < s.len; ++c) {
      double* row = x.data() + (o * s.len + c) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) row[i] = (row[i] - mean[c]) * mul[c] + add[c];
    }
  return {nn::FromDoubles(x, tuple->fields[0]), nn::FromDoubles(mean, tuple->fields[1]),
          nn::FromDoubles(var, tuple->fields[2])};
}

Type LayerNormRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  int axis = AxisOf(attrs, data);
  ExpectChannelVector(args, 1, "gamma", data, axis);
  ExpectChannelVector(args, 2, "beta", data, axis);
  return MakeTensorType(data->shape, data->dtype);
}

std::vector<NDArray> LayerNormKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                     const Type& out_type) {
  AxisSplit s = SplitAt(in[0].shape(), NormalizeAxis(attrs.GetInt("axis"), in[0].ndim()));
  double eps = attrs.GetFloat("epsilon");
  bool center = attrs.GetBool("center"), scale = attrs.GetBool("scale");
  std::vector<double> x = nn::ToDoubles(in[0]);
  std::vector<double> gamma = nn::ToDoubles(in[1]), beta = nn::ToDoubles(in[2]);
  if (s.len == 0) return {nn::FromDoubles(x, out_type)};
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double* p = x.data() + o * s.len * s.inner + i;
      double sum = 0.0;
      for (int64_t c = 0; c < s.len; ++c) sum += p[c * s.inner];
      double mean = sum / static_cast<double>(s.len);
      double sq = 0.0;
      for (int64_t c = 0; c < s.len; ++c) {
        double d = p[c * s.inner] - mean;
        sq += d * d;
      }
      double inv = 1.0 / std::sqrt(sq / static_cast<double>(s.len) + eps);
      for (int64_t c = 0; c < s.len; ++c) {
        double v = (p[c * s.inner] - mean) * inv;
        if (scale) v *= gamma[c];
        if (center) v += beta[c];
        p[c * s.inner] = v;
      }
    }
  return {nn::FromDoubles(x, out_type)};
}

Type SameAsDataRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  AxisOf(attrs, data);  // validates the axis
  return MakeTensorType(data->shape, data->dtype);
}

/// Softmax along one axis, subtracting the maximum first so exp never overflows.
std::vector<NDArray> SoftmaxKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                   const Type& out_type, bool log) {
  AxisSplit s = SplitAt(in[0].shape(), NormalizeAxis(attrs.GetInt("axis"), in[0].ndim()));
  std::vector<double> x = nn::ToDoubles(in[0]);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double* p = x.data() + o * s.len * s.inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < s.len; ++c) mx = std::max(mx, p[c * s.inner]);
      double sum = 0.0;
      for (int64_t c = 0; c < s.len; ++c) sum += std::exp(p[c * s.inner] - mx);
      if (log) {
        double shift = mx + std::log(sum);
        for (int64_t c = 0; c < s.len; ++c) p[c * s.inner] -= shift;
      } else {
        for (int64_t c = 0; c < s.len; ++c) p[c * s.inner] = std::exp(p[c * s.inner] - mx) / sum;
      }
    }
  return {nn::FromDoubles(x, out_type)};
}

std::vector<AttrField> NormAttrs(int64_t default_axis) {
  return {
      {"axis", AttrType::kInt, default_axis, "the channel axis"},
      {"epsilon", AttrType::kFloat, 1e-5, "added to the variance"},
      {"center", AttrType::kBool, true, "add beta"},
      {"scale", AttrType::kBool, true, "multiply by gamma"},
  };
}

}  // namespace

void RegisterNNNormOps(OpRegistry& registry) {
  OpDef bias;
  bias.name = "nn.bias_add";
  bias.description = "adds a 1-D bias along one axis of data";
  bias.inputs = {"data", "bias"};
  bias.attrs = {{"axis", AttrType::kInt, int64_t{1}, "the axis the bias runs along"}};
  bias.pattern = OpPatternKind::kBroadcast;
  bias.type_rel = BiasAddRel;
  bias.kernel = BiasAddKernel;
  registry.Register(std::move(bias));

  OpDef bn;
  bn.name = "nn.batch_norm";
  bn.description =
      "inference batch normalisation with moving statistics; returns (out, moving_mean, "
      "moving_var)";
  bn.inputs = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  bn.attrs = NormAttrs(1);
  bn.pattern = OpPatternKind::kOpaque;
  bn.type_rel = BatchNormRel;
  bn.kernel = BatchNormKernel;
  registry.Register(std::move(bn));

  OpDef ln;
  ln.name = "nn.layer_norm";
  ln.description = "normalises data along one axis, then scales by gamma and shifts by beta";
  ln.inputs = {"data", "gamma", "beta"};
  ln.attrs = NormAttrs(-1);
  ln.pattern = OpPatternKind::kOpaque;
  ln.type_rel = LayerNormRel;
  ln.kernel = LayerNormKernel;
  registry.Register(std::move(ln));

  for (bool log : {false, true}) {
    OpDef sm;
    sm.name = log ? "nn.log_softmax" : "nn.softmax";
    sm.description = log ? "log of softmax along an axis" : "softmax along an axis";
    sm.inputs = {"data"};
    sm.attrs = {{"axis", AttrType::kInt, int64_t{-1}, "the axis to normalise"}};
    sm.pattern = OpPatternKind::kOpaque;
    sm.type_rel = SameAsDataRel;
    sm.kernel = [log](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out_type) {
      return SoftmaxKernel(in, attrs, out_type, log);
    };
    registry.Register(std::move(sm));
  }
}

}  // namespace tessera::op_defs
