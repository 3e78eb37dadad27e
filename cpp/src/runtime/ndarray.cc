// NDArray allocation, element access and half-precision conversions.
#include "tessera/runtime/ndarray.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "tessera/support/error.h"

namespace tessera {

int64_t ShapeNumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      TS_THROW(kValue) << "shape " << ShapeToString(shape)
                       << (d < 0 ? " has a negative dimension" : " has too many elements");
  return n;
}

int64_t ShapeNumBytes(const std::vector<int64_t>& shape, DType dtype) {
  int64_t bytes = 0;
  if (__builtin_mul_overflow(ShapeNumElements(shape), int64_t{DTypeBytes(dtype)}, &bytes))
    TS_THROW(kValue) << "shape " << ShapeToString(shape) << " of " << DTypeName(dtype)
                     << " takes more than 2^63 bytes";
  return bytes;
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DType dtype) {
  // The byte count must fit in memory arithmetic: a shape whose size overflows would
  // otherwise wrap to a small allocation that later writes run past.
  constexpr uint64_t kMaxBytes = uint64_t{1} << 62;
  uint64_t bytes_needed = static_cast<uint64_t>(DTypeBytes(dtype));
  for (int64_t d : shape) {
    if (d < 0) TS_THROW(kValue) << "cannot allocate a tensor of shape " << ShapeToString(shape);
    if (d != 0 && bytes_needed > kMaxBytes / static_cast<uint64_t>(d))
      TS_THROW(kValue) << "cannot allocate a tensor of shape " << ShapeToString(shape) << " and "
                       << DTypeName(dtype) << ": its size overflows";
    bytes_needed *= static_cast<uint64_t>(d);
  }
  NDArray arr;
  arr.shape_ = shape;
  arr.dtype_ = dtype;
  size_t bytes = arr.NumBytes();
  // Round up to the alignment so aligned_alloc's contract holds; never zero bytes.
  size_t alloc = ((bytes + 63) / 64) * 64;
  if (alloc == 0) alloc = 64;
  void* ptr = std::aligned_alloc(64, alloc);
  if (!ptr) TS_THROW(kValue) << "out of memory allocating " << bytes << " bytes";
  arr.holder_ = std::shared_ptr<void>(ptr, [](void* p) { std::free(p); });
  arr.data_ = ptr;
  return arr;
}

NDArray NDArray::Zeros(const std::vector<int64_t>& shape, DType dtype) {
  NDArray arr = Empty(shape, dtype);
  std::memset(arr.data_, 0, arr.NumBytes());
  return arr;
}

NDArray NDArray::FromBorrowed(void* data, const std::vector<int64_t>& shape, DType dtype,
                              std::shared_ptr<void> keep_alive) {
  NDArray arr;
  arr.shape_ = shape;
  arr.dtype_ = dtype;
  arr.data_ = data;
  arr.holder_ = keep_alive ? std::move(keep_alive) : std::shared_ptr<void>(data, [](void*) {});
  return arr;
}

NDArray NDArray::FromFloats(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  if (static_cast<int64_t>(values.size()) != ShapeNumElements(shape))
    TS_THROW(kValue) << "FromFloats: " << values.size() << " values for shape "
                     << ShapeToString(shape);
  NDArray arr = Empty(shape, DType::kFloat32);
  std::memcpy(arr.data_, values.data(), values.size() * sizeof(float));
  return arr;
}

NDArray NDArray::Scalar(double value, DType dtype) {
  NDArray arr = Empty({}, dtype);
  if (IsFloat(dtype))
    arr.SetFloat(0, value);
  else
    arr.SetInt(0, static_cast<int64_t>(value));
  return arr;
}

int64_t NDArray::NumElements() const {
  return ShapeNumElements(shape_);
}

size_t NDArray::NumBytes() const {
  return static_cast<size_t>(NumElements()) * static_cast<size_t>(DTypeBytes(dtype_));
}

NDArray NDArray::Copy() const {
  NDArray out = Empty(shape_, dtype_);
  if (NumBytes()) std::memcpy(out.data_, data_, NumBytes());
  return out;
}

NDArray NDArray::Reshaped(const std::vector<int64_t>& shape) const {
  if (ShapeNumElements(shape) != NumElements())
    TS_THROW(kValue) << "cannot reshape " << Describe() << " to " << ShapeToString(shape);
  NDArray out = *this;
  out.shape_ = shape;
  return out;
}

double NDArray::GetFloat(int64_t i) const {
  switch (dtype_) {
    case DType::kFloat32:
      return static_cast<const float*>(data_)[i];
    case DType::kFloat64:
      return static_cast<const double*>(data_)[i];
    case DType::kFloat16:
      return HalfToFloat(static_cast<const uint16_t*>(data_)[i]);
    case DType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(data_)[i]);
    default:
      return static_cast<double>(GetInt(i));
  }
}

int64_t NDArray::GetInt(int64_t i) const {
  switch (dtype_) {
    case DType::kInt8:
      return static_cast<const int8_t*>(data_)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(data_)[i];
    case DType::kInt64:
      return static_cast<const int64_t*>(data_)[i];
    case DType::kUInt8:
      return static_cast<const uint8_t*>(data_)[i];
    case DType::kBool:
      return static_cast<const uint8_t*>(data_)[i] != 0;
    default:
      return static_cast<int64_t>(GetFloat(i));
  }
}

void NDArray::SetFloat(int64_t i, double v) const {
  switch (dtype_) {
    case DType::kFloat32:
      static_cast<float*>(data_)[i] = static_cast<float>(v);
      return;
    case DType::kFloat64:
      static_cast<double*>(data_)[i] = v;
      return;
    case DType::kFloat16:
      static_cast<uint16_t*>(data_)[i] = FloatToHalf(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<uint16_t*>(data_)[i] = FloatToBFloat16(static_cast<float>(v));
      return;
    case DType::kBool:
      static_cast<uint8_t*>(data_)[i] = v != 0.0;
      return;
    default:
      // Float to integer conversion truncates toward zero, as C and NumPy's astype do.
      SetInt(i, std::isfinite(v) ? static_cast<int64_t>(v) : 0);
      return;
  }
}

void NDArray::SetInt(int64_t i, int64_t v) const {
  switch (dtype_) {
    case DType::kInt8:
      static_cast<int8_t*>(data_)[i] = static_cast<int8_t>(v);
      return;
    case DType::kInt32:
      static_cast<int32_t*>(data_)[i] = static_cast<int32_t>(v);
      return;
    case DType::kInt64:
      static_cast<int64_t*>(data_)[i] = v;
      return;
    case DType::kUInt8:
      static_cast<uint8_t*>(data_)[i] = static_cast<uint8_t>(v);
      return;
    case DType::kBool:
      static_cast<uint8_t*>(data_)[i] = v != 0;
      return;
    default:
      SetFloat(i, static_cast<double>(v));
      return;
  }
}

bool NDArray::BitwiseEqual(const NDArray& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  return NumBytes() == 0 || std::memcmp(data_, other.data_, NumBytes()) == 0;
}

std::string NDArray::Describe() const {
  return std::string(DTypeName(dtype_)) + ShapeToString(shape_);
}

uint16_t FloatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t mant = x & 0x7fffff;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      float f = std::ldexp(static_cast<float>(mant), -24);
      return sign ? -f : f;
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000 | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t FloatToBFloat16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

float BFloat16ToFloat(uint16_t bits) {
  uint32_t x = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

}  // namespace tessera
