// Compute rules of the elementwise and broadcast ops: all lazily composed (no statements).
#include <cmath>
#include <limits>

#include "compute_rules.h"
#include "tessera/support/error.h"

namespace tessera::lower {

using namespace tir;

namespace {

const TensorTypeNode* OutTensor(const Type& t) {
  const auto* tt = t.as<TensorTypeNode>();
  TS_ICHECK(tt) << "compute rule: expected a tensor result type";
  return tt;
}

using ScalarFn = std::function<PrimExpr(const PrimExpr&)>;

ComputeRule Unary(ScalarFn fn) {
  return [fn](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&, const Type& out) {
    TensorExpr x = in[0];
    const auto* ot = OutTensor(out);
    return std::vector<TensorExpr>{
        {ot->shape, ot->dtype, [x, fn](const Indices& i) { return fn(x.at(i)); }}};
  };
}

using BinaryFn = std::function<PrimExpr(const PrimExpr&, const PrimExpr&)>;

ComputeRule Binary(BinaryFn fn) {
  return [fn](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&, const Type& out) {
    TensorExpr a = in[0], b = in[1];
    const auto* ot = OutTensor(out);
    return std::vector<TensorExpr>{{ot->shape, ot->dtype, [a, b, fn](const Indices& i) {
                                      return fn(a.at(BroadcastIndices(a.shape, i)),
                                                b.at(BroadcastIndices(b.shape, i)));
                                    }}};
  };
}

BinaryFn Op(BinaryOp op) {
  return [op](const PrimExpr& a, const PrimExpr& b) { return MakeBinary(op, a, b); };
}

PrimExpr Intrin(const char* name, const PrimExpr& x) {
  return MakeIntrinsic(name, {x});
}

/// Exact GELU x * Phi(x) in float32 as max(x, 0) - |x| * h, with h = Phi(-|x|) =
/// erfc(|x| / sqrt(2)) / 2 from the Chebyshev fit t * exp(-z^2 + P(t)), t = 1 / (1 + z / 2)
/// (the fit's relative error is below 1.2e-7; in float32, rounding z^2 before the exp adds
/// up to z^2 * 6e-8: measured 8e-7 at x = -5, 4e-6 at x = -13). One branch for every x, unlike
/// erf's two (a polynomial near 0, an exp-based tail), and, unlike 1 + erf, it keeps its
/// precision for negative x, where Phi is tiny (1 + erf cancels to a few bits or to 0).
/// No select either (they were a tenth of the kernel): max(x, 0) is x / 2 + |x| / 2, which
/// is NaN at -inf as x * Phi(x) is, and |x| is capped at the largest float so that +inf
/// gives inf - 0 rather than inf * 0.
PrimExpr GeluFloat32(const PrimExpr& x) {
  DType dt = x->dtype;
  // Written for few vector operations (the kernel is bound by their count): z = |x| / sqrt 2
  // appears only folded into constants, z^2 = |x| * (|x| / 2), and the 1/2 of h = t e / 2
  // joins |x| / 2, which max(x, 0) needs as well.
  PrimExpr ax = Intrin("abs", x);
  PrimExpr half_ax = Const(0.5, dt) * ax;
  PrimExpr t = MakeBinary(BinaryOp::kDiv, Const(1, dt),
                          Const(1, dt) + Const(0.5 * std::sqrt(0.5), dt) * ax);
  static const double kCoeffs[] = {0.17087277,  -0.82215223, 1.48851587, -1.13520398, 0.27886807,
                                   -0.18628806, 0.09678418,  0.37409196, 1.00002368,  -1.26551223};
  PrimExpr p = Const(kCoeffs[0], dt);
  for (size_t i = 1; i < sizeof kCoeffs / sizeof kCoeffs[0]; ++i) p = p * t + Const(kCoeffs[i], dt);
  PrimExpr e = Intrin("exp", p - half_ax * ax);
  PrimExpr positive_part = Const(0.5, dt) * x + half_ax;
  PrimExpr finite_half_ax =
      MakeBinary(BinaryOp::kMin, half_ax, Const(std::numeric_limits<float>::max(), dt));
  return positive_part - finite_half_ax * t * e;
}

/// Integer division by zero yields 0 (as the reference kernel); the divisor is never 0.
PrimExpr SafeIntDiv(const PrimExpr& a, const PrimExpr& b) {
  PrimExpr zero = Const(0, b->dtype), one = Const(1, b->dtype);
  PrimExpr is_zero = MakeBinary(BinaryOp::kEQ, b, zero);
  return MakeSelect(is_zero, Const(0, a->dtype),
                    MakeBinary(BinaryOp::kDiv, a, MakeSelect(is_zero, one, b)));
}

int64_t IntMinOf(DType dt) {
  switch (dt) {
    case DType::kInt8:
      return -128;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::min();
    case DType::kUInt8:
    case DType::kBool:
      return 0;
    default:
      return std::numeric_limits<int64_t>::min();
  }
}
int64_t IntMaxOf(DType dt) {
  switch (dt) {
    case DType::kInt8:
      return 127;
    case DType::kInt32:
      return std::numeric_limits<int32_t>::max();
    case DType::kUInt8:
      return 255;
    case DType::kBool:
      return 1;
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

/// Conversion with the reference semantics: float to integer saturates, NaN gives 0.
PrimExpr CastValue(const PrimExpr& x, DType to) {
  if (x->dtype == to) return x;
  if (IsFloat(x->dtype) && IsInteger(to)) {
    PrimExpr lo = Const(static_cast<double>(IntMinOf(to)), x->dtype);
    PrimExpr hi = Const(static_cast<double>(IntMaxOf(to)), x->dtype);
    PrimExpr clamped = MakeSelect(MakeBinary(BinaryOp::kLT, x, lo), lo,
                                  MakeSelect(MakeBinary(BinaryOp::kGT, x, hi), hi, x));
    PrimExpr is_nan = MakeBinary(BinaryOp::kNE, x, x);
    if (to == DType::kInt64) {
      // 2^63 is not representable: saturate explicitly.
      return MakeSelect(
          is_nan, Const(0, to),
          MakeSelect(MakeBinary(BinaryOp::kGE, x, hi),
                     IntImm(std::numeric_limits<int64_t>::max(), to), MakeCast(to, clamped)));
    }
    return MakeSelect(is_nan, Const(0, to), MakeCast(to, clamped));
  }
  return MakeCast(to, x);
}

void RegisterUnaryMath(ComputeRegistry& r) {
  r.Register("negative", Unary([](const PrimExpr& x) {
               return MakeBinary(BinaryOp::kSub, Const(0, x->dtype), x);
             }));
  for (const char* name : {"exp", "log", "sqrt", "rsqrt", "tanh", "erf"})
    r.Register(name, Unary([name](const PrimExpr& x) { return Intrin(name, x); }));
  // The intrinsic (1 / (1 + exp(-x)); one exp where the two-sided form computed two):
  // where exp(-x) overflows to inf the result is 0, never NaN.
  r.Register("sigmoid", Unary([](const PrimExpr& x) { return Intrin("sigmoid", x); }));
  r.Register("abs", Unary([](const PrimExpr& x) { return Intrin("abs", x); }));
  for (const char* name : {"floor", "ceil", "round"})
    r.Register(
        name, Unary([name](const PrimExpr& x) { return IsFloat(x->dtype) ? Intrin(name, x) : x; }));
  r.Register("nn.relu", Unary([](const PrimExpr& x) {
               PrimExpr zero = Const(0, x->dtype);
               return MakeSelect(MakeBinary(BinaryOp::kLT, x, zero), zero, x);
             }));
  r.Register("copy", Unary([](const PrimExpr& x) { return x; }));
  // BYOC region markers (normally gone after PartitionGraph) compute the identity.
  r.Register("annotation.compiler_begin", Unary([](const PrimExpr& x) { return x; }));
  r.Register("annotation.compiler_end", Unary([](const PrimExpr& x) { return x; }));
}

void RegisterParamUnary(ComputeRegistry& r) {
  r.Register("nn.leaky_relu", [](LowerContext& ctx, const std::vector<TensorExpr>& in,
                                 const Attrs& attrs, const Type& out) {
    double alpha = attrs.GetFloat("alpha");
    return Unary([alpha](const PrimExpr& x) {
      return MakeSelect(MakeBinary(BinaryOp::kGT, x, Const(0, x->dtype)), x,
                        Const(alpha, x->dtype) * x);
    })(ctx, in, attrs, out);
  });
  r.Register("nn.gelu", [](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                           const Type& out) {
    bool tanh_approx = attrs.GetString("approximate") == "tanh";
    return Unary([tanh_approx](const PrimExpr& x) {
      DType dt = x->dtype;
      PrimExpr half_x = Const(0.5, dt) * x;
      PrimExpr inner;
      if (tanh_approx) {
        PrimExpr cube = x * x * x;
        inner = Intrin("tanh", Const(0.7978845608028654, dt) * (x + Const(0.044715, dt) * cube));
      } else if (dt == DType::kFloat32) {
        return GeluFloat32(x);
      } else {
        // x * (1 / sqrt(2)) as PyTorch computes it: a multiply instead of a vector divide.
        inner = Intrin("erf", x * Const(std::sqrt(0.5), dt));
      }
      return half_x * (Const(1, dt) + inner);
    })(ctx, in, attrs, out);
  });
  r.Register("clip", [](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                        const Type& out) {
    double lo = attrs.GetFloat("a_min"), hi = attrs.GetFloat("a_max");
    DType dt = in[0].dtype;
    if (!IsFloat(dt)) {
      auto bound = [dt](double v) {
        if (v <= static_cast<double>(IntMinOf(dt))) return IntMinOf(dt);
        if (v >= static_cast<double>(IntMaxOf(dt))) return IntMaxOf(dt);
        return static_cast<int64_t>(v);
      };
      lo = static_cast<double>(bound(lo));
      hi = static_cast<double>(bound(hi));
    }
    return Unary([lo, hi](const PrimExpr& x) {
      PrimExpr l = Const(lo, x->dtype), h = Const(hi, x->dtype);
      return MakeSelect(MakeBinary(BinaryOp::kLT, x, l), l,
                        MakeSelect(MakeBinary(BinaryOp::kGT, x, h), h, x));
    })(ctx, in, attrs, out);
  });
  r.Register("cast", [](LowerContext& ctx, const std::vector<TensorExpr>& in, const Attrs& attrs,
                        const Type& out) {
    DType to = OutTensor(out)->dtype;
    return Unary([to](const PrimExpr& x) { return CastValue(x, to); })(ctx, in, attrs, out);
  });
  r.Register("nn.dropout",
             [](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&, const Type&) {
               TensorExpr x = in[0];
               return std::vector<TensorExpr>{x, Broadcast(Const(1, x.dtype), x.shape)};
             });
}

void RegisterBinaryMath(ComputeRegistry& r) {
  r.Register("add", Binary(Op(BinaryOp::kAdd)));
  r.Register("subtract", Binary(Op(BinaryOp::kSub)));
  r.Register("multiply", Binary(Op(BinaryOp::kMul)));
  r.Register("divide", Binary([](const PrimExpr& a, const PrimExpr& b) {
               return IsFloat(a->dtype) ? MakeBinary(BinaryOp::kDiv, a, b) : SafeIntDiv(a, b);
             }));
  r.Register("power", Binary([](const PrimExpr& a, const PrimExpr& b) {
               // x^2 (a layer norm's variance) as x * x, which is exact and vectorizes; the
               // pow call kept a reduction over it scalar.
               if (const auto* e = b.as<FloatImmNode>(); e && IsFloat(a->dtype)) {
                 if (e->value == 2.0) return a * a;
                 if (e->value == 1.0) return a;
               }
               return MakeIntrinsic("pow", {a, b});
             }));
  r.Register("maximum", Binary(NanMax));
  r.Register("minimum", Binary(NanMin));
  r.Register("equal", Binary(Op(BinaryOp::kEQ)));
  r.Register("not_equal", Binary(Op(BinaryOp::kNE)));
  r.Register("less", Binary(Op(BinaryOp::kLT)));
  r.Register("less_equal", Binary(Op(BinaryOp::kLE)));
  r.Register("greater", Binary(Op(BinaryOp::kGT)));
  r.Register("greater_equal", Binary(Op(BinaryOp::kGE)));
  r.Register("where", [](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&,
                         const Type& out) {
    TensorExpr c = in[0], x = in[1], y = in[2];
    const auto* ot = OutTensor(out);
    return std::vector<TensorExpr>{{ot->shape, ot->dtype, [c, x, y](const Indices& i) {
                                      PrimExpr cond = c.at(BroadcastIndices(c.shape, i));
                                      if (cond->dtype != DType::kBool)
                                        cond = MakeCast(DType::kBool, cond);
                                      return MakeSelect(cond, x.at(BroadcastIndices(x.shape, i)),
                                                        y.at(BroadcastIndices(y.shape, i)));
                                    }}};
  });
}

void RegisterFills(ComputeRegistry& r) {
  for (const auto& [name, fill] : {std::pair<const char*, double>{"zeros", 0.0}, {"ones", 1.0}}) {
    double value = fill;  // a plain copy: clang 14 cannot capture a structured binding
    r.Register(name, [value](LowerContext&, const std::vector<TensorExpr>&, const Attrs&,
                             const Type& out) {
      const auto* ot = OutTensor(out);
      return std::vector<TensorExpr>{Broadcast(Const(value, ot->dtype), ot->shape)};
    });
  }
  r.Register(
      "full", [](LowerContext&, const std::vector<TensorExpr>& in, const Attrs&, const Type& out) {
        const auto* ot = OutTensor(out);
        TensorExpr fill = in[0];
        DType to = ot->dtype;
        return std::vector<TensorExpr>{
            {ot->shape, to, [fill, to](const Indices&) { return CastValue(fill.at({}), to); }}};
      });
}

}  // namespace

void RegisterElemwiseRules(ComputeRegistry& registry) {
  RegisterUnaryMath(registry);
  RegisterParamUnary(registry);
  RegisterBinaryMath(registry);
  RegisterFills(registry);
}

}  // namespace tessera::lower
