// Compute rules of 2-D pooling: max/avg (strides, dilation, padding, ceil_mode,
// count_include_pad) as an unrolled window over a padded copy (or a guarded reduction for
// dilated or large windows), global and adaptive pools as guarded reductions; NCHW{x}c
// pools run the blocked nest (a vector of channels per tap, schedule_pool_blocked.cc).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "compute_rules.h"
#include "lower_util.h"
#include "padded_copy.h"
#include "schedule_pool_blocked.h"
#include "tessera/op/layout_2d.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

namespace {

std::vector<int64_t> Pair(const Attrs& attrs, const char* key) {
  std::vector<int64_t> v = attrs.GetInts(key);
  if (v.size() == 1) v.push_back(v[0]);
  return v;
}

std::vector<int64_t> Padding4(const Attrs& attrs) {
  std::vector<int64_t> p = attrs.GetInts("padding");
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  return p;
}

PrimExpr Min(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kMin, a, b);
}
PrimExpr Max(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kMax, a, b);
}

/// Number of taps t in [0, k) with 0 <= start + t*d < limit, for start = o*s - pad.
PrimExpr TapCount(const PrimExpr& o, int64_t s, int64_t pad, int64_t d, int64_t k, int64_t limit) {
  PrimExpr start = Simplify(o * s + IntImm(-pad));
  PrimExpr neg = MakeBinary(BinaryOp::kSub, IntImm(0), start);
  PrimExpr lo = MakeSelect(MakeBinary(BinaryOp::kGE, start, IntImm(0)), IntImm(0),
                           Min(IntImm(k), FloorDiv(neg + IntImm(d - 1), IntImm(d))));
  PrimExpr last_ok = MakeBinary(BinaryOp::kSub, IntImm(limit - 1), start);
  PrimExpr hi = MakeSelect(MakeBinary(BinaryOp::kLT, last_ok, IntImm(0)), lo,
                           Max(lo, Min(IntImm(k), FloorDiv(last_ok, IntImm(d)) + IntImm(1))));
  return MakeBinary(BinaryOp::kSub, hi, lo);
}

/// The window of a pool read from a padded copy of the input: the input copied once
/// into a scratch buffer padded with `fill` and de-interleaved by the column stride,
/// pad[..., h, phase, q] = x[..., h - pad_top, q * s + phase - pad_left]. Tap (r0, r1)
/// of output (oh, ow) is then pad[..., oh*s + r0, r1 % s, ow + r1 / s]: no bounds check
/// and contiguous in ow, so the loop over ow vectorizes. Returns tap(i, r0, r1).
std::function<PrimExpr(const Indices&, int64_t, int64_t)> PaddedTaps(
    LowerContext& ctx, const TensorExpr& x, const std::vector<int64_t>& out_shape,
    const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
    const PrimExpr& fill, const std::string& name) {
  const int rank = static_cast<int>(x.shape.size());
  const int64_t in_h = x.shape[rank - 2], in_w = x.shape[rank - 1];
  const int64_t oh = out_shape[rank - 2], ow = out_shape[rank - 1];
  TensorExpr padded;
  padded.shape.assign(x.shape.begin(), x.shape.end() - 2);
  padded.shape.insert(padded.shape.end(), {(oh - 1) * s[0] + k[0], s[1], ow + (k[1] - 1) / s[1]});
  padded.dtype = x.dtype;
  padded.at = [=](const Indices& i) {
    PrimExpr h = Simplify(i[rank - 2] + IntImm(-p[0]));
    PrimExpr w = Simplify(i[rank] * s[1] + i[rank - 1] + IntImm(-p[1]));
    Indices xi(i.begin(), i.begin() + rank - 2);
    xi.push_back(Max(Min(h, IntImm(in_h - 1)), IntImm(0)));
    xi.push_back(Max(Min(w, IntImm(in_w - 1)), IntImm(0)));
    return MakeSelect(And(InRange(h, in_h), InRange(w, in_w)), x.at(xi), fill);
  };
  TensorExpr pad;
  if (rank == 4 && x.dtype == padded.dtype) {
    // NCHW: row copies without bounds checks.
    PadCopyShape copy{x.shape[0], x.shape[1], in_h, in_w, p[0], p[1], s[1]};
    // The padded copy writes every element (the input's or the fill).
    tir::Buffer buffer = ctx.AllocScratch(name, padded.shape, padded.dtype, /*zero_fill=*/false);
    ctx.Emit(
        PaddedRowsCopy(copy, x, buffer, padded.shape[2], padded.shape[4], PhasedPadIndex(), fill));
    pad = FromBuffer(buffer);
  } else {
    pad = ctx.Materialize(padded, name);
  }
  return [=](const Indices& i, int64_t r0, int64_t r1) {
    Indices pi(i.begin(), i.begin() + rank - 2);
    pi.push_back(Simplify(i[rank - 2] * s[0] + IntImm(r0)));
    pi.push_back(IntImm(r1 % s[1]));
    pi.push_back(Simplify(i[rank - 1] + IntImm(r1 / s[1])));
    return pad.at(pi);
  };
}

constexpr int64_t kMaxUnrolledTaps = 64;     // windows up to 8 x 8 become one expression
constexpr int64_t kMaxUnrolledColumns = 16;  // NCHW{x}c: window columns spelled out per row

ComputeRule Pool(bool is_max) {
  return [is_max](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                  const Type& out) {
    TensorExpr x = in[0];
    nn::DataLayout2D DL = nn::ParseDataLayout2D(attrs.GetString("layout"), "layout");
    const nn::Layout2D L = DL.axes;
    std::vector<int64_t> k = Pair(attrs, "pool_size"), s = Pair(attrs, "strides");
    std::vector<int64_t> d = Pair(attrs, "dilation"), p = Padding4(attrs);
    bool include_pad = !is_max && attrs.GetBool("count_include_pad");
    int64_t in_h = x.shape[L.h], in_w = x.shape[L.w];
    DType dt = x.dtype;
    const std::vector<int64_t>& out_shape = out.as<TensorTypeNode>()->shape;
    PrimExpr init = is_max ? Const(LowestValue(dt), dt) : Const(0, dt);
    std::function<PrimExpr(const PrimExpr&, const Indices&)> finalize;
    if (!is_max)
      finalize = [=](const PrimExpr& acc, const Indices& i) {
        PrimExpr ch, cw;
        if (include_pad) {
          // Taps inside the explicitly padded extent (not the ceil_mode overhang).
          ch = TapCount(i[L.h], s[0], 0, d[0], k[0], in_h + p[0] + p[2]);
          cw = TapCount(i[L.w], s[1], 0, d[1], k[1], in_w + p[1] + p[3]);
        } else {
          ch = TapCount(i[L.h], s[0], p[0], d[0], k[0], in_h);
          cw = TapCount(i[L.w], s[1], p[1], d[1], k[1], in_w);
        }
        PrimExpr count = Max(ch * cw, IntImm(1));
        return MakeBinary(BinaryOp::kDiv, acc, MakeCast(dt, count));
      };

    const int rank = static_cast<int>(x.shape.size());
    if (d[0] == 1 && d[1] == 1 && L.h == rank - 2 && L.w == rank - 1 &&
        k[0] * k[1] <= kMaxUnrolledTaps) {
      // Every tap of the window, unrolled into one expression over a padded copy (the
      // padding holds the init value, so it changes neither the max nor the sum; the
      // average divides by the count of real taps as before).
      auto tap =
          PaddedTaps(ctx, x, out_shape, k, s, p, init, is_max ? "max_pool_pad" : "avg_pool_pad");
      TensorExpr result;
      result.shape = out_shape;
      result.dtype = dt;
      result.at = [=](const Indices& i) {
        // From the init value in the reduction's order, so NaN taps and -0 give what
        // the reference reduction gives.
        PrimExpr acc = init;
        for (int64_t r0 = 0; r0 < k[0]; ++r0)
          for (int64_t r1 = 0; r1 < k[1]; ++r1) {
            PrimExpr v = tap(i, r0, r1);
            acc = is_max ? Max(acc, v) : acc + v;
          }
        return finalize ? finalize(acc, i) : acc;
      };
      return std::vector<TensorExpr>{result};
    }

    ReduceSpec spec;
    spec.shape = out_shape;
    spec.dtype = dt;
    spec.reduce_extents = {k[0], k[1]};
    spec.init = init;
    auto pos = [=](const Indices& i, const Indices& r) {
      return std::make_pair(Simplify(i[L.h] * s[0] + r[0] * d[0] + IntImm(-p[0])),
                            Simplify(i[L.w] * s[1] + r[1] * d[1] + IntImm(-p[1])));
    };
    spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
      auto [ih, iw] = pos(i, r);
      Indices xi = i;
      xi[L.h] = ih;
      xi[L.w] = iw;
      PrimExpr v = x.at(xi);
      return is_max ? Max(acc, v) : acc + v;
    };
    spec.predicate = [=](const Indices& i, const Indices& r) {
      auto [ih, iw] = pos(i, r);
      return And(InRange(ih, in_h), InRange(iw, in_w));
    };
    if (DL.blocked() && k[1] <= kMaxUnrolledColumns) {
      // NCHW{x}c: a vector of channels per tap, read from the input itself; the nest
      // applies the average's division (a spec with finalize would not use the nest).
      BlockedPoolDesc desc;
      desc.out_shape = out_shape;
      desc.is_max = is_max;
      desc.dtype = dt;
      desc.init = init;
      desc.kh = k[0];
      desc.kw = k[1];
      desc.sh = s[0];
      desc.sw = s[1];
      desc.dh = d[0];
      desc.dw = d[1];
      desc.pad_top = p[0];
      desc.pad_left = p[1];
      desc.finalize = finalize;
      spec.emit_nest = BlockedPoolTemplate(desc, x);
    } else {
      spec.finalize = finalize;
    }
    return std::vector<TensorExpr>{ctx.Reduce(spec, is_max ? "max_pool2d" : "avg_pool2d")};
  };
}

/// Adaptive windows [floor(o*in/out), ceil((o+1)*in/out)) as a reduction over the
/// largest window with a guard.
TensorExpr Adaptive(LowerContext& ctx, const TensorExpr& x, const nn::Layout2D& L, bool blocked,
                    const std::vector<int64_t>& out_shape, bool is_max, const char* name) {
  int64_t in_h = x.shape[L.h], in_w = x.shape[L.w];
  int64_t out_h = out_shape[L.h], out_w = out_shape[L.w];
  auto max_window = [](int64_t in_n, int64_t out_n) {
    int64_t m = 0;
    for (int64_t o = 0; o < out_n; ++o)
      m = std::max(m, ((o + 1) * in_n + out_n - 1) / out_n - o * in_n / out_n);
    return m;
  };
  auto lo = [](const PrimExpr& o, int64_t in_n, int64_t out_n) {
    return FloorDiv(o * in_n, IntImm(out_n));
  };
  auto hi = [](const PrimExpr& o, int64_t in_n, int64_t out_n) {
    return FloorDiv(o * in_n + IntImm(in_n + out_n - 1), IntImm(out_n));
  };
  DType dt = x.dtype;
  ReduceSpec spec;
  spec.shape = out_shape;
  spec.dtype = dt;
  spec.reduce_extents = {max_window(in_h, out_h), max_window(in_w, out_w)};
  spec.init = is_max ? Const(LowestValue(dt), dt) : Const(0, dt);
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
    Indices xi = i;
    xi[L.h] = Simplify(lo(i[L.h], in_h, out_h) + r[0]);
    xi[L.w] = Simplify(lo(i[L.w], in_w, out_w) + r[1]);
    PrimExpr v = x.at(xi);
    return is_max ? Max(acc, v) : acc + v;
  };
  spec.predicate = [=](const Indices& i, const Indices& r) {
    return And(MakeBinary(BinaryOp::kLT, Simplify(lo(i[L.h], in_h, out_h) + r[0]),
                          hi(i[L.h], in_h, out_h)),
               MakeBinary(BinaryOp::kLT, Simplify(lo(i[L.w], in_w, out_w) + r[1]),
                          hi(i[L.w], in_w, out_w)));
  };
  std::function<PrimExpr(const PrimExpr&, const Indices&)> finalize;
  if (!is_max)
    finalize = [=](const PrimExpr& acc, const Indices& i) {
      PrimExpr ch = MakeBinary(BinaryOp::kSub, hi(i[L.h], in_h, out_h), lo(i[L.h], in_h, out_h));
      PrimExpr cw = MakeBinary(BinaryOp::kSub, hi(i[L.w], in_w, out_w), lo(i[L.w], in_w, out_w));
      return MakeBinary(BinaryOp::kDiv, acc, MakeCast(dt, Max(ch * cw, IntImm(1))));
    };
  if (blocked) {
    // NCHW{x}c: a vector of channels accumulated over each window (the nest divides).
    BlockedPoolDesc desc;
    desc.out_shape = out_shape;
    desc.is_max = is_max;
    desc.dtype = dt;
    desc.init = spec.init;
    desc.adaptive = true;
    desc.finalize = finalize;
    spec.emit_nest = BlockedPoolTemplate(desc, x);
  } else {
    spec.finalize = finalize;
  }
  return ctx.Reduce(spec, name);
}

ComputeRule AdaptiveRule(bool is_max, const char* name) {
  return [is_max, name](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                        const Type& out) {
    auto DL = nn::ParseDataLayout2D(attrs.GetString("layout"), "layout");
    return std::vector<TensorExpr>{
        Adaptive(ctx, in[0], DL.axes, DL.blocked(), out.as<TensorTypeNode>()->shape, is_max, name)};
  };
}

}  // namespace

void RegisterNNPoolRules(ComputeRegistry& r) {
  r.Register("nn.max_pool2d", Pool(true));
  r.Register("nn.avg_pool2d", Pool(false));
  r.Register("nn.global_max_pool2d", AdaptiveRule(true, "global_max_pool2d"));
  r.Register("nn.global_avg_pool2d", AdaptiveRule(false, "global_avg_pool2d"));
  r.Register("nn.adaptive_avg_pool2d", AdaptiveRule(false, "adaptive_avg_pool2d"));
}

}  // namespace tessera::lower
