// crop: the window out[i] = data[begin + i] of static `sizes`, the inverse of a constant pad.
//
// `cropped_value` (None or a number) is a promise that every element outside the window
// equals it. Nothing checks the promise; layout planning relies on it to fold
// `nn.pad(crop(x), same widths, v)` back to x when v equals cropped_value, which is how a
// padded layout flows through ops that keep padding at a known value.
#include <cstdint>
#include <vector>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

void CheckCropAttrs(Attrs& attrs) {
  std::vector<int64_t> begin = attrs.GetInts("begin"), sizes = attrs.GetInts("sizes");
  if (begin.size() != sizes.size())
    TS_THROW(kValue) << "begin " << ShapeToString(begin) << " and sizes " << ShapeToString(sizes)
                     << " must have one entry per axis each";
  for (size_t d = 0; d < begin.size(); ++d) {
    if (begin[d] < 0)
      TS_THROW(kValue) << "begin " << ShapeToString(begin) << " is negative at axis " << d;
    if (sizes[d] < 0)
      TS_THROW(kValue) << "sizes " << ShapeToString(sizes) << " is negative at axis " << d;
  }
}

Type CropRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  std::vector<int64_t> begin = attrs.GetInts("begin"), sizes = attrs.GetInts("sizes");
  if (static_cast<int>(begin.size()) != t->ndim())
    TS_THROW(kType) << "begin " << ShapeToString(begin) << " and sizes " << ShapeToString(sizes)
                    << " have " << begin.size() << " entries but data shape "
                    << ShapeToString(t->shape) << " has rank " << t->ndim();
  for (size_t d = 0; d < begin.size(); ++d)
    if (begin[d] > t->shape[d] || sizes[d] > t->shape[d] - begin[d])
      TS_THROW(kType) << "the window begin " << ShapeToString(begin) << ", sizes "
                      << ShapeToString(sizes) << " leaves data shape " << ShapeToString(t->shape)
                      << " at axis " << d << " (" << begin[d] << " + " << sizes[d] << " > "
                      << t->shape[d] << ")";
  return MakeTensorType(sizes, t->dtype);
}

std::vector<NDArray> CropKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                const Type& out_type) {
  const NDArray& x = in[0];
  NDArray out = math::EmptyOf(out_type);
  if (out.NumElements() == 0) return {out};
  std::vector<int64_t> begin = attrs.GetInts("begin");
  std::vector<int64_t> strides = RowMajorStrides(x.shape());
  int64_t base = 0;
  for (size_t d = 0; d < begin.size(); ++d) base += begin[d] * strides[d];
  math::StridedGather(x, base, strides, out);
  return {out};
}

}  // namespace

void RegisterCropOp(OpRegistry& registry) {
  OpDef def;
  def.name = "crop";
  def.description = "the window out[i] = data[begin + i] of the given sizes (undoes nn.pad)";
  def.inputs = {"data"};
  def.attrs = {
      {"begin", AttrType::kIntArray, AttrValue(), "first index of the window per axis"},
      {"sizes", AttrType::kIntArray, AttrValue(),
       "extent of the window per axis (the result shape)"},
      {"cropped_value", AttrType::kOptionalFloat, AttrValue(),
       "the value every element outside the window holds, when known (None: unknown)"},
  };
  def.pattern = OpPatternKind::kInjective;
  def.normalize = CheckCropAttrs;
  def.type_rel = CropRel;
  def.kernel = CropKernel;
  registry.Register(std::move(def));
}

}  // namespace tessera::op_defs
