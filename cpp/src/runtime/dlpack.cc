// DLPack exchange of NDArrays: zero-copy export with a deleter that keeps the memory
// alive, and zero-copy import that takes ownership of a DLManagedTensor.
#include <dlpack/dlpack.h>

#include <string>
#include <vector>

#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

/// DLPack's boolean type code (kDLBool, DLPack >= 0.8); the 0.6 header predates it.
constexpr uint8_t kDLBoolCode = 6;

DLDataType ToDLDataType(DType dtype) {
  DLDataType t;
  t.lanes = 1;
  t.bits = static_cast<uint8_t>(DTypeBytes(dtype) * 8);
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat16:
    case DType::kFloat64:
      t.code = kDLFloat;
      break;
    case DType::kBFloat16:
      t.code = kDLBfloat;
      break;
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      t.code = kDLInt;
      break;
    case DType::kUInt8:
      t.code = kDLUInt;
      break;
    case DType::kBool:
      t.code = kDLBoolCode;
      break;
  }
  return t;
}

std::string DLDataTypeName(const DLDataType& t) {
  std::string code;
  switch (t.code) {
    case kDLInt:
      code = "int";
      break;
    case kDLUInt:
      code = "uint";
      break;
    case kDLFloat:
      code = "float";
      break;
    case kDLBfloat:
      code = "bfloat";
      break;
    case kDLComplex:
      code = "complex";
      break;
    case kDLOpaqueHandle:
      code = "handle";
      break;
    case kDLBoolCode:
      code = "bool";
      break;
    default:
      code = "code" + std::to_string(t.code) + "_";
  }
  std::string s = code + std::to_string(t.bits);
  if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
  return s;
}

DType FromDLDataType(const DLDataType& t) {
  if (t.lanes != 1)
    TS_THROW(kType) << "DLPack tensor of dtype " << DLDataTypeName(t) << " has " << t.lanes
                    << " lanes; only scalar elements (lanes == 1) are supported";
  auto is = [&](uint8_t code, int bits) { return t.code == code && t.bits == bits; };
  if (is(kDLFloat, 32)) return DType::kFloat32;
  if (is(kDLFloat, 16)) return DType::kFloat16;
  if (is(kDLFloat, 64)) return DType::kFloat64;
  if (is(kDLBfloat, 16)) return DType::kBFloat16;
  if (is(kDLInt, 8)) return DType::kInt8;
  if (is(kDLInt, 32)) return DType::kInt32;
  if (is(kDLInt, 64)) return DType::kInt64;
  if (is(kDLUInt, 8)) return DType::kUInt8;
  if (is(kDLBoolCode, 8)) return DType::kBool;
  TS_THROW(kType) << "DLPack dtype " << DLDataTypeName(t)
                  << " is not supported (supported: float16, float32, float64, bfloat16, int8, "
                     "int32, int64, uint8, bool)";
}

const char* DeviceName(int32_t type) {
  switch (type) {
    case kDLCUDA:
      return "CUDA";
    case kDLCUDAHost:
      return "CUDA host";
    case kDLOpenCL:
      return "OpenCL";
    case kDLVulkan:
      return "Vulkan";
    case kDLMetal:
      return "Metal";
    case kDLROCM:
      return "ROCm";
    default:
      return "non-CPU";
  }
}

/// What an exported tensor owns: the array (its memory) and the shape/stride storage.
struct ExportContext {
  NDArray array;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed;
};

void DeleteExport(DLManagedTensor* self) {
  delete static_cast<ExportContext*>(self->manager_ctx);
}

}  // namespace

DLManagedTensor* NDArray::ToDLPack() const {
  if (!defined()) TS_THROW(kValue) << "cannot export an undefined NDArray through DLPack";
  auto* ctx = new ExportContext{*this, shape_, std::vector<int64_t>(shape_.size()), {}};
  int64_t stride = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    ctx->strides[i] = stride;
    stride *= shape_[i];
  }
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = data_;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int>(shape_.size());
  t.dtype = ToDLDataType(dtype_);
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = DeleteExport;
  return &ctx->managed;
}

NDArray NDArray::FromDLPack(DLManagedTensor* tensor) {
  if (!tensor) TS_THROW(kValue) << "FromDLPack: the DLManagedTensor pointer is null";
  const DLTensor& t = tensor->dl_tensor;
  if (t.device.device_type != kDLCPU)
    TS_THROW(kUnsupported) << "DLPack tensor lives on a " << DeviceName(t.device.device_type)
                           << " device (device_type " << t.device.device_type
                           << "); Tessera only imports CPU tensors (device_type " << kDLCPU << ")";
  DType dtype = FromDLDataType(t.dtype);
  if (t.ndim < 0 || (t.ndim > 0 && !t.shape))
    TS_THROW(kValue) << "DLPack tensor has ndim " << t.ndim << " but no valid shape";
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  for (int64_t d : shape)
    if (d < 0)
      TS_THROW(kValue) << "DLPack tensor has a negative dimension: " << ShapeToString(shape);
  if (t.strides && ShapeNumElements(shape) > 1) {
    // Row-major compact; a dimension of extent 1 may carry any stride.
    int64_t expect = 1;
    for (int i = t.ndim; i-- > 0;) {
      if (shape[i] != 1 && t.strides[i] != expect) {
        std::vector<int64_t> strides(t.strides, t.strides + t.ndim);
        TS_THROW(kUnsupported) << "DLPack tensor of shape " << ShapeToString(shape)
                               << " has strides " << ShapeToString(strides)
                               << " (in elements); Tessera needs a compact row-major tensor "
                                  "(make it contiguous first)";
      }
      expect *= shape[i];
    }
  }
  if (!t.data && ShapeNumElements(shape) != 0)
    TS_THROW(kValue) << "DLPack tensor of shape " << ShapeToString(shape) << " has no data";
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  // Ownership passes only now that nothing can throw before the holder exists.
  std::shared_ptr<void> owner(tensor, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  return FromBorrowed(data, shape, dtype, std::move(owner));
}

}  // namespace tessera
