// Tensor-IR indices of logical image and weight elements in plain and blocked 2-D layouts.
#include "layout_indices.h"

namespace tessera::lower {

using namespace tir;

Indices DataIndices(const nn::DataLayout2D& l, const PrimExpr& n, const PrimExpr& c,
                    const PrimExpr& h, const PrimExpr& w) {
  Indices idx(l.rank());
  idx[l.axes.n] = n;
  idx[l.axes.h] = h;
  idx[l.axes.w] = w;
  if (l.blocked()) {
    idx[l.axes.c] = Simplify(FloorDiv(c, IntImm(l.c_block)));
    idx[4] = Simplify(FloorMod(c, IntImm(l.c_block)));
  } else {
    idx[l.axes.c] = c;
  }
  return idx;
}

Indices KernelIndices(const nn::KernelLayout2D& l, const PrimExpr& o, const PrimExpr& i,
                      const PrimExpr& kh, const PrimExpr& kw) {
  Indices idx(l.rank());
  idx[l.perm[2]] = kh;
  idx[l.perm[3]] = kw;
  if (l.blocked()) {
    idx[l.perm[0]] = Simplify(FloorDiv(o, IntImm(l.o_block)));
    idx[l.perm[1]] = Simplify(FloorDiv(i, IntImm(l.i_block)));
    idx[4] = Simplify(FloorMod(i, IntImm(l.i_block)));
    idx[5] = Simplify(FloorMod(o, IntImm(l.o_block)));
  } else {
    idx[l.perm[0]] = o;
    idx[l.perm[1]] = i;
  }
  return idx;
}

PrimExpr LogicalChannel(const nn::DataLayout2D& l, const Indices& i) {
  if (!l.blocked()) return i[l.axes.c];
  return Simplify(i[l.axes.c] * l.c_block + i[4]);
}

}  // namespace tessera::lower
