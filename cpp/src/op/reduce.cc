// Reductions: sum, mean, max, min over `axis` (None or [] = all axes), keepdims, exclude.
//
// Floats accumulate in double, integers in int64 (wrapping to the dtype on store); an
// integer mean truncates toward zero. Reducing an empty axis gives the identity: sum 0,
// max -inf (the dtype's minimum for integers), min +inf (maximum); mean of nothing is NaN
// for floats and 0 for integers. max/min propagate NaN.
#include <cmath>
#include <limits>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

enum class ReduceKind { kSum, kMean, kMax, kMin };

/// Per input axis: is it reduced? Validates `axis` (range, repeats) against `rank`. As in
/// TVM's GetReduceAxes, None and [] both mean every axis, whatever `exclude` says.
std::vector<bool> ReducedAxes(const Attrs& attrs, int rank) {
  const AttrValue& axis = attrs.Get("axis");
  std::vector<int64_t> axes = axis.is_none() ? std::vector<int64_t>{} : axis.AsInts("axis");
  if (axes.empty()) return std::vector<bool>(rank, true);
  std::vector<bool> reduced(rank, false);
  for (int a : math::NormalizeAxes(axes, rank, "axis")) reduced[a] = true;
  if (attrs.GetBool("exclude")) reduced.flip();
  return reduced;
}

Type ReduceRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  std::vector<bool> reduced = ReducedAxes(attrs, t->ndim());
  bool keepdims = attrs.GetBool("keepdims");
  std::vector<int64_t> out;
  for (int d = 0; d < t->ndim(); ++d) {
    if (!reduced[d])
      out.push_back(t->shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return MakeTensorType(out, t->dtype);
}

/// For every input element, the flat index of the output element it reduces into.
std::vector<int64_t> OutputIndexStrides(const std::vector<int64_t>& shape,
                                        const std::vector<bool>& reduced) {
  std::vector<int64_t> strides(shape.size(), 0);
  int64_t s = 1;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (reduced[d]) continue;
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

template <typename T>
void Accumulate(ReduceKind kind, T& acc, T v) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kMean:
      if constexpr (std::is_integral_v<T>)
        acc = static_cast<T>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(v));
      else
        acc += v;
      return;
    case ReduceKind::kMax:
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(v) || std::isnan(acc)) {
          acc = std::numeric_limits<T>::quiet_NaN();
          return;
        }
      if (v > acc) acc = v;
      return;
    case ReduceKind::kMin:
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(v) || std::isnan(acc)) {
          acc = std::numeric_limits<T>::quiet_NaN();
          return;
        }
      if (v < acc) acc = v;
      return;
  }
}

/// Visits every input element with the output index it reduces into.
template <typename Fn>
void ForEachReduced(const NDArray& in, const std::vector<int64_t>& out_strides, Fn&& fn) {
  const std::vector<int64_t>& shape = in.shape();
  int rank = in.ndim();
  std::vector<int64_t> idx(rank, 0);
  int64_t o = 0, n = in.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    fn(i, o);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        o += out_strides[d];
        break;
      }
      o -= out_strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

std::vector<NDArray> ReduceKernel(ReduceKind kind, const std::vector<NDArray>& in,
                                  const Attrs& attrs, const Type& out_type) {
  const NDArray& x = in[0];
  NDArray out = math::EmptyOf(out_type);
  int64_t out_n = out.NumElements();
  if (out_n == 0) return {out};
  std::vector<int64_t> strides = OutputIndexStrides(x.shape(), ReducedAxes(attrs, x.ndim()));
  int64_t count = x.NumElements() / out_n;
  if (IsFloat(x.dtype())) {
    double init = kind == ReduceKind::kMax   ? -std::numeric_limits<double>::infinity()
                  : kind == ReduceKind::kMin ? std::numeric_limits<double>::infinity()
                                             : 0.0;
    std::vector<double> acc(out_n, init);
    ForEachReduced(x, strides,
                   [&](int64_t i, int64_t o) { Accumulate(kind, acc[o], x.GetFloat(i)); });
    for (int64_t o = 0; o < out_n; ++o) {
      double v = acc[o];
      if (kind == ReduceKind::kMean) v = count ? v / static_cast<double>(count) : NAN;
      out.SetFloat(o, v);
    }
  } else {
    int64_t init = kind == ReduceKind::kMax   ? math::IntMin(x.dtype())
                   : kind == ReduceKind::kMin ? math::IntMax(x.dtype())
                                              : 0;
    std::vector<int64_t> acc(out_n, init);
    ForEachReduced(x, strides,
                   [&](int64_t i, int64_t o) { Accumulate(kind, acc[o], x.GetInt(i)); });
    for (int64_t o = 0; o < out_n; ++o) {
      int64_t v = acc[o];
      if (kind == ReduceKind::kMean) v = count ? v / count : 0;
      out.SetInt(o, v);
    }
  }
  return {out};
}

void RegisterReduce(OpRegistry& registry, const char* name, const char* description,
                    ReduceKind kind) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.inputs = {"data"};
  def.attrs = {
      {"axis", AttrType::kOptionalIntArray, AttrValue(), "axes to reduce; None reduces all"},
      {"keepdims", AttrType::kBool, false, "keep reduced axes as size 1"},
      {"exclude", AttrType::kBool, false, "reduce the axes NOT listed in axis"},
  };
  def.pattern = OpPatternKind::kCommReduce;
  def.type_rel = ReduceRel;
  def.kernel = [kind](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out_type) {
    return ReduceKernel(kind, in, attrs, out_type);
  };
  registry.Register(std::move(def));
}

}  // namespace

void RegisterReduceOps(OpRegistry& registry) {
  RegisterReduce(registry, "sum", "sum over the reduced axes", ReduceKind::kSum);
  RegisterReduce(registry, "mean", "arithmetic mean over the reduced axes", ReduceKind::kMean);
  RegisterReduce(registry, "max", "maximum over the reduced axes", ReduceKind::kMax);
  RegisterReduce(registry, "min", "minimum over the reduced axes", ReduceKind::kMin);
}

}  // namespace tessera::op_defs
