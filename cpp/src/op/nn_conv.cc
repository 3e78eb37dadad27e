// nn.conv2d: attribute canonicalisation, shape inference and a direct reference kernel, for
// plain (NCHW, NHWC, ...) and channel-blocked (NCHW16c data, OIHW16i16o weight) layouts.
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

using nn::DataLayout2D;
using nn::KernelLayout2D;
using nn::Layout2D;

/// Everything the relation and the kernel need, read from normalised attributes.
struct Conv2DParams {
  DataLayout2D data;      // the data's layout (NCHW, NHWC, NCHW16c, ...)
  DataLayout2D out;       // the output's layout (out_layout, else data_layout)
  KernelLayout2D kernel;  // the weight's layout (OIHW, HWIO, OIHW16i16o, ...)
  std::string data_text, out_text, kernel_text;
  int64_t stride_h, stride_w, dil_h, dil_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int64_t groups;
};

/// out_layout is "" or data_layout, or both are of the NCHW family (NCHW, NCHW{x}c), whose
/// members the op converts between as it stores the output.
void CheckConvOutLayout(const Attrs& attrs) {
  const std::string& out = attrs.GetString("out_layout");
  const std::string& in = attrs.GetString("data_layout");
  if (out.empty() || out == in) return;
  DataLayout2D o = nn::ParseDataLayout2D(out, "out_layout");
  DataLayout2D d = nn::ParseDataLayout2D(in, "data_layout");
  if (!o.IsNCHWFamily() || !d.IsNCHWFamily())
    TS_THROW(kValue) << "out_layout '" << out << "' differs from data_layout '" << in
                     << "'; only NCHW and NCHW{x}c layouts convert into each other inside the op";
}

void NormalizeConv2D(Attrs& attrs) {
  nn::NormalizePair(attrs, "strides", 1);
  nn::NormalizePadding4(attrs, "padding");
  nn::NormalizePair(attrs, "dilation", 1);
  if (attrs.GetInt("groups") < 1)
    TS_THROW(kValue) << "groups must be >= 1, got " << attrs.GetInt("groups");
  const AttrValue& channels = attrs.Get("channels");
  if (channels.is_int() && channels.AsInt() < 1)
    TS_THROW(kValue) << "channels must be >= 1, got " << channels.AsInt();
  if (!attrs.Get("kernel_size").is_none()) nn::NormalizePair(attrs, "kernel_size", 1);
  nn::ParseDataLayout2D(attrs.GetString("data_layout"), "data_layout");
  nn::ParseKernelLayout2D(attrs.GetString("kernel_layout"), "kernel_layout");
  CheckConvOutLayout(attrs);
  nn::CheckOutDTypeAttr(attrs);
}

Conv2DParams ReadParams(const Attrs& given) {
  Attrs attrs = given;  // re-normalise: attributes may not have come through MakeOpCall
  NormalizeConv2D(attrs);
  Conv2DParams p;
  p.data_text = attrs.GetString("data_layout");
  p.kernel_text = attrs.GetString("kernel_layout");
  p.out_text = attrs.GetString("out_layout").empty() ? p.data_text : attrs.GetString("out_layout");
  p.data = nn::ParseDataLayout2D(p.data_text, "data_layout");
  p.out = nn::ParseDataLayout2D(p.out_text, "out_layout");
  p.kernel = nn::ParseKernelLayout2D(p.kernel_text, "kernel_layout");
  std::vector<int64_t> s = attrs.GetInts("strides"), d = attrs.GetInts("dilation");
  std::vector<int64_t> pad = attrs.GetInts("padding");
  p.stride_h = s[0];
  p.stride_w = s[1];
  p.dil_h = d[0];
  p.dil_w = d[1];
  p.pad_top = pad[0];
  p.pad_left = pad[1];
  p.pad_bottom = pad[2];
  p.pad_right = pad[3];
  p.groups = attrs.GetInt("groups");
  return p;
}

/// Whether any of the three layouts is channel-blocked.
bool AnyBlocked(const Conv2DParams& p) {
  return p.data.blocked() || p.out.blocked() || p.kernel.blocked();
}

/// Output extent of one spatial axis; throws when the dilated kernel does not fit.
int64_t ConvOutDim(int64_t in, int64_t pad_sum, int64_t k, int64_t dil, int64_t stride,
                   const char* axis) {
  int64_t dilated = dil * (k - 1) + 1;
  if (in + pad_sum < dilated)
    TS_THROW(kType) << "input " << axis << " " << in << " plus padding " << pad_sum
                    << " is smaller than the dilated kernel " << axis << " " << dilated;
  return (in + pad_sum - dilated) / stride + 1;
}

/// Logical (N, C, H, W) of the data and (O, I, KH, KW) of the weight.
struct ConvDims {
  int64_t n, c, h, w, o, i, kh, kw;
};

/// Reads the logical extents, checking ranks and that blocked axes hold their blocks.
ConvDims LogicalDims(const TensorTypeNode* data, const TensorTypeNode* weight,
                     const Conv2DParams& p) {
  nn::ExpectRank(data, p.data.rank(), "data", p.data_text);
  nn::ExpectRank(weight, p.kernel.rank(), "weight", p.kernel_text);
  const auto& ds = data->shape;
  const auto& ws = weight->shape;
  if (p.data.blocked() && ds[4] != p.data.c_block)
    TS_THROW(kType) << "data shape " << ShapeToString(ds) << " has " << ds[4]
                    << " lanes in its channel-block axis but data_layout '" << p.data_text
                    << "' has blocks of " << p.data.c_block;
  if (p.kernel.blocked() && (ws[4] != p.kernel.i_block || ws[5] != p.kernel.o_block))
    TS_THROW(kType) << "weight shape " << ShapeToString(ws) << " has blocks of " << ws[4]
                    << " in-channels and " << ws[5] << " out-channels but kernel_layout '"
                    << p.kernel_text << "' has " << p.kernel.i_block << " and " << p.kernel.o_block;
  const Layout2D& L = p.data.axes;
  const std::vector<int>& K = p.kernel.perm;
  int64_t ib = p.kernel.blocked() ? p.kernel.i_block : 1;
  int64_t ob = p.kernel.blocked() ? p.kernel.o_block : 1;
  return {
      ds[L.n], ds[L.c] * p.data.block(), ds[L.h], ds[L.w], ws[K[0]] * ob, ws[K[1]] * ib, ws[K[2]],
      ws[K[3]]};
}

Type Conv2DRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  const auto* weight = ExpectTensor(args, 1);
  Conv2DParams p = ReadParams(attrs);
  ConvDims dims = LogicalDims(data, weight, p);
  nn::ExpectSameDType(data, "data", weight, "weight");
  const auto& ds = data->shape;
  const auto& ws = weight->shape;
  int64_t c = dims.c, o = dims.o, i = dims.i, kh = dims.kh, kw = dims.kw;
  if (kh < 1 || kw < 1)
    TS_THROW(kType) << "weight shape " << ShapeToString(ws) << " has an empty kernel";
  if (c != i * p.groups)
    TS_THROW(kType) << "data channels " << c << " (data shape " << ShapeToString(ds)
                    << ") must equal weight in-channels " << i << " x groups " << p.groups
                    << " (weight shape " << ShapeToString(ws) << ")";
  if (o % p.groups != 0)
    TS_THROW(kType) << "weight out-channels " << o << " (weight shape " << ShapeToString(ws)
                    << ") is not divisible by groups " << p.groups;
  if (AnyBlocked(p) && p.groups > 1 && !(p.groups == c && o == c))
    TS_THROW(kType) << "grouped convolution (groups " << p.groups << ", " << c << " in-channels, "
                    << o
                    << " out-channels) with a blocked layout is supported only depthwise "
                       "(groups = in-channels = out-channels)";
  if (o % p.out.block() != 0)
    TS_THROW(kType) << "weight out-channels " << o << " (weight shape " << ShapeToString(ws)
                    << ") is not divisible by the channel block " << p.out.c_block
                    << " of the output layout '" << p.out_text << "'";
  const AttrValue* channels = attrs.Find("channels");
  if (channels && channels->is_int() && channels->AsInt() != o)
    TS_THROW(kType) << "channels " << channels->AsInt() << " does not match weight out-channels "
                    << o << " (weight shape " << ShapeToString(ws) << ")";
  const AttrValue* ksize = attrs.Find("kernel_size");
  if (ksize && ksize->is_array()) {
    std::vector<int64_t> k = ksize->AsInts("kernel_size");
    if (k.size() == 1) k.push_back(k[0]);
    if (k != std::vector<int64_t>{kh, kw})
      TS_THROW(kType) << "kernel_size " << ShapeToString(k) << " does not match the weight kernel "
                      << ShapeToString({kh, kw}) << " (weight shape " << ShapeToString(ws) << ")";
  }
  int64_t oh = ConvOutDim(dims.h, p.pad_top + p.pad_bottom, kh, p.dil_h, p.stride_h, "height");
  int64_t ow = ConvOutDim(dims.w, p.pad_left + p.pad_right, kw, p.dil_w, p.stride_w, "width");
  return MakeTensorType(p.out.Shape(dims.n, o, oh, ow), nn::ResolveOutDType(attrs, data->dtype));
}

/// Direct convolution on doubles; data and output share the layout `L`. For each (weight
/// tap, output row) the valid output columns are computed once, so the innermost loop runs
/// without bounds checks.
std::vector<double> DirectConv(const std::vector<double>& data, const std::vector<int64_t>& ds,
                               const Layout2D& L, const std::vector<double>& weight,
                               const std::vector<int64_t>& ws, const std::vector<int>& K,
                               const std::vector<int64_t>& os, const Conv2DParams& p) {
  std::vector<int64_t> dst = RowMajorStrides(ds), wst = RowMajorStrides(ws);
  std::vector<int64_t> ost = RowMajorStrides(os);
  int64_t n_batch = ds[L.n], height = ds[L.h], width = ds[L.w];
  int64_t out_c = ws[K[0]], icpg = ws[K[1]];
  int64_t kh_n = ws[K[2]], kw_n = ws[K[3]];
  int64_t out_h = os[L.h], out_w = os[L.w];
  int64_t ocpg = out_c / p.groups;
  int64_t dN = dst[L.n], dC = dst[L.c], dH = dst[L.h], dW = dst[L.w];
  int64_t wO = wst[K[0]], wI = wst[K[1]], wH = wst[K[2]], wW = wst[K[3]];
  int64_t oN = ost[L.n], oC = ost[L.c], oH = ost[L.h], oW = ost[L.w];

  // Valid output ranges per kernel tap, independent of batch and channel.
  std::vector<int64_t> oh_lo(kh_n), oh_hi(kh_n), ow_lo(kw_n), ow_hi(kw_n);
  for (int64_t kh = 0; kh < kh_n; ++kh)
    nn::ValidOutputRange(kh * p.dil_h - p.pad_top, p.stride_h, height, out_h, &oh_lo[kh],
                         &oh_hi[kh]);
  for (int64_t kw = 0; kw < kw_n; ++kw)
    nn::ValidOutputRange(kw * p.dil_w - p.pad_left, p.stride_w, width, out_w, &ow_lo[kw],
                         &ow_hi[kw]);

  std::vector<double> acc(static_cast<size_t>(ShapeNumElements(os)), 0.0);
  if (dC == 1 && oC == 1) {
    // Channels innermost (NHWC): per output pixel and tap, a small [I, O] product whose
    // inner loop walks the output channels (contiguous for HWIO weights).
    for (int64_t n = 0; n < n_batch; ++n)
      for (int64_t oh = 0; oh < out_h; ++oh)
        for (int64_t ow = 0; ow < out_w; ++ow) {
          double* op = acc.data() + n * oN + oh * oH + ow * oW;
          for (int64_t kh = 0; kh < kh_n; ++kh) {
            if (oh < oh_lo[kh] || oh >= oh_hi[kh]) continue;
            int64_t ih = oh * p.stride_h + kh * p.dil_h - p.pad_top;
            for (int64_t kw = 0; kw < kw_n; ++kw) {
              if (ow < ow_lo[kw] || ow >= ow_hi[kw]) continue;
              int64_t iw = ow * p.stride_w + kw * p.dil_w - p.pad_left;
              const double* ip = data.data() + n * dN + ih * dH + iw * dW;
              const double* wtap = weight.data() + kh * wH + kw * wW;
              for (int64_t g = 0; g < p.groups; ++g)
                for (int64_t ic = 0; ic < icpg; ++ic) {
                  double xv = ip[g * icpg + ic];
                  const double* wp = wtap + ic * wI + g * ocpg * wO;
                  double* og = op + g * ocpg;
                  for (int64_t oc = 0; oc < ocpg; ++oc) og[oc] += xv * wp[oc * wO];
                }
            }
          }
        }
    return acc;
  }
  const int64_t col_step = p.stride_w * dW;
  const bool unit_steps = col_step == 1 && oW == 1;
  for (int64_t n = 0; n < n_batch; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      int64_t g = oc / ocpg;
      double* obase = acc.data() + n * oN + oc * oC;
      for (int64_t ic = 0; ic < icpg; ++ic) {
        const double* dbase = data.data() + n * dN + (g * icpg + ic) * dC;
        const double* wbase = weight.data() + oc * wO + ic * wI;
        for (int64_t kh = 0; kh < kh_n; ++kh) {
          int64_t off_h = kh * p.dil_h - p.pad_top;
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            double wv = wbase[kh * wH + kw * wW];
            int64_t off_w = kw * p.dil_w - p.pad_left;
            int64_t c0 = ow_lo[kw], c1 = ow_hi[kw];
            if (c0 >= c1) continue;
            for (int64_t oh = oh_lo[kh]; oh < oh_hi[kh]; ++oh) {
              // Signed row base: off_w may be negative, but base + ow * col_step never is.
              int64_t row = (oh * p.stride_h + off_h) * dH + off_w * dW;
              double* orow = obase + oh * oH;
              if (unit_steps) {  // NCHW, stride 1: contiguous, so the compiler can vectorise
                const double* irow = dbase + (row + c0);
                double* o = orow + c0;
                for (int64_t t = 0, len = c1 - c0; t < len; ++t) o[t] += wv * irow[t];
              } else {
                for (int64_t ow = c0; ow < c1; ++ow)
                  orow[ow * oW] += wv * dbase[row + ow * col_step];
              }
            }
          }
        }
      }
    }
  }
  return acc;
}

/// The element offset of logical (n, c, h, w) in a tensor of layout `l` with `strides`.
int64_t DataOffset(const DataLayout2D& l, const std::vector<int64_t>& strides, int64_t n, int64_t c,
                   int64_t h, int64_t w) {
  int64_t b = l.block();
  int64_t off = n * strides[l.axes.n] + c / b * strides[l.axes.c] + h * strides[l.axes.h] +
                w * strides[l.axes.w];
  return l.blocked() ? off + c % b * strides[4] : off;
}

/// The logical NCHW values of a tensor of shape (N, C, H, W) in layout `l`.
std::vector<double> ToNCHW(const NDArray& a, const DataLayout2D& l, const ConvDims& d) {
  std::vector<double> src = nn::ToDoubles(a), out;
  std::vector<int64_t> st = RowMajorStrides(a.shape());
  out.reserve(src.size());
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t c = 0; c < d.c; ++c)
      for (int64_t h = 0; h < d.h; ++h)
        for (int64_t w = 0; w < d.w; ++w) out.push_back(src[DataOffset(l, st, n, c, h, w)]);
  return out;
}

/// The logical OIHW values of a weight in layout `l`.
std::vector<double> ToOIHW(const NDArray& a, const KernelLayout2D& l, const ConvDims& d) {
  std::vector<double> src = nn::ToDoubles(a), out;
  std::vector<int64_t> st = RowMajorStrides(a.shape());
  int64_t ib = l.blocked() ? l.i_block : 1, ob = l.blocked() ? l.o_block : 1;
  out.reserve(src.size());
  for (int64_t o = 0; o < d.o; ++o)
    for (int64_t i = 0; i < d.i; ++i)
      for (int64_t kh = 0; kh < d.kh; ++kh)
        for (int64_t kw = 0; kw < d.kw; ++kw) {
          int64_t off = o / ob * st[l.perm[0]] + i / ib * st[l.perm[1]] + kh * st[l.perm[2]] +
                        kw * st[l.perm[3]];
          if (l.blocked()) off += i % ib * st[4] + o % ob * st[5];
          out.push_back(src[off]);
        }
  return out;
}

std::vector<NDArray> Conv2DKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                  const Type& out_type) {
  Conv2DParams p = ReadParams(attrs);
  const auto* ot = out_type.as<TensorTypeNode>();
  TS_ICHECK(ot && in.size() == 2) << "nn.conv2d kernel: bad inputs";
  if (!AnyBlocked(p) && p.out_text == p.data_text)
    return {nn::FromDoubles(
        DirectConv(nn::ToDoubles(in[0]), in[0].shape(), p.data.axes, nn::ToDoubles(in[1]),
                   in[1].shape(), p.kernel.perm, ot->shape, p),
        out_type)};
  // Blocked or converting layouts: the logical NCHW / OIHW convolution, then the output
  // scattered into its layout.
  Type dt = MakeTensorType(in[0].shape(), in[0].dtype()), wt = MakeTensorType(in[1].shape());
  ConvDims d = LogicalDims(dt.as<TensorTypeNode>(), wt.as<TensorTypeNode>(), p);
  std::vector<int64_t> os = ot->shape;
  int64_t oh = os[p.out.axes.h], ow = os[p.out.axes.w];
  std::vector<double> nchw = DirectConv(ToNCHW(in[0], p.data, d), {d.n, d.c, d.h, d.w}, Layout2D{},
                                        ToOIHW(in[1], p.kernel, d), {d.o, d.i, d.kh, d.kw},
                                        {0, 1, 2, 3}, {d.n, d.o, oh, ow}, p);
  std::vector<double> out(nchw.size());
  std::vector<int64_t> st = RowMajorStrides(os);
  size_t k = 0;
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t o = 0; o < d.o; ++o)
      for (int64_t h = 0; h < oh; ++h)
        for (int64_t w = 0; w < ow; ++w) out[DataOffset(p.out, st, n, o, h, w)] = nchw[k++];
  return {nn::FromDoubles(out, out_type)};
}

}  // namespace

void RegisterNNConvOps(OpRegistry& registry) {
  OpDef def;
  def.name = "nn.conv2d";
  def.description = "2-D convolution with strides, padding, dilation and groups";
  def.inputs = {"data", "weight"};
  def.attrs = {
      {"strides", AttrType::kIntArray, AttrValue::Ints({1, 1}), "stride (h, w)"},
      {"padding", AttrType::kIntArray, AttrValue::Ints({0, 0}),
       "padding: 1, 2 or 4 ints, canonical [top, left, bottom, right]"},
      {"dilation", AttrType::kIntArray, AttrValue::Ints({1, 1}), "dilation (h, w)"},
      {"groups", AttrType::kInt, int64_t{1}, "number of channel groups"},
      {"channels", AttrType::kOptionalInt, AttrValue(), "output channels, checked when given"},
      {"kernel_size", AttrType::kOptionalIntArray, AttrValue(),
       "kernel (h, w), checked when given"},
      {"data_layout", AttrType::kString, "NCHW", "layout of data (NCHW, NHWC, NCHW16c, ...)"},
      {"kernel_layout", AttrType::kString, "OIHW",
       "layout of the weight (OIHW, HWIO, OIHW16i16o, ...)"},
      {"out_layout", AttrType::kString, "",
       "output layout; empty means data_layout (NCHW and NCHW{x}c convert into each other)"},
      {"out_dtype", AttrType::kString, "", "output dtype; empty means the data dtype"},
  };
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.type_rel = Conv2DRel;
  def.kernel = Conv2DKernel;
  def.normalize = NormalizeConv2D;
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
