// Shape ops: reshape, transpose, squeeze, expand_dims, concatenate, split; registers the
// other transform families (strided_slice, take, layout_transform, crop).
//
// Attribute-only problems are value errors; problems that depend on the input shapes
// (element counts, sizes that do not divide) are type errors naming the shapes.
#include <cstring>
#include <numeric>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

std::vector<NDArray> CopyAs(const NDArray& x, const Type& out_type) {
  return {x.Copy().Reshaped(out_type.as<TensorTypeNode>()->shape)};
}

// ---- reshape ------------------------------------------------------------------------

/// Checks what can be checked without the input shape: special values and their operands.
void CheckNewShape(Attrs& attrs) {
  std::vector<int64_t> ns = attrs.GetInts("newshape");
  int inferred = 0;
  for (size_t i = 0; i < ns.size(); ++i) {
    int64_t v = ns[i];
    if (v < -4)
      TS_THROW(kValue) << "newshape " << ShapeToString(ns) << ": unsupported special value " << v;
    if (v == -1 && ++inferred > 1)
      TS_THROW(kValue) << "newshape " << ShapeToString(ns) << " has more than one -1";
    if (v != -4) continue;
    if (i + 2 >= ns.size())
      TS_THROW(kValue) << "newshape " << ShapeToString(ns) << ": -4 must be followed by two values";
    int64_t d1 = ns[i + 1], d2 = ns[i + 2];
    if ((d1 <= 0 && d1 != -1) || (d2 <= 0 && d2 != -1) || (d1 == -1 && d2 == -1))
      TS_THROW(kValue) << "newshape " << ShapeToString(ns)
                       << ": the two values after -4 must be positive, one of them may be -1";
    i += 2;
  }
}

std::vector<int64_t> InferNewShape(const std::vector<int64_t>& in, const std::vector<int64_t>& ns,
                                   bool allowzero) {
  const std::string where =
      "cannot reshape " + ShapeToString(in) + " with newshape " + ShapeToString(ns) + ": ";
  std::vector<int64_t> out;
  size_t src = 0;
  int infer = -1;
  for (size_t i = 0; i < ns.size(); ++i) {
    int64_t v = ns[i];
    size_t need = v == 0 && !allowzero ? 1 : v == -3 ? 2 : v == -4 ? 1 : 0;
    if (need > 0 && src + need > in.size())
      TS_THROW(kType) << where << "special value " << v << " at position " << i
                      << " has no input dimension left";
    if (v > 0 || (v == 0 && allowzero)) {
      out.push_back(v);
      ++src;
    } else if (v == 0) {
      out.push_back(in[src++]);
    } else if (v == -1) {
      infer = static_cast<int>(out.size());
      out.push_back(1);
      ++src;
    } else if (v == -2) {
      while (src < in.size()) out.push_back(in[src++]);
    } else if (v == -3) {
      out.push_back(in[src] * in[src + 1]);
      src += 2;
    } else {  // -4: split one input dimension into the next two values
      int64_t d0 = in[src++], d1 = ns[i + 1], d2 = ns[i + 2];
      i += 2;
      int64_t known = d1 == -1 ? d2 : d1;
      if ((d1 == -1 || d2 == -1) ? d0 % known != 0 : d1 * d2 != d0)
        TS_THROW(kType) << where << "-4 cannot split dimension " << d0 << " into [" << d1 << ", "
                        << d2 << "]";
      out.push_back(d1 == -1 ? d0 / d2 : d1);
      out.push_back(d2 == -1 ? d0 / d1 : d2);
    }
  }
  int64_t total = ShapeNumElements(in);
  if (infer >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (static_cast<int>(i) != infer) known *= out[i];
    if (known == 0 || total % known != 0)
      TS_THROW(kType) << where << "cannot infer the -1 dimension (" << total << " elements over "
                      << known << ")";
    out[infer] = total / known;
  }
  if (ShapeNumElements(out) != total)
    TS_THROW(kType) << where << "element counts differ (" << total << " vs "
                    << ShapeNumElements(out) << " in " << ShapeToString(out) << ")";
  return out;
}

Type ReshapeRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  Attrs checked = attrs;
  CheckNewShape(checked);
  return MakeTensorType(
      InferNewShape(t->shape, attrs.GetInts("newshape"), attrs.GetBool("allowzero")), t->dtype);
}

// ---- transpose ----------------------------------------------------------------------

std::vector<int> Permutation(const Attrs& attrs, int rank) {
  const AttrValue& axes = attrs.Get("axes");
  std::vector<int> perm(rank);
  if (axes.is_none()) {
    for (int i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
    return perm;
  }
  std::vector<int64_t> given = axes.AsInts("axes");
  if (static_cast<int>(given.size()) != rank)
    TS_THROW(kValue) << "axes " << ShapeToString(given) << " must list each of the " << rank
                     << " axes once";
  return math::NormalizeAxes(given, rank, "axis");
}

Type TransposeRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  std::vector<int> perm = Permutation(attrs, t->ndim());
  std::vector<int64_t> out;
  for (int p : perm) out.push_back(t->shape[p]);
  return MakeTensorType(out, t->dtype);
}

std::vector<NDArray> TransposeKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                     const Type& out_type) {
  NDArray out = math::EmptyOf(out_type);
  std::vector<int> perm = Permutation(attrs, in[0].ndim());
  std::vector<int64_t> st = RowMajorStrides(in[0].shape()), strides;
  for (int p : perm) strides.push_back(st[p]);
  math::StridedGather(in[0], 0, strides, out);
  return {out};
}

// ---- squeeze / expand_dims ----------------------------------------------------------

Type SqueezeRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  const AttrValue& axis = attrs.Get("axis");
  std::vector<bool> drop(t->ndim(), false);
  if (axis.is_none()) {
    for (int d = 0; d < t->ndim(); ++d) drop[d] = t->shape[d] == 1;
  } else {
    for (int d : math::NormalizeAxes(axis.AsInts("axis"), t->ndim(), "axis")) {
      if (t->shape[d] != 1)
        TS_THROW(kType) << "cannot squeeze axis " << d << " of shape " << ShapeToString(t->shape)
                        << ": its size is " << t->shape[d] << ", not 1";
      drop[d] = true;
    }
  }
  std::vector<int64_t> out;
  for (int d = 0; d < t->ndim(); ++d)
    if (!drop[d]) out.push_back(t->shape[d]);
  return MakeTensorType(out, t->dtype);
}

Type ExpandDimsRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  int64_t axis = attrs.GetInt("axis"), num = attrs.GetInt("num_newaxis");
  if (num < 0) TS_THROW(kValue) << "num_newaxis " << num << " must not be negative";
  int64_t pos = NormalizeAxis(axis, t->ndim() + 1, "axis");
  std::vector<int64_t> out(t->shape.begin(), t->shape.begin() + pos);
  out.insert(out.end(), static_cast<size_t>(num), 1);
  out.insert(out.end(), t->shape.begin() + pos, t->shape.end());
  return MakeTensorType(out, t->dtype);
}

// ---- concatenate / split ------------------------------------------------------------

Type ConcatenateRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  if (args.size() != 1)
    TS_THROW(kType) << "takes one tuple input, got " << args.size() << " inputs";
  const auto* tuple = args[0].as<TupleTypeNode>();
  if (!tuple) TS_THROW(kType) << "data must be a tuple of tensors, got " << TypeToString(args[0]);
  if (tuple->fields.empty()) TS_THROW(kType) << "data must not be an empty tuple";
  const auto* first = ExpectTensor(tuple->fields, 0);
  if (first->ndim() == 0) TS_THROW(kType) << "cannot concatenate scalars (rank-0 tensors)";
  int axis = NormalizeAxis(attrs.GetInt("axis"), first->ndim());
  std::vector<int64_t> out = first->shape;
  for (size_t i = 1; i < tuple->fields.size(); ++i) {
    const auto* t = ExpectTensor(tuple->fields, i);
    if (t->dtype != first->dtype)
      TS_THROW(kType) << "input " << i << " has dtype " << DTypeName(t->dtype)
                      << " but input 0 has " << DTypeName(first->dtype);
    bool same = t->ndim() == first->ndim();
    for (int d = 0; same && d < t->ndim(); ++d) same = d == axis || t->shape[d] == first->shape[d];
    if (!same)
      TS_THROW(kType) << "input " << i << " has shape " << ShapeToString(t->shape)
                      << " but input 0 has shape " << ShapeToString(first->shape)
                      << "; they must agree except on axis " << axis;
    out[axis] += t->shape[axis];
  }
  return MakeTensorType(out, first->dtype);
}

/// Elements before `axis` (outer) and from `axis` on (the row each outer index owns).
void OuterAndRow(const std::vector<int64_t>& shape, int axis, int64_t* outer, int64_t* row) {
  *outer = ShapeNumElements(std::vector<int64_t>(shape.begin(), shape.begin() + axis));
  *row = ShapeNumElements(std::vector<int64_t>(shape.begin() + axis, shape.end()));
}

std::vector<NDArray> ConcatenateKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                       const Type& out_type) {
  NDArray out = math::EmptyOf(out_type);
  int axis = NormalizeAxis(attrs.GetInt("axis"), out.ndim());
  const size_t bytes = static_cast<size_t>(DTypeBytes(out.dtype()));
  int64_t outer, out_row;
  OuterAndRow(out.shape(), axis, &outer, &out_row);
  auto* to = static_cast<uint8_t*>(out.data());
  int64_t col = 0;  // element offset of this input's block within an output row
  for (const NDArray& x : in) {
    int64_t x_outer, row;
    OuterAndRow(x.shape(), axis, &x_outer, &row);
    const auto* from = static_cast<const uint8_t*>(x.data());
    for (int64_t o = 0; o < outer && row > 0; ++o)
      std::memcpy(to + (o * out_row + col) * bytes, from + o * row * bytes, row * bytes);
    col += row;
  }
  return {out};
}

void CheckSplitAttr(Attrs& attrs) {
  const AttrValue& v = attrs.Get("indices_or_sections");
  if (v.is_int()) {
    if (v.AsInt() <= 0)
      TS_THROW(kValue) << "indices_or_sections " << v.AsInt() << " must be a positive count";
    return;
  }
  std::vector<int64_t> idx = v.AsInts("indices_or_sections");
  for (size_t i = 0; i < idx.size(); ++i)
    if (idx[i] <= (i ? idx[i - 1] : 0))
      TS_THROW(kValue) << "indices_or_sections " << ShapeToString(idx)
                       << " must be positive and strictly increasing";
}

Type SplitRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  Attrs checked = attrs;
  CheckSplitAttr(checked);
  int axis = NormalizeAxis(attrs.GetInt("axis"), t->ndim());
  int64_t dim = t->shape[axis];
  const AttrValue& v = attrs.Get("indices_or_sections");
  std::vector<int64_t> sizes;
  if (v.is_int()) {
    int64_t n = v.AsInt();
    if (dim % n != 0)
      TS_THROW(kType) << "cannot split axis " << axis << " of shape " << ShapeToString(t->shape)
                      << " into " << n << " equal sections";
    sizes.assign(static_cast<size_t>(n), dim / n);
  } else {
    int64_t begin = 0;
    for (int64_t index : v.AsInts("indices_or_sections")) {
      if (index >= dim)
        TS_THROW(kType) << "split index " << index << " is not below the size " << dim
                        << " of axis " << axis << " (shape " << ShapeToString(t->shape) << ")";
      sizes.push_back(index - begin);
      begin = index;
    }
    sizes.push_back(dim - begin);
  }
  std::vector<Type> fields;
  for (int64_t size : sizes) {
    std::vector<int64_t> shape = t->shape;
    shape[axis] = size;
    fields.push_back(MakeTensorType(shape, t->dtype));
  }
  return MakeTupleType(fields);
}

std::vector<NDArray> SplitKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                 const Type& out_type) {
  const NDArray& x = in[0];
  int axis = NormalizeAxis(attrs.GetInt("axis"), x.ndim());
  const size_t bytes = static_cast<size_t>(DTypeBytes(x.dtype()));
  int64_t outer, in_row;
  OuterAndRow(x.shape(), axis, &outer, &in_row);
  const auto* from = static_cast<const uint8_t*>(x.data());
  std::vector<NDArray> outs;
  int64_t col = 0;
  for (const Type& field : out_type.as<TupleTypeNode>()->fields) {
    NDArray out = math::EmptyOf(field);
    int64_t o_outer, row;
    OuterAndRow(out.shape(), axis, &o_outer, &row);
    auto* to = static_cast<uint8_t*>(out.data());
    for (int64_t o = 0; o < outer && row > 0; ++o)
      std::memcpy(to + o * row * bytes, from + (o * in_row + col) * bytes, row * bytes);
    col += row;
    outs.push_back(out);
  }
  return outs;
}

OpDef TransformDef(const char* name, const char* description) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.inputs = {"data"};
  def.pattern = OpPatternKind::kInjective;
  return def;
}

}  // namespace

void RegisterTransformOps(OpRegistry& registry) {
  OpDef reshape =
      TransformDef("reshape", "the same elements in a new shape (Relay special values)");
  reshape.attrs = {
      {"newshape", AttrType::kIntArray, AttrValue(),
       "new shape; 0 copies, -1 infers, -2 copies the rest, -3 merges two, -4 splits one"},
      {"allowzero", AttrType::kBool, false, "treat 0 as a literal size instead of copying"},
  };
  reshape.normalize = CheckNewShape;
  reshape.type_rel = ReshapeRel;
  reshape.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return CopyAs(in[0], out_type);
  };
  registry.Register(std::move(reshape));

  OpDef transpose = TransformDef("transpose", "permutes the axes (None reverses them)");
  transpose.attrs = {
      {"axes", AttrType::kOptionalIntArray, AttrValue(), "output axis i is input axis axes[i]"}};
  transpose.type_rel = TransposeRel;
  transpose.kernel = TransposeKernel;
  registry.Register(std::move(transpose));

  OpDef squeeze = TransformDef("squeeze", "removes axes of size 1");
  squeeze.attrs = {
      {"axis", AttrType::kOptionalIntArray, AttrValue(), "axes to remove; None removes all 1s"}};
  squeeze.type_rel = SqueezeRel;
  squeeze.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return CopyAs(in[0], out_type);
  };
  registry.Register(std::move(squeeze));

  OpDef expand = TransformDef("expand_dims", "inserts num_newaxis axes of size 1 at axis");
  expand.attrs = {{"axis", AttrType::kInt, AttrValue(), "position of the new axes"},
                  {"num_newaxis", AttrType::kInt, 1, "number of axes to insert"}};
  expand.normalize = [](Attrs& attrs) {
    if (attrs.GetInt("num_newaxis") < 0)
      TS_THROW(kValue) << "num_newaxis " << attrs.GetInt("num_newaxis") << " must not be negative";
  };
  expand.type_rel = ExpandDimsRel;
  expand.kernel = [](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return CopyAs(in[0], out_type);
  };
  registry.Register(std::move(expand));

  OpDef concat = TransformDef("concatenate", "joins a tuple of tensors along axis");
  concat.attrs = {{"axis", AttrType::kInt, 0, "the axis to join along"}};
  concat.type_rel = ConcatenateRel;
  concat.kernel = ConcatenateKernel;
  registry.Register(std::move(concat));

  OpDef split = TransformDef("split", "splits along axis into equal sections or at indices");
  split.attrs = {{"indices_or_sections", AttrType::kIntOrIntArray, AttrValue(),
                  "a count of equal sections, or the ascending split indices"},
                 {"axis", AttrType::kInt, 0, "the axis to split"}};
  split.normalize = CheckSplitAttr;
  split.type_rel = SplitRel;
  split.kernel = SplitKernel;
  registry.Register(std::move(split));

  RegisterSliceOps(registry);
  RegisterLayoutTransformOp(registry);
  RegisterCropOp(registry);
}

}  // namespace tessera::op_defs
