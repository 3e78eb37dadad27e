// The padded input copies as row copies (conv2d templates, pooling): stride-de-interleaved
// rows, or blocks of channels.
#include "padded_copy.h"

#include <algorithm>

#include "layout_indices.h"
#include "lower_util.h"

namespace tessera::lower {

using namespace tir;

PadIndex PhasedPadIndex() {
  return [](const PrimExpr& n, const PrimExpr& ch, const PrimExpr& h, int64_t phase,
            const PrimExpr& q) {
    return Indices{n, ch, h, IntImm(phase), q};
  };
}

PadIndex FlatPadIndex(int64_t wq) {
  return
      [wq](const PrimExpr& n, const PrimExpr& ch, const PrimExpr& h, int64_t, const PrimExpr& q) {
        return Indices{n, ch, Simplify(h * wq + q)};
      };
}

Stmt PaddedRowsCopy(const PadCopyShape& c, const TensorExpr& data, const Buffer& pad, int64_t rows,
                    int64_t wq, const PadIndex& at, const PrimExpr& fill) {
  const int64_t s = c.stride_w;
  tir::Var n_var = tir::MakeVar("n"), ch = tir::MakeVar("ch"), h = tir::MakeVar("h");
  // Batch 1 needs no batch loop: the channel loop alone is then the parallel loop, with
  // no division of a fused index in every address.
  PrimExpr n = c.n == 1 ? PrimExpr(IntImm(0)) : PrimExpr(n_var);
  auto fill_range = [&](int64_t phase, int64_t lo, int64_t hi) -> Stmt {
    tir::Var q = tir::MakeVar("q");
    return MakeFor(q, IntImm(lo), IntImm(hi - lo), ForKind::kVectorized,
                   MakeStore(pad, fill, at(n, ch, h, phase, q)));
  };
  std::vector<Stmt> row, blank;
  for (int64_t phase = 0; phase < s; ++phase) {
    // Input column q * s + phase - pad_left is in [0, iw) for q in [lo, hi).
    const int64_t first = c.pad_left - phase, last = c.iw - 1 + c.pad_left - phase;
    const int64_t lo = std::min(wq, first > 0 ? (first + s - 1) / s : 0);
    const int64_t hi = std::min(wq, std::max(lo, last >= 0 ? last / s + 1 : 0));
    if (lo > 0) row.push_back(fill_range(phase, 0, lo));
    if (hi > lo) {
      tir::Var q = tir::MakeVar("q");
      Indices di(4);
      di[c.layout_n] = n;
      di[c.layout_c] = ch;
      di[c.layout_h] = Simplify(h + IntImm(-c.pad_top));
      di[c.layout_w] = Simplify(q * s + IntImm(phase - c.pad_left));
      PrimExpr v = data.at(di);
      if (v->dtype != pad->dtype) v = MakeCast(pad->dtype, v);
      row.push_back(MakeFor(q, IntImm(lo), IntImm(hi - lo), ForKind::kVectorized,
                            MakeStore(pad, v, at(n, ch, h, phase, q))));
    }
    if (wq > hi) row.push_back(fill_range(phase, hi, wq));
    blank.push_back(fill_range(phase, 0, wq));
  }
  PrimExpr hh = Simplify(h + IntImm(-c.pad_top));
  Stmt body = MakeIfThenElse(InRange(hh, c.ih), MakeSeq(row), MakeSeq(blank));
  body = MakeFor(h, IntImm(0), IntImm(rows), ForKind::kSerial, body);
  body = MakeFor(ch, IntImm(0), IntImm(c.channels), ForKind::kSerial, body);
  return c.n == 1 ? body : MakeFor(n_var, IntImm(0), IntImm(c.n), ForKind::kSerial, body);
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
