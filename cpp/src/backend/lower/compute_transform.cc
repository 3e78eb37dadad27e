// Compute rules of the data-movement ops: pure index arithmetic, lazily composed.
#include <algorithm>
#include <numeric>
#include <optional>

#include "compute_rules.h"
#include "tessera/layout/index_map.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

namespace {

const TensorTypeNode* OutTensor(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  TS_ICHECK(tt) << "compute rule: expected a tensor result type";
  return tt;
}

int Axis(int64_t axis, size_t rank) {
  return static_cast<int>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

/// Row-major reindexing: out element i is the input element with the same flat index.
TensorExpr Reflat(const TensorExpr& x, std::vector<int64_t> out_shape) {
  std::vector<int64_t> in_shape = x.shape;
  return {out_shape, x.dtype, [x, in_shape, out_shape](const Indices& i) {
            if (in_shape == out_shape) return x.at(i);
            PrimExpr flat = IntImm(0);
            for (size_t d = 0; d < out_shape.size(); ++d) flat = flat * out_shape[d] + i[d];
            Indices idx(in_shape.size());
            for (size_t d = in_shape.size(); d-- > 0;) {
              idx[d] = Simplify(FloorMod(flat, IntImm(in_shape[d])));
              flat = FloorDiv(flat, IntImm(in_shape[d]));
            }
            return x.at(idx);
          }};
}

ComputeRule ReflatRule() {
  return [](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&, const Type& out) {
    return std::vector<TensorExpr>{Reflat(in[0], OutTensor(out)->shape)};
  };
}

std::vector<TensorExpr> Transpose(const std::vector<TensorExpr>& in, const Attrs& attrs,
                                  const Type& out) {
  TensorExpr x = in[0];
  size_t rank = x.shape.size();
  std::vector<int> perm(rank);
  const AttrValue& axes = attrs.Get("axes");
  if (axes.is_none()) {
    for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int>(rank - 1 - i);
  } else {
    std::vector<int64_t> a = axes.AsInts("axes");
    for (size_t i = 0; i < rank; ++i) perm[i] = Axis(a[i], rank);
  }
  return {{OutTensor(out)->shape, x.dtype, [x, perm](const Indices& i) {
             Indices idx(perm.size());
             for (size_t d = 0; d < perm.size(); ++d) idx[perm[d]] = i[d];
             return x.at(idx);
           }}};
}

std::vector<TensorExpr> Concatenate(const std::vector<TensorExpr>& in, const Attrs& attrs,
                                    const Type& out) {
  const auto* ot = OutTensor(out);
  int axis = Axis(attrs.GetInt("axis"), ot->shape.size());
  std::vector<TensorExpr> parts = in;
  return {{ot->shape, ot->dtype, [parts, axis](const Indices& i) {
             // Select from the last part backwards so the first matching part wins.
             std::vector<int64_t> offsets;
             int64_t off = 0;
             for (const TensorExpr& p : parts) {
               offsets.push_back(off);
               off += p.shape[axis];
             }
             PrimExpr result;
             for (size_t k = parts.size(); k-- > 0;) {
               if (parts[k].shape[axis] == 0) continue;
               Indices idx = i;
               // Clamped: a Select may evaluate both sides, so no part is read out of range.
               idx[axis] = MakeBinary(
                   BinaryOp::kMin,
                   MakeBinary(BinaryOp::kMax, Simplify(i[axis] + IntImm(-offsets[k])), IntImm(0)),
                   IntImm(parts[k].shape[axis] - 1));
               PrimExpr v = parts[k].at(idx);
               result = result.defined()
                            ? MakeSelect(MakeBinary(BinaryOp::kLT, i[axis],
                                                    IntImm(offsets[k] + parts[k].shape[axis])),
                                         v, result)
                            : v;
             }
             return result;
           }}};
}

std::vector<TensorExpr> Split(const std::vector<TensorExpr>& in, const Attrs& attrs,
                              const Type& out) {
  TensorExpr x = in[0];
  int axis = Axis(attrs.GetInt("axis"), x.shape.size());
  std::vector<TensorExpr> results;
  int64_t off = 0;
  for (const Type& field : out.as<TupleTypeNode>()->fields) {
    const auto* ft = OutTensor(field);
    results.push_back({ft->shape, ft->dtype, [x, axis, off](const Indices& i) {
                         Indices idx = i;
                         idx[axis] = Simplify(i[axis] + IntImm(off));
                         return x.at(idx);
                       }});
    off += ft->shape[axis];
  }
  return results;
}

/// strided_slice canonicalisation, as in the reference kernel (transform_slice.cc).
struct AxisSlice {
  int64_t begin = 0, step = 1;
};

AxisSlice SliceAxis(int64_t dim, std::optional<int64_t> b, int64_t step, bool size_mode) {
  auto clamp = [](int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); };
  if (size_mode) return {b ? clamp(*b < 0 ? *b + dim : *b, 0, dim) : 0, 1};
  if (step > 0) return {b ? clamp(*b < 0 ? *b + dim : *b, 0, dim) : 0, step};
  return {b ? clamp(*b < 0 ? *b + dim : *b, -1, dim - 1) : dim - 1, step};
}

std::vector<TensorExpr> StridedSlice(const std::vector<TensorExpr>& in, const Attrs& attrs,
                                     const Type& out) {
  TensorExpr x = in[0];
  size_t rank = x.shape.size();
  std::vector<int64_t> begin = attrs.GetInts("begin"), end = attrs.GetInts("end");
  std::vector<int64_t> strides;
  if (!attrs.Get("strides").is_none()) strides = attrs.GetInts("strides");
  bool size_mode = attrs.GetString("slice_mode") == "size";
  std::vector<int> axes;
  if (!attrs.Get("axes").is_none()) {
    for (int64_t a : attrs.GetInts("axes")) axes.push_back(Axis(a, rank));
  } else {
    axes.resize(std::max({begin.size(), end.size(), strides.size()}));
    std::iota(axes.begin(), axes.end(), 0);
  }
  std::vector<AxisSlice> slices(rank);
  for (size_t k = 0; k < axes.size(); ++k) {
    std::optional<int64_t> b = k < begin.size() ? std::optional<int64_t>(begin[k]) : std::nullopt;
    int64_t step = k < strides.size() ? strides[k] : 1;
    slices[axes[k]] = SliceAxis(x.shape[axes[k]], b, step, size_mode);
  }
  return {{OutTensor(out)->shape, x.dtype, [x, slices](const Indices& i) {
             Indices idx(i.size());
             for (size_t d = 0; d < i.size(); ++d)
               idx[d] = Simplify(i[d] * slices[d].step + IntImm(slices[d].begin));
             return x.at(idx);
           }}};
}

std::vector<TensorExpr> Take(const std::vector<TensorExpr>& in, const Attrs& attrs,
                             const Type& out) {
  TensorExpr data = in[0], indices = in[1];
  const auto* ot = OutTensor(out);
  std::string mode = attrs.GetString("mode");
  const AttrValue& axis_attr = attrs.Get("axis");
  bool flat = axis_attr.is_none();
  int axis = flat ? 0 : Axis(axis_attr.AsInt(), data.shape.size());
  int64_t bd = attrs.GetInt("batch_dims");
  size_t b = static_cast<size_t>(bd < 0 ? bd + static_cast<int64_t>(indices.shape.size()) : bd);
  int64_t n = 1;
  if (flat)
    for (int64_t s : data.shape) n *= s;
  else
    n = data.shape[axis];
  TensorExpr flat_data = flat ? Reflat(data, {n}) : data;
  size_t ind_rank = indices.shape.size();
  return {{ot->shape, ot->dtype, [=](const Indices& i) {
             Indices ii;
             if (flat) {
               ii = i;
             } else {
               for (size_t d = 0; d < b; ++d) ii.push_back(i[d]);
               for (size_t d = b; d < ind_rank; ++d) ii.push_back(i[axis + d - b]);
             }
             PrimExpr k = indices.at(ii);
             if (k->dtype != DType::kInt32) k = MakeCast(DType::kInt32, k);
             PrimExpr nn = IntImm(n);
             if (mode == "clip")
               k = MakeBinary(BinaryOp::kMin, MakeBinary(BinaryOp::kMax, k, IntImm(0)),
                              IntImm(n - 1));
             else if (mode == "wrap")
               k = FloorMod(k, nn);
             if (flat) return flat_data.at({k});
             Indices idx;
             for (int d = 0; d < axis; ++d) idx.push_back(i[d]);
             idx.push_back(k);
             size_t after = axis + (ind_rank - b);
             for (size_t d = axis + 1; d < data.shape.size(); ++d)
               idx.push_back(i[after + d - axis - 1]);
             return flat_data.at(idx);
           }}};
}

std::vector<TensorExpr> Pad(const std::vector<TensorExpr>& in, const Attrs& attrs,
                            const Type& out) {
  TensorExpr x = in[0], value = in[1];
  std::vector<std::pair<int64_t, int64_t>> widths;
  for (const AttrValue& pair : attrs.Get("pad_width").AsArray()) {
    std::vector<int64_t> w = pair.AsInts("pad_width");
    widths.push_back({w[0], w[1]});
  }
  std::string mode = attrs.GetString("pad_mode");
  const auto* ot = OutTensor(out);
  return {{ot->shape, ot->dtype, [=](const Indices& i) {
             Indices idx;
             PrimExpr inside;
             for (size_t d = 0; d < i.size(); ++d) {
               int64_t n = x.shape[d], before = widths[d].first;
               PrimExpr j = Simplify(i[d] + IntImm(-before));
               if (before == 0 && widths[d].second == 0) {
                 idx.push_back(i[d]);
                 continue;
               }
               if (mode == "constant") {
                 PrimExpr ok = MakeBinary(BinaryOp::kAnd, MakeBinary(BinaryOp::kGE, j, IntImm(0)),
                                          MakeBinary(BinaryOp::kLT, j, IntImm(n)));
                 inside = inside.defined() ? MakeBinary(BinaryOp::kAnd, inside, ok) : ok;
                 // Clamped: the Select below may evaluate the load outside too.
                 idx.push_back(MakeBinary(BinaryOp::kMin, MakeBinary(BinaryOp::kMax, j, IntImm(0)),
                                          IntImm(n - 1)));
               } else if (mode == "edge") {
                 idx.push_back(MakeBinary(BinaryOp::kMin, MakeBinary(BinaryOp::kMax, j, IntImm(0)),
                                          IntImm(n - 1)));
               } else {
                 PrimExpr neg = MakeBinary(BinaryOp::kSub, IntImm(0), j);
                 PrimExpr hi = MakeBinary(BinaryOp::kSub, IntImm(2 * (n - 1)), j);
                 idx.push_back(
                     MakeSelect(MakeBinary(BinaryOp::kLT, j, IntImm(0)), neg,
                                MakeSelect(MakeBinary(BinaryOp::kGE, j, IntImm(n)), hi, j)));
               }
             }
             PrimExpr v = x.at(idx);
             if (!inside.defined()) return v;
             PrimExpr fill = value.at({});
             if (fill->dtype != v->dtype) fill = MakeCast(v->dtype, fill);
             return MakeSelect(inside, v, fill);
           }}};
}

/// `expr` with every variable of `from` replaced by the expression at its position in `to`.
PrimExpr SubstituteVars(const PrimExpr& expr, const std::vector<tir::Var>& from,
                        const Indices& to) {
  if (auto* v = expr.as<tir::VarNode>()) {
    for (size_t k = 0; k < from.size(); ++k)
      if (from[k].get() == v) return to[k];
    return expr;
  }
  std::vector<PrimExpr> children = PrimExprChildren(expr);
  for (PrimExpr& c : children) c = SubstituteVars(c, from, to);
  return WithChildren(expr, children);
}

/// out[o] = data[inverse(o)], or pad_value where o is padding (no select for a bijection).
std::vector<TensorExpr> LayoutTransform(const std::vector<TensorExpr>& in, const Attrs& attrs,
                                        const Type& out) {
  TensorExpr x = in[0];
  layout::IndexMap map = layout::IndexMap::Parse(attrs.GetString("index_map"));
  layout::IndexMap::InverseResult inv = map.NonSurjectiveInverse(x.shape);
  bool pads = !map.IsBijective(x.shape);
  const AttrValue& pad = attrs.Get("pad_value");
  PrimExpr fill = Const(pad.is_none() ? 0.0 : pad.AsFloat(), x.dtype);
  return {{OutTensor(out)->shape, x.dtype, [=](const Indices& o) {
             std::vector<PrimExpr> idx = inv.inverse.MapIndices(o);
             if (!pads) return x.at(idx);
             // Clamped: the Select may evaluate the load at padding positions too.
             for (size_t d = 0; d < idx.size(); ++d)
               idx[d] = MakeBinary(BinaryOp::kMin, MakeBinary(BinaryOp::kMax, idx[d], IntImm(0)),
                                   IntImm(x.shape[d] - 1));
             PrimExpr padding =
                 Simplify(SubstituteVars(inv.padding_predicate, inv.inverse.initial_indices(), o));
             return MakeSelect(padding, fill, x.at(idx));
           }}};
}

std::vector<TensorExpr> Crop(const std::vector<TensorExpr>& in, const Attrs& attrs,
                             const Type& out) {
  TensorExpr x = in[0];
  std::vector<int64_t> begin = attrs.GetInts("begin");
  return {{OutTensor(out)->shape, x.dtype, [x, begin](const Indices& i) {
             Indices idx(i.size());
             for (size_t d = 0; d < i.size(); ++d)
               idx[d] = begin[d] ? Simplify(i[d] + IntImm(begin[d])) : i[d];
             return x.at(idx);
           }}};
}

template <typename F>
ComputeRule Simple(F f) {
  return [f](LowerContext&, const std::vector<TensorExpr>& in, const Attrs& attrs,
             const Type& out) { return f(in, attrs, out); };
}

}  // namespace

void RegisterTransformRules(ComputeRegistry& r) {
  for (const char* name : {"reshape", "squeeze", "expand_dims", "nn.batch_flatten"})
    r.Register(name, ReflatRule());
  r.Register("transpose", Simple(Transpose));
  r.Register("concatenate", Simple(Concatenate));
  r.Register("split", Simple(Split));
  r.Register("strided_slice", Simple(StridedSlice));
  r.Register("take", Simple(Take));
  r.Register("nn.pad", Simple(Pad));
  r.Register("layout_transform", Simple(LayoutTransform));
  r.Register("crop", Simple(Crop));
}

}  // namespace tessera::lower
