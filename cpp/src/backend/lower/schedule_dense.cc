// The blocked GEMM template: the right operand packed into column panels (at compile time
// when it is a constant; a run-time operand already stored with j innermost is read in
// place), MR x NR register tiles accumulated in a small stack
// buffer (unrolled rows, vectorized columns, so the C compiler keeps them in registers
// and emits broadcast-FMAs), the fused epilogue applied as each tile completes; parallel
// tasks are column panels (of the first or second half of the rows, when unbatched);
// products of few rows with k-contiguous operands use vectorized dot products instead.
#include "schedule_dense.h"

#include <algorithm>

#include "lower_util.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"

namespace tessera::lower {

using namespace tir;

namespace {

constexpr int64_t kDotRows = 8;  // output columns per dot-product step
/// The largest panel a task packs for itself: what the native code generator keeps on the
/// stack (8 KiB; larger allocations are a malloc and free per task), a sixth of L1.
constexpr int64_t kOwnPanelBytes = 8 * 1024;
/// How many rows of k ahead a panel's first tile prefetches the packed panel (measured
/// on a 64 x 1024 x 256 product: 8 and 16 alike, 32 slower).
constexpr int64_t kPrefetchRows = 16;
/// Floats of one 64-byte cache line: a panel row of NR floats is prefetched a line at a time.
constexpr int64_t kCacheLineFloats = 64 / 4;

/// The register tile for this CPU's SIMD width: MR rows by two vectors of columns,
/// leaving registers for the two B vectors and the broadcast A value. AVX-512 (32 zmm):
/// 12 x 32, 24 accumulators; AVX2/SSE (16 registers): 6 x 2 vectors, 12 accumulators
/// (the BLIS Haswell shape). Measured on 1024^3 with one thread on AVX-512: 12 x 32
/// runs 1.9x faster than the former 4 x 16, which kept only 4 zmm accumulators.
struct TileShape {
  int64_t lanes;  ///< float32 lanes of one SIMD register
  int64_t mr;     ///< rows of a register tile
  int64_t nr;     ///< columns of a register tile (two registers)
};

TileShape HostTileShape() {
  int64_t lanes = HostSimdBytes() / 4;
  return TileShape{lanes, lanes >= 16 ? 12 : 6, 2 * lanes};
}

/// The multi-index of flattened batch element `b` over `dims`.
Indices Unflatten(const PrimExpr& b, const std::vector<int64_t>& dims) {
  Indices idx(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    PrimExpr q = Div(b, stride);
    idx[d] = d == 0 ? q : Mod(q, dims[d]);
    stride *= dims[d];
  }
  return idx;
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

Indices OutIndex(const Indices& batch, const PrimExpr& i, const PrimExpr& j) {
  Indices out = batch;
  out.push_back(Simplify(i));
  out.push_back(Simplify(j));
  return out;
}

struct Builder {
  LowerContext& ctx;
  const GemmDesc& d;
  const Buffer& dest;
  const std::function<PrimExpr(const Indices&)>& epilogue;
  TileShape tile;
  Buffer packed;  // [batch?..., panels, K, NR] or undefined
  Buffer panel;   // [K, NR]: the task's own panel, packed by the task itself, or undefined

  /// The output indices of element (i, j) of batch element `bi`.
  Indices Out(const Indices& bi, const PrimExpr& i, const PrimExpr& j) const {
    return d.out_index ? d.out_index(bi, Simplify(i), Simplify(j)) : OutIndex(bi, i, j);
  }

  /// Stores acc[r*nc + v] into the output tile, then applies the epilogue to it.
  Stmt StoreTile(const Buffer& acc, const Indices& bi, const PrimExpr& i0, int64_t mr,
                 const PrimExpr& j0, int64_t nc) {
    tir::Var r = tir::MakeVar("r"), v = tir::MakeVar("v");
    Indices oi = Out(bi, i0 + r, j0 + v);
    std::vector<Stmt> seq;
    seq.push_back(MakeFor(r, IntImm(0), IntImm(mr), ForKind::kUnrolled,
                          MakeFor(v, IntImm(0), IntImm(nc), ForKind::kVectorized,
                                  MakeStore(dest, MakeLoad(acc, {Simplify(r * nc + v)}), oi))));
    if (epilogue) {
      tir::Var r2 = tir::MakeVar("r"), v2 = tir::MakeVar("v");
      Indices ei = Out(bi, i0 + r2, j0 + v2);
      PrimExpr e = epilogue(ei);
      if (e->dtype != dest->dtype) e = MakeCast(dest->dtype, e);
      seq.push_back(MakeFor(
          r2, IntImm(0), IntImm(mr), ForKind::kSerial,
          MakeFor(v2, IntImm(0), IntImm(nc), ForKind::kVectorized, MakeStore(dest, e, ei))));
    }
    return MakeSeq(seq);
  }

  /// Element (k, v) of the column tile starting at j0 (panel jb).
  PrimExpr BTile(const Indices& bi, const PrimExpr& jb, const PrimExpr& j0, const PrimExpr& k,
                 const PrimExpr& v) {
    if (panel.defined()) return MakeLoad(panel, {k, v});
    if (!packed.defined()) return d.b(bi, Simplify(j0 + v), k);
    Indices pi = d.b_batched ? bi : Indices{};
    pi.push_back(jb);
    pi.push_back(k);
    pi.push_back(v);
    return MakeLoad(packed, pi);
  }

  /// One mr x nc register tile at rows i0.., columns j0.. (panel jb). With `prefetch`
  /// (and where `when` holds, if given) the tile also prefetches the packed panel
  /// kPrefetchRows rows of k ahead.
  Stmt Tile(const Indices& bi, const PrimExpr& i0, int64_t mr, const PrimExpr& jb,
            const PrimExpr& j0, int64_t nc, bool prefetch = false, const PrimExpr& when = PrimExpr()) {
    Buffer acc = MakeBuffer(ctx.FreshName(d.name + "_acc"), {mr * nc}, d.dtype);
    tir::Var r0 = tir::MakeVar("r"), v0 = tir::MakeVar("v");
    Stmt zero = MakeFor(r0, IntImm(0), IntImm(mr), ForKind::kUnrolled,
                        MakeFor(v0, IntImm(0), IntImm(nc), ForKind::kVectorized,
                                MakeStore(acc, FloatImm(0, d.dtype), {Simplify(r0 * nc + v0)})));
    tir::Var k = tir::MakeVar("k"), r = tir::MakeVar("r"), v = tir::MakeVar("v");
    PrimExpr slot = Simplify(r * nc + v);
    PrimExpr upd = MakeLoad(acc, {slot}) + d.a(bi, Simplify(i0 + r), k) * BTile(bi, jb, j0, k, v);
    Stmt step = MakeFor(r, IntImm(0), IntImm(mr), ForKind::kUnrolled,
                        MakeFor(v, IntImm(0), IntImm(nc), ForKind::kVectorized,
                                MakeStore(acc, upd, {slot})));
    if (prefetch && packed.defined() && d.k > kPrefetchRows) {
      // The first tile of a panel reads it from memory (the weights of a whole network do
      // not stay in L2); the hardware prefetcher alone left a transformer's FFN products
      // 5-7% slower than with this hint.
      Indices pi = d.b_batched ? bi : Indices{};
      pi.push_back(jb);
      pi.push_back(MakeBinary(BinaryOp::kMin, k + IntImm(kPrefetchRows), IntImm(d.k - 1)));
      std::vector<Stmt> lines;
      for (int64_t col = 0; col < tile.nr; col += kCacheLineFloats) {
        Indices li = pi;
        li.push_back(IntImm(col));
        lines.push_back(MakePrefetch(packed, li));
      }
      Stmt hint = MakeSeq(lines);
      step = MakeSeq({when.defined() ? MakeIfThenElse(when, hint) : hint, step});
    }
    Stmt fma = MakeFor(k, IntImm(0), IntImm(d.k), ForKind::kSerial, step);
    return MakeAllocate(acc, MakeSeq({zero, fma, StoreTile(acc, bi, i0, mr, j0, nc)}));
  }

  /// Every row of the column tile j0.. of width nc.
  Stmt ColumnTile(const Indices& bi, const PrimExpr& jb, const PrimExpr& j0, int64_t nc,
                  const PrimExpr& row0, int64_t rows) {
    std::vector<Stmt> seq;
    const int64_t mr = tile.mr;
    int64_t full = rows / mr;
    // The panel's first tile prefetches it; the others find it in cache.
    if (full > 0) {
      tir::Var it = tir::MakeVar("it");
      seq.push_back(MakeFor(it, IntImm(0), IntImm(full), ForKind::kSerial,
                            Tile(bi, Simplify(row0 + it * mr), mr, jb, j0, nc, true,
                                 MakeBinary(BinaryOp::kEQ, it, IntImm(0)))));
    }
    if (rows % mr)
      seq.push_back(Tile(bi, Simplify(row0 + IntImm(full * mr)), rows % mr, jb, j0, nc, full == 0));
    return MakeSeq(seq);
  }

  /// Packs the right operand into [batch?..., panels, K, NR] (tail columns clamped).
  void Pack(int64_t panels) {
    const int64_t nr = tile.nr;
    if (d.b_constant.defined() && !d.b_batched) {
      // A constant right operand (a layer's weights) is packed here, once.
      const float* w = d.b_constant.data_as<float>();
      const int64_t j_stride = d.b_constant_kn ? 1 : d.k, k_stride = d.b_constant_kn ? d.n : 1;
      NDArray arr = NDArray::Empty({panels, d.k, nr}, DType::kFloat32);
      float* out = arr.data_as<float>();
      for (int64_t p = 0; p < panels; ++p)
        for (int64_t k = 0; k < d.k; ++k)
          for (int64_t v = 0; v < nr; ++v)
            *out++ = w[std::min(p * nr + v, d.n - 1) * j_stride + k * k_stride];
      packed = ctx.AddConstant(d.name + "_packed", std::move(arr));
      return;
    }
    std::vector<int64_t> shape = d.b_batched ? d.batch : std::vector<int64_t>{};
    size_t nb = shape.size();
    shape.push_back(panels);
    shape.push_back(d.k);
    shape.push_back(nr);
    int64_t n = d.n;
    GemmDesc desc = d;
    TensorExpr t{shape, d.dtype, [desc, nb, n, nr](const Indices& i) {
                   Indices bi(i.begin(), i.begin() + nb);
                   PrimExpr j = Simplify(i[nb] * nr + i[nb + 2]);
                   if (n % nr) j = MakeBinary(BinaryOp::kMin, j, IntImm(n - 1));
                   return desc.b(bi, j, i[nb + 1]);
                 }};
    packed = ctx.AllocScratch(d.name + "_packed", shape, d.dtype, /*zero_fill=*/false);
    ctx.StoreInto(t, packed, d.name + "_pack");
  }

  Stmt Blocked() {
    const int64_t nr = tile.nr;
    int64_t panels = (d.n + nr - 1) / nr, full = d.n / nr, batch = Product(d.batch);
    // A j-contiguous right operand is read in place unless it is a constant: packed
    // panels are read sequentially instead of one cache line per k row, n floats apart.
    const bool constant = d.b_constant.defined() && !d.b_batched;
    const bool pack = !d.b_j_contiguous || constant;
    // A small run-time operand panel is packed by the task that uses it (with one block
    // of rows each task computes every row of its panel, so each panel is packed once
    // either way): the packing runs in parallel with the products, and the panel is in
    // L1 when they read it. Measured on the attention's 4 x 64 x 64 products: a separate
    // packing loop (16K elements, below -min_parallel_work) kept two threads as slow as
    // one.
    // Two blocks of rows, outermost, when the product is not batched: the thread that runs
    // the first half of the tasks computes the first half of the rows, as the row-wise
    // kernels around it (layer norm, softmax, elementwise) split them, so a chain of
    // products and row-wise kernels reads its own core's results. Split by columns
    // instead, every product read half its left operand from the other core (on this
    // machine about 13 GB/s): a transformer's products then scaled 0.55-0.6 on two threads.
    // One thread pays little: the second block finds the panels in L2.
    const int64_t row_blocks = batch == 1 && d.m % 2 == 0 && d.m >= 2 * tile.mr ? 2 : 1;
    const int64_t block_rows = d.m / row_blocks;
    const bool own_panel =
        pack && !constant && row_blocks == 1 && (d.b_batched || batch == 1) &&
        d.k * nr * DTypeBytes(d.dtype) <= kOwnPanelBytes;
    if (pack && !own_panel) Pack(panels);
    tir::Var t = tir::MakeVar("t");
    const int64_t tasks = batch * panels;
    PrimExpr task = row_blocks == 1 ? PrimExpr(t) : Mod(t, tasks);
    PrimExpr row0 = row_blocks == 1 ? IntImm(0) : Simplify(Div(t, tasks) * IntImm(block_rows));
    PrimExpr b = Div(task, panels), jb = batch == 1 ? task : Mod(task, panels);
    Indices bi = Unflatten(batch == 1 ? IntImm(0) : b, d.batch);
    PrimExpr j0 = Simplify(jb * nr);
    if (own_panel) panel = MakeBuffer(ctx.FreshName(d.name + "_panel"), {d.k, nr}, d.dtype);
    Stmt body;
    if (full == panels)
      body = ColumnTile(bi, jb, j0, nr, row0, block_rows);
    else if (full == 0)
      body = ColumnTile(bi, jb, j0, d.n, row0, block_rows);
    else
      body = MakeIfThenElse(MakeBinary(BinaryOp::kLT, jb, IntImm(full)),
                            ColumnTile(bi, jb, j0, nr, row0, block_rows),
                            ColumnTile(bi, jb, j0, d.n % nr, row0, block_rows));
    if (own_panel) {
      // panel[k, v] = b(j0 + v, k), tail columns clamped as Pack does.
      tir::Var k = tir::MakeVar("k"), v = tir::MakeVar("v");
      PrimExpr j = Simplify(j0 + v);
      if (d.n % nr) j = MakeBinary(BinaryOp::kMin, j, IntImm(d.n - 1));
      Stmt fill = MakeFor(k, IntImm(0), IntImm(d.k), ForKind::kSerial,
                          MakeFor(v, IntImm(0), IntImm(nr), ForKind::kVectorized,
                                  MakeStore(panel, d.b(bi, j, k), {k, v})));
      body = MakeAllocate(panel, MakeSeq({fill, body}), /*zero_fill=*/false);
    }
    int64_t extent = row_blocks * tasks;
    return MakeFor(t, IntImm(0), IntImm(extent), extent > 1 ? ForKind::kParallel : ForKind::kSerial,
                   body);
  }

  /// out[i, j0 + c] for c < rows as dot products over k, one register of lanes at a time.
  Stmt DotStep(const Indices& bi, const PrimExpr& i, const PrimExpr& j0, int64_t rows) {
    const int64_t vl = tile.lanes;
    int64_t kv = d.k / vl;
    Buffer acc = MakeBuffer(ctx.FreshName(d.name + "_acc"), {rows * vl}, d.dtype);
    tir::Var c0 = tir::MakeVar("c"), v0 = tir::MakeVar("v");
    Stmt zero = MakeFor(c0, IntImm(0), IntImm(rows), ForKind::kUnrolled,
                        MakeFor(v0, IntImm(0), IntImm(vl), ForKind::kVectorized,
                                MakeStore(acc, FloatImm(0, d.dtype), {Simplify(c0 * vl + v0)})));
    tir::Var kc = tir::MakeVar("kc"), c = tir::MakeVar("c"), v = tir::MakeVar("v");
    PrimExpr slot = Simplify(c * vl + v), kk = Simplify(kc * vl + v);
    PrimExpr upd = MakeLoad(acc, {slot}) + d.a(bi, i, kk) * d.b(bi, Simplify(j0 + c), kk);
    Stmt fma = MakeFor(kc, IntImm(0), IntImm(kv), ForKind::kSerial,
                       MakeFor(c, IntImm(0), IntImm(rows), ForKind::kUnrolled,
                               MakeFor(v, IntImm(0), IntImm(vl), ForKind::kVectorized,
                                       MakeStore(acc, upd, {slot}))));
    std::vector<Stmt> stores;
    for (int64_t r = 0; r < rows; ++r) {
      // Pairwise lane sum, then the k tail.
      std::vector<PrimExpr> lanes;
      for (int64_t l = 0; l < vl; ++l) lanes.push_back(MakeLoad(acc, {IntImm(r * vl + l)}));
      while (lanes.size() > 1) {
        std::vector<PrimExpr> next;
        for (size_t l = 0; l + 1 < lanes.size(); l += 2) next.push_back(lanes[l] + lanes[l + 1]);
        lanes = next;
      }
      PrimExpr sum = lanes[0];
      PrimExpr j = Simplify(j0 + IntImm(r));
      for (int64_t kt = kv * vl; kt < d.k; ++kt)
        sum = sum + d.a(bi, i, IntImm(kt)) * d.b(bi, j, IntImm(kt));
      Indices oi = Out(bi, i, j);
      stores.push_back(MakeStore(dest, sum, oi));
    }
    std::vector<Stmt> seq{zero, fma, MakeSeq(stores)};
    if (epilogue)
      for (int64_t r = 0; r < rows; ++r) {
        Indices oi = Out(bi, i, Simplify(j0 + IntImm(r)));
        PrimExpr e = epilogue(oi);
        if (e->dtype != dest->dtype) e = MakeCast(dest->dtype, e);
        seq.push_back(MakeStore(dest, e, oi));
      }
    return MakeAllocate(acc, MakeSeq(seq));
  }

  Stmt Dot() {
    int64_t batch = Product(d.batch), full = d.n / kDotRows, tail = d.n % kDotRows;
    int64_t chunks = full + (tail ? 1 : 0);
    tir::Var t = tir::MakeVar("t"), i = tir::MakeVar("i");
    PrimExpr b = Div(t, chunks), jc = batch == 1 ? PrimExpr(t) : Mod(t, chunks);
    Indices bi = Unflatten(batch == 1 ? IntImm(0) : b, d.batch);
    PrimExpr j0 = Simplify(jc * kDotRows);
    Stmt step;
    if (!tail)
      step = DotStep(bi, i, j0, kDotRows);
    else if (!full)
      step = DotStep(bi, i, j0, tail);
    else
      step = MakeIfThenElse(MakeBinary(BinaryOp::kLT, jc, IntImm(full)),
                            DotStep(bi, i, j0, kDotRows), DotStep(bi, i, j0, tail));
    int64_t extent = batch * chunks;
    return MakeFor(t, IntImm(0), IntImm(extent), extent > 1 ? ForKind::kParallel : ForKind::kSerial,
                   MakeFor(i, IntImm(0), IntImm(d.m), ForKind::kSerial, step));
  }
};

}  // namespace

bool UseGemmTemplate(const GemmDesc& desc) {
  return desc.dtype == DType::kFloat32 && desc.m > 0 && desc.n > 0 && desc.k > 0 &&
         Product(desc.batch) > 0;
}

/// `desc` with its batch folded into the rows when the right operand is shared by every
/// batch element: [b..., m, k] x [k, n] is one [b*m, k] x [k, n] product, so a batch of
/// single rows (a transposed sequence, m = 1) fills register tiles instead of one row each.
GemmDesc FoldBatchIntoRows(const GemmDesc& desc) {
  const int64_t batch = Product(desc.batch);
  if (desc.b_batched || batch <= 1 || desc.out_index) return desc;
  GemmDesc flat = desc;
  const int64_t m = desc.m;
  const std::vector<int64_t> dims = desc.batch;
  auto split = [m, dims](const PrimExpr& row) {
    return std::make_pair(Unflatten(Div(row, m), dims), Mod(row, m));
  };
  flat.batch.clear();
  flat.m = batch * m;
  flat.a = [a = desc.a, split](const Indices&, PrimExpr i, PrimExpr k) {
    auto [bi, r] = split(i);
    return a(bi, r, std::move(k));
  };
  flat.b = [b = desc.b](const Indices&, PrimExpr j, PrimExpr k) {
    return b(Indices{}, std::move(j), std::move(k));
  };
  flat.out_index = [split](const Indices&, PrimExpr i, PrimExpr j) {
    auto [bi, r] = split(i);
    return OutIndex(bi, r, j);
  };
  return flat;
}

void AttachGemmNest(ReduceSpec& spec, GemmDesc original) {
  GemmDesc desc = FoldBatchIntoRows(original);
  spec.emit_nest = [desc](LowerContext& ctx, const Buffer& dest,
                          const std::function<PrimExpr(const Indices&)>& epilogue) -> Stmt {
    Builder builder{ctx, desc, dest, epilogue, HostTileShape(), Buffer()};
    // Few rows with both operands k-contiguous: dot products stream the weights once
    // instead of packing them.
    bool dot =
        desc.m < kGemmPackRows && !desc.b_j_contiguous && desc.a_k_contiguous && desc.k >= builder.tile.lanes;
    return dot ? builder.Dot() : builder.Blocked();
  };
}

}  // namespace tessera::lower
