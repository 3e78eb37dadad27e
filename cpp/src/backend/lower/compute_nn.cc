// Compute rules of nn.dense, nn.matmul, nn.batch_matmul (one reduction each), and of the
// per-axis ops: bias_add and batch_norm (lazy), layer_norm and softmax (small scratch
// statistics, then a lazy normalisation that fuses into consumers).
#include <cmath>
#include <limits>

#include "compute_rules.h"
#include "schedule_dense.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

namespace {

const TensorTypeNode* OutTensor(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  TS_ICHECK(tt) << "compute rule: expected a tensor result type";
  return tt;
}

PrimExpr Widen(PrimExpr v, DType dt) {
  return v->dtype == dt ? v : MakeCast(dt, v);
}

ReduceSpec GemmSpec(const TensorTypeNode* ot, int64_t k) {
  ReduceSpec spec;
  spec.shape = ot->shape;
  spec.dtype = ot->dtype;
  spec.reduce_extents = {k};
  spec.init = Const(0, ot->dtype);
  return spec;
}

/// The GEMM description of an output [batch..., m, n] with `k` from the spec.
GemmDesc Gemm(const TensorTypeNode* ot, int64_t k, const std::string& name) {
  GemmDesc g;
  size_t r = ot->shape.size();
  g.batch.assign(ot->shape.begin(), ot->shape.end() - 2);
  g.m = ot->shape[r - 2];
  g.n = ot->shape[r - 1];
  g.k = k;
  g.dtype = ot->dtype;
  g.name = name;
  return g;
}

Indices Cat(Indices a, std::initializer_list<PrimExpr> b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<TensorExpr> Dense(LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs&,
                              const Type& out) {
  TensorExpr a = in[0], w = in[1];
  const auto* ot = OutTensor(out);
  ReduceSpec spec = GemmSpec(ot, a.shape.back());
  DType dt = ot->dtype;
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
    Indices ai(i.begin(), i.end() - 1);
    ai.push_back(r[0]);
    return acc + Widen(a.at(ai), dt) * Widen(w.at({i.back(), r[0]}), dt);
  };
  if (a.shape.size() >= 2 && a.dtype == dt && w.dtype == dt) {
    GemmDesc g = Gemm(ot, spec.reduce_extents[0], "dense");
    g.a = [a](const Indices& b, PrimExpr i, PrimExpr k) { return a.at(Cat(b, {i, k})); };
    g.b = [w](const Indices&, PrimExpr j, PrimExpr k) { return w.at({j, k}); };
    g.a_k_contiguous = a.depth == 0;
    if (w.constant.defined() && w.constant.dtype() == DType::kFloat32 && w.constant.shape() == w.shape)
      g.b_constant = w.constant;
    if (UseGemmTemplate(g)) AttachGemmNest(spec, std::move(g));
  }
  return {ctx.Reduce(spec, "dense")};
}

std::vector<TensorExpr> Matmul(LowerContext& ctx, const std::vector<TensorExpr>& in,
                               const Attrs& attrs, const Type& out) {
  TensorExpr a = in[0], b = in[1];
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto* ot = OutTensor(out);
  size_t r = a.shape.size();
  int64_t k = ta ? a.shape[r - 2] : a.shape[r - 1];
  ReduceSpec spec = GemmSpec(ot, k);
  DType dt = ot->dtype;
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& kk) {
    Indices ai;
    PrimExpr n = i.back();
    if (r == 1) {
      ai = {kk[0]};
    } else {
      ai.assign(i.begin(), i.end() - 2);
      PrimExpr m = i[r - 2];
      if (ta) {
        ai.push_back(kk[0]);
        ai.push_back(m);
      } else {
        ai.push_back(m);
        ai.push_back(kk[0]);
      }
    }
    Indices bi = tb ? Indices{n, kk[0]} : Indices{kk[0], n};
    return acc + Widen(a.at(ai), dt) * Widen(b.at(bi), dt);
  };
  if (r >= 2 && a.dtype == dt && b.dtype == dt) {
    GemmDesc g = Gemm(ot, spec.reduce_extents[0], "matmul");
    g.a = [a, ta](const Indices& bt, PrimExpr i, PrimExpr k) {
      return a.at(ta ? Cat(bt, {k, i}) : Cat(bt, {i, k}));
    };
    g.b = [b, tb](const Indices&, PrimExpr j, PrimExpr k) {
      return tb ? b.at({j, k}) : b.at({k, j});
    };
    g.a_k_contiguous = !ta && a.depth == 0;
    g.b_j_contiguous = !tb && b.depth == 0;
    if (b.constant.defined() && b.constant.dtype() == DType::kFloat32 && b.constant.shape() == b.shape &&
        b.shape.size() == 2) {
      g.b_constant = b.constant;
      g.b_constant_kn = !tb;
    }
    if (UseGemmTemplate(g)) AttachGemmNest(spec, std::move(g));
  }
  return {ctx.Reduce(spec, "matmul")};
}

std::vector<TensorExpr> BatchMatmul(LowerContext& ctx, const std::vector<TensorExpr>& in,
                                    const Attrs& attrs, const Type& out) {
  TensorExpr x = in[0], y = in[1];
  bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto* ot = OutTensor(out);
  ReduceSpec spec = GemmSpec(ot, ta ? x.shape[1] : x.shape[2]);
  DType dt = ot->dtype;
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& kk) {
    PrimExpr bx = x.shape[0] == 1 ? IntImm(0) : i[0], by = y.shape[0] == 1 ? IntImm(0) : i[0];
    Indices xi = ta ? Indices{bx, kk[0], i[1]} : Indices{bx, i[1], kk[0]};
    Indices yi = tb ? Indices{by, i[2], kk[0]} : Indices{by, kk[0], i[2]};
    return acc + Widen(x.at(xi), dt) * Widen(y.at(yi), dt);
  };
  if (x.dtype == dt && y.dtype == dt) {
    GemmDesc g = Gemm(ot, spec.reduce_extents[0], "batch_matmul");
    bool xb = x.shape[0] != 1, yb = y.shape[0] != 1;
    g.a = [x, ta, xb](const Indices& bt, PrimExpr i, PrimExpr k) {
      PrimExpr b = xb ? bt[0] : IntImm(0);
      return ta ? x.at({b, k, i}) : x.at({b, i, k});
    };
    g.b = [y, tb, yb](const Indices& bt, PrimExpr j, PrimExpr k) {
      PrimExpr b = yb ? bt[0] : IntImm(0);
      return tb ? y.at({b, j, k}) : y.at({b, k, j});
    };
    g.a_k_contiguous = !ta && x.depth == 0;
    // An operand computed by fused ops (a transposed head of the attention) is packed.
    g.b_j_contiguous = !tb && y.depth == 0;
    g.b_batched = yb;
    if (UseGemmTemplate(g)) AttachGemmNest(spec, std::move(g));
  }
  return {ctx.Reduce(spec, "batch_matmul")};
}

int AxisOf(const Attrs& attrs, size_t rank) {
  int64_t a = attrs.GetInt("axis");
  return static_cast<int>(a < 0 ? a + static_cast<int64_t>(rank) : a);
}

std::vector<TensorExpr> BiasAdd(LowerContext&, const std::vector<TensorExpr>& in,
                                const Attrs& attrs, const Type&) {
  TensorExpr x = in[0], bias = in[1];
  int axis = AxisOf(attrs, x.shape.size());
  return {{x.shape, x.dtype, [=](const Indices& i) { return x.at(i) + bias.at({i[axis]}); }}};
}

std::vector<TensorExpr> BatchNorm(LowerContext&, const std::vector<TensorExpr>& in,
                                  const Attrs& attrs, const Type&) {
  TensorExpr x = in[0], gamma = in[1], beta = in[2], mean = in[3], var = in[4];
  int axis = AxisOf(attrs, x.shape.size());
  double eps = attrs.GetFloat("epsilon");
  bool center = attrs.GetBool("center"), scale = attrs.GetBool("scale");
  TensorExpr y{x.shape, x.dtype, [=](const Indices& i) {
                 Indices c{i[axis]};
                 DType dt = x.dtype;
                 PrimExpr inv = MakeIntrinsic("rsqrt", {var.at(c) + Const(eps, dt)});
                 PrimExpr mul = scale ? gamma.at(c) * inv : inv;
                 PrimExpr v = (x.at(i) - mean.at(c)) * mul;
                 return center ? v + beta.at(c) : v;
               }};
  return {y, mean, var};
}

/// `x` with `axis` removed from the indices: the statistics of a per-axis op.
Indices Drop(const Indices& i, int axis) {
  Indices out;
  for (size_t d = 0; d < i.size(); ++d)
    if (static_cast<int>(d) != axis) out.push_back(i[d]);
  return out;
}
Indices Insert(const Indices& i, int axis, const PrimExpr& v) {
  Indices out = i;
  out.insert(out.begin() + axis, v);
  return out;
}
std::vector<int64_t> DropShape(std::vector<int64_t> s, int axis) {
  s.erase(s.begin() + axis);
  return s;
}

/// The reduction over `axis` of `value(i_with_axis)`.
ReduceSpec AxisSum(const TensorExpr& x, int axis,
                   std::function<PrimExpr(const Indices& full)> value) {
  ReduceSpec spec;
  spec.shape = DropShape(x.shape, axis);
  spec.dtype = x.dtype;
  spec.reduce_extents = {x.shape[axis]};
  spec.init = Const(0, x.dtype);
  spec.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
    return acc + value(Insert(i, axis, r[0]));
  };
  return spec;
}

std::vector<TensorExpr> LayerNorm(LowerContext& ctx, const std::vector<TensorExpr>& in,
                                  const Attrs& attrs, const Type&) {
  TensorExpr x = in[0], gamma = in[1], beta = in[2];
  int axis = AxisOf(attrs, x.shape.size());
  double eps = attrs.GetFloat("epsilon");
  bool center = attrs.GetBool("center"), scale = attrs.GetBool("scale");
  DType dt = x.dtype;
  double len = static_cast<double>(x.shape[axis]);
  if (x.shape[axis] == 0) return {x};
  ReduceSpec sum = AxisSum(x, axis, [x](const Indices& i) { return x.at(i); });
  sum.finalize = [=](const PrimExpr& acc, const Indices&) {
    return MakeBinary(BinaryOp::kDiv, acc, Const(len, dt));
  };
  TensorExpr mean = ctx.ReduceNow(sum, "layer_norm_mean");
  ReduceSpec sq = AxisSum(x, axis, [=](const Indices& i) {
    PrimExpr dv = x.at(i) - mean.at(Drop(i, axis));
    return dv * dv;
  });
  sq.finalize = [=](const PrimExpr& acc, const Indices&) {
    return MakeIntrinsic("rsqrt",
                         {MakeBinary(BinaryOp::kDiv, acc, Const(len, dt)) + Const(eps, dt)});
  };
  TensorExpr inv = ctx.ReduceNow(sq, "layer_norm_rstd");
  return {{x.shape, dt, [=](const Indices& i) {
             Indices s = Drop(i, axis);
             PrimExpr v = (x.at(i) - mean.at(s)) * inv.at(s);
             if (scale) v = v * gamma.at({i[axis]});
             if (center) v = v + beta.at({i[axis]});
             return v;
           }}};
}

ComputeRule Softmax(bool log) {
  return [log](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
               const Type&) -> std::vector<TensorExpr> {
    TensorExpr x = in[0];
    int axis = AxisOf(attrs, x.shape.size());
    DType dt = x.dtype;
    ReduceSpec mx;
    mx.shape = DropShape(x.shape, axis);
    mx.dtype = dt;
    mx.reduce_extents = {x.shape[axis]};
    mx.init = Const(-std::numeric_limits<double>::infinity(), dt);
    mx.update = [=](const PrimExpr& acc, const Indices& i, const Indices& r) {
      return MakeBinary(BinaryOp::kMax, acc, x.at(Insert(i, axis, r[0])));
    };
    TensorExpr m = ctx.ReduceNow(mx, log ? "log_softmax_max" : "softmax_max");
    if (!log) {
      // exp(x - max) is computed once, into scratch, and read by the sum and the division
      // (computing it in both, as the formula reads, doubled the kernel's exps).
      TensorExpr e = ctx.Materialize({x.shape, dt, [=](const Indices& i) {
                                        return MakeIntrinsic("exp", {x.at(i) - m.at(Drop(i, axis))});
                                      }},
                                     "softmax_exp");
      TensorExpr s = ctx.ReduceNow(AxisSum(e, axis, [=](const Indices& i) { return e.at(i); }),
                                   "softmax_sum");
      return {{x.shape, dt, [=](const Indices& i) {
                 return MakeBinary(BinaryOp::kDiv, e.at(i), s.at(Drop(i, axis)));
               }}};
    }
    ReduceSpec sum = AxisSum(x, axis, [=](const Indices& i) {
      return MakeIntrinsic("exp", {x.at(i) - m.at(Drop(i, axis))});
    });
    sum.finalize = [=](const PrimExpr& acc, const Indices& i) {
      return m.at(i) + MakeIntrinsic("log", {acc});
    };
    TensorExpr s = ctx.ReduceNow(sum, "log_softmax_shift");
    return {{x.shape, dt, [=](const Indices& i) { return x.at(i) - s.at(Drop(i, axis)); }}};
  };
}

}  // namespace

void RegisterNNRules(ComputeRegistry& r) {
  r.Register("nn.dense", Dense);
  r.Register("nn.matmul", Matmul);
  r.Register("nn.batch_matmul", BatchMatmul);
  r.Register("nn.bias_add", BiasAdd);
  r.Register("nn.batch_norm", BatchNorm);
  r.Register("nn.layer_norm", LayerNorm);
  r.Register("nn.softmax", Softmax(false));
  r.Register("nn.log_softmax", Softmax(true));
}

}  // namespace tessera::lower
