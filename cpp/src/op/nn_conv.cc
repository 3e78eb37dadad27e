// nn.conv2d: attribute canonicalisation, shape inference and a direct reference kernel.
#include <vector>

#include "nn_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

using nn::Layout2D;

/// Everything the relation and the kernel need, read from normalised attributes.
struct Conv2DParams {
  Layout2D data;            // axis positions of N, C, H, W in the data (and output)
  std::vector<int> kernel;  // axis positions of O, I, H, W in the weight
  int64_t stride_h, stride_w, dil_h, dil_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int64_t groups;
};

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
  nn::ParseDataLayout(attrs.GetString("data_layout"), "data_layout");
  nn::ParseLayoutPermutation(attrs.GetString("kernel_layout"), "OIHW", "kernel_layout");
  nn::CheckOutLayout(attrs, "data_layout");
  nn::CheckOutDTypeAttr(attrs);
}

Conv2DParams ReadParams(const Attrs& given) {
  Attrs attrs = given;  // re-normalise: attributes may not have come through MakeOpCall
  NormalizeConv2D(attrs);
  Conv2DParams p;
  p.data = nn::ParseDataLayout(attrs.GetString("data_layout"), "data_layout");
  p.kernel = nn::ParseLayoutPermutation(attrs.GetString("kernel_layout"), "OIHW", "kernel_layout");
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

/// Output extent of one spatial axis; throws when the dilated kernel does not fit.
int64_t ConvOutDim(int64_t in, int64_t pad_sum, int64_t k, int64_t dil, int64_t stride,
                   const char* axis) {
  int64_t dilated = dil * (k - 1) + 1;
  if (in + pad_sum < dilated)
    TS_THROW(kType) << "input " << axis << " " << in << " plus padding " << pad_sum
                    << " is smaller than the dilated kernel " << axis << " " << dilated;
  return (in + pad_sum - dilated) / stride + 1;
}

Type Conv2DRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* data = ExpectTensor(args, 0);
  const auto* weight = ExpectTensor(args, 1);
  Conv2DParams p = ReadParams(attrs);
  nn::ExpectRank(data, 4, "data", attrs.GetString("data_layout"));
  nn::ExpectRank(weight, 4, "weight", attrs.GetString("kernel_layout"));
  nn::ExpectSameDType(data, "data", weight, "weight");
  const auto& ds = data->shape;
  const auto& ws = weight->shape;
  int64_t c = ds[p.data.c], h = ds[p.data.h], w = ds[p.data.w];
  int64_t o = ws[p.kernel[0]], i = ws[p.kernel[1]], kh = ws[p.kernel[2]], kw = ws[p.kernel[3]];
  if (kh < 1 || kw < 1)
    TS_THROW(kType) << "weight shape " << ShapeToString(ws) << " has an empty kernel";
  if (c != i * p.groups)
    TS_THROW(kType) << "data channels " << c << " (data shape " << ShapeToString(ds)
                    << ") must equal weight in-channels " << i << " x groups " << p.groups
                    << " (weight shape " << ShapeToString(ws) << ")";
  if (o % p.groups != 0)
    TS_THROW(kType) << "weight out-channels " << o << " (weight shape " << ShapeToString(ws)
                    << ") is not divisible by groups " << p.groups;
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
  std::vector<int64_t> out = ds;
  out[p.data.c] = o;
  out[p.data.h] = ConvOutDim(h, p.pad_top + p.pad_bottom, kh, p.dil_h, p.stride_h, "height");
  out[p.data.w] = ConvOutDim(w, p.pad_left + p.pad_right, kw, p.dil_w, p.stride_w, "width");
  return MakeTensorType(out, nn::ResolveOutDType(attrs, data->dtype));
}

/// Direct convolution. For each (weight tap, output row) the valid output columns are
/// computed once, so the innermost loop runs without bounds checks.
std::vector<NDArray> Conv2DKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                  const Type& out_type) {
  Conv2DParams p = ReadParams(attrs);
  const auto* ot = out_type.as<TensorTypeNode>();
  TS_ICHECK(ot && in.size() == 2) << "nn.conv2d kernel: bad inputs";
  const auto& ds = in[0].shape();
  const auto& ws = in[1].shape();
  std::vector<int64_t> dst = RowMajorStrides(ds), wst = RowMajorStrides(ws);
  std::vector<int64_t> ost = RowMajorStrides(ot->shape);
  const Layout2D& L = p.data;
  int64_t n_batch = ds[L.n], height = ds[L.h], width = ds[L.w];
  int64_t out_c = ws[p.kernel[0]], icpg = ws[p.kernel[1]];
  int64_t kh_n = ws[p.kernel[2]], kw_n = ws[p.kernel[3]];
  int64_t out_h = ot->shape[L.h], out_w = ot->shape[L.w];
  int64_t ocpg = out_c / p.groups;
  int64_t dN = dst[L.n], dC = dst[L.c], dH = dst[L.h], dW = dst[L.w];
  int64_t wO = wst[p.kernel[0]], wI = wst[p.kernel[1]], wH = wst[p.kernel[2]],
          wW = wst[p.kernel[3]];
  int64_t oN = ost[L.n], oC = ost[L.c], oH = ost[L.h], oW = ost[L.w];

  // Valid output ranges per kernel tap, independent of batch and channel.
  std::vector<int64_t> oh_lo(kh_n), oh_hi(kh_n), ow_lo(kw_n), ow_hi(kw_n);
  for (int64_t kh = 0; kh < kh_n; ++kh)
    nn::ValidOutputRange(kh * p.dil_h - p.pad_top, p.stride_h, height, out_h, &oh_lo[kh],
                         &oh_hi[kh]);
  for (int64_t kw = 0; kw < kw_n; ++kw)
    nn::ValidOutputRange(kw * p.dil_w - p.pad_left, p.stride_w, width, out_w, &ow_lo[kw],
                         &ow_hi[kw]);

  std::vector<double> data = nn::ToDoubles(in[0]);
  std::vector<double> weight = nn::ToDoubles(in[1]);
  std::vector<double> acc(static_cast<size_t>(ShapeNumElements(ot->shape)), 0.0);
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
    return {nn::FromDoubles(acc, out_type)};
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
  return {nn::FromDoubles(acc, out_type)};
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
      {"data_layout", AttrType::kString, "NCHW", "layout of data and output"},
      {"kernel_layout", AttrType::kString, "OIHW", "layout of the weight"},
      {"out_layout", AttrType::kString, "", "output layout; empty means data_layout"},
      {"out_dtype", AttrType::kString, "", "output dtype; empty means the data dtype"},
  };
  def.pattern = OpPatternKind::kOutEWiseFusable;
  def.type_rel = Conv2DRel;
  def.kernel = Conv2DKernel;
  def.normalize = NormalizeConv2D;
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
