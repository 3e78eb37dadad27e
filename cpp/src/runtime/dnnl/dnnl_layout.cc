// oneDNN descs of Tessera's channel-blocked layouts (NCHW{x}c, OIHW{y}i{x}o), built from the
// blocking itself so that every block size has one, whether or not oneDNN names it with a tag.
#include "dnnl_layout.h"

#include <cctype>

#include "tessera/support/error.h"

namespace tessera::runtime::dnnl_impl {

namespace {

using dnnl::memory;
using tag = memory::format_tag;

/// Reads decimal digits at `*pos` (at least one, value >= 1) into `*value`.
bool ReadNumber(const std::string& s, size_t* pos, int64_t* value) {
  size_t start = *pos;
  int64_t v = 0;
  while (*pos < s.size() && std::isdigit(static_cast<unsigned char>(s[*pos])) && *pos - start < 9)
    v = v * 10 + (s[(*pos)++] - '0');
  *value = v;
  return *pos > start && v >= 1;
}

}  // namespace

int64_t DataBlock(const std::string& layout) {
  if (layout.empty() || layout == "NCHW") return 0;
  size_t pos = 4;
  int64_t x = 0;
  if (layout.compare(0, 4, "NCHW") != 0 || !ReadNumber(layout, &pos, &x) ||
      pos + 1 != layout.size() || layout[pos] != 'c')
    return -1;
  return x;
}

KernelBlocks ParseKernelBlocks(const std::string& layout) {
  KernelBlocks kb;
  if (layout.empty() || layout == "OIHW") return kb;
  size_t pos = 4;
  if (layout.compare(0, 4, "OIHW") != 0 || !ReadNumber(layout, &pos, &kb.i) ||
      pos >= layout.size() || layout[pos++] != 'i' || !ReadNumber(layout, &pos, &kb.o) ||
      pos + 1 != layout.size() || layout[pos] != 'o')
    return {0, 0, false};
  return kb;
}

memory::desc BlockedDesc(const memory::dims& dims,
                         const std::vector<std::pair<int, int64_t>>& inner) {
  int nd = static_cast<int>(dims.size());
  if (nd < 1 || nd > DNNL_MAX_NDIMS)
    TS_THROW(kValue) << "backend 'dnnl': a tensor of rank " << nd << " has no oneDNN desc";
  dnnl_memory_desc_t md{};
  md.ndims = nd;
  md.data_type = dnnl_f32;
  md.format_kind = dnnl_blocked;
  dnnl_blocking_desc_t& blk = md.format_desc.blocking;
  std::vector<int64_t> outer(dims.begin(), dims.end());
  int64_t inner_size = 1;
  for (auto [dim, block] : inner) {
    if (block == 1) continue;  // a block of one is no block (nChw1c is nchw)
    if (dim < 0 || dim >= nd || block < 1 || dims[dim] % block != 0 ||
        blk.inner_nblks >= DNNL_MAX_NDIMS)
      TS_THROW(kValue) << "backend 'dnnl': a block of " << block << " does not divide dim " << dim;
    blk.inner_blks[blk.inner_nblks] = block;
    blk.inner_idxs[blk.inner_nblks] = dim;
    ++blk.inner_nblks;
    outer[dim] /= block;
    inner_size *= block;
  }
  int64_t stride = inner_size;
  for (int d = nd - 1; d >= 0; --d) {
    md.dims[d] = dims[d];
    md.padded_dims[d] = dims[d];
    blk.strides[d] = stride;
    stride *= outer[d];
  }
  return memory::desc(md);
}

memory::dims LogicalNCHW(const std::vector<int64_t>& shape) {
  if (shape.size() == 5) return {shape[0], shape[1] * shape[4], shape[2], shape[3]};
  return memory::dims(shape.begin(), shape.end());
}

memory::desc DataDesc(const std::vector<int64_t>& shape) {
  if (shape.size() == 5) return BlockedDesc(LogicalNCHW(shape), {{1, shape[4]}});
  return BlockedDesc(memory::dims(shape.begin(), shape.end()), {});
}

memory::desc WeightsDesc(const std::vector<int64_t>& shape, KernelBlocks kb, int64_t groups) {
  if (!kb.blocked()) {
    memory::dims d(shape.begin(), shape.end());
    if (groups == 1) return BlockedDesc(d, {});
    // OIHW is goihw in memory: the same bytes as grouped dims.
    return BlockedDesc({groups, d[0] / groups, d[1], d[2], d[3]}, {});
  }
  // (O/x, I/y, KH, KW, y, x): logical O = O/x * x, I = I/y * y.
  int64_t o = shape[0] * kb.o, i = shape[1] * kb.i;
  if (groups == 1) return BlockedDesc({o, i, shape[2], shape[3]}, {{1, kb.i}, {0, kb.o}});
  if (groups == o && i == 1)  // depthwise: output channel = group, blocked by x
    return BlockedDesc({groups, 1, 1, shape[2], shape[3]}, {{0, kb.o}});
  TS_THROW(kValue) << "backend 'dnnl': blocked conv2d weights with " << groups
                   << " groups must be depthwise";
}

std::string TagName(const memory::desc& desc) {
  static const std::pair<tag, const char*> kTags[] = {
      {tag::nchw, "nchw"},         {tag::nhwc, "nhwc"},
      {tag::nChw4c, "nChw4c"},     {tag::nChw8c, "nChw8c"},
      {tag::nChw16c, "nChw16c"},   {tag::OIhw4i4o, "OIhw4i4o"},
      {tag::OIhw8i8o, "OIhw8i8o"}, {tag::OIhw16i16o, "OIhw16i16o"},
      {tag::Oihw16o, "Oihw16o"},   {tag::Ohwi16o, "Ohwi16o"},
      {tag::goihw, "goihw"},       {tag::Goihw8g, "Goihw8g"},
      {tag::Goihw16g, "Goihw16g"}, {tag::gOIhw16i16o, "gOIhw16i16o"},
      {tag::abcde, "abcde"},       {tag::abcdef, "abcdef"},
  };
  memory::dims dims = desc.dims();
  for (auto [t, name] : kTags) {
    try {
      if (memory::desc(dims, memory::data_type::f32, t) == desc) return name;
    } catch (const dnnl::error&) {
      // The tag has another rank: not this one.
    }
  }
  return "";
}

}  // namespace tessera::runtime::dnnl_impl
