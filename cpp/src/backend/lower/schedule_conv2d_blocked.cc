// The NCHWc direct convolution (oneDNN / TVM x86 style) for channel-blocked outputs: per
// (image, block of output channels, band of output rows), register tiles of rows x columns
// x TC output channels accumulate over (input channel, kh, kw), each step broadcasting one
// input value and multiply-adding a vector of TC weights; depthwise convolutions multiply a
// vector of TC input channels instead. Padding costs no bounds checks: tiles inside the
// input run plain loops; one-row tiles loop over the taps inside the input, a range
// computed per row at run time; the tiles touching the padding at the left and right (or
// of taller tiles, at the top and bottom) loop over the taps that reach the same pixels
// (rows of taps in runs, columns one by one), leaving the out-of-range pixels out (as
// oneDNN's JIT does); depthwise tiles are spelled out tap by tap, and only large windows
// read a zero-padded copy.
// Weights are packed per tile, at compile time when they are constant.
#include "schedule_conv2d_blocked.h"

#include <algorithm>

#include "conv_blocked_util.h"
#include "layout_indices.h"
#include "lower_util.h"
#include "padded_copy.h"
#include "tessera/support/host_cpu.h"

namespace tessera::lower {

using namespace tir;

namespace {

/// Multiply-adds a depthwise tile spells out (one per tap, pixel and vector of channels);
/// dense windows with more taps x tile pixels read a zero-padded copy of the input.
constexpr int64_t kMaxSpelledTaps = 400;

/// Groups of output rows the parallel loop takes first (see the nest below): two, the
/// threads of this project's machine; with more threads each group splits by blocks.
constexpr int64_t kRowGroups = 2;

/// One register tile: `rows` x `cols` output pixels of `channels` output channels.
struct Tile {
  int64_t channels, rows, cols;
};

/// The tile for this CPU: TC output channels (two vectors, as oneDNN's AVX-512 kernels
/// use, so each broadcast feeds two FMAs), then as many pixels as leave registers for the
/// weights and the broadcast (32 zmm: 28 accumulators; 16 ymm: 12), spread evenly over the
/// row so no tile is much narrower than the others; rows are added when one row does not
/// fill the registers (7 x 7 outputs). Depthwise tiles keep one vector of channels (each
/// FMA reads its own input vector) and fewer pixels (they are spelled out whole; their
/// speed, bound by memory, hardly depends on the tile: 12 to 28 pixels measured within 3%).
Tile ChooseTile(const Conv2DShape& c, int64_t out_block, bool depthwise) {
  const int64_t lanes = HostSimdBytes() / 4;
  const int64_t max_acc =
      depthwise ? std::max<int64_t>(
                      4, std::min<int64_t>(lanes >= 16 ? 16 : 8, kMaxSpelledTaps / (c.kh * c.kw)))
                : (lanes >= 16 ? 28 : 12);
  int64_t tc = 0;
  for (int64_t cand : {2 * lanes, lanes}) {
    if (depthwise && cand > lanes) continue;
    if (c.oc % cand == 0 && (cand % out_block == 0 || out_block % cand == 0)) {
      tc = cand;
      break;
    }
  }
  if (tc == 0) tc = out_block;  // divides the channels (the type relation checked it)
  const int64_t vecs = (tc + lanes - 1) / lanes;
  const int64_t max_cols = std::max<int64_t>(1, max_acc / vecs);
  const int64_t col_tiles = (c.ow + max_cols - 1) / max_cols;
  const int64_t cols = (c.ow + col_tiles - 1) / col_tiles;
  const int64_t max_rows = std::max<int64_t>(1, max_acc / (vecs * cols));
  const int64_t row_tiles = (c.oh + max_rows - 1) / max_rows;
  return {tc, (c.oh + row_tiles - 1) / row_tiles, cols};
}

/// The output rows or columns one tile covers: the first as an expression, how many, and
/// the first as a constant when the tile reaches into the padding (-1 when every tap of
/// the tile is inside the input, so it runs plain loops). `dynamic`: one row, anywhere
/// (border or not), whose taps inside the input are a range computed at run time.
struct Span {
  PrimExpr start;
  int64_t count;
  int64_t fixed;
  bool dynamic = false;
};

/// Emits the nest of one convolution (the state shared by its parts).
struct Builder {
  LowerContext& ctx;
  const Conv2DShape& c;
  const TensorExpr& data;
  const nn::DataLayout2D& dl;
  const Buffer& dest;
  const std::function<PrimExpr(const Indices&)>& epilogue;
  Tile tile{};
  bool depthwise = false;
  int64_t z = 0;     // the output's channel block
  int64_t py = 0;    // input channels per block of the input the tiles read
  bool copy = false;  // the tiles read a zero-padded copy (else the data, skipping padding)
  Buffer pad{};      // the copy, when made
  Buffer wpk{};      // packed weights
  PrimExpr n{};      // the image
  PrimExpr ocb{};    // the tile's block of output channels
  // Input-channel chunks: the reduction runs chunk by chunk over every band, partial sums
  // kept in the output between chunks (chunks == 1: one pass, no partial sums).
  int64_t chunks = 1, chunk_blocks = 0;
  PrimExpr chunk{};  // the current chunk (chunks > 1)

  /// Input value (n, channel block cb, lane l) at row h, column w of what the tiles read.
  PrimExpr Input(const PrimExpr& cb, const PrimExpr& h, const PrimExpr& w, const PrimExpr& l) {
    if (copy) return MakeLoad(pad, {n, cb, h, w, l});
    return dl.blocked() ? data.at({n, cb, h, w, l}) : data.at({n, cb, h, w});
  }

  /// The input row of tile row r, tap kh (column of tile column t, tap kw).
  PrimExpr Row(const Span& rows, const PrimExpr& r, const PrimExpr& kh) {
    return Simplify((rows.start + r) * c.stride_h + kh + IntImm(copy ? 0 : -c.pad_top));
  }
  PrimExpr Col(const Span& cols, const PrimExpr& t, const PrimExpr& kw) {
    return Simplify((cols.start + t) * c.stride_w + kw + IntImm(copy ? 0 : -c.pad_left));
  }

  /// Whether tap (kh, kw) of tile pixel (r, t) reads the input (not the padding).
  bool TapInside(const Span& rows, int64_t r, int64_t kh, const Span& cols, int64_t t,
                 int64_t kw) const {
    if (copy) return true;
    if (rows.fixed >= 0) {
      int64_t h = (rows.fixed + r) * c.stride_h + kh - c.pad_top;
      if (h < 0 || h >= c.ih) return false;
    }
    if (cols.fixed >= 0) {
      int64_t w = (cols.fixed + t) * c.stride_w + kw - c.pad_left;
      if (w < 0 || w >= c.iw) return false;
    }
    return true;
  }

  /// acc[r, t, :] += x * wpk[wi..., :], a vector of TC channels (x is a broadcast scalar, or
  /// for depthwise a vector indexed by the lane `lane_in_x` stands for).
  Stmt Fma(const Buffer& acc, const PrimExpr& r, const PrimExpr& t,
           const std::function<PrimExpr(const PrimExpr& j)>& x, Indices wi) {
    tir::Var j = tir::MakeVar("j");
    wi.push_back(j);
    Stmt upd = MakeStore(acc, MakeLoad(acc, {r, t, j}) + x(j) * MakeLoad(wpk, wi), {r, t, j});
    return MakeFor(j, IntImm(0), IntImm(tile.channels), ForKind::kVectorized, upd);
  }

  /// The loops over r in [r0, r1), t in [t0, t1) (unrolled) of a body indexed by them.
  Stmt OverPixels(int64_t r0, int64_t r1, int64_t t0, int64_t t1,
                  const std::function<Stmt(const PrimExpr&, const PrimExpr&)>& body) {
    tir::Var r = tir::MakeVar("r"), t = tir::MakeVar("t");
    return MakeFor(r, IntImm(r0), IntImm(r1 - r0), ForKind::kUnrolled,
                   MakeFor(t, IntImm(t0), IntImm(t1 - t0), ForKind::kUnrolled, body(r, t)));
  }
  /// The same over the whole tile.
  Stmt OverTile(const Span& rows, const Span& cols,
                const std::function<Stmt(const PrimExpr&, const PrimExpr&)>& body) {
    return OverPixels(0, rows.count, 0, cols.count, body);
  }

  /// Taps [k0, k1) of one axis that reach the same tile pixels [lo, hi) of that axis.
  struct TapRun {
    int64_t k0, k1, lo, hi;
  };

  /// The taps of one axis (k of them; stride, padding before, input extent) grouped into
  /// runs of consecutive taps reaching the same pixels of `span`: a pixel's input index
  /// grows with the tap, so each tap reaches an interval of pixels and equal intervals
  /// are adjacent. One run of every pixel when the span is inside the input; with
  /// `merge` false, a run per tap at the border.
  std::vector<TapRun> TapRuns(const Span& span, int64_t k, int64_t stride, int64_t pad_before,
                              int64_t in, bool merge = true) const {
    if (copy || span.fixed < 0) return {{0, k, 0, span.count}};
    std::vector<TapRun> runs;
    for (int64_t kk = 0; kk < k; ++kk) {
      int64_t lo = 0, hi = span.count;
      while (lo < hi && (span.fixed + lo) * stride + kk - pad_before < 0) ++lo;
      while (hi > lo && (span.fixed + hi - 1) * stride + kk - pad_before >= in) --hi;
      if (lo == hi) lo = hi = 0;  // every empty run alike, so they merge
      if (merge && !runs.empty() && runs.back().lo == lo && runs.back().hi == hi)
        runs.back().k1 = kk + 1;
      else
        runs.push_back({kk, kk + 1, lo, hi});
    }
    return runs;
  }

  /// Dense accumulation over (input channel, kh, kw): channel blocks outside the taps and
  /// lanes inside, so the innermost loop walks channels and the C compiler finds no value
  /// to carry from one iteration to the next (its predictive commoning of the window's
  /// overlap spills the tile); NCHW input (py = 1) has one channel loop inside the taps.
  Stmt DenseAccumulate(const Buffer& acc, const Span& rows, const Span& cols) {
    tir::Var icb = tir::MakeVar("icb");
    const int64_t inner = py == 1 ? c.ic : py;
    // The inner loop over channels (its own variable per loop) around `body(cb, lane)`:
    // channel ch is (block, lane) = py == 1 ? (ch, 0) : (icb, ch).
    auto channels = [&](const std::function<Stmt(const PrimExpr&, const PrimExpr&)>& body) {
      tir::Var ch = tir::MakeVar("icl");
      return MakeFor(ch, IntImm(0), IntImm(inner), ForKind::kSerial,
                     py == 1 ? body(ch, IntImm(0)) : body(icb, ch));
    };
    auto fma = [&](const PrimExpr& cb, const PrimExpr& lane, const PrimExpr& r, const PrimExpr& t,
                   const PrimExpr& kh, const PrimExpr& kw) {
      PrimExpr x = Input(cb, Row(rows, r, kh), Col(cols, t, kw), lane);
      return Fma(acc, r, t, [x](const PrimExpr&) { return x; }, {ocb, cb, kh, kw, lane});
    };
    // The taps in rectangles reaching the same pixels (the whole window, for tiles inside
    // the input): per rectangle, loops over its taps around one loop over channels around
    // the unrolled pixels they reach. Tiles at the border thus run the interior's loops
    // over fewer taps or pixels, instead of spelling out every (tap, pixel), which cost the
    // C compiler seconds per kernel. Rows of taps merge into runs; at a left or right
    // border each column of taps is its own rectangle: a loop over columns there (like
    // two channel loops in one loop over rows) made GCC keep an address register per pixel
    // and spill them, 5% slower on ResNet-18's 28 x 28 layers, while the interior's loop
    // over all columns is as fast as spelled-out taps.
    std::vector<Stmt> seq;
    for (const TapRun& kr : TapRuns(rows, c.kh, c.stride_h, c.pad_top, c.ih))
      for (const TapRun& wr : TapRuns(cols, c.kw, c.stride_w, c.pad_left, c.iw, /*merge=*/false)) {
        if (kr.lo == kr.hi || wr.lo == wr.hi) continue;
        tir::Var khv = tir::MakeVar("kh"), kwv = tir::MakeVar("kw");
        PrimExpr kh = kr.k1 - kr.k0 == 1 && !rows.dynamic ? IntImm(kr.k0) : PrimExpr(khv);
        PrimExpr kw = wr.k1 - wr.k0 == 1 ? IntImm(wr.k0) : PrimExpr(kwv);
        Stmt body = channels([&](const PrimExpr& cb, const PrimExpr& lane) {
          return OverPixels(kr.lo, kr.hi, wr.lo, wr.hi, [&](const PrimExpr& r, const PrimExpr& t) {
            return fma(cb, lane, r, t, kh, kw);
          });
        });
        if (wr.k1 - wr.k0 > 1)
          body = MakeFor(kwv, IntImm(wr.k0), IntImm(wr.k1 - wr.k0), ForKind::kSerial, body);
        if (rows.dynamic) {
          // Row h reads input rows h * stride + kh - pad_top: kh in [lo, hi) are inside.
          PrimExpr first = Simplify(rows.start * c.stride_h + IntImm(-c.pad_top));
          PrimExpr lo = MakeBinary(BinaryOp::kMax, IntImm(0), Simplify(IntImm(0) - first));
          PrimExpr hi = MakeBinary(BinaryOp::kMin, IntImm(c.kh), Simplify(IntImm(c.ih) - first));
          body = MakeFor(khv, lo, Simplify(hi - lo), ForKind::kSerial, body);
        } else if (kr.k1 - kr.k0 > 1) {
          body = MakeFor(khv, IntImm(kr.k0), IntImm(kr.k1 - kr.k0), ForKind::kSerial, body);
        }
        seq.push_back(body);
      }
    Stmt taps = MakeSeq(seq);
    if (py == 1) return taps;
    if (chunks == 1) return MakeFor(icb, IntImm(0), IntImm(c.ic / py), ForKind::kSerial, taps);
    return MakeFor(icb, Simplify(chunk * chunk_blocks), IntImm(chunk_blocks), ForKind::kSerial,
                   taps);
  }

  /// Depthwise: every (tap, pixel) spelled out, in the order of the input vectors they read
  /// (row by row, column by column), so each input vector is loaded once and used by all
  /// the pixels whose windows cover it while it is in a register.
  Stmt DepthwiseAccumulate(const Buffer& acc, const Span& rows, const Span& cols) {
    std::vector<Stmt> seq;
    const int64_t sh = c.stride_h, sw = c.stride_w;
    for (int64_t v = 0; v < (rows.count - 1) * sh + c.kh; ++v)
      for (int64_t u = 0; u < (cols.count - 1) * sw + c.kw; ++u)
        for (int64_t r = 0; r < rows.count; ++r) {
          int64_t kh = v - r * sh;
          if (kh < 0 || kh >= c.kh) continue;
          for (int64_t t = 0; t < cols.count; ++t) {
            int64_t kw = u - t * sw;
            if (kw < 0 || kw >= c.kw || !TapInside(rows, r, kh, cols, t, kw)) continue;
            PrimExpr h = Row(rows, IntImm(r), IntImm(kh)), w = Col(cols, IntImm(t), IntImm(kw));
            seq.push_back(Fma(acc, IntImm(r), IntImm(t),
                              [&](const PrimExpr& j) { return Input(ocb, h, w, j); },
                              {ocb, IntImm(kh), IntImm(kw)}));
          }
        }
    return MakeSeq(seq);
  }

  /// Output indices of lane l of run v (a run: the tile's channels inside one block of z).
  Indices OutIndex(int64_t v, const PrimExpr& oh, const PrimExpr& ow, const PrimExpr& l) {
    return BlockedOutIndex(n, ocb, tile.channels, z, v, oh, ow, l);
  }

  /// One register tile: zero, accumulate, store with the epilogue.
  Stmt MakeTile(const Span& rows, const Span& cols) {
    const int64_t tc = tile.channels;
    Buffer acc =
        MakeBuffer(ctx.FreshName("conv_acc"), {rows.count, cols.count, tc}, DType::kFloat32);
    const int64_t run = std::min(tc, z), runs = tc / run;
    // acc <-> dest, a run of lanes per block of the output: (acc, out) -> statement.
    auto per_run = [&](const std::function<Stmt(const PrimExpr& a, const Indices& oi,
                                                const Buffer& acc_buf, const Indices& ai)>& f) {
      return OverTile(rows, cols, [&](const PrimExpr& r, const PrimExpr& t) {
        std::vector<Stmt> stmts;
        for (int64_t v = 0; v < runs; ++v) {
          tir::Var l = tir::MakeVar("l");
          Indices oi = OutIndex(v, Simplify(rows.start + r), Simplify(cols.start + t), l);
          Indices ai{r, t, Simplify(l + IntImm(v * run))};
          stmts.push_back(MakeFor(l, IntImm(0), IntImm(run), ForKind::kVectorized,
                                  f(MakeLoad(acc, ai), oi, acc, ai)));
        }
        return MakeSeq(stmts);
      });
    };
    std::vector<Stmt> seq;
    Stmt zero = OverTile(rows, cols, [&](const PrimExpr& r, const PrimExpr& t) {
      tir::Var j = tir::MakeVar("j");
      return MakeFor(j, IntImm(0), IntImm(tc), ForKind::kVectorized,
                     MakeStore(acc, FloatImm(0.0, DType::kFloat32), {r, t, j}));
    });
    if (chunks > 1) {
      // Later chunks resume from the partial sums the earlier ones stored.
      Stmt resume =
          per_run([&](const PrimExpr&, const Indices& oi, const Buffer& a, const Indices& ai) {
            return MakeStore(a, MakeLoad(dest, oi), ai);
          });
      zero = MakeIfThenElse(MakeBinary(BinaryOp::kEQ, chunk, IntImm(0)), zero, resume);
    }
    seq.push_back(zero);
    seq.push_back(depthwise ? DepthwiseAccumulate(acc, rows, cols)
                            : DenseAccumulate(acc, rows, cols));
    seq.push_back(per_run([&](const PrimExpr& a, const Indices& oi, const Buffer&, const Indices&) {
      return MakeStore(dest, a, oi);
    }));
    if (epilogue) {
      // Once the reduction is complete: after the last chunk.
      Stmt epi = per_run([&](const PrimExpr&, const Indices& oi, const Buffer&, const Indices&) {
        PrimExpr e = epilogue(oi);
        if (e->dtype != dest->dtype) e = MakeCast(dest->dtype, e);
        return MakeStore(dest, e, oi);
      });
      if (chunks > 1)
        epi = MakeIfThenElse(MakeBinary(BinaryOp::kEQ, chunk, IntImm(chunks - 1)), epi);
      seq.push_back(epi);
    }
    // Zero-filled although zeroed or resumed above: without the fill GCC keeps the tile in
    // memory (MobileNetV2 and ResNet-18 ran 2x slower).
    return MakeAllocate(acc, MakeSeq(seq));
  }

  /// Whether tiles of `count` outputs from `first` on one axis read only the input.
  bool Inside(int64_t first, int64_t count, int64_t stride, int64_t k, int64_t pad_before,
              int64_t in) const {
    return copy || (first * stride - pad_before >= 0 &&
                    (first + count - 1) * stride + k - 1 - pad_before <= in - 1);
  }

  /// The tiles of a band of rows: those reaching into the padding one by one, the others
  /// in a loop.
  Stmt Band(const Span& rows) {
    const int64_t tw = tile.cols, full = c.ow / tw, tail = c.ow % tw;
    int64_t lo = 0, hi = full;  // the column tiles [lo, hi) inside the input
    while (lo < hi && !Inside(lo * tw, tw, c.stride_w, c.kw, c.pad_left, c.iw)) ++lo;
    while (hi > lo && !Inside((hi - 1) * tw, tw, c.stride_w, c.kw, c.pad_left, c.iw)) --hi;
    std::vector<Stmt> seq;
    auto fixed = [&](int64_t first, int64_t count) {
      bool inside = Inside(first, count, c.stride_w, c.kw, c.pad_left, c.iw);
      return MakeTile(rows, Span{IntImm(first), count, inside ? -1 : first});
    };
    for (int64_t ct = 0; ct < lo; ++ct) seq.push_back(fixed(ct * tw, tw));
    if (hi > lo) {
      tir::Var ct = tir::MakeVar("ct");
      seq.push_back(MakeFor(ct, IntImm(lo), IntImm(hi - lo), ForKind::kSerial,
                            MakeTile(rows, Span{Simplify(ct * tw), tw, -1})));
    }
    for (int64_t ct = hi; ct < full; ++ct) seq.push_back(fixed(ct * tw, tw));
    if (tail > 0) seq.push_back(fixed(full * tw, tail));
    return MakeSeq(seq);
  }

  /// The bands of rows of block `ocb` of image `n`: band `rb` (an expression) dispatched
  /// to the bands inside the input (a loop variable's multiple) or one reaching into the
  /// padding (each its own code).
  Stmt Bands(const PrimExpr& rb) {
    const int64_t th = tile.rows, full = c.oh / th, tail = c.oh % th;
    int64_t lo = 0, hi = full;
    while (lo < hi && !Inside(lo * th, th, c.stride_h, c.kh, c.pad_top, c.ih)) ++lo;
    while (hi > lo && !Inside((hi - 1) * th, th, c.stride_h, c.kh, c.pad_top, c.ih)) --hi;
    // Bands of one row reaching into the padding: one band's code for all, its range of
    // taps computed at run time (a loop bound, nothing per tap), instead of a copy of the
    // band per border row; the C compiler's time grows with the copies.
    if (th == 1 && !depthwise && (lo > 0 || hi < full))
      return Band(Span{rb, 1, -1, /*dynamic=*/true});
    std::vector<std::pair<int64_t, Stmt>> fixed;  // (band index, its code)
    auto band = [&](int64_t b, int64_t count) {
      bool inside = Inside(b * th, count, c.stride_h, c.kh, c.pad_top, c.ih);
      return Band(Span{IntImm(b * th), count, inside ? -1 : b * th});
    };
    for (int64_t b = 0; b < full; ++b)
      if (b < lo || b >= hi) fixed.emplace_back(b, band(b, th));
    if (tail > 0) fixed.emplace_back(full, band(full, tail));
    Stmt body = hi > lo ? Band(Span{Simplify(rb * th), th, -1}) : Stmt();
    for (size_t i = fixed.size(); i-- > 0;) {
      if (!body.defined()) {
        body = fixed[i].second;
        continue;
      }
      body = MakeIfThenElse(MakeBinary(BinaryOp::kEQ, rb, IntImm(fixed[i].first)), fixed[i].second,
                            body);
    }
    return body;
  }
};

}  // namespace

NestEmitter BlockedConv2DTemplate(const Conv2DShape& c, const TensorExpr& data,
                                  const nn::DataLayout2D& dl, const TensorExpr& weight,
                                  const nn::KernelLayout2D& kl, const nn::DataLayout2D& ol) {
  const bool depthwise = c.groups > 1 && c.ic == 1 && c.oc == c.groups;
  if ((c.groups != 1 && !depthwise) || c.dilation_h != 1 || c.dilation_w != 1) return nullptr;
  if (!ol.blocked() || ol.rank() != 5 || !dl.IsNCHWFamily() || c.oc % ol.c_block) return nullptr;
  if (c.dtype != DType::kFloat32 || data.dtype != DType::kFloat32 ||
      weight.dtype != DType::kFloat32)
    return nullptr;
  if (c.n <= 0 || c.oc <= 0 || c.ic <= 0 || c.oh <= 0 || c.ow <= 0 || c.kh <= 0 || c.kw <= 0)
    return nullptr;
  return [=](LowerContext& ctx, const Buffer& dest,
             const std::function<PrimExpr(const Indices&)>& epilogue) -> Stmt {
    Builder b{ctx, c, data, dl, dest, epilogue};
    b.depthwise = depthwise;
    b.z = ol.c_block;
    b.tile = ChooseTile(c, b.z, depthwise);
    const int64_t tc = b.tile.channels;
    // Input channels per block of what the tiles read: the data's own block (1 for NCHW),
    // or for depthwise the tile's channels, so that one vector load reads them.
    b.py = depthwise ? tc : dl.block();
    const int64_t channels = c.ic * c.groups, ocb_count = c.oc / tc;
    const bool padded = c.pad_top || c.pad_left || c.pad_bottom || c.pad_right;
    // A copy when the data is an inlined expression (it would be recomputed per use), its
    // blocks differ from what depthwise tiles load, or a dense window is large (such as
    // the 7 x 7 stem, whose input and so its copy are small). The last rule dates from
    // border tiles spelled out tap by tap; with runs of taps they no longer need it, but
    // whether the copy still pays at run time has not been measured again.
    b.copy = data.depth > 0 || (depthwise && dl.block() != tc) ||
             (!depthwise && padded && c.kh * c.kw * b.tile.rows * b.tile.cols > kMaxSpelledTaps);

    // 1. The zero-padded input copy, when the tiles read one.
    if (b.copy) {
      b.pad = ctx.AllocScratch("conv_pad",
                               {c.n, channels / b.py, c.ih + c.pad_top + c.pad_bottom,
                                c.iw + c.pad_left + c.pad_right, b.py},
                               DType::kFloat32, /*zero_fill=*/false);  // PaddedCopy writes all
      ctx.Emit(PaddedCopy(c, data, dl, b.pad, b.py));
    }

    // 2. Weights per tile: wpk[ocb, icb, kh, kw, icl, j] = w(ocb * tc + j, icb * py + icl,
    // kh, kw), or for depthwise wpk[ocb, kh, kw, j] = w(ocb * tc + j, 0, kh, kw).
    const int64_t py = b.py, icb_count = depthwise ? 1 : c.ic / py, lanes_in = depthwise ? 1 : py;
    std::vector<int64_t> wshape =
        depthwise ? std::vector<int64_t>{ocb_count, c.kh, c.kw, tc}
                  : std::vector<int64_t>{ocb_count, icb_count, c.kh, c.kw, py, tc};
    if (weight.constant.defined() && weight.constant.dtype() == DType::kFloat32 &&
        weight.constant.shape() == weight.shape) {
      // Constant weights are packed once, at compile time, instead of on every call.
      ConstantWeight w{weight.constant.data_as<float>(), Strides(weight.shape), kl};
      NDArray packed = NDArray::Empty(wshape, DType::kFloat32);
      float* out = packed.data_as<float>();
      for (int64_t ob = 0; ob < ocb_count; ++ob)
        for (int64_t icb = 0; icb < icb_count; ++icb)
          for (int64_t kh = 0; kh < c.kh; ++kh)
            for (int64_t kw = 0; kw < c.kw; ++kw)
              for (int64_t icl = 0; icl < lanes_in; ++icl)
                for (int64_t j = 0; j < tc; ++j)
                  *out++ = w.At(ob * tc + j, depthwise ? 0 : icb * py + icl, kh, kw);
      b.wpk = ctx.AddConstant("conv_wpk", packed);
    } else {
      TensorExpr packed;
      packed.shape = wshape;
      packed.dtype = DType::kFloat32;
      packed.at = [=](const Indices& i) {
        PrimExpr oc = Simplify(i[0] * tc + i.back());
        PrimExpr ic = depthwise ? IntImm(0) : Simplify(i[1] * py + i[4]);
        PrimExpr kh = depthwise ? i[1] : i[2], kw = depthwise ? i[2] : i[3];
        PrimExpr v = weight.at(KernelIndices(kl, oc, ic, kh, kw));
        return v->dtype == DType::kFloat32 ? v : MakeCast(DType::kFloat32, v);
      };
      b.wpk = ctx.AllocScratch("conv_wpk", wshape, DType::kFloat32, /*zero_fill=*/false);
      ctx.StoreInto(packed, b.wpk, "conv_wpk");
    }

    // 3. The tiles, parallel over (block of output channels, band of rows); the bands of
    // one block (of one row group, below) are adjacent so a thread reuses that block's
    // weights from cache. When one block's weights outgrow a quarter of L2 (ResNet-18's
    // 3x3 convs at 14 x 14 and 7 x 7: 295 and 590 KiB), every band re-reads them and the
    // first alone streams them from memory (in a whole network they are not cached: those
    // convs ran twice as long as alone); then one thread runs all bands of a block, chunk
    // by chunk of input channels whose weights stay in L1 (32 KiB), keeping partial sums
    // in the output in between (the whole ResNet-18 in NCHW16c: 8% faster).
    const int64_t bands = (c.oh + b.tile.rows - 1) / b.tile.rows;
    const int64_t blocks = c.ic / py, block_bytes = py * c.kh * c.kw * tc * 4;
    if (!depthwise && py > 1 && bands > 1 && blocks * block_bytes > (int64_t{256} << 10)) {
      int64_t per = std::max<int64_t>(1, (int64_t{32} << 10) / block_bytes);
      while (blocks % per) --per;
      if (per < blocks) {
        b.chunks = blocks / per;
        b.chunk_blocks = per;
      }
    }
    // One parallel loop over (image, block[, band]): f = (n * ocb_count + ocb)[ * bands + band].
    // With two bands or more, the bands split into kRowGroups groups first: f =
    // ((n * kRowGroups + group) * ocb_count + ocb) * per_group + band in the group, the last
    // group one band short when the bands do not divide (its items of that band skip). The
    // pool gives each thread a contiguous share of f, so with two threads each computes half the
    // rows of every block, as every such convolution in the network does: a depthwise
    // convolution then reads the rows its thread wrote, and the 1 x 1 convolution after it
    // reads its rows of every channel from its own core's cache, where a split by blocks
    // had it read half its input from the other core's and write over lines that core
    // held (MobileNetV2 on 2 threads: 3.32 -> 2.94 ms; one thread unchanged, since each
    // group still runs block by block and reuses a block's weights over its rows).
    tir::Var f = tir::MakeVar("f");
    // An odd count leaves one group a band short: grouped only while that keeps each of two
    // threads within 55% of the rows (11 bands or more), or stealing would even it out.
    const bool grouped = b.chunks == 1 && bands >= kRowGroups &&
                         (bands % kRowGroups == 0 || 100 * ((bands + 1) / 2) <= 55 * bands);
    const int64_t per_group = (bands + kRowGroups - 1) / kRowGroups;
    const int64_t per_block = b.chunks > 1 ? 1 : grouped ? per_group * kRowGroups : bands;
    const int64_t per_image = ocb_count * per_block;
    b.n = c.n == 1 ? IntImm(0) : Div(f, per_image);
    PrimExpr in_image = c.n == 1 ? PrimExpr(f) : Mod(f, per_image);
    b.ocb = grouped ? Mod(Div(in_image, per_group), ocb_count) : Div(in_image, per_block);
    Stmt body;
    if (b.chunks > 1) {
      tir::Var ch = tir::MakeVar("chunk"), rb = tir::MakeVar("rb"), q = tir::MakeVar("q");
      b.chunk = ch;
      // Each band also prefetches its share of the next chunk's weights (the next block's
      // first chunk after the last; they are contiguous): a chunk's weights come from
      // memory in a whole network, and the hardware prefetcher, which sees them read in a
      // burst by the first band and then not at all, does not run ahead enough (ResNet-18's
      // 3 x 3 convolutions at 14 x 14 and 7 x 7 ran 10-20% faster in the network).
      const int64_t chunk_floats = b.chunk_blocks * c.kh * c.kw * py * tc;
      const int64_t lines = (chunk_floats * 4 + 63) / 64, per_band = (lines + bands - 1) / bands;
      Stmt prefetch = MakeFor(
          q, IntImm(0), IntImm(per_band), ForKind::kSerial,
          MakePrefetch(b.wpk, {b.ocb, Simplify((ch + 1) * b.chunk_blocks), IntImm(0), IntImm(0),
                               IntImm(0), Simplify((rb * per_band + q) * (64 / 4))}));
      body = MakeFor(ch, IntImm(0), IntImm(b.chunks), ForKind::kSerial,
                     MakeFor(rb, IntImm(0), IntImm(bands), ForKind::kSerial,
                             MakeSeq({prefetch, b.Bands(rb)})));
    } else {
      PrimExpr band = grouped ? Simplify(Div(in_image, ocb_count * per_group) * per_group +
                                         Mod(in_image, per_group))
                              : Mod(in_image, bands);
      body = b.Bands(bands == 1 ? IntImm(0) : band);
      if (grouped && per_block > bands)
        body = tir::MakeIfThenElse(MakeBinary(BinaryOp::kLT, band, IntImm(bands)), body, Stmt());
    }
    const int64_t work = c.n * per_image;
    return MakeFor(f, IntImm(0), IntImm(work), work > 1 ? ForKind::kParallel : ForKind::kSerial,
                   body);
  };
}

}  // namespace tessera::lower
