// NDArray DLPack exchange: zero-copy round trips, the deleter called exactly once,
// byte_offset, and clear errors for tensors Tessera cannot take.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera {
namespace {

/// A DLManagedTensor over test-owned memory whose deleter counts its calls.
struct Probe {
  std::vector<float> data;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int deleted = 0;
  DLManagedTensor managed{};

  Probe(std::vector<float> values, std::vector<int64_t> dims)
      : data(std::move(values)), shape(std::move(dims)) {
    DLTensor& t = managed.dl_tensor;
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) {
      ++static_cast<Probe*>(self->manager_ctx)->deleted;
    };
  }
};

std::string ImportError(DLManagedTensor* t) {
  try {
    NDArray::FromDLPack(t);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuntimeDLPack, ImportIsZeroCopyAndCallsTheDeleterOnce) {
  Probe p({1, 2, 3, 4, 5, 6}, {2, 3});
  {
    NDArray a = NDArray::FromDLPack(&p.managed);
    EXPECT_EQ(a.data(), p.data.data());
    EXPECT_EQ(a.shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(a.dtype(), DType::kFloat32);
    NDArray view = a.Reshaped({6});
    a = NDArray();
    EXPECT_EQ(p.deleted, 0);  // the view still uses the memory
    EXPECT_EQ(view.data_as<float>()[5], 6.0f);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(RuntimeDLPack, ByteOffsetAndCompatibleStridesAreHonoured) {
  Probe p({0, 0, 10, 11, 12, 13}, {2, 2});
  p.managed.dl_tensor.byte_offset = 2 * sizeof(float);
  p.strides = {2, 1};
  p.managed.dl_tensor.strides = p.strides.data();
  NDArray a = NDArray::FromDLPack(&p.managed);
  EXPECT_EQ(a.data(), p.data.data() + 2);
  EXPECT_EQ(a.GetFloat(0), 10.0);
  EXPECT_EQ(a.GetFloat(3), 13.0);
  // Extent-1 dimensions may carry any stride (PyTorch and NumPy emit such strides).
  Probe q({7, 8, 9}, {1, 3});
  q.strides = {99, 1};
  q.managed.dl_tensor.strides = q.strides.data();
  EXPECT_EQ(NDArray::FromDLPack(&q.managed).GetFloat(2), 9.0);
}

TEST(RuntimeDLPack, ExportKeepsTheMemoryAliveUntilTheDeleter) {
  DLManagedTensor* m = nullptr;
  const void* data = nullptr;
  {
    NDArray a = NDArray::FromFloats({2, 3}, {1, 2, 3, 4, 5, 6});
    data = a.data();
    m = a.ToDLPack();
  }
  const DLTensor& t = m->dl_tensor;
  EXPECT_EQ(t.data, data);
  EXPECT_EQ(t.device.device_type, kDLCPU);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], 2);
  EXPECT_EQ(t.shape[1], 3);
  EXPECT_EQ(t.strides[0], 3);
  EXPECT_EQ(t.strides[1], 1);
  EXPECT_EQ(t.byte_offset, 0u);
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.dtype.bits, 32);
  EXPECT_EQ(t.dtype.lanes, 1);
  EXPECT_EQ(static_cast<float*>(t.data)[5], 6.0f);  // ASan: still allocated
  m->deleter(m);
}

TEST(RuntimeDLPack, RoundTripsEveryDType) {
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kBFloat16, DType::kFloat64,
                      DType::kInt8, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
    NDArray a = NDArray::Zeros({3}, dtype);
    a.SetInt(1, 1);
    NDArray b = NDArray::FromDLPack(a.ToDLPack());
    EXPECT_EQ(b.dtype(), dtype) << DTypeName(dtype);
    EXPECT_EQ(b.data(), a.data());
    EXPECT_TRUE(b.BitwiseEqual(a));
  }
  NDArray scalar = NDArray::FromDLPack(NDArray::Scalar(2.5, DType::kFloat64).ToDLPack());
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(scalar.GetFloat(0), 2.5);
  NDArray empty = NDArray::FromDLPack(NDArray::Empty({0, 4}, DType::kInt32).ToDLPack());
  EXPECT_EQ(empty.shape(), (std::vector<int64_t>{0, 4}));
}

TEST(RuntimeDLPack, UnsupportedTensorsAreRefusedAndLeftToTheCaller) {
  Probe gpu({1, 2}, {2});
  gpu.managed.dl_tensor.device = {kDLCUDA, 0};
  EXPECT_NE(ImportError(&gpu.managed).find("CUDA device"), std::string::npos);

  Probe strided({1, 2, 3, 4, 5, 6}, {2, 3});
  strided.strides = {1, 2};  // column-major
  strided.managed.dl_tensor.strides = strided.strides.data();
  EXPECT_NE(ImportError(&strided.managed).find("strides [1, 2]"), std::string::npos);

  Probe lanes({1, 2}, {2});
  lanes.managed.dl_tensor.dtype.lanes = 4;
  EXPECT_NE(ImportError(&lanes.managed).find("4 lanes"), std::string::npos);

  Probe complex({1, 2}, {1});
  complex.managed.dl_tensor.dtype = {kDLComplex, 64, 1};
  EXPECT_NE(ImportError(&complex.managed).find("complex64 is not supported"), std::string::npos);

  Probe uint16({1, 2}, {2});
  uint16.managed.dl_tensor.dtype = {kDLUInt, 16, 1};
  EXPECT_NE(ImportError(&uint16.managed).find("uint16"), std::string::npos);

  EXPECT_THROW(NDArray::FromDLPack(nullptr), Error);
  EXPECT_THROW(NDArray().ToDLPack(), Error);
  for (const Probe* p : {&gpu, &strided, &lanes, &complex, &uint16}) EXPECT_EQ(p->deleted, 0);
}

}  // namespace
}  // namespace tessera
