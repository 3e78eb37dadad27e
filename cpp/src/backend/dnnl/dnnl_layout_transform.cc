// The layout_transforms oneDNN partitions take (NCHW <-> NCHW{x}c), recognised by comparing
// index maps, so that a planned graph's transforms between oneDNN ops stay inside one partition.
#include "dnnl_layout_transform.h"

#include "tessera/layout/index_map.h"
#include "tessera/pattern/library_patterns.h"
#include "tessera/support/error.h"

namespace tessera::dnnl_backend {

namespace {

/// "NCHW" for a 4-D shape, "NCHW{x}c" for a 5-D one with x lanes, "" otherwise.
std::string LayoutOf(const std::vector<int64_t>& shape) {
  if (shape.size() == 4) return "NCHW";
  if (shape.size() == 5 && shape[4] >= 1) return "NCHW" + std::to_string(shape[4]) + "c";
  return "";
}

/// The logical channels of a 4-D or 5-D (blocked) shape.
int64_t Channels(const std::vector<int64_t>& shape) {
  return shape.size() == 5 ? shape[1] * shape[4] : shape[1];
}

}  // namespace

bool DataLayoutConversion(const std::string& index_map, const std::vector<int64_t>& in,
                          const std::vector<int64_t>& out, std::string* src_layout,
                          std::string* dst_layout) {
  std::string src = LayoutOf(in), dst = LayoutOf(out);
  // Equal logical channels: no padding lanes (which oneDNN would not write as pad_value).
  if (src.empty() || dst.empty() || Channels(in) != Channels(out)) return false;
  try {
    layout::IndexMap want = layout::IndexMap::FromLayouts(src, dst);
    if (!want.EqualOn(layout::IndexMap::Parse(index_map), in) || want.MapShape(in) != out)
      return false;
  } catch (const Error&) {
    return false;
  }
  *src_layout = src;
  *dst_layout = dst;
  return true;
}

bool LayoutTransformSupported(const CallNode& call) {
  if (!AllFloat32(call) || call.args.size() != 1) return false;
  const AttrValue* map = call.attrs.Find("index_map");
  const TensorTypeNode* in = Float32Tensor(call.args[0]);
  const auto* out = call.checked_type_or_null().as<TensorTypeNode>();
  std::string src, dst;
  return map && map->is_string() && in && out &&
         DataLayoutConversion(map->AsString(), in->shape, out->shape, &src, &dst);
}

}  // namespace tessera::dnnl_backend
