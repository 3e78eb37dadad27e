// layout_transform(data, index_map, pad_value): out[map(i)] = data[i], every position of the
// result no index maps to (padding) holding pad_value.
//
// The map is an IndexMap (tessera/layout/index_map.h) kept as its canonical text
// (`lambda n, c, h, w: (n, c // 16, h, w, c % 16)`). `src_layout`/`dst_layout` (TVM layout
// strings such as NCHW, NHWC, NCHW16c, OIHW4i4o) are accepted as sugar: normalisation
// replaces them with IndexMap::FromLayouts' map, so both spellings are one call. A map that
// pads (NCHW -> NCHW16c over 14 channels) is allowed; pad_value None means the compiler may
// choose the padding, and the kernels write 0.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"
#include "tessera/layout/index_map.h"

namespace tessera::op_defs {

namespace {

using layout::IndexMap;

/// Turns the layout sugar into the canonical index_map and drops it.
void NormalizeLayoutTransform(Attrs& attrs) {
  const std::string& text = attrs.GetString("index_map");
  const std::string& src = attrs.GetString("src_layout");
  const std::string& dst = attrs.GetString("dst_layout");
  IndexMap map;
  if (!src.empty() || !dst.empty()) {
    if (!text.empty())
      TS_THROW(kValue) << "give either index_map or src_layout and dst_layout, not both";
    if (src.empty() || dst.empty())
      TS_THROW(kValue) << "src_layout and dst_layout go together (got only "
                       << (src.empty() ? "dst_layout \"" + dst : "src_layout \"" + src) << "\")";
    map = IndexMap::FromLayouts(src, dst);
  } else if (text.empty()) {
    TS_THROW(kValue) << "needs index_map (or src_layout and dst_layout)";
  } else {
    map = IndexMap::Parse(text);
  }
  // Variables are renamed i0, i1, ... so that calls with the same map are structurally
  // equal however their maps were spelled (CSE, cancellation, IR-out tests).
  map = IndexMap::Identity(map.arity()).ComposeWith(map);
  attrs.Set("index_map", map.ToString());
  attrs.Erase("src_layout");
  attrs.Erase("dst_layout");
}

/// Whether `dtype` represents `v` exactly (so a padding value survives the conversion).
bool DTypeHolds(DType dtype, double v) {
  switch (dtype) {
    case DType::kFloat64:
      return true;
    case DType::kFloat32:
      return !std::isfinite(v) || std::fabs(v) <= std::numeric_limits<float>::max();
    case DType::kFloat16:
      return !std::isfinite(v) || std::fabs(v) <= 65504.0;
    case DType::kBFloat16:
      return !std::isfinite(v) || std::fabs(v) <= 3.3895313892515355e38;
    default:
      return std::isfinite(v) && v == std::trunc(v) &&
             v >= static_cast<double>(math::IntMin(dtype)) &&
             v <= static_cast<double>(math::IntMax(dtype));
  }
}

Type LayoutTransformRel(const std::vector<Type>& args, const Attrs& attrs,
                        const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  IndexMap map = IndexMap::Parse(attrs.GetString("index_map"));
  if (map.arity() != t->ndim())
    TS_THROW(kType) << "index map `" << map.ToString() << "` takes " << map.arity()
                    << " indices but data has rank " << t->ndim() << " (shape "
                    << ShapeToString(t->shape) << ")";
  std::vector<int64_t> out;
  try {
    out = map.MapShape(t->shape);
    // NonSurjectiveInverse is what the lowering needs; its message says why it fails.
    map.NonSurjectiveInverse(t->shape);
  } catch (const Error& e) {
    TS_THROW(kType) << e.what();
  }
  const AttrValue& pad = attrs.Get("pad_value");
  if (!pad.is_none() && !map.IsBijective(t->shape) && !DTypeHolds(t->dtype, pad.AsFloat()))
    TS_THROW(kType) << "index map `" << map.ToString() << "` pads data shape "
                    << ShapeToString(t->shape) << " to " << ShapeToString(out) << " but pad_value "
                    << pad.AsFloat() << " does not fit data's dtype " << DTypeName(t->dtype);
  return MakeTensorType(out, t->dtype);
}

std::vector<NDArray> LayoutTransformKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                           const Type&) {
  const AttrValue& pad = attrs.Get("pad_value");
  IndexMap map = IndexMap::Parse(attrs.GetString("index_map"));
  return {map.Apply(in[0], pad.is_none() ? 0.0 : pad.AsFloat())};
}

}  // namespace

void RegisterLayoutTransformOp(OpRegistry& registry) {
  OpDef def;
  def.name = "layout_transform";
  def.description = "out[index_map(i)] = data[i]; positions no index maps to hold pad_value";
  def.inputs = {"data"};
  def.attrs = {
      {"index_map", AttrType::kString, "",
       "the map of indices, `lambda n, c, h, w: (n, c // 16, h, w, c % 16)`"},
      {"pad_value", AttrType::kOptionalFloat, AttrValue(),
       "the value of padding positions; None: the compiler's choice (kernels write 0)"},
      {"src_layout", AttrType::kString, "",
       "with dst_layout instead of index_map: the layout of data (e.g. NCHW)"},
      {"dst_layout", AttrType::kString, "",
       "with src_layout instead of index_map: the layout of the result (e.g. NCHW16c)"},
  };
  def.pattern = OpPatternKind::kInjective;
  def.normalize = NormalizeLayoutTransform;
  def.type_rel = LayoutTransformRel;
  def.kernel = LayoutTransformKernel;
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
