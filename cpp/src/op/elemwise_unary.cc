// Unary elementwise ops: math functions, activations, clip, cast, copy and nn.dropout.
//
// Transcendental functions (exp, log, sqrt, rsqrt, tanh, sigmoid, erf, nn.gelu,
// nn.leaky_relu) require floating-point inputs; the rest also accept integer and bool
// tensors, computed exactly in int64 and wrapped to the dtype. `round` rounds half to even
// (TVM lowers it to nearbyint, NumPy agrees).
#include <cmath>
#include <cstring>
#include <limits>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

using FloatFn = double (*)(double);
using IntFn = int64_t (*)(int64_t);

/// One table-driven unary op; `int_fn` null means floating-point inputs only.
struct UnarySpec {
  const char* name;
  const char* description;
  FloatFn float_fn;
  IntFn int_fn;
};

int64_t Identity(int64_t v) {
  return v;
}

double Sigmoid(double x) {
  // Both branches avoid exp overflow for large |x|.
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

const UnarySpec kUnaryOps[] = {
    {"negative", "elementwise -x", [](double x) { return -x; },
     [](int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); }},
    {"exp", "elementwise e ** x", [](double x) { return std::exp(x); }, nullptr},
    {"log", "elementwise natural logarithm", [](double x) { return std::log(x); }, nullptr},
    {"sqrt", "elementwise square root", [](double x) { return std::sqrt(x); }, nullptr},
    {"rsqrt", "elementwise 1 / sqrt(x)", [](double x) { return 1.0 / std::sqrt(x); }, nullptr},
    {"tanh", "elementwise hyperbolic tangent", [](double x) { return std::tanh(x); }, nullptr},
    {"sigmoid", "elementwise 1 / (1 + exp(-x))", Sigmoid, nullptr},
    {"erf", "elementwise Gauss error function", [](double x) { return std::erf(x); }, nullptr},
    {"abs", "elementwise absolute value", [](double x) { return std::fabs(x); },
     [](int64_t v) { return v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v; }},
    {"floor", "elementwise round toward -inf", [](double x) { return std::floor(x); }, Identity},
    {"ceil", "elementwise round toward +inf", [](double x) { return std::ceil(x); }, Identity},
    {"round", "elementwise round to nearest, ties to even",
     [](double x) { return std::nearbyint(x); }, Identity},
    {"nn.relu", "elementwise max(x, 0)", [](double x) { return x < 0 ? 0.0 : x; },
     [](int64_t v) { return v < 0 ? int64_t{0} : v; }},
};

/// Applies a float or int function to every element.
template <typename F, typename I>
NDArray MapUnary(const NDArray& in, const Type& out_type, F&& float_fn, I&& int_fn) {
  NDArray out = math::EmptyOf(out_type);
  int64_t n = out.NumElements();
  if (IsFloat(in.dtype())) {
    for (int64_t i = 0; i < n; ++i) out.SetFloat(i, float_fn(in.GetFloat(i)));
  } else {
    for (int64_t i = 0; i < n; ++i) out.SetInt(i, int_fn(in.GetInt(i)));
  }
  return out;
}

OpDef UnaryDef(const std::string& name, const std::string& description) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.inputs = {"data"};
  def.pattern = OpPatternKind::kElemwise;
  def.type_rel = math::SameTypeRel;
  return def;
}

Type FloatOnlyRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>& t) {
  math::ExpectFloat(ExpectTensor(args, 0), "data");
  return math::SameTypeRel(args, attrs, t);
}

void RegisterTableOps(OpRegistry& registry) {
  for (const UnarySpec& spec : kUnaryOps) {
    OpDef def = UnaryDef(spec.name, spec.description);
    FloatFn f = spec.float_fn;
    IntFn g = spec.int_fn;
    if (!g) def.type_rel = FloatOnlyRel;
    def.kernel = [f, g](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
      // The type relation rejected non-float inputs when g is null.
      return std::vector<NDArray>{MapUnary(in[0], out_type, f, g ? g : Identity)};
    };
    registry.Register(std::move(def));
  }
}

void CheckGelu(Attrs& attrs) {
  const std::string& mode = attrs.GetString("approximate");
  if (mode != "none" && mode != "tanh")
    TS_THROW(kValue) << "attribute 'approximate' must be \"none\" or \"tanh\", got \"" << mode
                     << "\"";
}

double Gelu(double x, bool tanh_approx) {
  constexpr double kSqrt2OverPi = 0.7978845608028654;  // sqrt(2 / pi)
  if (tanh_approx) return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  // 0.5 x (1 + erf(x / sqrt 2)), as erfc: the same function without the cancellation of
  // 1 + erf for negative x (where Phi(x) is tiny).
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

void CheckClip(Attrs& attrs) {
  double lo = attrs.GetFloat("a_min"), hi = attrs.GetFloat("a_max");
  if (std::isnan(lo) || std::isnan(hi)) TS_THROW(kValue) << "clip bounds must not be NaN";
  if (lo > hi) TS_THROW(kValue) << "a_min " << lo << " is greater than a_max " << hi;
}

/// Integer clip converts the bounds to the dtype first (truncating, saturating), as TVM
/// builds them with tir.const(a_min, dtype).
int64_t IntBound(double v, DType dtype) {
  if (v <= static_cast<double>(math::IntMin(dtype))) return math::IntMin(dtype);
  if (v >= static_cast<double>(math::IntMax(dtype))) return math::IntMax(dtype);
  return static_cast<int64_t>(v);
}

std::vector<NDArray> ClipKernel(const std::vector<NDArray>& in, const Attrs& attrs,
                                const Type& out_type) {
  double lo = attrs.GetFloat("a_min"), hi = attrs.GetFloat("a_max");
  DType dt = in[0].dtype();
  int64_t ilo = IsFloat(dt) ? 0 : IntBound(lo, dt), ihi = IsFloat(dt) ? 0 : IntBound(hi, dt);
  return {MapUnary(
      in[0], out_type,
      [lo, hi](double x) { return std::isnan(x) ? x : (x < lo ? lo : (x > hi ? hi : x)); },
      [ilo, ihi](int64_t v) { return v < ilo ? ilo : (v > ihi ? ihi : v); })};
}

Type CastRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  return MakeTensorType(t->shape, ParseDTypeOrThrow(attrs.GetString("dtype"), "attribute 'dtype'"));
}

/// Float to integer conversion truncates toward zero and saturates; NaN becomes 0.
std::vector<NDArray> CastKernel(const std::vector<NDArray>& in, const Attrs&,
                                const Type& out_type) {
  const NDArray& x = in[0];
  NDArray out = math::EmptyOf(out_type);
  int64_t n = out.NumElements();
  if (x.dtype() == out.dtype()) {
    if (out.NumBytes()) std::memcpy(out.data(), x.data(), out.NumBytes());
  } else if (IsFloat(x.dtype())) {
    for (int64_t i = 0; i < n; ++i) math::StoreDouble(out, i, x.GetFloat(i));
  } else if (IsFloat(out.dtype())) {
    for (int64_t i = 0; i < n; ++i) out.SetFloat(i, static_cast<double>(x.GetInt(i)));
  } else {
    for (int64_t i = 0; i < n; ++i) out.SetInt(i, x.GetInt(i));
  }
  return {out};
}

std::vector<NDArray> CopyKernel(const std::vector<NDArray>& in, const Attrs&, const Type&) {
  return {in[0].Copy()};
}

void CheckDropout(Attrs& attrs) {
  double rate = attrs.GetFloat("rate");
  if (!(rate >= 0.0 && rate < 1.0))
    TS_THROW(kValue) << "attribute 'rate' must be in [0, 1), got " << rate;
}

Type DropoutRel(const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
  const auto* t = ExpectTensor(args, 0);
  TensorType same = MakeTensorType(t->shape, t->dtype);
  return MakeTupleType({same, same});
}

/// Inference-mode dropout: the output is the input and the mask is all ones.
std::vector<NDArray> DropoutKernel(const std::vector<NDArray>& in, const Attrs&, const Type&) {
  NDArray mask = NDArray::Empty(in[0].shape(), in[0].dtype());
  for (int64_t i = 0; i < mask.NumElements(); ++i) mask.SetInt(i, 1);
  return {in[0].Copy(), mask};
}

}  // namespace

void RegisterUnaryOps(OpRegistry& registry) {
  RegisterTableOps(registry);

  OpDef copy = UnaryDef("copy", "a copy of the input");
  copy.kernel = CopyKernel;
  registry.Register(std::move(copy));

  OpDef leaky = UnaryDef("nn.leaky_relu", "x if x > 0 else alpha * x");
  leaky.attrs = {{"alpha", AttrType::kFloat, 0.01, "slope for negative inputs"}};
  leaky.type_rel = FloatOnlyRel;
  leaky.kernel = [](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out_type) {
    double alpha = attrs.GetFloat("alpha");
    return std::vector<NDArray>{MapUnary(
        in[0], out_type, [alpha](double x) { return x > 0 ? x : alpha * x; }, Identity)};
  };
  registry.Register(std::move(leaky));

  OpDef gelu = UnaryDef("nn.gelu", "Gaussian error linear unit x * Phi(x)");
  gelu.attrs = {{"approximate", AttrType::kString, "none",
                 "\"none\": 0.5x(1 + erf(x / sqrt 2)); \"tanh\": the tanh approximation"}};
  gelu.normalize = CheckGelu;
  gelu.type_rel = FloatOnlyRel;
  gelu.kernel = [](const std::vector<NDArray>& in, const Attrs& attrs, const Type& out_type) {
    bool t = attrs.GetString("approximate") == "tanh";
    return std::vector<NDArray>{MapUnary(
        in[0], out_type, [t](double x) { return Gelu(x, t); }, Identity)};
  };
  registry.Register(std::move(gelu));

  OpDef clip = UnaryDef("clip", "elementwise min(max(x, a_min), a_max)");
  clip.attrs = {{"a_min", AttrType::kFloat, AttrValue(), "lower bound"},
                {"a_max", AttrType::kFloat, AttrValue(), "upper bound"}};
  clip.normalize = CheckClip;
  clip.kernel = ClipKernel;
  registry.Register(std::move(clip));

  OpDef cast = UnaryDef("cast", "elementwise conversion to another dtype");
  cast.attrs = {{"dtype", AttrType::kString, AttrValue(), "the result dtype"}};
  cast.normalize = [](Attrs& attrs) { math::CheckDTypeAttr(attrs, "dtype", false); };
  cast.type_rel = CastRel;
  cast.kernel = CastKernel;
  registry.Register(std::move(cast));

  OpDef dropout = UnaryDef("nn.dropout", "dropout; at inference (output = data, mask = ones)");
  dropout.attrs = {{"rate", AttrType::kFloat, 0.5, "probability of dropping an element"}};
  dropout.pattern = OpPatternKind::kOpaque;
  dropout.normalize = CheckDropout;
  dropout.type_rel = DropoutRel;
  dropout.kernel = DropoutKernel;
  registry.Register(std::move(dropout));
}

}  // namespace tessera::op_defs
