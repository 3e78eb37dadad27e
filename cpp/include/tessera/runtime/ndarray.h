// NDArray: a dense row-major tensor in 64-byte aligned memory, owned or borrowed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/dtype.h"

/// DLPack's managed tensor (<dlpack/dlpack.h>); declared here so that including
/// ndarray.h does not pull in the DLPack header.
struct DLManagedTensor;

namespace tessera {

/// A dense, row-major tensor. Copying an NDArray copies the handle, not the data:
/// copies share memory. Memory Tessera allocates is 64-byte aligned.
class NDArray {
 public:
  NDArray() = default;

  /// Uninitialised tensor of the given shape and dtype.
  static NDArray Empty(const std::vector<int64_t>& shape, DType dtype);
  /// Zero-filled tensor.
  static NDArray Zeros(const std::vector<int64_t>& shape, DType dtype);
  /// A tensor over caller memory; `keep_alive` (optional) is held as long as any copy lives.
  static NDArray FromBorrowed(void* data, const std::vector<int64_t>& shape, DType dtype,
                              std::shared_ptr<void> keep_alive = nullptr);
  /// A float32 tensor holding `values` (size must match the shape).
  static NDArray FromFloats(const std::vector<int64_t>& shape, const std::vector<float>& values);
  /// A scalar (rank-0) tensor holding `value` converted to `dtype`.
  static NDArray Scalar(double value, DType dtype);
  /// Zero-copy import of a DLPack tensor: on success the NDArray owns `tensor` and calls
  /// its deleter once, when the last copy (or view) is gone. Only CPU tensors that are
  /// compact row-major (strides NULL or matching) with a Tessera dtype and lanes == 1
  /// are accepted; otherwise a tessera::Error names the problem and `tensor` is left
  /// untouched (still owned by the caller). Bool is DLPack code 6 (kDLBool, DLPack 0.8).
  static NDArray FromDLPack(DLManagedTensor* tensor);
  /// Zero-copy export as a DLPack tensor (CPU, compact strides, byte_offset 0). The
  /// memory stays alive until the consumer calls the returned tensor's deleter.
  DLManagedTensor* ToDLPack() const;

  bool defined() const { return data_ != nullptr || holder_ != nullptr; }
  void* data() const { return data_; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data_);
  }
  const std::vector<int64_t>& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  DType dtype() const { return dtype_; }
  /// Product of the dimensions (1 for a scalar).
  int64_t NumElements() const;
  /// NumElements() times the element size.
  size_t NumBytes() const;

  /// Deep copy into new aligned memory.
  NDArray Copy() const;
  /// A view with another shape of the same element count, sharing memory.
  NDArray Reshaped(const std::vector<int64_t>& shape) const;
  /// Element `flat` (row-major index) converted to double.
  double GetFloat(int64_t flat) const;
  /// Element `flat` converted to int64 (exact for integer dtypes).
  int64_t GetInt(int64_t flat) const;
  /// Stores `value` converted to this array's dtype (round to nearest for floats).
  void SetFloat(int64_t flat, double value) const;
  /// Stores an integer value converted to this array's dtype.
  void SetInt(int64_t flat, int64_t value) const;
  /// Same dtype, shape and bytes.
  bool BitwiseEqual(const NDArray& other) const;
  /// "float32[1, 3, 224, 224]".
  std::string Describe() const;

 private:
  std::shared_ptr<void> holder_;
  void* data_ = nullptr;
  std::vector<int64_t> shape_;
  DType dtype_ = DType::kFloat32;
};

/// Product of `shape`'s dimensions; a value error for a negative dimension or int64 overflow.
int64_t ShapeNumElements(const std::vector<int64_t>& shape);
/// Bytes of a `shape` tensor of `dtype`; a value error when the element count or the byte
/// size exceeds int64 (so every size computed from a checked type fits).
int64_t ShapeNumBytes(const std::vector<int64_t>& shape, DType dtype);
/// "[1, 3, 224, 224]".
std::string ShapeToString(const std::vector<int64_t>& shape);
/// float <-> float16 / bfloat16 bit conversions (round to nearest even).
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
float BFloat16ToFloat(uint16_t bits);

}  // namespace tessera
