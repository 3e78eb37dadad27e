// IndexMap::Apply: moves a tensor's elements to their mapped positions (weight folding),
// with per-variable offset tables instead of evaluating expressions per element.
#include <cstring>

#include "index_map_util.h"
#include "tessera/support/error.h"

namespace tessera::layout {
namespace {

/// Copies every element of `in` (shape `shape`) to `out` at offset
/// `base + sum_v table[v][index_v]`, elements of `Bytes` bytes.
template <size_t Bytes>
void Scatter(const uint8_t* in, uint8_t* out, const std::vector<int64_t>& shape,
             const std::vector<std::vector<int64_t>>& table, int64_t base) {
  size_t n = shape.size();
  if (n == 0) {
    std::memcpy(out + base * Bytes, in, Bytes);
    return;
  }
  // An odometer over all but the innermost axis; `outer` is the offset of the current row.
  std::vector<int64_t> idx(n, 0);
  int64_t outer = base;
  for (size_t d = 0; d + 1 < n; ++d) outer += table[d][0];
  const int64_t inner = shape[n - 1];
  const int64_t* last = table[n - 1].data();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < n; ++d) rows *= shape[d];
  for (int64_t row = 0; row < rows; ++row) {
    const uint8_t* src = in + row * inner * static_cast<int64_t>(Bytes);
    for (int64_t x = 0; x < inner; ++x)
      std::memcpy(out + (outer + last[x]) * static_cast<int64_t>(Bytes), src + x * Bytes, Bytes);
    for (size_t d = n - 1; d-- > 0;) {
      outer -= table[d][static_cast<size_t>(idx[d])];
      if (++idx[d] < shape[d]) {
        outer += table[d][static_cast<size_t>(idx[d])];
        break;
      }
      idx[d] = 0;
      outer += table[d][0];
    }
  }
}

/// Fills `count` elements of `Bytes` bytes with the element at `value`.
template <size_t Bytes>
void Fill(uint8_t* out, int64_t count, const void* value) {
  for (int64_t k = 0; k < count; ++k)
    std::memcpy(out + k * static_cast<int64_t>(Bytes), value, Bytes);
}

}  // namespace

NDArray IndexMap::Apply(const NDArray& x, double pad_value) const {
  if (!x.defined()) TS_THROW(kValue) << "Apply: index map `" << ToString() << "` got no array";
  if (x.ndim() != arity())
    TS_THROW(kType) << "Apply: index map `" << ToString() << "` takes " << arity()
                    << " indices but the array is " << x.Describe();
  const std::vector<int64_t>& shape = x.shape();
  detail::CheckShape(*this, shape, "Apply");
  std::vector<int64_t> out_shape = MapShape(shape);
  InverseResult inverse = NonSurjectiveInverse(shape);  // throws unless injective
  auto* no_pad = inverse.padding_predicate.as<tir::IntImmNode>();
  bool pads = !(no_pad && no_pad->value == 0);

  NDArray out = NDArray::Empty(out_shape, x.dtype());
  const size_t bytes = static_cast<size_t>(DTypeBytes(x.dtype()));
  auto* dst = static_cast<uint8_t*>(out.data());
  if (pads) {
    NDArray pad = NDArray::Scalar(pad_value, x.dtype());
    int64_t count = out.NumElements();
    switch (bytes) {
      case 1:
        Fill<1>(dst, count, pad.data());
        break;
      case 2:
        Fill<2>(dst, count, pad.data());
        break;
      case 4:
        Fill<4>(dst, count, pad.data());
        break;
      case 8:
        Fill<8>(dst, count, pad.data());
        break;
      default:
        TS_THROW(kInternal) << "Apply: unexpected element size " << bytes;
    }
  }
  // The flat output offset is separable: a constant plus one table per input variable.
  std::vector<int64_t> strides(out_shape.size(), 1);
  for (size_t j = out_shape.size(); j-- > 1;) strides[j - 1] = strides[j] * out_shape[j];
  std::vector<detail::IterSum> sums = detail::SumsOf(*this, nullptr);
  std::vector<std::vector<int64_t>> table(shape.size());
  for (size_t v = 0; v < shape.size(); ++v) table[v].assign(static_cast<size_t>(shape[v]), 0);
  int64_t base = 0;
  for (size_t j = 0; j < sums.size(); ++j) {
    base += strides[j] * sums[j].base;
    for (const detail::Term& t : sums[j].terms) {
      std::vector<int64_t>& col = table[static_cast<size_t>(t.split.var)];
      int64_t w = strides[j] * t.scale;
      for (size_t i = 0; i < col.size(); ++i)
        col[i] += w * detail::SplitValue(t.split, static_cast<int64_t>(i));
    }
  }
  const auto* src = static_cast<const uint8_t*>(x.data());
  switch (bytes) {
    case 1:
      Scatter<1>(src, dst, shape, table, base);
      break;
    case 2:
      Scatter<2>(src, dst, shape, table, base);
      break;
    case 4:
      Scatter<4>(src, dst, shape, table, base);
      break;
    case 8:
      Scatter<8>(src, dst, shape, table, base);
      break;
    default:
      TS_THROW(kInternal) << "Apply: unexpected element size " << bytes;
  }
  return out;
}

}  // namespace tessera::layout
