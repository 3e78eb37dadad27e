// Pooling of channel-blocked NCHW{x}c tensors: each output pixel's x channels are one
// vector accumulated in a register over the window's taps, read straight from the input.
// Fixed windows leave out taps in the padding statically at the border columns and by a
// branch per window row elsewhere (no per-tap selects, no padded copy); adaptive and global
// windows loop over their bounds.
#include "schedule_pool_blocked.h"

#include "lower_util.h"

namespace tessera::lower {

using namespace tir;

namespace {

struct PoolBuilder {
  LowerContext& ctx;
  const BlockedPoolDesc& d;
  const TensorExpr& x;
  const Buffer& dest;
  const std::function<PrimExpr(const Indices&)>& epilogue;
  int64_t in_h, in_w, lanes;

  /// acc[:] = acc[:] op x[n, cb, h, w, :].
  Stmt Accumulate(const Buffer& acc, const PrimExpr& n, const PrimExpr& cb, const PrimExpr& h,
                  const PrimExpr& w) {
    tir::Var j = tir::MakeVar("j");
    PrimExpr v = x.at({n, cb, h, w, j});
    if (v->dtype != d.dtype) v = MakeCast(d.dtype, v);
    PrimExpr a = MakeLoad(acc, {j});
    PrimExpr r = d.is_max ? MakeBinary(BinaryOp::kMax, a, v) : a + v;
    return MakeFor(j, IntImm(0), IntImm(lanes), ForKind::kVectorized, MakeStore(acc, r, {j}));
  }

  /// One output pixel: init, accumulate `taps`, store (finalized) with the epilogue.
  Stmt Pixel(const PrimExpr& n, const PrimExpr& cb, const PrimExpr& oh, const PrimExpr& ow,
             const std::function<Stmt(const Buffer& acc)>& taps) {
    Buffer acc = MakeBuffer(ctx.FreshName("pool_acc"), {lanes}, d.dtype);
    tir::Var j0 = tir::MakeVar("j"), j1 = tir::MakeVar("j");
    Stmt init =
        MakeFor(j0, IntImm(0), IntImm(lanes), ForKind::kVectorized, MakeStore(acc, d.init, {j0}));
    Indices oi{n, cb, oh, ow, j1};
    PrimExpr v = MakeLoad(acc, {j1});
    if (d.finalize) v = d.finalize(v, oi);
    std::vector<Stmt> st{MakeStore(dest, v, oi)};
    if (epilogue) {
      PrimExpr e = epilogue(oi);
      if (e->dtype != dest->dtype) e = MakeCast(dest->dtype, e);
      st.push_back(MakeStore(dest, e, oi));
    }
    Stmt store = MakeFor(j1, IntImm(0), IntImm(lanes), ForKind::kVectorized, MakeSeq(st));
    return MakeAllocate(acc, MakeSeq({init, taps(acc), store}));
  }

  /// Fixed windows of output row oh: border columns (their taps known) one by one, the
  /// columns whose taps are all inside the input in a loop; rows of the window outside the
  /// input are skipped by one branch each.
  Stmt FixedRow(const PrimExpr& n, const PrimExpr& cb, const PrimExpr& oh) {
    const int64_t ow_n = d.out_shape[3];
    auto col_inside = [&](int64_t ow, int64_t kw) {
      int64_t w = ow * d.sw + kw * d.dw - d.pad_left;
      return w >= 0 && w < in_w;
    };
    auto all_inside = [&](int64_t ow) {
      for (int64_t kw = 0; kw < d.kw; ++kw)
        if (!col_inside(ow, kw)) return false;
      return true;
    };
    // Whether some output row's window leaves the input (padding, ceil_mode).
    const int64_t oh_n = d.out_shape[2];
    const bool rows_leave =
        d.pad_top > 0 || (oh_n - 1) * d.sh + (d.kh - 1) * d.dh - d.pad_top > in_h - 1;
    auto pixel = [&](const PrimExpr& ow, int64_t fixed_ow) {
      return Pixel(n, cb, oh, ow, [&](const Buffer& acc) {
        tir::Var kh = tir::MakeVar("kh");
        PrimExpr h = Simplify(oh * d.sh + kh * d.dh + IntImm(-d.pad_top));
        std::vector<Stmt> row;
        for (int64_t kw = 0; kw < d.kw; ++kw) {
          if (fixed_ow >= 0 && !col_inside(fixed_ow, kw)) continue;
          PrimExpr w = Simplify(ow * d.sw + IntImm(kw * d.dw - d.pad_left));
          row.push_back(Accumulate(acc, n, cb, h, w));
        }
        Stmt body = MakeSeq(row);
        if (rows_leave) body = MakeIfThenElse(InRange(h, in_h), body);
        return MakeFor(kh, IntImm(0), IntImm(d.kh), ForKind::kSerial, body);
      });
    };
    int64_t lo = 0, hi = ow_n;
    while (lo < hi && !all_inside(lo)) ++lo;
    while (hi > lo && !all_inside(hi - 1)) --hi;
    std::vector<Stmt> seq;
    for (int64_t ow = 0; ow < lo; ++ow) seq.push_back(pixel(IntImm(ow), ow));
    if (hi > lo) {
      tir::Var ow = tir::MakeVar("ow");
      seq.push_back(MakeFor(ow, IntImm(lo), IntImm(hi - lo), ForKind::kSerial, pixel(ow, -1)));
    }
    for (int64_t ow = hi; ow < ow_n; ++ow) seq.push_back(pixel(IntImm(ow), ow));
    return MakeSeq(seq);
  }

  /// Adaptive windows of output row oh: rows [floor(oh * H / OH), ceil((oh + 1) * H / OH)),
  /// columns likewise.
  Stmt AdaptiveRow(const PrimExpr& n, const PrimExpr& cb, const PrimExpr& oh) {
    const int64_t oh_n = d.out_shape[2], ow_n = d.out_shape[3];
    auto lo = [](const PrimExpr& o, int64_t in, int64_t out) { return Div(o * in, out); };
    auto hi = [](const PrimExpr& o, int64_t in, int64_t out) {
      return Div(o * in + IntImm(in + out - 1), out);
    };
    tir::Var ow = tir::MakeVar("ow");
    Stmt pixel = Pixel(n, cb, oh, ow, [&](const Buffer& acc) {
      tir::Var h = tir::MakeVar("h"), w = tir::MakeVar("w");
      PrimExpr h0 = Simplify(lo(oh, in_h, oh_n)), w0 = Simplify(lo(ow, in_w, ow_n));
      PrimExpr hn = Simplify(hi(oh, in_h, oh_n) - h0), wn = Simplify(hi(ow, in_w, ow_n) - w0);
      return MakeFor(h, h0, hn, ForKind::kSerial,
                     MakeFor(w, w0, wn, ForKind::kSerial, Accumulate(acc, n, cb, h, w)));
    });
    return MakeFor(ow, IntImm(0), IntImm(ow_n), ForKind::kSerial, pixel);
  }
};

}  // namespace

NestEmitter BlockedPoolTemplate(const BlockedPoolDesc& desc, const TensorExpr& input) {
  if (desc.out_shape.size() != 5 || input.shape.size() != 5) return nullptr;
  return [desc, input](LowerContext& ctx, const Buffer& dest,
                       const std::function<PrimExpr(const Indices&)>& epilogue) -> Stmt {
    // An inlined producer would be recomputed for every window that covers it.
    TensorExpr x = input.depth > 0 ? ctx.Materialize(input, "pool_in") : input;
    PoolBuilder b{ctx, desc, x, dest, epilogue, x.shape[2], x.shape[3], x.shape[4]};
    const std::vector<int64_t>& o = desc.out_shape;
    // Parallel over (image, channel block, output row).
    const int64_t rows = o[1] * o[2], work = o[0] * rows;
    tir::Var f = tir::MakeVar("f");
    PrimExpr n = o[0] == 1 ? IntImm(0) : Div(f, rows);
    PrimExpr rest = o[0] == 1 ? PrimExpr(f) : Mod(f, rows);
    PrimExpr cb = Div(rest, o[2]), oh = Mod(rest, o[2]);
    Stmt body = desc.adaptive ? b.AdaptiveRow(n, cb, oh) : b.FixedRow(n, cb, oh);
    return MakeFor(f, IntImm(0), IntImm(work), work > 1 ? ForKind::kParallel : ForKind::kSerial,
                   body);
  };
}

}  // namespace tessera::lower
