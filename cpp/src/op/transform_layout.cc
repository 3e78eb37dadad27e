// layout_transform between TVM layout strings such as NCHW, NHWC, NCHW16c, OIHW16i16o
// (parsed by tessera/layout/layout_string.h). The destination must use the same primal
// axes; splitting an axis requires its full extent to be divisible by the sub-axis size (a
// value error otherwise; TVM would pad).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"
#include "tessera/layout/layout_string.h"

namespace tessera::op_defs {

namespace {

using layout::LayoutAxis;
using Layout = layout::LayoutString;

/// Parses both layouts and checks that they use the same primal axes.
std::pair<Layout, Layout> ParseLayouts(const Attrs& attrs) {
  Layout src = layout::ParseLayoutString(attrs.GetString("src_layout"), "src_layout");
  Layout dst = layout::ParseLayoutString(attrs.GetString("dst_layout"), "dst_layout");
  layout::CheckSamePrimalAxes(src, "src_layout", dst, "dst_layout");
  return {src, dst};
}

/// The full extent of every primal axis, from `shape` in layout `src`.
std::vector<int64_t> PrimalExtents(const Layout& src, const std::vector<int64_t>& shape,
                                   const std::string& src_text) {
  std::vector<int64_t> extent(26, 0);
  for (size_t d = 0; d < src.axes.size(); ++d) {
    const LayoutAxis& a = src.axes[d];
    if (a.factor && shape[d] != a.factor)
      TS_THROW(kType) << "data shape " << ShapeToString(shape) << " has " << shape[d]
                      << " at sub-axis " << (d) << " but src_layout \"" << src_text << "\" says "
                      << a.factor;
  }
  for (size_t d = 0; d < src.axes.size(); ++d) {
    const LayoutAxis& a = src.axes[d];
    if (!a.factor)
      extent[a.letter - 'A'] = shape[d] * std::max<int64_t>(src.sub_factor[a.letter - 'A'], 1);
  }
  return extent;
}

Type LayoutTransformRel(const std::vector<Type>& args, const Attrs& attrs,
                        const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  auto [src, dst] = ParseLayouts(attrs);
  const std::string& src_text = attrs.GetString("src_layout");
  if (t->ndim() != static_cast<int>(src.axes.size()))
    TS_THROW(kType) << "data shape " << ShapeToString(t->shape) << " has rank " << t->ndim()
                    << " but src_layout \"" << src_text << "\" has " << src.axes.size() << " axes";
  std::vector<int64_t> extent = PrimalExtents(src, t->shape, src_text);
  std::vector<int64_t> out;
  for (const LayoutAxis& a : dst.axes) {
    int64_t full = extent[a.letter - 'A'], split = dst.sub_factor[a.letter - 'A'];
    if (a.factor) {
      out.push_back(a.factor);
    } else if (split) {
      if (full % split != 0)
        TS_THROW(kValue) << "axis " << a.letter << " of extent " << full << " (data shape "
                         << ShapeToString(t->shape) << ") cannot be split by " << split
                         << " for dst_layout \"" << attrs.GetString("dst_layout") << "\"";
      out.push_back(full / split);
    } else {
      out.push_back(full);
    }
  }
  return MakeTensorType(out, t->dtype);
}

std::vector<NDArray> LayoutTransformKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                           const Type& out_type) {
  const NDArray& x = in[0];
  NDArray out = math::EmptyOf(out_type);
  auto [src, dst] = ParseLayouts(attrs);
  std::vector<int64_t> src_strides = RowMajorStrides(x.shape());
  const size_t bytes = static_cast<size_t>(DTypeBytes(x.dtype()));
  const auto* from = static_cast<const uint8_t*>(x.data());
  auto* to = static_cast<uint8_t*>(out.data());
  const std::vector<int64_t>& oshape = out.shape();
  int rank = out.ndim();
  std::vector<int64_t> idx(rank, 0);
  int64_t coord[26];
  for (int64_t flat = 0; flat < out.NumElements(); ++flat) {
    // The primal coordinates of this output element, then its source position.
    std::fill(std::begin(coord), std::end(coord), 0);
    for (int d = 0; d < rank; ++d) {
      const LayoutAxis& a = dst.axes[d];
      int k = a.letter - 'A';
      coord[k] += a.factor ? idx[d] : idx[d] * std::max<int64_t>(dst.sub_factor[k], 1);
    }
    int64_t offset = 0;
    for (size_t d = 0; d < src.axes.size(); ++d) {
      const LayoutAxis& a = src.axes[d];
      int k = a.letter - 'A';
      int64_t sub = std::max<int64_t>(src.sub_factor[k], 1);
      offset += (a.factor ? coord[k] % sub : coord[k] / sub) * src_strides[d];
    }
    std::memcpy(to + flat * bytes, from + offset * bytes, bytes);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < oshape[d]) break;
      idx[d] = 0;
    }
  }
  return {out};
}

}  // namespace

void RegisterLayoutTransformOp(OpRegistry& registry) {
  OpDef def;
  def.name = "layout_transform";
  def.description = "moves data between TVM layouts such as NCHW, NHWC and NCHW16c";
  def.inputs = {"data"};
  def.attrs = {{"src_layout", AttrType::kString, AttrValue(), "the layout of data"},
               {"dst_layout", AttrType::kString, AttrValue(), "the layout of the result"}};
  def.pattern = OpPatternKind::kInjective;
  def.normalize = [](Attrs& attrs) { ParseLayouts(attrs); };
  def.type_rel = LayoutTransformRel;
  def.kernel = LayoutTransformKernel;
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
