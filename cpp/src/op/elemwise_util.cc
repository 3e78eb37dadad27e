// Helpers shared by the elementwise, reduction and transform op files.
#include "elemwise_util.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "op_util.h"
#include "tessera/support/error.h"

namespace tessera::op_defs::math {

NDArray EmptyOf(const Type& type) {
  const auto* t = type.as<TensorTypeNode>();
  TS_ICHECK(t) << "kernel output type must be a tensor, got " << TypeToString(type);
  return NDArray::Empty(t->shape, t->dtype);
}

int64_t IntMin(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return std::numeric_limits<int8_t>::min();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::min();
    default:
      return 0;  // uint8, bool
  }
}

int64_t IntMax(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return std::numeric_limits<int8_t>::max();
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kInt64:
      return std::numeric_limits<int64_t>::max();
    case DType::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    default:
      return 1;  // bool
  }
}

void StoreDouble(const NDArray& a, int64_t i, double v) {
  DType dt = a.dtype();
  if (IsFloat(dt)) return a.SetFloat(i, v);
  if (dt == DType::kBool) return a.SetInt(i, v != 0.0);
  if (std::isnan(v)) return a.SetInt(i, 0);
  // Compare in double before converting: converting an out-of-range double is undefined.
  double lo = static_cast<double>(IntMin(dt)), hi = static_cast<double>(IntMax(dt));
  if (v <= lo) return a.SetInt(i, IntMin(dt));
  if (v >= hi) return a.SetInt(i, IntMax(dt));
  a.SetInt(i, static_cast<int64_t>(v));
}

void StridedGather(const NDArray& src, int64_t base, const std::vector<int64_t>& strides,
                   const NDArray& out) {
  const std::vector<int64_t>& shape = out.shape();
  TS_ICHECK(strides.size() == shape.size()) << "stride count " << strides.size();
  TS_ICHECK(src.dtype() == out.dtype()) << "gather between dtypes";
  int64_t n = out.NumElements();
  if (n == 0) return;
  const size_t bytes = static_cast<size_t>(DTypeBytes(out.dtype()));
  const auto* from = static_cast<const uint8_t*>(src.data());
  auto* to = static_cast<uint8_t*>(out.data());
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> idx(rank, 0);
  int64_t offset = base;
  for (int64_t flat = 0; flat < n; ++flat) {
    std::memcpy(to + flat * bytes, from + offset * bytes, bytes);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& shape, int out_rank) {
  std::vector<int64_t> st = RowMajorStrides(shape), out(out_rank, 0);
  int off = out_rank - static_cast<int>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) out[off + i] = shape[i] == 1 ? 0 : st[i];
  return out;
}

std::vector<int> NormalizeAxes(const std::vector<int64_t>& axes, int rank, const char* what) {
  std::vector<int> out;
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    int n = NormalizeAxis(a, rank, what);
    if (seen[n]) TS_THROW(kValue) << what << " " << a << " is repeated in " << ShapeToString(axes);
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

Type SameTypeRel(const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  return MakeTensorType(t->shape, t->dtype);
}

void ExpectFloat(const TensorTypeNode* t, const char* what) {
  if (!IsFloat(t->dtype))
    TS_THROW(kType) << what << " must be a floating-point tensor, got " << DTypeName(t->dtype);
}

void CheckDTypeAttr(const Attrs& attrs, const char* key, bool allow_empty) {
  const std::string& name = attrs.GetString(key);
  if (allow_empty && name.empty()) return;
  ParseDTypeOrThrow(name, std::string("attribute '") + key + "'");
}

void CheckShapeAttr(const Attrs& attrs, const char* key) {
  std::vector<int64_t> shape = attrs.GetInts(key);
  for (int64_t d : shape)
    if (d < 0)
      TS_THROW(kValue) << "attribute '" << key << "' " << ShapeToString(shape)
                       << " has a negative dimension";
}

}  // namespace tessera::op_defs::math
