// The helpers shared by the channel-blocked conv2d templates (see conv_blocked_util.h).
#include "conv_blocked_util.h"

#include "layout_indices.h"
#include "lower_util.h"

namespace tessera::lower {

using namespace tir;

PrimExpr Div(const PrimExpr& a, int64_t b) {
  return b == 1 ? a : MakeBinary(BinaryOp::kDiv, a, IntImm(b));
}
PrimExpr Mod(const PrimExpr& a, int64_t b) {
  return b == 1 ? IntImm(0) : Simplify(a - Div(a, b) * IntImm(b));
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

float ConstantWeight::At(int64_t o, int64_t i, int64_t kh, int64_t kw) const {
  const int64_t ib = l.blocked() ? l.i_block : 1, ob = l.blocked() ? l.o_block : 1;
  int64_t off = o / ob * strides[l.perm[0]] + i / ib * strides[l.perm[1]] +
                kh * strides[l.perm[2]] + kw * strides[l.perm[3]];
  if (l.blocked()) off += i % ib * strides[4] + o % ob * strides[5];
  return data[off];
}

Stmt PaddedCopy(const Conv2DShape& c, const TensorExpr& data, const nn::DataLayout2D& dl,
                const Buffer& pad, int64_t py) {
  const int64_t hp = pad->shape[2], wp = pad->shape[3];
  tir::Var n = tir::MakeVar("n"), cb = tir::MakeVar("cb"), h = tir::MakeVar("h");
  PrimExpr zero = FloatImm(0.0, DType::kFloat32);
  auto value = [&](const PrimExpr& w, const PrimExpr& l) {
    PrimExpr hh = Simplify(h + IntImm(-c.pad_top));
    PrimExpr v = dl.blocked() && dl.c_block == py
                     ? data.at({n, cb, hh, w, l})
                     : data.at(DataIndices(dl, n, Simplify(cb * py + l), hh, w));
    return v->dtype == DType::kFloat32 ? v : MakeCast(DType::kFloat32, v);
  };
  // Columns [lo, lo + len) of the padded row: the input's, or zeros.
  auto run = [&](int64_t lo, int64_t len, bool copy) -> Stmt {
    tir::Var w = tir::MakeVar("w"), l = tir::MakeVar("l");
    PrimExpr pw = Simplify(w + IntImm(lo));
    if (py == 1) {
      PrimExpr v = copy ? value(Simplify(pw + IntImm(-c.pad_left)), IntImm(0)) : zero;
      return MakeFor(w, IntImm(0), IntImm(len), ForKind::kVectorized,
                     MakeStore(pad, v, {n, cb, h, pw, IntImm(0)}));
    }
    PrimExpr v = copy ? value(Simplify(pw + IntImm(-c.pad_left)), l) : zero;
    return MakeFor(w, IntImm(0), IntImm(len), ForKind::kSerial,
                   MakeFor(l, IntImm(0), IntImm(py), ForKind::kVectorized,
                           MakeStore(pad, v, {n, cb, h, pw, l})));
  };
  std::vector<Stmt> row;
  if (c.pad_left > 0) row.push_back(run(0, c.pad_left, false));
  row.push_back(run(c.pad_left, c.iw, true));
  if (wp > c.pad_left + c.iw) row.push_back(run(c.pad_left + c.iw, wp - c.pad_left - c.iw, false));
  Stmt body = MakeIfThenElse(InRange(Simplify(h + IntImm(-c.pad_top)), c.ih), MakeSeq(row),
                             run(0, wp, false));
  body = MakeFor(h, IntImm(0), IntImm(hp), ForKind::kSerial, body);
  body = MakeFor(cb, IntImm(0), IntImm(pad->shape[1]), ForKind::kSerial, body);
  return MakeFor(n, IntImm(0), IntImm(c.n), ForKind::kSerial, body);
}

}  // namespace tessera::lower
