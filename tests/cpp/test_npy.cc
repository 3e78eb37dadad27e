// .npy reader/writer tests: numpy-identical bytes, every dtype round trip, versions 2/3,
// and the errors for unsupported or damaged files.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "tessera/runtime/npy.h"
#include "tessera/support/error.h"

namespace tessera {
namespace {

// Produced by numpy 1.24: numpy.save(f, numpy.arange(6, dtype='<f4').reshape(2, 3)).
const char kNumpyF32x2x3[] =
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c"
    "\x66\x34\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20"
    "\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20\x33\x29"
    "\x2c\x20\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x00\x00"
    "\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40";
// numpy.save(f, numpy.array(7, dtype='<i8')): a scalar, shape ().
const char kNumpyI64Scalar[] =
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c"
    "\x69\x38\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20"
    "\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x29\x2c\x20\x7d\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x07\x00\x00\x00"
    "\x00\x00\x00\x00";
// numpy.save(f, numpy.array([True, False, True])): shape (3,).
const char kNumpyBool3[] =
    "\x93\x4e\x55\x4d\x50\x59\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x7c"
    "\x62\x31\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72\x64\x65\x72\x27\x3a\x20"
    "\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68\x61\x70\x65\x27\x3a\x20\x28\x33\x2c\x29\x2c\x20"
    "\x7d\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x01\x00\x01";

template <size_t N>
std::string Bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "tessera_npy_" + name + ".npy";
}

/// Runs `fn`, expecting a tessera::Error of `kind` whose message contains `substring`.
template <typename Fn>
void ExpectError(Fn fn, ErrorKind kind, const std::string& substring) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << substring << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

/// A version `major`.0 file with the given header dict text (padded like numpy) and data.
std::string MakeNpy(int major, const std::string& dict, const std::string& data) {
  size_t len_width = major == 1 ? 2 : 4;
  std::string header = dict;
  size_t total = 8 + len_width + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < len_width; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

TEST(Npy, SerializeMatchesNumpyBytes) {
  NDArray f = NDArray::FromFloats({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(SerializeNpy(f), Bytes(kNumpyF32x2x3));
  NDArray s = NDArray::Empty({}, DType::kInt64);
  s.SetInt(0, 7);
  EXPECT_EQ(SerializeNpy(s), Bytes(kNumpyI64Scalar));
  NDArray b = NDArray::Empty({3}, DType::kBool);
  b.SetInt(0, 1);
  b.SetInt(1, 0);
  b.SetInt(2, 1);
  EXPECT_EQ(SerializeNpy(b), Bytes(kNumpyBool3));
}

TEST(Npy, ParsesNumpyBytes) {
  NDArray f = ParseNpy(Bytes(kNumpyF32x2x3), "f32.npy");
  EXPECT_EQ(f.dtype(), DType::kFloat32);
  EXPECT_EQ(f.shape(), (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(f.GetFloat(i), i);
  NDArray s = ParseNpy(Bytes(kNumpyI64Scalar), "s.npy");
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(s.GetInt(0), 7);
  NDArray b = ParseNpy(Bytes(kNumpyBool3), "b.npy");
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{3}));
  EXPECT_EQ(b.GetInt(0), 1);
  EXPECT_EQ(b.GetInt(1), 0);
  EXPECT_EQ(b.GetInt(2), 1);
}

TEST(Npy, EveryDtypeRoundTripsThroughAFile) {
  const DType dtypes[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32,
                          DType::kInt64,   DType::kInt8,    DType::kUInt8,   DType::kBool};
  const std::vector<std::vector<int64_t>> shapes = {{2, 3}, {}, {5}, {0}, {1, 1, 4}, {70}};
  for (DType dtype : dtypes) {
    for (const auto& shape : shapes) {
      NDArray a = NDArray::Empty(shape, dtype);
      for (int64_t i = 0; i < a.NumElements(); ++i) {
        if (dtype == DType::kBool)
          a.SetInt(i, i % 3 == 0);
        else if (IsFloat(dtype))
          a.SetFloat(i, 0.5 * static_cast<double>(i) - 3.25);
        else
          a.SetInt(i, (i * 37) % 100 - (dtype == DType::kUInt8 ? 0 : 50));
      }
      std::string path =
          TempPath(std::string(DTypeName(dtype)) + "_" + std::to_string(shape.size()));
      WriteNpy(path, a);
      NDArray b = ReadNpy(path);
      EXPECT_TRUE(a.BitwiseEqual(b)) << DTypeName(dtype) << ShapeToString(shape);
      std::string bytes = SerializeNpy(a);
      size_t header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
      EXPECT_EQ((10 + header_len) % 64, 0u) << "data must start 64-byte aligned";
      EXPECT_EQ(bytes[6], '\x01');
      EXPECT_EQ(bytes[7], '\x00');
      EXPECT_EQ(bytes[10 + header_len - 1], '\n');
      std::remove(path.c_str());
    }
  }
}

TEST(Npy, ReadsVersions2And3AndLegacyHeaders) {
  std::string data("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  for (int major : {2, 3}) {
    NDArray a = ParseNpy(
        MakeNpy(major, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", data), "v");
    EXPECT_EQ(a.dtype(), DType::kInt32);
    EXPECT_EQ(a.GetInt(1), 2);
  }
  // Other key order, double quotes, Python 2 long suffixes, no trailing comma.
  NDArray b = ParseNpy(
      MakeNpy(1, "{\"shape\": (1L, 2L), \"fortran_order\": False, \"descr\": \"<i4\"}", data),
      "legacy");
  EXPECT_EQ(b.shape(), (std::vector<int64_t>{1, 2}));
  // numpy treats any non-zero bool byte as True.
  NDArray c = ParseNpy(MakeNpy(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                               std::string("\x00\x07", 2)),
                       "bools");
  EXPECT_EQ(static_cast<const uint8_t*>(c.data())[1], 1);
  // Bytes after the data are ignored, as numpy.load does.
  NDArray d = ParseNpy(
      MakeNpy(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", "\x05zz"), "t");
  EXPECT_EQ(d.GetInt(0), 5);
}

TEST(Npy, RejectsWhatItCannotRepresent) {
  ExpectError([] { SerializeNpy(NDArray::Zeros({2}, DType::kBFloat16)); }, ErrorKind::kUnsupported,
              "cannot write bfloat16 as .npy: numpy has no bfloat16 dtype");
  ExpectError([] { WriteNpy(TempPath("bf16"), NDArray::Zeros({2}, DType::kBFloat16)); },
              ErrorKind::kUnsupported, "bfloat16");
  std::string four(16, '\0');
  ExpectError(
      [&] {
        ParseNpy(MakeNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four),
                 "f.npy");
      },
      ErrorKind::kUnsupported, "f.npy: Fortran-order .npy arrays are not supported");
  ExpectError(
      [&] {
        ParseNpy(MakeNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four),
                 "be.npy");
      },
      ErrorKind::kUnsupported,
      "be.npy: unsupported .npy dtype '>f4' (big-endian data is not supported)");
  ExpectError(
      [&] {
        ParseNpy(MakeNpy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four),
                 "c.npy");
      },
      ErrorKind::kUnsupported, "unsupported .npy dtype '<c8'");
  ExpectError(
      [&] {
        ParseNpy(
            MakeNpy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", four),
            "s.npy");
      },
      ErrorKind::kUnsupported, "s.npy: structured .npy dtypes are not supported");
  ExpectError([&] { ParseNpy(MakeNpy(4, "{}", ""), "v4.npy"); }, ErrorKind::kUnsupported,
              "v4.npy: unsupported .npy version 4.0");
}

TEST(Npy, DamagedFilesNameTheProblem) {
  std::string good = Bytes(kNumpyF32x2x3);
  ExpectError([&] { ParseNpy(good.substr(0, good.size() - 4), "cut.npy"); }, ErrorKind::kParse,
              "cut.npy: truncated .npy data: expected 24 bytes for float32[2, 3], got 20");
  ExpectError([&] { ParseNpy(good.substr(0, 40), "hdr.npy"); }, ErrorKind::kParse,
              "hdr.npy: truncated .npy header: expected 118 header bytes, got 30");
  ExpectError([] { ParseNpy("PK\x03\x04 not numpy", "zip.npy"); }, ErrorKind::kParse,
              "zip.npy: not a .npy file");
  ExpectError([] { ParseNpy(MakeNpy(1, "{'descr': '<f4', 'shape': (2,), }", ""), "k.npy"); },
              ErrorKind::kParse, "k.npy: .npy header lacks 'fortran_order'");
  ExpectError(
      [] {
        ParseNpy(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", ""),
                 "x.npy");
      },
      ErrorKind::kParse, "x.npy: malformed .npy header at offset");
  ExpectError(
      [] {
        ParseNpy(
            MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': True}", ""),
            "y.npy");
      },
      ErrorKind::kParse, "y.npy: unexpected key 'x' in the .npy header");
  ExpectError(
      [] {
        ParseNpy(MakeNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", ""),
                 "n.npy");
      },
      ErrorKind::kParse, "expected a non-negative integer");
  ExpectError([] { ReadNpy("/nonexistent/dir/missing.npy"); }, ErrorKind::kNotFound,
              "/nonexistent/dir/missing.npy: no such .npy file");
  // A truncated file on disk names the path too.
  std::string path = TempPath("truncated");
  {
    std::ofstream out(path, std::ios::binary);
    out << good.substr(0, good.size() - 1);
  }
  ExpectError([&] { ReadNpy(path); }, ErrorKind::kParse,
              path + ": truncated .npy data: expected 24 bytes");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tessera
