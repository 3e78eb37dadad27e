// Internal: Tessera's channel-blocked tensors (NCHW{x}c data, OIHW{y}i{x}o weights) described
// to oneDNN as its logical NCHW / OIHW with inner blocks (nChw16c, OIhw16i16o, Goihw16g, ...),
// so a partition reads and writes them where they are, without a reorder.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera::runtime::dnnl_impl {

/// The channel block of a data layout attribute: 0 for NCHW (or empty: the default), x for
/// NCHW{x}c; -1 for any other layout (NHWC, ...), which the module does not run.
int64_t DataBlock(const std::string& layout);

/// The blocks of a conv2d kernel layout: i = o = 0 for OIHW, {y, x} for OIHW{y}i{x}o.
struct KernelBlocks {
  int64_t i = 0, o = 0;
  bool ok = true;  ///< false for any other layout (HWIO, ...)
  bool blocked() const { return o > 0; }
};
/// Parses "OIHW" / "" / "OIHW{y}i{x}o".
KernelBlocks ParseKernelBlocks(const std::string& layout);

/// A dense desc of logical `dims` whose outer dims are laid out in their order, followed by
/// the inner blocks `inner` ({dim, block}, outermost first); blocks of 1 are dropped, so a
/// desc with no block left is plain row-major (abcd). Every blocked dim must divide.
dnnl::memory::desc BlockedDesc(const dnnl::memory::dims& dims,
                               const std::vector<std::pair<int, int64_t>>& inner);

/// The logical (N, C, H, W) of a data tensor: its shape when 4-D, (N, C/x * x, H, W) for a
/// 5-D NCHW{x}c shape (N, C/x, H, W, x).
dnnl::memory::dims LogicalNCHW(const std::vector<int64_t>& shape);
/// The bytes of a data tensor as oneDNN sees them: plain nchw when 4-D, nChw{x}c when 5-D.
dnnl::memory::desc DataDesc(const std::vector<int64_t>& shape);

/// The bytes of conv2d weights of `shape` in kernel layout `kb` with `groups`, as oneDNN's
/// weights (grouped weights as (G, O/G, I/G, KH, KW)): OIHW{y}i{x}o is OIhw{y}i{x}o (inner
/// blocks y of I then x of O), depthwise OIHW1i{x}o is Goihw{x}g. Plain OIHW when not
/// blocked. Throws a value error for a blocked grouped layout that is not depthwise.
dnnl::memory::desc WeightsDesc(const std::vector<int64_t>& shape, KernelBlocks kb, int64_t groups);

/// The name of the oneDNN format tag `desc` equals ("nChw16c", "OIhw16i16o", ...), or "" when
/// it equals none of the tags this module produces (for logs and tests).
std::string TagName(const dnnl::memory::desc& desc);

}  // namespace tessera::runtime::dnnl_impl
