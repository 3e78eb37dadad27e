// A blocked direct-convolution nest for nn.conv2d (NCHW data, fp32, dilation 1, any
// groups): the input is first copied into a zero-padded, stride-de-interleaved scratch buffer
// and the weights packed by blocks of output channels, so the inner loop is a bounds-free
// register tile acc[8][8] on AVX2, acc[8][32] on AVX-512 (one channel for depthwise) updated
// with contiguous vector loads and broadcast weights.
#include "schedule_conv2d.h"

#include "padded_copy.h"

#include <algorithm>

#include "lower_util.h"
#include "tessera/ir/tir_mutator.h"
#include "tessera/support/host_cpu.h"

namespace tessera::lower {

using namespace tir;

namespace {

/// Fewer output-channel blocks than this share the parallel loop with the output rows.
constexpr int64_t kMinParallelBlocks = 8;

/// The register tile for this CPU's SIMD width: output channels x one vector of output
/// columns, so the tile keeps `channels` independent FMA chains in registers with room
/// left for broadcasts (on AVX2, 8 x 8 measured faster than 4 x 24, 6 x 16, 10 x 8 and
/// 12 x 8 on the ResNet-18 3x3 layers). Grouped convolutions whose channels per group are
/// not a multiple of the block (such as depthwise) use one channel per tile and
/// `grouped_columns` columns instead.
struct ConvTile {
  int64_t lanes;               ///< float32 lanes of one SIMD register
  int64_t channels;            ///< output channels per register tile
  int64_t columns;             ///< output columns per register tile
  int64_t grouped_columns;     ///< columns of a grouped (non-depthwise) one-channel tile
  int64_t depthwise_channels;  ///< channels per depthwise tile (grouped_columns wide)
};

ConvTile HostConvTile() {
  const int64_t lanes = HostSimdBytes() / 4;
  // AVX-512 (32 zmm): 8 x 2 vectors, 16 accumulators. Measured on the ResNet-18 layers
  // with one thread: 1.1-1.3x faster than 8 x 1, 16 x 1, 6 x 2 or 12 x 2 vectors.
  if (lanes >= 16) return ConvTile{lanes, 8, 2 * lanes, 2 * lanes, 4};
  return ConvTile{lanes, 8, lanes, 4 * lanes, 2};
}

int64_t RoundUp(int64_t v, int64_t m) {
  return (v + m - 1) / m * m;
}

/// wpk[ocb, ic, kh, kw, o] = weight[ocb * block + o, ic, kh, kw] (0 past the channels) of
/// a constant weight in layout `kernel_perm` (logical o, i, h, w -> tensor dimension).
NDArray PackConstantWeights(const Conv2DShape& c, const NDArray& weight,
                            const std::vector<int>& kernel_perm, int64_t ocb_count, int64_t block) {
  int64_t strides[4];
  for (int d = 3, stride = 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= static_cast<int>(weight.shape()[d]);
  }
  const float* w = weight.data_as<float>();
  NDArray packed = NDArray::Empty({ocb_count, c.ic, c.kh, c.kw, block}, DType::kFloat32);
  float* out = packed.data_as<float>();
  for (int64_t ob = 0; ob < ocb_count; ++ob)
    for (int64_t ic = 0; ic < c.ic; ++ic)
      for (int64_t kh = 0; kh < c.kh; ++kh)
        for (int64_t kw = 0; kw < c.kw; ++kw)
          for (int64_t o = 0; o < block; ++o) {
            int64_t oc = ob * block + o;
            float v = 0.0f;
            if (oc < c.oc)
              v = w[oc * strides[kernel_perm[0]] + ic * strides[kernel_perm[1]] +
                    kh * strides[kernel_perm[2]] + kw * strides[kernel_perm[3]]];
            *out++ = v;
          }
  return packed;
}

}  // namespace

NestEmitter Conv2DTemplate(const Conv2DShape& c, const TensorExpr& data, const TensorExpr& weight,
                           const std::vector<int>& kernel_perm) {
  if (c.groups <= 0 || c.oc % c.groups || c.dilation_h != 1 || c.dilation_w != 1) return nullptr;
  if (c.dtype != DType::kFloat32 || data.dtype != DType::kFloat32 ||
      weight.dtype != DType::kFloat32)
    return nullptr;
  if (c.n <= 0 || c.oc <= 0 || c.ic <= 0 || c.oh <= 0 || c.ow <= 0 || c.kh <= 0 || c.kw <= 0)
    return nullptr;
  return [=](LowerContext& ctx, const Buffer& dest,
             const std::function<PrimExpr(const Indices&)>& epilogue) -> Stmt {
    const int64_t s = c.stride_w, sh = c.stride_h;
    // A tile of output channels must stay inside one group (their input channels agree).
    const int64_t ocpg = c.oc / c.groups;
    const ConvTile shape = HostConvTile();
    const int64_t lanes = shape.lanes;
    const bool wide = c.groups == 1 || ocpg % shape.channels == 0;
    // Depthwise (one input and one output channel per group): a tile of several channels,
    // each reading its own input plane, so the tile has enough independent accumulators
    // (one channel with two vectors was bound by the FMA latency).
    const bool depthwise = !wide && ocpg == 1 && c.ic == 1;
    const int64_t kOCB = wide ? shape.channels : depthwise ? shape.depthwise_channels : 1;
    const int64_t kOWB = wide ? shape.columns : shape.grouped_columns;
    const int64_t ocb_count = (c.oc + kOCB - 1) / kOCB;
    const int64_t hp = c.ih + c.pad_top + c.pad_bottom;
    // Row tiles: columns of one output row, `width` wide (the last one rounded up to
    // whole vectors). Flat tiles (stride 1): output position p = oh * wq + ow over the
    // padded width wq, so a tile spans rows and a small output (7 x 7) fills its vectors;
    // the wq - ow columns past each row are computed and dropped.
    auto lanes_used = [&](int64_t positions, int64_t width) {
      int64_t full = positions / width, rest = positions % width;
      return full * width + RoundUp(rest, lanes);
    };
    const int64_t wq_flat = c.iw + c.pad_left + c.pad_right;
    const int64_t flat_width = wide ? kOWB : std::max(kOWB, 4 * lanes);
    // Only when it fills the vectors clearly better: its stores are scalar (the row and
    // column of each position), which costs more than the saved lanes otherwise (e.g. a
    // depthwise 3 x 3 at 56 x 56 ran 2.3x slower flat).
    // A row whose tile is narrower than full also leaves it short of accumulators, so flat
    // tiles win at equal fill when the stores are few per FMA (not depthwise).
    const double flat_fill = double(c.oh * c.ow) / lanes_used(c.oh * wq_flat, flat_width);
    const double row_fill = double(c.ow) / lanes_used(c.ow, kOWB);
    const bool flat = s == 1 && sh == 1 && c.layout_w == 3 &&
                      (flat_fill > 1.25 * row_fill || (lanes_used(c.ow, kOWB) < kOWB &&
                                                       !depthwise && flat_fill >= 0.95 * row_fill));
    const int64_t tile_width = flat ? flat_width : kOWB;
    const int64_t positions = flat ? c.oh * wq_flat : c.ow;
    const int64_t full_tiles = positions / tile_width, tail = positions % tile_width;
    const int64_t tail_width = RoundUp(tail, lanes);  // computed width of the last tile
    // Padded column x = q * s + phase; tiles may read up to one vector past the output.
    const int64_t wq = flat ? wq_flat
                            : std::max((c.iw + c.pad_left + c.pad_right + s - 1) / s,
                                       full_tiles * tile_width + tail_width + (c.kw - 1) / s);
    // Flat tiles read up to (kh - 1) rows and kw - 1 columns past their last position.
    const int64_t rows = flat ? std::max(hp, (full_tiles * tile_width + tail_width +
                                              (c.kh - 1) * wq + c.kw - 1 + wq - 1) /
                                                 wq)
                              : hp;

    // 1. pad[n, ic, h, phase, q] = data[n, ic, h - pad_top, q * s + phase - pad_left] or 0
    // (flat: pad[n, ic, h * wq + q]).
    TensorExpr padded;
    padded.shape = {c.n, c.ic * c.groups, rows, s, wq};
    padded.dtype = DType::kFloat32;
    padded.at = [=](const Indices& i) {
      PrimExpr h = Simplify(i[2] + IntImm(-c.pad_top));
      PrimExpr x = Simplify(i[4] * s + i[3] + IntImm(-c.pad_left));
      Indices di(4);
      di[c.layout_n] = i[0];
      di[c.layout_c] = i[1];
      di[c.layout_h] = Clamp(h, c.ih);
      di[c.layout_w] = Clamp(x, c.iw);
      return MakeSelect(And(InRange(h, c.ih), InRange(x, c.iw)), data.at(di),
                        FloatImm(0.0, DType::kFloat32));
    };
    PadCopyShape copy{c.n,        c.ic * c.groups, c.ih,       c.iw,       c.pad_top, c.pad_left,
                      c.stride_w, c.layout_n,      c.layout_c, c.layout_h, c.layout_w};
    // Either copy writes every element of the padded buffer (the input's or zero), so it
    // skips the zero fill (MobileNetV2's 144 x 56 x 56 copies cleared 2 MB per call).
    Buffer pad;
    if (flat) {
      pad = ctx.AllocScratch("conv_pad", {c.n, c.ic * c.groups, rows * wq}, DType::kFloat32,
                             /*zero_fill=*/false);
      ctx.Emit(PaddedRowsCopy(copy, data, pad, rows, wq, FlatPadIndex(wq),
                              FloatImm(0.0, DType::kFloat32)));
    } else {
      pad = ctx.AllocScratch("conv_pad", padded.shape, DType::kFloat32, /*zero_fill=*/false);
      if (c.layout_w == 3)
        ctx.Emit(PaddedRowsCopy(copy, data, pad, rows, wq, PhasedPadIndex(),
                                FloatImm(0.0, DType::kFloat32)));
      else
        ctx.StoreInto(padded, pad, "conv_pad");
    }

    // 2. wpk[ocb, ic, kh, kw, o] = weight[ocb * OCB + o, ic, kh, kw] or 0 past the channels.
    TensorExpr packed;
    packed.shape = {ocb_count, c.ic, c.kh, c.kw, kOCB};
    packed.dtype = DType::kFloat32;
    packed.at = [=](const Indices& i) {
      PrimExpr oc = Simplify(i[0] * kOCB + i[4]);
      Indices wi(4);
      wi[kernel_perm[0]] = Clamp(oc, c.oc);
      wi[kernel_perm[1]] = i[1];
      wi[kernel_perm[2]] = i[2];
      wi[kernel_perm[3]] = i[3];
      return MakeSelect(MakeBinary(BinaryOp::kLT, oc, IntImm(c.oc)), weight.at(wi),
                        FloatImm(0.0, DType::kFloat32));
    };
    Buffer wpk;
    if (weight.constant.defined() && weight.constant.dtype() == DType::kFloat32 &&
        weight.constant.shape() == weight.shape) {
      // Constant weights are packed once, at compile time, instead of on every call.
      wpk = ctx.AddConstant("conv_wpk",
                            PackConstantWeights(c, weight.constant, kernel_perm, ocb_count, kOCB));
    } else {
      wpk = ctx.AllocScratch("conv_wpk", packed.shape, DType::kFloat32, /*zero_fill=*/false);
      ctx.StoreInto(packed, wpk, "conv_wpk");
    }

    // 3. The tiled nest: parallel over (n, oc block, oh); per tile of columns, zero the
    // accumulators, accumulate over (ic, kh, kw), then store and apply the epilogue.
    // Plain loop variables (no div/mod of a fused index) keep the inner addressing cheap.
    tir::Var n = tir::MakeVar("n"), ocb = tir::MakeVar("ocb"), oh = tir::MakeVar("oh");
    Buffer acc = MakeBuffer(ctx.FreshName("conv_acc"), {kOCB, tile_width}, DType::kFloat32);

    auto tile = [&](const PrimExpr& ow0, int64_t width, int64_t stored) {
      std::vector<Stmt> seq;
      {
        tir::Var o = tir::MakeVar("o"), w = tir::MakeVar("w");
        seq.push_back(MakeFor(o, IntImm(0), IntImm(kOCB), ForKind::kUnrolled,
                              MakeFor(w, IntImm(0), IntImm(width), ForKind::kVectorized,
                                      MakeStore(acc, FloatImm(0.0, DType::kFloat32), {o, w}))));
      }
      {
        tir::Var ic = tir::MakeVar("ic"), kh = tir::MakeVar("kh"), kw = tir::MakeVar("kw");
        tir::Var o = tir::MakeVar("o"), w = tir::MakeVar("w");
        // Column kw of the window is phase kw % s, offset kw / s of the de-interleaved row.
        PrimExpr phase = s == 1 ? IntImm(0) : FloorMod(kw, IntImm(s));
        PrimExpr shift = s == 1 ? PrimExpr(kw) : FloorDiv(kw, IntImm(s));
        PrimExpr chan = ic;
        if (depthwise) {
          // Channel o of the tile reads its own plane (clamped in the last, partial block,
          // whose missing channels are never stored).
          chan = Simplify(ocb * kOCB + o);
          if (c.oc % kOCB) chan = MakeBinary(BinaryOp::kMin, chan, IntImm(c.oc - 1));
        } else if (c.groups > 1) {
          PrimExpr g = ocpg == kOCB ? PrimExpr(ocb) : FloorDiv(ocb, IntImm(ocpg / kOCB));
          chan = Simplify(g * c.ic + ic);
        }
        PrimExpr x = flat ? MakeLoad(pad, {n, chan, Simplify(ow0 + w + kh * wq + kw)})
                          : MakeLoad(pad, {n, chan, Simplify(oh * sh + kh), phase,
                                           Simplify(ow0 + w + shift)});
        PrimExpr wt = MakeLoad(wpk, {ocb, ic, kh, kw, o});
        Stmt upd = MakeStore(acc, MakeLoad(acc, {o, w}) + wt * x, {o, w});
        Stmt body = MakeFor(o, IntImm(0), IntImm(kOCB), ForKind::kUnrolled,
                            MakeFor(w, IntImm(0), IntImm(width), ForKind::kVectorized, upd));
        body = MakeFor(kw, IntImm(0), IntImm(c.kw), ForKind::kUnrolled, body);
        body = MakeFor(kh, IntImm(0), IntImm(c.kh), ForKind::kSerial, body);
        seq.push_back(MakeFor(ic, IntImm(0), IntImm(c.ic), ForKind::kSerial, body));
      }
      {
        tir::Var o = tir::MakeVar("o"), w = tir::MakeVar("w");
        PrimExpr oc = Simplify(ocb * kOCB + o);
        // Flat: position p = ow0 + w is output (p / wq, p % wq), kept when inside a row.
        PrimExpr pos = Simplify(ow0 + w);
        // Positions are non-negative: plain C division, which the compiler turns into a
        // multiply and shift (the floor forms carry a sign branch).
        PrimExpr row = MakeBinary(BinaryOp::kDiv, pos, IntImm(wq));
        PrimExpr col = Simplify(pos - row * IntImm(wq));
        Indices oi = flat ? Indices{n, oc, row, col} : Indices{n, oc, oh, pos};
        std::vector<Stmt> st{MakeStore(dest, MakeLoad(acc, {o, w}), oi)};
        if (epilogue) {
          PrimExpr v = epilogue(oi);
          if (v->dtype != dest->dtype) v = MakeCast(dest->dtype, v);
          st.push_back(MakeStore(dest, v, oi));
        }
        Stmt kept = MakeSeq(st);
        if (flat && wq > c.ow)
          kept = MakeIfThenElse(MakeBinary(BinaryOp::kLT, col, IntImm(c.ow)), kept);
        Stmt store = MakeFor(w, IntImm(0), IntImm(stored),
                             flat ? ForKind::kSerial : ForKind::kVectorized, kept);
        if (c.oc % kOCB) store = MakeIfThenElse(MakeBinary(BinaryOp::kLT, oc, IntImm(c.oc)), store);
        seq.push_back(MakeFor(o, IntImm(0), IntImm(kOCB), ForKind::kUnrolled, store));
      }
      return MakeSeq(seq);
    };

    // One image: the batch index is the constant 0, as in the fused epilogue's own loads
    // (broadcasting folds their size-1 batch index), so the two agree and the epilogue's
    // column loop vectorizes.
    auto batch_loop = [&](Stmt body) {
      if (c.n == 1) return tir::SubstituteVars(body, {{n.get(), IntImm(0)}});
      return MakeFor(n, IntImm(0), IntImm(c.n), ForKind::kSerial, body);
    };
    std::vector<Stmt> row;
    if (full_tiles > 0) {
      tir::Var t = tir::MakeVar("t");
      row.push_back(MakeFor(t, IntImm(0), IntImm(full_tiles), ForKind::kSerial,
                            tile(t * tile_width, tile_width, tile_width)));
    }
    if (tail > 0) row.push_back(tile(IntImm(full_tiles * tile_width), tail_width, tail));
    Stmt body = MakeAllocate(acc, MakeSeq(row));
    if (!flat && ocb_count < kMinParallelBlocks && c.oh > 1) {
      // Too few channel blocks to share out (24 channels are 3 blocks: one thread would
      // get twice the other's work): the blocks and the output rows are one parallel loop.
      tir::Var f = tir::MakeVar("ocb_oh");
      body = tir::SubstituteVars(body, {{ocb.get(), FloorDiv(f, IntImm(c.oh))},
                                        {oh.get(), FloorMod(f, IntImm(c.oh))}});
      body = MakeFor(f, IntImm(0), IntImm(ocb_count * c.oh), ForKind::kParallel, body);
      return batch_loop(body);
    }
    if (!flat) body = MakeFor(oh, IntImm(0), IntImm(c.oh), ForKind::kSerial, body);
    body = MakeFor(ocb, IntImm(0), IntImm(ocb_count),
                   ocb_count > 1 ? ForKind::kParallel : ForKind::kSerial, body);
    return batch_loop(body);
  };
}

}  // namespace tessera::lower
