// 2-D pooling: nn.max_pool2d, nn.avg_pool2d, global and adaptive pools, in any permutation
// of NCHW or the channel-blocked NCHW{x}c.
#include <algorithm>
#include <limits>
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

using nn::DataLayout2D;

/// Extents and element strides of one image tensor in a 2-D layout, plain or blocked.
struct ImageView {
  int64_t n, c, h, w;     // logical extents (c counts every channel)
  int64_t sn, sh, sw;     // element strides
  int64_t sc, sl, block;  // channel c is at (c / block) * sc + (c % block) * sl
  /// The offset of channel c of image n.
  int64_t Base(int64_t ni, int64_t ci) const { return ni * sn + ci / block * sc + ci % block * sl; }
};

ImageView View(const std::vector<int64_t>& shape, const DataLayout2D& l) {
  std::vector<int64_t> st = RowMajorStrides(shape);
  const nn::Layout2D& a = l.axes;
  return {shape[a.n], shape[a.c] * l.block(),  shape[a.h], shape[a.w], st[a.n], st[a.h], st[a.w],
          st[a.c],    l.blocked() ? st[4] : 0, l.block()};
}

DataLayout2D LayoutOf(const Attrs& attrs) {
  return nn::ParseDataLayout2D(attrs.GetString("layout"), "layout");
}

/// The data, checked against the layout: its rank, and for NCHW{x}c the block's extent.
const TensorTypeNode* ExpectImage(const std::vector<Type>& args, const Attrs& attrs) {
  const auto* data = ExpectTensor(args, 0);
  DataLayout2D l = LayoutOf(attrs);
  nn::ExpectRank(data, l.rank(), "data", attrs.GetString("layout"));
  if (l.blocked() && data->shape[4] != l.c_block)
    TS_THROW(kType) << "data shape " << ShapeToString(data->shape) << " has " << data->shape[4]
                    << " lanes in its channel-block axis but layout '" << attrs.GetString("layout")
                    << "' has blocks of " << l.c_block;
  return data;
}

void NormalizeLayouts(Attrs& attrs) {
  LayoutOf(attrs);
  nn::CheckOutLayout(attrs, "layout");
}

void NormalizePool(Attrs& attrs) {
  nn::NormalizePair(attrs, "pool_size", 1);
  nn::NormalizePair(attrs, "strides", 1);
  nn::NormalizePair(attrs, "dilation", 1);
  nn::NormalizePadding4(attrs, "padding");
  NormalizeLayouts(attrs);
}

/// Window parameters of max/avg pooling, re-normalised so hand-built attributes work.
struct PoolParams {
  DataLayout2D layout;
  int64_t kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool ceil_mode;
};

PoolParams ReadPool(const Attrs& given) {
  Attrs attrs = given;
  NormalizePool(attrs);
  std::vector<int64_t> k = attrs.GetInts("pool_size"), s = attrs.GetInts("strides");
  std::vector<int64_t> d = attrs.GetInts("dilation"), p = attrs.GetInts("padding");
  return {LayoutOf(attrs),           k[0], k[1], s[0], s[1], d[0], d[1], p[0], p[1], p[2], p[3],
          attrs.GetBool("ceil_mode")};
}

/// TVM's Pool2DRel extent: ceil_mode adds stride - 1 before the division.
int64_t PoolOutDim(int64_t in, int64_t pad_sum, int64_t k, int64_t dil, int64_t stride, bool ceil,
                   const char* axis) {
  int64_t dilated = dil * (k - 1) + 1;
  if (in + pad_sum < dilated)
    TS_THROW(kType) << "input " << axis << " " << in << " plus padding " << pad_sum
                    << " is smaller than the dilated pool " << axis << " " << dilated;
  return (in + pad_sum - dilated + (ceil ? stride - 1 : 0)) / stride + 1;
}

Type PoolRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectImage(args, attrs);
  PoolParams p = ReadPool(attrs);
  const nn::Layout2D& a = p.layout.axes;
  std::vector<int64_t> out = data->shape;
  out[a.h] = PoolOutDim(data->shape[a.h], p.pt + p.pb, p.kh, p.dh, p.sh, p.ceil_mode, "height");
  out[a.w] = PoolOutDim(data->shape[a.w], p.pl + p.pr, p.kw, p.dw, p.sw, p.ceil_mode, "width");
  return MakeTensorType(out, data->dtype);
}

/// Max or average pooling. Out-of-range taps (padding and the ceil_mode overhang) are
/// skipped; the average divides by the in-range count, or with count_include_pad by
/// the taps inside the explicitly padded extent.
std::vector<NDArray> PoolKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                const Type& out_type, bool is_max) {
  PoolParams p = ReadPool(attrs);
  bool include_pad = !is_max && attrs.GetBool("count_include_pad");
  const auto* ot = out_type.as<TensorTypeNode>();
  ImageView iv = View(in[0].shape(), p.layout), ov = View(ot->shape, p.layout);
  std::vector<double> x = nn::ToDoubles(in[0]);
  std::vector<double> y(static_cast<size_t>(ShapeNumElements(ot->shape)));
  double lowest = LowestValue(in[0].dtype());
  // Per output row/column: the in-range taps and, for count_include_pad, the padded count.
  auto taps = [](int64_t o, int64_t s, int64_t pad_before, int64_t pad_after, int64_t d, int64_t k,
                 int64_t in_n, int64_t* lo, int64_t* hi, int64_t* padded) {
    int64_t start = o * s - pad_before;
    *lo = start >= 0 ? 0 : std::min(k, (-start + d - 1) / d);
    int64_t last_ok = in_n - 1 - start;  // largest tap offset still inside the input
    *hi = last_ok < 0 ? *lo : std::max(*lo, std::min(k, last_ok / d + 1));
    int64_t last_pad = in_n + pad_after - 1 - start;
    *padded = last_pad < 0 ? 0 : std::min(k, last_pad / d + 1);
  };
  std::vector<int64_t> h_lo(ov.h), h_hi(ov.h), h_pad(ov.h), w_lo(ov.w), w_hi(ov.w), w_pad(ov.w);
  for (int64_t o = 0; o < ov.h; ++o)
    taps(o, p.sh, p.pt, p.pb, p.dh, p.kh, iv.h, &h_lo[o], &h_hi[o], &h_pad[o]);
  for (int64_t o = 0; o < ov.w; ++o)
    taps(o, p.sw, p.pl, p.pr, p.dw, p.kw, iv.w, &w_lo[o], &w_hi[o], &w_pad[o]);
  for (int64_t n = 0; n < iv.n; ++n)
    for (int64_t c = 0; c < iv.c; ++c) {
      const double* xb = x.data() + iv.Base(n, c);
      double* yb = y.data() + ov.Base(n, c);
      for (int64_t oh = 0; oh < ov.h; ++oh) {
        int64_t h0 = oh * p.sh - p.pt;
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          int64_t w0 = ow * p.sw - p.pl;
          double acc = is_max ? lowest : 0.0;
          for (int64_t kh = h_lo[oh]; kh < h_hi[oh]; ++kh) {
            const double* row = xb + (h0 + kh * p.dh) * iv.sh;
            for (int64_t kw = w_lo[ow]; kw < w_hi[ow]; ++kw) {
              double v = row[(w0 + kw * p.dw) * iv.sw];
              acc = is_max ? std::max(acc, v) : acc + v;
            }
          }
          if (!is_max) {
            int64_t count =
                include_pad ? h_pad[oh] * w_pad[ow] : (h_hi[oh] - h_lo[oh]) * (w_hi[ow] - w_lo[ow]);
            acc /= static_cast<double>(std::max<int64_t>(count, 1));
          }
          yb[oh * ov.sh + ow * ov.sw] = acc;
        }
      }
    }
  return {nn::FromDoubles(y, out_type)};
}

/// The adaptive output size: None means [1, 1] (normalised away), [] keeps the input
/// size as TVM's AdaptivePool2DRel does, one int is used for both axes.
void NormalizeAdaptive(Attrs& attrs) {
  const AttrValue& size = attrs.Get("output_size");
  if (size.is_none()) {
    attrs.Set("output_size", AttrValue::Ints({1, 1}));
  } else if (!size.AsArray().empty()) {
    nn::NormalizePair(attrs, "output_size", 1);
  }
  NormalizeLayouts(attrs);
}

Type AdaptiveRel(const std::vector<Type>& args, const Attrs& given, const std::vector<Type>&) {
  const auto* data = ExpectImage(args, given);
  Attrs attrs = given;
  NormalizeAdaptive(attrs);
  nn::Layout2D l = LayoutOf(attrs).axes;
  std::vector<int64_t> size = attrs.GetInts("output_size");
  std::vector<int64_t> out = data->shape;
  if (!size.empty()) {
    out[l.h] = size[0];
    out[l.w] = size[1];
  }
  return MakeTensorType(out, data->dtype);
}

/// Adaptive pooling with TVM's windows: [floor(o * in / out), ceil((o + 1) * in / out)).
/// Global pooling is the 1x1 case.
std::vector<NDArray> AdaptiveKernel(const std::vector<NDArray>& in, const DataLayout2D& layout,
                                    const Type& out_type, bool is_max) {
  const auto* ot = out_type.as<TensorTypeNode>();
  ImageView iv = View(in[0].shape(), layout), ov = View(ot->shape, layout);
  std::vector<double> x = nn::ToDoubles(in[0]);
  std::vector<double> y(static_cast<size_t>(ShapeNumElements(ot->shape)));
  auto window = [](int64_t o, int64_t out_n, int64_t in_n, std::vector<int64_t>* lo,
                   std::vector<int64_t>* hi) {
    (*lo)[o] = o * in_n / out_n;
    (*hi)[o] = ((o + 1) * in_n + out_n - 1) / out_n;
  };
  std::vector<int64_t> h_lo(ov.h), h_hi(ov.h), w_lo(ov.w), w_hi(ov.w);
  for (int64_t o = 0; o < ov.h; ++o) window(o, ov.h, iv.h, &h_lo, &h_hi);
  for (int64_t o = 0; o < ov.w; ++o) window(o, ov.w, iv.w, &w_lo, &w_hi);
  double lowest = LowestValue(in[0].dtype());
  for (int64_t n = 0; n < iv.n; ++n)
    for (int64_t c = 0; c < iv.c; ++c) {
      const double* xb = x.data() + iv.Base(n, c);
      double* yb = y.data() + ov.Base(n, c);
      for (int64_t oh = 0; oh < ov.h; ++oh)
        for (int64_t ow = 0; ow < ov.w; ++ow) {
          double acc = is_max ? lowest : 0.0;
          for (int64_t ih = h_lo[oh]; ih < h_hi[oh]; ++ih)
            for (int64_t iw = w_lo[ow]; iw < w_hi[ow]; ++iw) {
              double v = xb[ih * iv.sh + iw * iv.sw];
              acc = is_max ? std::max(acc, v) : acc + v;
            }
          if (!is_max) {
            int64_t count = (h_hi[oh] - h_lo[oh]) * (w_hi[ow] - w_lo[ow]);
            acc /= static_cast<double>(std::max<int64_t>(count, 1));
          }
          yb[oh * ov.sh + ow * ov.sw] = acc;
        }
    }
  return {nn::FromDoubles(y, out_type)};
}

std::vector<AttrField> PoolAttrs(bool avg) {
  std::vector<AttrField> fields = {
      {"pool_size", AttrType::kIntArray, AttrValue::Ints({1, 1}), "window (h, w)"},
      {"strides", AttrType::kIntArray, AttrValue::Ints({1, 1}), "stride (h, w)"},
      {"dilation", AttrType::kIntArray, AttrValue::Ints({1, 1}), "window dilation (h, w)"},
      {"padding", AttrType::kIntArray, AttrValue::Ints({0, 0}),
       "padding: 1, 2 or 4 ints, canonical [top, left, bottom, right]"},
      {"layout", AttrType::kString, "NCHW", "data layout (NCHW, NHWC, NCHW16c, ...)"},
      {"out_layout", AttrType::kString, "", "output layout; empty means layout"},
      {"ceil_mode", AttrType::kBool, false, "round the output size up"},
  };
  if (avg)
    fields.push_back({"count_include_pad", AttrType::kBool, false,
                      "divide by the window size including padding"});
  return fields;
}

std::vector<AttrField> LayoutAttrs() {
  return {
      {"layout", AttrType::kString, "NCHW", "data layout (NCHW, NHWC, NCHW16c, ...)"},
      {"out_layout", AttrType::kString, "", "output layout; empty means layout"},
  };
}

}  // namespace

void RegisterNNPoolOps(OpRegistry& registry) {
  for (bool is_max : {true, false}) {
    OpDef def;
    def.name = is_max ? "nn.max_pool2d" : "nn.avg_pool2d";
    def.description = is_max ? "2-D max pooling" : "2-D average pooling";
    def.inputs = {"data"};
    def.attrs = PoolAttrs(!is_max);
    def.pattern = OpPatternKind::kOutEWiseFusable;
    def.type_rel = PoolRel;
    def.kernel = [is_max](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out) {
      return PoolKernel(in, attrs, out, is_max);
    };
    def.normalize = NormalizePool;
    registry.Register(std::move(def));
  }
  for (bool is_max : {false, true}) {
    OpDef def;
    def.name = is_max ? "nn.global_max_pool2d" : "nn.global_avg_pool2d";
    def.description = is_max ? "max over height and width" : "mean over height and width";
    def.inputs = {"data"};
    def.attrs = LayoutAttrs();
    def.pattern = OpPatternKind::kOutEWiseFusable;
    def.type_rel = [](const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
      const auto* data = ExpectImage(args, attrs);
      nn::Layout2D l = LayoutOf(attrs).axes;
      std::vector<int64_t> out = data->shape;
      out[l.h] = out[l.w] = 1;
      return Type(MakeTensorType(out, data->dtype));
    };
    def.kernel = [is_max](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out) {
      return AdaptiveKernel(in, LayoutOf(attrs), out, is_max);
    };
    def.normalize = NormalizeLayouts;
    registry.Register(std::move(def));
  }
  OpDef ad;
  ad.name = "nn.adaptive_avg_pool2d";
  ad.description = "average pooling to a given output size with TVM's adaptive windows";
  ad.inputs = {"data"};
  ad.attrs = LayoutAttrs();
  ad.attrs.insert(
      ad.attrs.begin(),
      AttrField{"output_size", AttrType::kOptionalIntArray, AttrValue(),
                "output (h, w); one int for both; None means [1, 1]; [] keeps the input size"});
  ad.pattern = OpPatternKind::kOutEWiseFusable;
  ad.type_rel = AdaptiveRel;
  ad.kernel = [](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out) {
    return AdaptiveKernel(in, LayoutOf(attrs), out, false);
  };
  ad.normalize = NormalizeAdaptive;
  registry.Register(std::move(ad));
}

}  // namespace tessera::op_defs
