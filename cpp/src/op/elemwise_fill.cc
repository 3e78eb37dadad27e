// Tensor creation ops: zeros, ones (no inputs) and full (from a scalar fill value).
#include <cstring>

#include "elemwise_util.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

void CheckConstantAttrs(Attrs& attrs, bool allow_empty_dtype) {
  math::CheckShapeAttr(attrs, "shape");
  math::CheckDTypeAttr(attrs, "dtype", allow_empty_dtype);
}

Type ConstantRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  if (!args.empty()) TS_THROW(kType) << "takes no inputs, got " << args.size();
  Attrs checked = attrs;
  CheckConstantAttrs(checked, false);
  return MakeTensorType(attrs.GetInts("shape"),
                        ParseDTypeOrThrow(attrs.GetString("dtype"), "attribute 'dtype'"));
}

NDArray Filled(const Type& out_type, int64_t value) {
  NDArray out = math::EmptyOf(out_type);
  for (int64_t i = 0; i < out.NumElements(); ++i) out.SetInt(i, value);
  return out;
}

OpDef ConstantDef(const char* name, const char* description, int64_t value) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.attrs = {{"shape", AttrType::kIntArray, AttrValue(), "the result shape"},
               {"dtype", AttrType::kString, "float32", "the result dtype"}};
  def.pattern = OpPatternKind::kElemwise;
  def.normalize = [](Attrs& attrs) { CheckConstantAttrs(attrs, false); };
  def.type_rel = ConstantRel;
  def.kernel = [value](const std::vector<NDArray>&, const Attrs&, const Type& out_type) {
    return std::vector<NDArray>{Filled(out_type, value)};
  };
  return def;
}

Type FullRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* fill = ExpectTensor(args, 0);
  if (fill->ndim() != 0)
    TS_THROW(kType) << "fill_value must be a scalar (rank-0) tensor, got shape "
                    << ShapeToString(fill->shape);
  Attrs checked = attrs;
  CheckConstantAttrs(checked, true);
  const std::string& dtype = attrs.GetString("dtype");
  return MakeTensorType(
      attrs.GetInts("shape"),
      dtype.empty() ? fill->dtype : ParseDTypeOrThrow(dtype, "attribute 'dtype'"));
}

std::vector<NDArray> FullKernel(const std::vector<NDArray>& in, const Attrs&,
                                const Type& out_type) {
  const NDArray& fill = in[0];
  NDArray out = math::EmptyOf(out_type);
  NDArray one = NDArray::Empty({}, out.dtype());
  if (IsFloat(fill.dtype()))
    math::StoreDouble(one, 0, fill.GetFloat(0));
  else
    one.SetInt(0, fill.GetInt(0));
  // Every element gets the bytes of the once-converted value.
  const size_t bytes = static_cast<size_t>(DTypeBytes(out.dtype()));
  auto* to = static_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < out.NumElements(); ++i) std::memcpy(to + i * bytes, one.data(), bytes);
  return {out};
}

}  // namespace

void RegisterFillOps(OpRegistry& registry) {
  registry.Register(ConstantDef("zeros", "a tensor of the given shape and dtype filled with 0", 0));
  registry.Register(ConstantDef("ones", "a tensor of the given shape and dtype filled with 1", 1));

  OpDef full;
  full.name = "full";
  full.description = "a tensor of the given shape filled with the scalar fill_value";
  full.inputs = {"fill_value"};
  full.attrs = {{"shape", AttrType::kIntArray, AttrValue(), "the result shape"},
                {"dtype", AttrType::kString, "", "the result dtype; \"\" means fill_value's"}};
  full.pattern = OpPatternKind::kElemwise;
  full.normalize = [](Attrs& attrs) { CheckConstantAttrs(attrs, true); };
  full.type_rel = FullRel;
  full.kernel = FullKernel;
  registry.Register(std::move(full));
}

}  // namespace tessera::op_defs
