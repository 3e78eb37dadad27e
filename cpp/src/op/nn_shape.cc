// Data-movement nn ops: nn.pad (constant, edge, reflect) and nn.batch_flatten.
#include <cstring>
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

std::vector<std::vector<int64_t>> PadWidths(const Attrs& attrs) {
  std::vector<std::vector<int64_t>> widths;
  for (const AttrValue& pair : attrs.Get("pad_width").AsArray())
    widths.push_back(pair.AsInts("pad_width"));
  return widths;
}

void NormalizePad(Attrs& attrs) {
  const AttrValue& pw = attrs.Get("pad_width");
  if (!pw.is_array()) TS_THROW(kValue) << "pad_width must be an array of [before, after] pairs";
  std::vector<std::vector<int64_t>> widths = PadWidths(attrs);
  for (size_t i = 0; i < widths.size(); ++i) {
    if (widths[i].size() != 2)
      TS_THROW(kValue) << "pad_width[" << i << "] must have 2 elements [before, after], got "
                       << widths[i].size();
    if (widths[i][0] < 0 || widths[i][1] < 0)
      TS_THROW(kValue) << "pad_width[" << i << "] " << ShapeToString(widths[i])
                       << " must not be negative";
  }
  const std::string& mode = attrs.GetString("pad_mode");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    TS_THROW(kValue) << "pad_mode '" << mode << "' is not one of constant, edge, reflect";
}

Type PadRel(const std::vector<Type>& args, const Attrs& given, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  const auto* value = ExpectTensor(args, 1);
  Attrs attrs = given;
  NormalizePad(attrs);
  if (value->ndim() != 0)
    TS_THROW(kType) << "pad_value must be a scalar (rank-0) tensor, got shape "
                    << ShapeToString(value->shape);
  std::vector<std::vector<int64_t>> widths = PadWidths(attrs);
  if (static_cast<int>(widths.size()) != data->ndim())
    TS_THROW(kType) << "pad_width has " << widths.size() << " pairs but data shape "
                    << ShapeToString(data->shape) << " has rank " << data->ndim();
  const std::string& mode = attrs.GetString("pad_mode");
  std::vector<int64_t> out = data->shape;
  for (int d = 0; d < data->ndim(); ++d) {
    int64_t n = data->shape[d], before = widths[d][0], after = widths[d][1];
    if (mode == "reflect" && (before >= n || after >= n) && (before > 0 || after > 0))
      TS_THROW(kType) << "reflect padding " << ShapeToString(widths[d]) << " on axis " << d
                      << " must be smaller than the dimension " << n << " (data shape "
                      << ShapeToString(data->shape) << ")";
    if (mode == "edge" && n == 0 && (before > 0 || after > 0))
      TS_THROW(kType) << "edge padding needs a non-empty axis " << d << " (data shape "
                      << ShapeToString(data->shape) << ")";
    out[d] = n + before + after;
  }
  return MakeTensorType(out, data->dtype);
}

/// Source index along one axis for output index `i`, or -1 for the constant value.
int64_t SourceIndex(int64_t i, int64_t before, int64_t n, int mode) {
  int64_t j = i - before;
  if (j >= 0 && j < n) return j;
  if (mode == 0) return -1;
  if (mode == 1) return j < 0 ? 0 : n - 1;
  return j < 0 ? -j : 2 * (n - 1) - j;  // reflect without repeating the edge
}

/// Copies element bytes, so every dtype is padded exactly; one row of the last axis at
/// a time with a precomputed column map.
std::vector<NDArray> PadKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                               const Type& out_type) {
  const NDArray& data = in[0];
  const auto* ot = out_type.as<TensorTypeNode>();
  NDArray out = NDArray::Empty(ot->shape, ot->dtype);
  NDArray fill = NDArray::Empty({}, ot->dtype);
  if (IsInteger(in[1].dtype()) || in[1].dtype() == DType::kBool)
    fill.SetInt(0, in[1].GetInt(0));
  else
    fill.SetFloat(0, in[1].GetFloat(0));
  const std::string& mode_name = attrs.GetString("pad_mode");
  int mode = mode_name == "constant" ? 0 : mode_name == "edge" ? 1 : 2;
  std::vector<std::vector<int64_t>> widths = PadWidths(attrs);
  size_t esize = static_cast<size_t>(DTypeBytes(ot->dtype));
  const char* src = static_cast<const char*>(data.data());
  char* dst = static_cast<char*>(out.data());
  const char* fill_bytes = static_cast<const char*>(fill.data());
  int rank = data.ndim();
  if (rank == 0) {
    std::memcpy(dst, src, esize);
    return {out};
  }
  int64_t total = out.NumElements();
  if (total == 0) return {out};
  const auto& ishape = data.shape();
  const auto& oshape = ot->shape;
  std::vector<int64_t> istride = RowMajorStrides(ishape);
  int last = rank - 1;
  std::vector<int64_t> col(oshape[last]);
  for (int64_t i = 0; i < oshape[last]; ++i)
    col[i] = SourceIndex(i, widths[last][0], ishape[last], mode);
  int64_t rows = total / oshape[last];
  std::vector<int64_t> idx(last, 0);  // output index over the outer axes
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;
    bool constant_row = false;
    for (int d = 0; d < last; ++d) {
      int64_t s = SourceIndex(idx[d], widths[d][0], ishape[d], mode);
      if (s < 0) {
        constant_row = true;
        break;
      }
      base += s * istride[d];
    }
    char* orow = dst + static_cast<size_t>(r * oshape[last]) * esize;
    for (int64_t i = 0; i < oshape[last]; ++i) {
      const char* from = constant_row || col[i] < 0
                             ? fill_bytes
                             : src + static_cast<size_t>(base + col[i]) * esize;
      std::memcpy(orow + static_cast<size_t>(i) * esize, from, esize);
    }
    for (int d = last - 1; d >= 0; --d) {
      if (++idx[d] < oshape[d]) break;
      idx[d] = 0;
    }
  }
  return {out};
}

}  // namespace

void RegisterNNShapeOps(OpRegistry& registry) {
  OpDef pad;
  pad.name = "nn.pad";
  pad.description = "pads each axis by [before, after] with a scalar, the edge or a reflection";
  pad.inputs = {"data", "pad_value"};
  pad.attrs = {
      {"pad_width", AttrType::kNestedIntArray, AttrValue(), "one [before, after] pair per axis"},
      {"pad_mode", AttrType::kString, "constant", "constant, edge or reflect"},
  };
  pad.pattern = OpPatternKind::kInjective;
  pad.type_rel = PadRel;
  pad.kernel = PadKernel;
  pad.normalize = NormalizePad;
  registry.Register(std::move(pad));

  OpDef flat;
  flat.name = "nn.batch_flatten";
  flat.description = "flattens all axes but the first: [N, ...] -> [N, prod(...)]";
  flat.inputs = {"data"};
  flat.pattern = OpPatternKind::kInjective;
  flat.type_rel = [](const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
    const auto* data = ExpectTensor(args, 0);
    if (data->ndim() < 1)
      TS_THROW(kType) << "data must have rank >= 1, got shape " << ShapeToString(data->shape);
    int64_t rest = 1;
    for (int d = 1; d < data->ndim(); ++d) rest *= data->shape[d];
    return Type(MakeTensorType({data->shape[0], rest}, data->dtype));
  };
  flat.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return std::vector<NDArray>{in[0].Copy().Reshaped(out_type.as<TensorTypeNode>()->shape)};
  };
  registry.Register(std::move(flat));
}

}  // namespace tessera::op_defs
