// Indexing ops: strided_slice (NumPy-style begin/end/strides with clamping) and take.
//
// strided_slice: without `axes`, begin/end/strides apply to the leading axes and missing
// entries mean the whole axis; missing strides are 1. Negative indices count from the end
// and are clamped like NumPy; a negative stride walks backwards. In slice_mode "size",
// `end` holds sizes (negative = to the end) and strides are ignored, as in TVM.
// take: mode "clip" clamps indices to [0, n-1], "wrap" takes them modulo n, "fast"
// assumes they are in range — the reference kernel still checks and throws a value error
// rather than reading out of bounds.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

// ---- strided_slice ------------------------------------------------------------------

/// One sliced axis in canonical form: first index, step and element count.
struct AxisSlice {
  int64_t begin = 0, step = 1, len = 0;
};

std::optional<std::vector<int64_t>> OptionalInts(const Attrs& attrs, const char* key) {
  const AttrValue& v = attrs.Get(key);
  if (v.is_none()) return std::nullopt;
  return v.AsInts(key);
}

void CheckStridedSlice(Attrs& attrs) {
  const std::string& mode = attrs.GetString("slice_mode");
  if (mode != "end" && mode != "size")
    TS_THROW(kValue) << "slice_mode must be \"end\" or \"size\", got \"" << mode << "\"";
  std::vector<int64_t> begin = attrs.GetInts("begin"), end = attrs.GetInts("end");
  auto strides = OptionalInts(attrs, "strides");
  if (strides)
    for (int64_t s : *strides)
      if (s == 0) TS_THROW(kValue) << "strides " << ShapeToString(*strides) << " contain a 0";
  if (auto axes = OptionalInts(attrs, "axes")) {
    if (begin.size() != axes->size() || end.size() != axes->size())
      TS_THROW(kValue) << "begin " << ShapeToString(begin) << " and end " << ShapeToString(end)
                       << " must have one entry per axis in axes " << ShapeToString(*axes);
    if (strides && strides->size() > axes->size())
      TS_THROW(kValue) << "strides " << ShapeToString(*strides) << " has more entries than axes "
                       << ShapeToString(*axes);
  }
}

/// Canonicalises one axis of size `dim`; absent begin/end mean the whole axis.
AxisSlice SliceAxis(int64_t dim, std::optional<int64_t> b, std::optional<int64_t> e, int64_t step,
                    bool size_mode) {
  AxisSlice s;
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); };
  if (size_mode) {
    int64_t begin = b ? clamp(*b < 0 ? *b + dim : *b, 0, dim) : 0;
    int64_t avail = dim - begin;
    int64_t size = (!e || *e < 0 || *e > avail) ? avail : *e;
    return {begin, 1, size};
  }
  s.step = step;
  if (step > 0) {
    int64_t begin = b ? clamp(*b < 0 ? *b + dim : *b, 0, dim) : 0;
    int64_t end = e ? clamp(*e < 0 ? *e + dim : *e, 0, dim) : dim;
    s.begin = begin;
    s.len = end > begin ? 1 + (end - begin - 1) / step : 0;
  } else {
    // Positions run from begin down to just above end; -1 means "before index 0".
    int64_t begin = b ? clamp(*b < 0 ? *b + dim : *b, -1, dim - 1) : dim - 1;
    int64_t end = e ? clamp(*e < 0 ? *e + dim : *e, -1, dim - 1) : -1;
    uint64_t mag = 0 - static_cast<uint64_t>(step);  // |step| without overflow
    s.begin = begin;
    s.len =
        begin > end ? static_cast<int64_t>(1 + static_cast<uint64_t>(begin - end - 1) / mag) : 0;
  }
  return s;
}

/// The canonical slice of every axis of `shape` (unsliced axes take everything).
std::vector<AxisSlice> CanonicalSlices(const std::vector<int64_t>& shape, const Attrs& given) {
  Attrs attrs = given;
  CheckStridedSlice(attrs);
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> begin = attrs.GetInts("begin"), end = attrs.GetInts("end");
  std::vector<int64_t> strides = OptionalInts(attrs, "strides").value_or(std::vector<int64_t>{});
  bool size_mode = attrs.GetString("slice_mode") == "size";
  std::vector<int> axes;
  if (auto given_axes = OptionalInts(attrs, "axes")) {
    axes = math::NormalizeAxes(*given_axes, rank, "axis");
  } else {
    size_t count = std::max({begin.size(), end.size(), strides.size()});
    if (static_cast<int>(count) > rank)
      TS_THROW(kType) << "begin " << ShapeToString(begin) << ", end " << ShapeToString(end)
                      << " and strides " << ShapeToString(strides) << " slice " << count
                      << " axes but the data shape " << ShapeToString(shape) << " has rank "
                      << rank;
    axes.resize(count);
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<AxisSlice> out(rank);
  for (int d = 0; d < rank; ++d) out[d] = {0, 1, shape[d]};
  for (size_t k = 0; k < axes.size(); ++k) {
    auto at = [k](const std::vector<int64_t>& v) {
      return k < v.size() ? std::optional<int64_t>(v[k]) : std::nullopt;
    };
    out[axes[k]] =
        SliceAxis(shape[axes[k]], at(begin), at(end), at(strides).value_or(1), size_mode);
  }
  return out;
}

Type StridedSliceRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  std::vector<int64_t> out;
  for (const AxisSlice& s : CanonicalSlices(t->shape, attrs)) out.push_back(s.len);
  return MakeTensorType(out, t->dtype);
}

std::vector<NDArray> StridedSliceKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                        const Type& out_type) {
  const NDArray& x = in[0];
  NDArray out = math::EmptyOf(out_type);
  std::vector<AxisSlice> slices = CanonicalSlices(x.shape(), attrs);
  std::vector<int64_t> st = RowMajorStrides(x.shape()), strides;
  int64_t base = 0;
  for (size_t d = 0; d < slices.size(); ++d) {
    base += slices[d].begin * st[d];
    strides.push_back(slices[d].step * st[d]);
  }
  math::StridedGather(x, base, strides, out);  // begin is in range whenever len > 0
  return {out};
}

// ---- take ---------------------------------------------------------------------------

/// take's index arithmetic: out[b, j, k, l] = data[b, j, idx[b, k], l].
struct TakePlan {
  int64_t batch = 1, between = 1, n = 1, inner = 1, idx_inner = 1;
};

TakePlan PlanTake(const std::vector<int64_t>& data, const std::vector<int64_t>& indices,
                  const Attrs& attrs) {
  TakePlan p;
  const AttrValue& axis_attr = attrs.Get("axis");
  int64_t batch_dims = attrs.GetInt("batch_dims");
  int ind_rank = static_cast<int>(indices.size());
  p.idx_inner = ShapeNumElements(indices);
  if (axis_attr.is_none()) {
    if (batch_dims != 0)
      TS_THROW(kValue) << "batch_dims must be 0 when axis is None, got " << batch_dims;
    p.n = ShapeNumElements(data);
    return p;
  }
  int axis = NormalizeAxis(axis_attr.AsInt(), static_cast<int>(data.size()));
  int64_t b = batch_dims < 0 ? batch_dims + ind_rank : batch_dims;
  if (b < 0 || b > ind_rank)
    TS_THROW(kValue) << "batch_dims " << batch_dims << " is out of range for indices of rank "
                     << ind_rank;
  if (b > axis) TS_THROW(kValue) << "batch_dims " << b << " must not exceed axis " << axis;
  for (int64_t i = 0; i < b; ++i) {
    if (data[i] != indices[i])
      TS_THROW(kType) << "batch dimension " << i << " differs: data shape " << ShapeToString(data)
                      << ", indices shape " << ShapeToString(indices);
    p.batch *= data[i];
  }
  p.idx_inner = ShapeNumElements(std::vector<int64_t>(indices.begin() + b, indices.end()));
  for (int64_t i = b; i < axis; ++i) p.between *= data[i];
  p.n = data[axis];
  for (size_t i = axis + 1; i < data.size(); ++i) p.inner *= data[i];
  return p;
}

void CheckTakeMode(Attrs& attrs) {
  const std::string& mode = attrs.GetString("mode");
  if (mode != "clip" && mode != "wrap" && mode != "fast")
    TS_THROW(kValue) << "mode must be \"clip\", \"wrap\" or \"fast\", got \"" << mode << "\"";
}

Type TakeRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  const auto* indices = ExpectTensor(args, 1);
  if (indices->dtype != DType::kInt32 && indices->dtype != DType::kInt64)
    TS_THROW(kType) << "indices must be int32 or int64, got " << DTypeName(indices->dtype);
  Attrs checked = attrs;
  CheckTakeMode(checked);
  TakePlan p = PlanTake(data->shape, indices->shape, attrs);
  std::vector<int64_t> out;
  const AttrValue& axis_attr = attrs.Get("axis");
  if (axis_attr.is_none()) {
    out = indices->shape;
  } else {
    int axis = NormalizeAxis(axis_attr.AsInt(), data->ndim());
    int64_t bd = attrs.GetInt("batch_dims");
    size_t b = static_cast<size_t>(bd < 0 ? bd + indices->ndim() : bd);
    out.assign(data->shape.begin(), data->shape.begin() + axis);
    out.insert(out.end(), indices->shape.begin() + b, indices->shape.end());
    out.insert(out.end(), data->shape.begin() + axis + 1, data->shape.end());
  }
  if (p.n == 0 && ShapeNumElements(out) > 0)
    TS_THROW(kType) << "cannot take from an empty axis (data shape " << ShapeToString(data->shape)
                    << ")";
  return MakeTensorType(out, data->dtype);
}

std::vector<NDArray> TakeKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                const Type& out_type) {
  const NDArray &data = in[0], &indices = in[1];
  NDArray out = math::EmptyOf(out_type);
  if (out.NumElements() == 0) return {out};
  TakePlan p = PlanTake(data.shape(), indices.shape(), attrs);
  const std::string& mode = attrs.GetString("mode");
  if (p.n == 0) TS_THROW(kValue) << "cannot take from an empty axis";
  const size_t bytes = static_cast<size_t>(DTypeBytes(data.dtype()));
  const auto* from = static_cast<const uint8_t*>(data.data());
  auto* to = static_cast<uint8_t*>(out.data());
  int64_t o = 0;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t j = 0; j < p.between; ++j)
      for (int64_t k = 0; k < p.idx_inner; ++k) {
        int64_t i = indices.GetInt(b * p.idx_inner + k);
        if (mode == "clip") {
          i = i < 0 ? 0 : (i >= p.n ? p.n - 1 : i);
        } else if (mode == "wrap") {
          i = ((i % p.n) + p.n) % p.n;
        } else if (i < 0 || i >= p.n) {
          TS_THROW(kValue) << "index " << i << " is out of range for an axis of size " << p.n
                           << " (mode \"fast\" does not clip)";
        }
        const uint8_t* src = from + ((b * p.between + j) * p.n + i) * p.inner * bytes;
        std::memcpy(to + o * bytes, src, p.inner * bytes);
        o += p.inner;
      }
  return {out};
}

}  // namespace

void RegisterSliceOps(OpRegistry& registry) {
  OpDef slice;
  slice.name = "strided_slice";
  slice.description = "NumPy-style strided slice with clamping and negative strides";
  slice.inputs = {"data"};
  slice.attrs = {
      {"begin", AttrType::kIntArray, AttrValue(), "first index per sliced axis"},
      {"end", AttrType::kIntArray, AttrValue(), "exclusive end (or size) per sliced axis"},
      {"strides", AttrType::kOptionalIntArray, AttrValue(), "step per sliced axis; None = 1"},
      {"axes", AttrType::kOptionalIntArray, AttrValue(), "axes to slice; None = leading axes"},
      {"slice_mode", AttrType::kString, "end", "\"end\": end indices; \"size\": slice sizes"},
  };
  slice.pattern = OpPatternKind::kInjective;
  slice.normalize = CheckStridedSlice;
  slice.type_rel = StridedSliceRel;
  slice.kernel = StridedSliceKernel;
  registry.Register(std::move(slice));

  OpDef take;
  take.name = "take";
  take.description = "gathers elements of data at indices along axis (None = flattened)";
  take.inputs = {"data", "indices"};
  take.attrs = {
      {"axis", AttrType::kOptionalInt, AttrValue(), "the axis to index; None flattens data"},
      {"batch_dims", AttrType::kInt, 0, "leading dimensions shared by data and indices"},
      {"mode", AttrType::kString, "clip", "out-of-range indices: \"clip\", \"wrap\" or \"fast\""},
  };
  take.pattern = OpPatternKind::kInjective;
  take.normalize = CheckTakeMode;
  take.type_rel = TakeRel;
  take.kernel = TakeKernel;
  registry.Register(std::move(take));
}

}  // namespace tessera::op_defs
