// Neural-network ops: registration entry point and helpers shared by the nn_*.cc files.
#include <algorithm>

#include "nn_defs.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::nn {

std::vector<int> ParseLayoutPermutation(const std::string& layout, const char* letters,
                                        const char* what) {
  std::string expected(letters);
  std::vector<int> pos(expected.size(), -1);
  bool ok = layout.size() == expected.size();
  for (size_t i = 0; ok && i < layout.size(); ++i) {
    size_t k = expected.find(layout[i]);
    if (k == std::string::npos || pos[k] != -1) {
      ok = false;
      break;
    }
    pos[k] = static_cast<int>(i);
  }
  if (!ok)
    TS_THROW(kValue) << what << " '" << layout << "' is not supported (expected a permutation of "
                     << expected << ")";
  return pos;
}

Layout2D ParseDataLayout(const std::string& layout, const char* what) {
  std::vector<int> pos = ParseLayoutPermutation(layout, "NCHW", what);
  Layout2D l;
  l.n = pos[0];
  l.c = pos[1];
  l.h = pos[2];
  l.w = pos[3];
  return l;
}

namespace {

/// Reads a positive block size at `text[*pos]..` followed by `letter`; false otherwise.
bool ReadBlock(const std::string& text, size_t* pos, char letter, int64_t* block) {
  size_t i = *pos;
  int64_t v = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9' && v < (int64_t{1} << 30))
    v = v * 10 + (text[i++] - '0');
  if (i == *pos || i >= text.size() || text[i] != letter || v < 1) return false;
  *pos = i + 1;
  *block = v;
  return true;
}

}  // namespace

std::vector<int64_t> DataLayout2D::Shape(int64_t n, int64_t c, int64_t h, int64_t w) const {
  std::vector<int64_t> shape(rank());
  shape[axes.n] = n;
  shape[axes.c] = c / block();
  shape[axes.h] = h;
  shape[axes.w] = w;
  if (blocked()) shape[4] = c_block;
  return shape;
}

DataLayout2D ParseDataLayout2D(const std::string& layout, const char* what) {
  DataLayout2D l;
  if (layout.size() > 4 && layout.compare(0, 4, "NCHW") == 0) {
    size_t pos = 4;
    if (!ReadBlock(layout, &pos, 'c', &l.c_block) || pos != layout.size())
      TS_THROW(kValue) << what << " '" << layout
                       << "' is not supported (expected a permutation of NCHW, or NCHW{x}c "
                          "with a channel block x >= 1, such as NCHW16c)";
    return l;
  }
  if (layout.size() > 4)
    TS_THROW(kValue) << what << " '" << layout
                     << "' is not supported (expected a permutation of NCHW, or NCHW{x}c with a "
                        "channel block x >= 1, such as NCHW16c)";
  l.axes = ParseDataLayout(layout, what);
  return l;
}

KernelLayout2D ParseKernelLayout2D(const std::string& layout, const char* what) {
  KernelLayout2D l;
  if (layout.size() > 4 && layout.compare(0, 4, "OIHW") == 0) {
    size_t pos = 4;
    if (!ReadBlock(layout, &pos, 'i', &l.i_block) || !ReadBlock(layout, &pos, 'o', &l.o_block) ||
        pos != layout.size())
      TS_THROW(kValue) << what << " '" << layout
                       << "' is not supported (expected a permutation of OIHW, or OIHW{y}i{x}o "
                          "with blocks x, y >= 1, such as OIHW16i16o)";
    return l;
  }
  if (layout.size() > 4)
    TS_THROW(kValue) << what << " '" << layout
                     << "' is not supported (expected a permutation of OIHW, or OIHW{y}i{x}o "
                        "with blocks x, y >= 1, such as OIHW16i16o)";
  l.perm = ParseLayoutPermutation(layout, "OIHW", what);
  return l;
}

}  // namespace tessera::nn

namespace tessera::op_defs {

void RegisterNNOps(OpRegistry& registry) {
  RegisterNNConvOps(registry);
  RegisterNNMatmulOps(registry);
  RegisterNNNormOps(registry);
  RegisterNNPoolOps(registry);
  RegisterNNShapeOps(registry);
}

namespace nn {

void CheckOutLayout(const Attrs& attrs, const char* layout_key) {
  const std::string& out = attrs.GetString("out_layout");
  const std::string& in = attrs.GetString(layout_key);
  if (!out.empty() && out != in)
    TS_THROW(kValue) << "out_layout '" << out << "' differs from " << layout_key << " '" << in
                     << "'; layout conversion inside the op is not supported";
}

void NormalizePair(Attrs& attrs, const char* key, int64_t min_value) {
  std::vector<int64_t> v = attrs.GetInts(key);
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) TS_THROW(kValue) << key << " must have 1 or 2 elements, got " << v.size();
  for (int64_t x : v)
    if (x < min_value)
      TS_THROW(kValue) << key << " " << ShapeToString(v) << " must be >= " << min_value;
  attrs.Set(key, AttrValue::Ints(v));
}

void NormalizePadding4(Attrs& attrs, const char* key) {
  std::vector<int64_t> v = attrs.GetInts(key);
  if (v.size() == 1)
    v = {v[0], v[0], v[0], v[0]};
  else if (v.size() == 2)
    v = {v[0], v[1], v[0], v[1]};
  else if (v.size() != 4)
    TS_THROW(kValue) << key << " must have 1, 2 or 4 elements, got " << v.size();
  for (int64_t x : v)
    if (x < 0) TS_THROW(kValue) << key << " " << ShapeToString(v) << " must not be negative";
  attrs.Set(key, AttrValue::Ints(v));
}

void CheckOutDTypeAttr(const Attrs& attrs) {
  const std::string& s = attrs.GetString("out_dtype");
  if (!s.empty()) ParseDTypeOrThrow(s, "out_dtype");
}

DType ResolveOutDType(const Attrs& attrs, DType input) {
  const AttrValue* v = attrs.Find("out_dtype");
  if (!v || !v->is_string() || v->AsString().empty()) return input;
  return ParseDTypeOrThrow(v->AsString(), "out_dtype");
}

void ExpectRank(const TensorTypeNode* t, int rank, const char* name, const std::string& layout) {
  if (t->ndim() != rank)
    TS_THROW(kType) << name << " must be " << rank << "-D"
                    << (layout.empty() ? "" : " (" + layout + ")") << ", got shape "
                    << ShapeToString(t->shape);
}

void ExpectSameDType(const TensorTypeNode* a, const char* a_name, const TensorTypeNode* b,
                     const char* b_name) {
  if (a->dtype != b->dtype)
    TS_THROW(kType) << a_name << " dtype " << DTypeName(a->dtype) << " and " << b_name << " dtype "
                    << DTypeName(b->dtype) << " differ";
}

std::vector<double> ToDoubles(const NDArray& array) {
  int64_t n = array.NumElements();
  std::vector<double> out(static_cast<size_t>(n));
  if (array.dtype() == DType::kFloat32) {
    const float* p = array.data_as<const float>();
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  } else if (array.dtype() == DType::kFloat64) {
    const double* p = array.data_as<const double>();
    std::copy(p, p + n, out.begin());
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = array.GetFloat(i);
  }
  return out;
}

NDArray FromDoubles(const std::vector<double>& values, const Type& type) {
  const auto* tt = type.as<TensorTypeNode>();
  TS_ICHECK(tt) << "kernel output type must be a tensor";
  NDArray out = NDArray::Empty(tt->shape, tt->dtype);
  int64_t n = out.NumElements();
  TS_ICHECK(static_cast<int64_t>(values.size()) == n) << "kernel produced the wrong element count";
  if (tt->dtype == DType::kFloat32) {
    float* p = out.data_as<float>();
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(values[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out.SetFloat(i, values[i]);
  }
  return out;
}

void ValidOutputRange(int64_t offset, int64_t stride, int64_t in, int64_t out, int64_t* lo,
                      int64_t* hi) {
  // o * stride + offset >= 0  <=>  o >= ceil(-offset / stride)
  int64_t l = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  // o * stride + offset <= in - 1  <=>  o <= floor((in - 1 - offset) / stride)
  int64_t last = in - 1 - offset;
  int64_t h = last < 0 ? 0 : last / stride + 1;
  *lo = std::min(l, out);
  *hi = std::max(*lo, std::min(h, out));
}

}  // namespace nn
}  // namespace tessera::op_defs
