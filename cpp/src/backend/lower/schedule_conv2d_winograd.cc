// The Winograd F(2 x 2, 3 x 3) template of nn.conv2d for 3 x 3 stride-1 convolutions with
// constant weights and a channel-blocked output: each 2 x 2 block of outputs comes from a
// 4 x 4 input tile as A^T [(G g G^T) . (B^T d B)] A, so the 36 multiplies per output and
// input channel of the direct form become 16 per 4 outputs (2.25x fewer), done as 16
// independent products over the input channels (one per tile frequency) that run as
// register-tiled GEMMs. The weights are transformed and packed at compile time.
#include "schedule_conv2d_winograd.h"

#include <algorithm>
#include <array>

#include "conv_blocked_util.h"
#include "lower_util.h"
#include "padded_copy.h"
#include "tessera/support/host_cpu.h"

namespace tessera::lower {

using namespace tir;

namespace {

/// Output tile side m and input tile side alpha = m + 2 of F(m x m, 3 x 3).
constexpr int64_t kM = 2, kAlpha = kM + 2, kFreqs = kAlpha * kAlpha;

/// Where the transform pays (measured on ResNet-18's layers, one thread, in the whole
/// network): every block of tiles reads all transformed weights, 16/9 the size of the
/// direct form's, so they must stay in L2 — ResNet-18's 3 x 3 convolutions at 56 x 56 and
/// 28 x 28 (256 KiB, 1 MiB) ran 1.5x faster than the direct template, those at 14 x 14
/// and 7 x 7 (4 MiB, 16 MiB: streamed from memory once per block) no faster or 1.8x
/// slower; and with few tiles the copies around the products cost more than they save
/// (a 9 x 11 output: 0.7x).
constexpr int64_t kMaxTransformedWeightBytes = int64_t{1} << 20;
constexpr int64_t kMinTiles = 64;

/// The transforms of F(2, 3): input B^T, weight G, output A^T.
constexpr std::array<std::array<double, kAlpha>, kAlpha> kBT{
    {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}}};
constexpr std::array<std::array<double, 3>, kAlpha> kG{
    {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}};
constexpr std::array<std::array<double, kAlpha>, kM> kAT{{{1, 1, 1, 0}, {0, 1, -1, -1}}};

/// sum of coef * term over the nonzero coefficients (+-1 as additions and subtractions).
PrimExpr Combine(const std::vector<std::pair<double, PrimExpr>>& terms) {
  PrimExpr sum;
  for (const auto& [k, t] : terms) {
    if (k == 0) continue;
    PrimExpr x = k == 1 || k == -1 ? t : FloatImm(k < 0 ? -k : k, DType::kFloat32) * t;
    if (!sum.defined())
      sum = k < 0 ? FloatImm(0.0, DType::kFloat32) - x : x;
    else
      sum = k < 0 ? sum - x : sum + x;
  }
  return sum.defined() ? sum : FloatImm(0.0, DType::kFloat32);
}

/// The tiling of one convolution: tiles per row and column, tiles per register block
/// (the GEMM's rows), blocks, output channels per GEMM column block, groups of those
/// blocks split across work items.
struct Plan {
  int64_t th, tw, tiles, rows, blocks, tc, ocb_count, groups;
};

Plan MakePlan(const Conv2DShape& c, int64_t z) {
  const int64_t lanes = HostSimdBytes() / 4;
  Plan p{};
  p.th = (c.oh + kM - 1) / kM;
  p.tw = (c.ow + kM - 1) / kM;
  p.tiles = p.th * p.tw;
  for (int64_t cand : {2 * lanes, lanes})
    if (c.oc % cand == 0 && (cand % z == 0 || z % cand == 0)) {
      p.tc = cand;
      break;
    }
  if (p.tc == 0) return p;
  // Registers: rows x (tc / lanes) accumulators, one weight vector per column of lanes and
  // a broadcast (32 zmm: 28 accumulators; 16 ymm: 12), the tiles spread evenly over blocks.
  const int64_t max_rows = (lanes >= 16 ? 28 : 12) / (p.tc / lanes);
  p.blocks = (p.tiles + max_rows - 1) / max_rows;
  p.rows = (p.tiles + p.blocks - 1) / p.blocks;
  p.ocb_count = c.oc / p.tc;
  // Enough work items for two threads to balance (each group redoes its block's input
  // transform, which is cheap next to the products).
  const int64_t items = c.n * p.blocks;
  p.groups = std::min<int64_t>(p.ocb_count, std::max<int64_t>(1, (8 + items - 1) / items));
  while (p.ocb_count % p.groups) --p.groups;
  return p;
}

/// The transformed weights, packed per GEMM column block: U[ocb, e, i, j] = (G g G^T)[e] of
/// output channel ocb * tc + j, input channel i (computed in double).
NDArray TransformWeights(const ConstantWeight& w, const Plan& p, int64_t ic) {
  NDArray packed = NDArray::Empty({p.ocb_count, kFreqs, ic, p.tc}, DType::kFloat32);
  float* out = packed.data_as<float>();
  std::vector<double> u(kFreqs);
  for (int64_t ob = 0; ob < p.ocb_count; ++ob)
    for (int64_t i = 0; i < ic; ++i)
      for (int64_t j = 0; j < p.tc; ++j) {
        const int64_t o = ob * p.tc + j;
        for (int64_t a = 0; a < kAlpha; ++a)
          for (int64_t b = 0; b < kAlpha; ++b) {
            double s = 0;
            for (int64_t y = 0; y < 3; ++y)
              for (int64_t x = 0; x < 3; ++x) s += kG[a][y] * w.At(o, i, y, x) * kG[b][x];
            u[a * kAlpha + b] = s;
          }
        for (int64_t e = 0; e < kFreqs; ++e)
          out[((ob * kFreqs + e) * ic + i) * p.tc + j] = static_cast<float>(u[e]);
      }
  return packed;
}

}  // namespace

NestEmitter WinogradConv2DTemplate(const Conv2DShape& c, const TensorExpr& data,
                                   const nn::DataLayout2D& dl, const TensorExpr& weight,
                                   const nn::KernelLayout2D& kl, const nn::DataLayout2D& ol) {
  const int64_t lanes = HostSimdBytes() / 4;
  if (c.groups != 1 || c.kh != 3 || c.kw != 3 || c.stride_h != 1 || c.stride_w != 1 ||
      c.dilation_h != 1 || c.dilation_w != 1)
    return nullptr;
  if (!ol.blocked() || ol.rank() != 5 || !dl.IsNCHWFamily() || c.oc % ol.c_block) return nullptr;
  if (c.dtype != DType::kFloat32 || data.dtype != DType::kFloat32 ||
      weight.dtype != DType::kFloat32 || !weight.constant.defined() ||
      weight.constant.dtype() != DType::kFloat32 || weight.constant.shape() != weight.shape)
    return nullptr;
  if (c.n <= 0 || c.ic % lanes || c.oh <= 0 || c.ow <= 0) return nullptr;
  const int64_t z = ol.c_block;
  const Plan p = MakePlan(c, z);
  if (p.tc == 0 || p.tiles < kMinTiles || kFreqs * c.ic * c.oc * 4 > kMaxTransformedWeightBytes)
    return nullptr;
  const int64_t ic = c.ic;
  return [=](LowerContext& ctx, const Buffer& dest,
             const std::function<PrimExpr(const Indices&)>& epilogue) -> Stmt {
    const int64_t tc = p.tc, R = p.rows, py = lanes;
    // Transformed when the nest is emitted, not when the template is chosen.
    NDArray packed = TransformWeights(
        ConstantWeight{weight.constant.data_as<float>(), Strides(weight.shape), kl}, p, ic);
    Buffer wu = ctx.AddConstant("wino_u", packed);
    // 1. What the tiles read: a stored input blocked by whole vectors itself, each value
    // outside it (padding, tiles past the edge) a zero picked by a select with a clamped
    // index; otherwise a copy zero-padded to whole tiles, pad[n, cb, h, w, l] (an inlined
    // producer is computed once, an NCHW input is blocked once).
    const bool in_place = data.depth == 0 && dl.blocked() && dl.c_block == py;
    Buffer pad;
    if (!in_place) {
      // PaddedCopy writes every element (the input's or zero).
      pad = ctx.AllocScratch("wino_pad", {c.n, ic / py, p.th * kM + 2, p.tw * kM + 2, py},
                             DType::kFloat32, /*zero_fill=*/false);
      ctx.Emit(PaddedCopy(c, data, dl, pad, py));
    }
    const bool ragged = p.blocks * R != p.tiles;
    // The transformed input of one block of tiles, made by the work item that multiplies it.
    Buffer v = MakeBuffer(ctx.FreshName("wino_v"), {kFreqs, R, ic}, DType::kFloat32);

    // Tile r of block blk: its row and column; code for the valid tiles only.
    auto for_tiles = [&](const PrimExpr& blk,
                         const std::function<Stmt(const PrimExpr& r, const PrimExpr& ty,
                                                  const PrimExpr& tx)>& body) {
      tir::Var r = tir::MakeVar("r");
      PrimExpr t = Simplify(blk * R + r);
      Stmt s = body(r, Div(t, p.tw), Mod(t, p.tw));
      if (ragged) s = MakeIfThenElse(MakeBinary(BinaryOp::kLT, t, IntImm(p.tiles)), s);
      return MakeFor(r, IntImm(0), IntImm(R), ForKind::kSerial, s);
    };

    // 2. The input transform of a block: V[e, r, i] = (B^T d B)[e] of tile r, channel i
    // (zero for the tiles past the last: their allocation is zero-filled).
    auto transform_in = [&](const PrimExpr& n, const PrimExpr& blk) {
      return for_tiles(blk, [&](const PrimExpr& r, const PrimExpr& ty, const PrimExpr& tx) {
        tir::Var cb = tir::MakeVar("cb"), l = tir::MakeVar("l");
        auto d = [&](int64_t y, int64_t x) {
          PrimExpr h = Simplify(ty * kM + IntImm(y)), w = Simplify(tx * kM + IntImm(x));
          if (!in_place) return MakeLoad(pad, {n, cb, h, w, l});
          h = Simplify(h + IntImm(-c.pad_top));
          w = Simplify(w + IntImm(-c.pad_left));
          return MakeSelect(And(InRange(h, c.ih), InRange(w, c.iw)),
                            data.at({n, cb, Clamp(h, c.ih), Clamp(w, c.iw), l}),
                            FloatImm(0.0, DType::kFloat32));
        };
        std::vector<Stmt> stores;
        for (int64_t a = 0; a < kAlpha; ++a) {
          std::array<PrimExpr, kAlpha> rowa;  // (B^T d)[a, x]
          for (int64_t x = 0; x < kAlpha; ++x) {
            std::vector<std::pair<double, PrimExpr>> terms;
            for (int64_t y = 0; y < kAlpha; ++y)
              if (kBT[a][y] != 0) terms.emplace_back(kBT[a][y], d(y, x));
            rowa[x] = Combine(terms);
          }
          for (int64_t b = 0; b < kAlpha; ++b) {
            std::vector<std::pair<double, PrimExpr>> terms;
            for (int64_t x = 0; x < kAlpha; ++x)
              if (kBT[b][x] != 0) terms.emplace_back(kBT[b][x], rowa[x]);
            stores.push_back(
                MakeStore(v, Combine(terms), {IntImm(a * kAlpha + b), r, Simplify(cb * py + l)}));
          }
        }
        return MakeFor(cb, IntImm(0), IntImm(ic / py), ForKind::kSerial,
                       MakeFor(l, IntImm(0), IntImm(py), ForKind::kVectorized, MakeSeq(stores)));
      });
    };

    // 3. One block of tiles x one column block: the 16 products M_e (a register tile each,
    // stored to `mb`), then per output pixel A^T M A over them, a run of lanes per block of
    // the output's channels, then the epilogue over what was stored.
    const int64_t run = std::min(tc, z), runs = tc / run;
    Buffer mb = MakeBuffer(ctx.FreshName("wino_m"), {kFreqs, R, tc}, DType::kFloat32);
    auto tile_block = [&](const PrimExpr& n, const PrimExpr& blk, const PrimExpr& ocb) {
      Buffer acc = MakeBuffer(ctx.FreshName("wino_acc"), {R, tc}, DType::kFloat32);
      auto over_acc = [&](const std::function<Stmt(const PrimExpr& r, const PrimExpr& j)>& body) {
        tir::Var r = tir::MakeVar("r"), j = tir::MakeVar("j");
        return MakeFor(r, IntImm(0), IntImm(R), ForKind::kUnrolled,
                       MakeFor(j, IntImm(0), IntImm(tc), ForKind::kVectorized, body(r, j)));
      };
      std::vector<Stmt> products;
      for (int64_t e = 0; e < kFreqs; ++e) {
        products.push_back(over_acc([&](const PrimExpr& r, const PrimExpr& j) {
          return MakeStore(acc, FloatImm(0.0, DType::kFloat32), {r, j});
        }));
        tir::Var i = tir::MakeVar("i");
        products.push_back(MakeFor(
            i, IntImm(0), IntImm(ic), ForKind::kSerial,
            over_acc([&](const PrimExpr& r, const PrimExpr& j) {
              return MakeStore(acc,
                               MakeLoad(acc, {r, j}) + MakeLoad(v, {IntImm(e), r, i}) *
                                                           MakeLoad(wu, {ocb, IntImm(e), i, j}),
                               {r, j});
            })));
        products.push_back(over_acc([&](const PrimExpr& r, const PrimExpr& j) {
          return MakeStore(mb, MakeLoad(acc, {r, j}), {IntImm(e), r, j});
        }));
      }
      auto out_index = [&](int64_t vr, const PrimExpr& oh, const PrimExpr& ow, const PrimExpr& l) {
        return BlockedOutIndex(n, ocb, tc, z, vr, oh, ow, l);
      };
      Stmt write = for_tiles(blk, [&](const PrimExpr& r, const PrimExpr& ty, const PrimExpr& tx) {
        std::vector<Stmt> pixels;
        for (int64_t qy = 0; qy < kM; ++qy)
          for (int64_t qx = 0; qx < kM; ++qx) {
            PrimExpr oh = Simplify(ty * kM + IntImm(qy)), ow = Simplify(tx * kM + IntImm(qx));
            std::vector<Stmt> seq;
            for (int64_t vr = 0; vr < runs; ++vr) {
              tir::Var l = tir::MakeVar("l");
              PrimExpr j = Simplify(l + IntImm(vr * run));
              std::vector<std::pair<double, PrimExpr>> rows;  // sum over a of (M A)[a, qx]
              for (int64_t a = 0; a < kAlpha; ++a) {
                if (kAT[qy][a] == 0) continue;
                std::vector<std::pair<double, PrimExpr>> cols;
                for (int64_t b = 0; b < kAlpha; ++b)
                  if (kAT[qx][b] != 0)
                    cols.emplace_back(kAT[qx][b], MakeLoad(mb, {IntImm(a * kAlpha + b), r, j}));
                rows.emplace_back(kAT[qy][a], Combine(cols));
              }
              PrimExpr val = Combine(rows);
              seq.push_back(MakeFor(l, IntImm(0), IntImm(run), ForKind::kVectorized,
                                    MakeStore(dest, val, out_index(vr, oh, ow, l))));
            }
            if (epilogue)
              for (int64_t vr = 0; vr < runs; ++vr) {
                tir::Var l = tir::MakeVar("l");
                Indices oi = out_index(vr, oh, ow, l);
                PrimExpr e = epilogue(oi);
                if (e->dtype != dest->dtype) e = MakeCast(dest->dtype, e);
                seq.push_back(MakeFor(l, IntImm(0), IntImm(run), ForKind::kVectorized,
                                      MakeStore(dest, e, oi)));
              }
            Stmt s = MakeSeq(seq);
            // Tiles of the last row or column reach past an odd output size.
            PrimExpr inside;
            if (qy > 0 && c.oh % kM) inside = MakeBinary(BinaryOp::kLT, oh, IntImm(c.oh));
            if (qx > 0 && c.ow % kM) {
              PrimExpr in_w = MakeBinary(BinaryOp::kLT, ow, IntImm(c.ow));
              inside = inside.defined() ? MakeBinary(BinaryOp::kAnd, inside, in_w) : in_w;
            }
            pixels.push_back(inside.defined() ? MakeIfThenElse(inside, s) : s);
          }
        return MakeSeq(pixels);
      });
      // Zero-filled although each product zeroes it: without the fill GCC does not keep
      // a register tile in registers (the direct conv's tiles ran 2x slower).
      return MakeSeq({MakeAllocate(acc, MakeSeq(products)), write});
    };

    // 4. One parallel loop over (image, group of column blocks, block of tiles): the
    // block's input transform, then the group's column blocks.
    const int64_t per_group = p.ocb_count / p.groups, per_image = p.groups * p.blocks;
    tir::Var f = tir::MakeVar("f"), o = tir::MakeVar("o");
    PrimExpr n = c.n == 1 ? IntImm(0) : Div(f, per_image);
    PrimExpr in_image = c.n == 1 ? PrimExpr(f) : Mod(f, per_image);
    PrimExpr group = Div(in_image, p.blocks), blk = Mod(in_image, p.blocks);
    Stmt body = MakeSeq({transform_in(n, blk),
                         MakeFor(o, IntImm(0), IntImm(per_group), ForKind::kSerial,
                                 tile_block(n, blk, Simplify(group * per_group + o)))});
    const int64_t work = c.n * per_image;
    // Neither needs zeros but the transformed tiles past the last (zeros keep garbage, which
    // may be slow denormals, out of the product rows that are thrown away), and filling
    // them cost up to 12% of a 56 x 56 layer.
    return MakeFor(f, IntImm(0), IntImm(work), work > 1 ? ForKind::kParallel : ForKind::kSerial,
                   MakeAllocate(v, MakeAllocate(mb, body, /*zero_fill=*/false),
                                /*zero_fill=*/ragged));
  };
}

}  // namespace tessera::lower
