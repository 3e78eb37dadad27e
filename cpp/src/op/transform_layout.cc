// layout_transform between TVM layout strings such as NCHW, NHWC, NCHW16c, OIHW16i16o.
//
// An upper-case letter is a primal axis; a number followed by a lower-case letter is a
// sub-axis of that size split off the primal axis of the same letter (which must appear
// in the layout). Each letter appears at most once as primal and once as sub-axis. The
// destination must use the same primal axes; splitting an axis requires its full extent
// to be divisible by the sub-axis size (a value error otherwise; TVM would pad).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

/// One axis of a layout: primal letter 'A'..'Z' and, for a sub-axis, its size (0 = primal).
struct LayoutAxis {
  char letter;
  int64_t factor;
};

/// A parsed layout plus, per primal letter, its position and sub-axis size.
struct Layout {
  std::vector<LayoutAxis> axes;
  int primal_pos[26];
  int64_t sub_factor[26];
};

Layout ParseLayout(const std::string& text, const char* what) {
  Layout layout;
  std::fill(std::begin(layout.primal_pos), std::end(layout.primal_pos), -1);
  std::fill(std::begin(layout.sub_factor), std::end(layout.sub_factor), 0);
  if (text.empty()) TS_THROW(kValue) << what << " must not be empty";
  size_t i = 0;
  while (i < text.size()) {
    int64_t factor = 0;
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (factor > (int64_t{1} << 40))
        TS_THROW(kValue) << what << " \"" << text << "\": sub-axis size is too large";
      factor = factor * 10 + (text[i++] - '0');
    }
    bool has_number = i > start;
    if (i == text.size())
      TS_THROW(kValue) << what << " \"" << text << "\": a size must be followed by a letter";
    char c = text[i++];
    if (c >= 'A' && c <= 'Z' && !has_number) {
      if (layout.primal_pos[c - 'A'] >= 0)
        TS_THROW(kValue) << what << " \"" << text << "\" repeats axis " << c;
      layout.primal_pos[c - 'A'] = static_cast<int>(layout.axes.size());
      layout.axes.push_back({c, 0});
    } else if (c >= 'a' && c <= 'z' && has_number) {
      char up = static_cast<char>(c - 'a' + 'A');
      if (factor <= 0)
        TS_THROW(kValue) << what << " \"" << text << "\": sub-axis " << c
                         << " must have a positive size";
      if (layout.sub_factor[up - 'A'] != 0)
        TS_THROW(kValue) << what << " \"" << text << "\" repeats sub-axis " << c;
      layout.sub_factor[up - 'A'] = factor;
      layout.axes.push_back({up, factor});
    } else {
      TS_THROW(kValue) << what << " \"" << text << "\": unexpected '" << c << "' at position "
                       << (i - 1)
                       << " (expected an upper-case axis or a size and a lower-case sub-axis)";
    }
  }
  for (int k = 0; k < 26; ++k)
    if (layout.sub_factor[k] && layout.primal_pos[k] < 0)
      TS_THROW(kValue) << what << " \"" << text << "\" has sub-axis " << static_cast<char>('a' + k)
                       << " without its primal axis " << static_cast<char>('A' + k);
  return layout;
}

/// Parses both layouts and checks that they use the same primal axes.
std::pair<Layout, Layout> ParseLayouts(const Attrs& attrs) {
  const std::string& src_text = attrs.GetString("src_layout");
  const std::string& dst_text = attrs.GetString("dst_layout");
  Layout src = ParseLayout(src_text, "src_layout");
  Layout dst = ParseLayout(dst_text, "dst_layout");
  for (int k = 0; k < 26; ++k)
    if ((src.primal_pos[k] < 0) != (dst.primal_pos[k] < 0))
      TS_THROW(kValue) << "src_layout \"" << src_text << "\" and dst_layout \"" << dst_text
                       << "\" must have the same primal axes (axis " << static_cast<char>('A' + k)
                       << " is in only one)";
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
