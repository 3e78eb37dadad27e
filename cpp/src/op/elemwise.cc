// Broadcasting binary ops (arithmetic, maximum/minimum, comparisons) and where; registers
// the other elementwise families too.
//
// Integer semantics follow TVM: arithmetic is computed in int64 and wraps to the dtype;
// `divide` truncates toward zero; an integer division by zero yields 0 (TVM leaves it
// undefined) and `power` with a negative exponent truncates (2**-1 == 0, 0**-1 == 0).
// Float arithmetic is IEEE in double; maximum/minimum propagate NaN as NumPy does.
#include <array>
#include <cmath>
#include <cstring>

#include "elemwise_util.h"
#include "op_defs.h"
#include "op_util.h"

namespace tessera::op_defs {

namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kPow, kMax, kMin };
enum class CmpOp { kEq, kNe, kLt, kLe, kGt, kGe };

int64_t Wrap(uint64_t v) {
  return static_cast<int64_t>(v);
}

int64_t IntPower(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;  // |1 / base^n| < 1 truncates to 0; 0 ** -n is a division by zero -> 0
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return Wrap(result);
}

int64_t IntBinary(BinOp op, int64_t a, int64_t b) {
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinOp::kAdd:
      return Wrap(ua + ub);
    case BinOp::kSub:
      return Wrap(ua - ub);
    case BinOp::kMul:
      return Wrap(ua * ub);
    case BinOp::kDiv:
      if (b == 0) return 0;
      if (b == -1) return Wrap(0 - ua);  // INT64_MIN / -1 would trap
      return a / b;
    case BinOp::kPow:
      return IntPower(a, b);
    case BinOp::kMax:
      return a > b ? a : b;
    case BinOp::kMin:
      return a < b ? a : b;
  }
  return 0;
}

double FloatBinary(BinOp op, double a, double b) {
  switch (op) {
    case BinOp::kAdd:
      return a + b;
    case BinOp::kSub:
      return a - b;
    case BinOp::kMul:
      return a * b;
    case BinOp::kDiv:
      return a / b;
    case BinOp::kPow:
      return std::pow(a, b);
    case BinOp::kMax:
      return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b);
    case BinOp::kMin:
      return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b);
  }
  return 0;
}

template <typename T>
bool Compare(CmpOp op, T a, T b) {
  switch (op) {
    case CmpOp::kEq:
      return a == b;
    case CmpOp::kNe:
      return a != b;
    case CmpOp::kLt:
      return a < b;
    case CmpOp::kLe:
      return a <= b;
    case CmpOp::kGt:
      return a > b;
    case CmpOp::kGe:
      return a >= b;
  }
  return false;
}

/// Calls fn(out_flat, offsets) for every output element in row-major order, with each
/// input's flat offset under NumPy broadcasting.
template <size_t N, typename Fn>
void ForEachBroadcast(const std::vector<int64_t>& out_shape,
                      const std::array<const NDArray*, N>& in, Fn&& fn) {
  int rank = static_cast<int>(out_shape.size());
  std::array<std::vector<int64_t>, N> strides;
  for (size_t k = 0; k < N; ++k) strides[k] = math::BroadcastStrides(in[k]->shape(), rank);
  std::array<int64_t, N> off{};
  std::vector<int64_t> idx(rank, 0);
  int64_t n = ShapeNumElements(out_shape);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(flat, off);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (out_shape[d] - 1);
      idx[d] = 0;
    }
  }
}

Type BinaryRel(const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
  const auto* a = ExpectTensor(args, 0);
  const auto* b = ExpectTensor(args, 1);
  if (a->dtype != b->dtype)
    TS_THROW(kType) << "input dtypes differ: " << DTypeName(a->dtype) << " and "
                    << DTypeName(b->dtype);
  return MakeTensorType(BroadcastShapes(a->shape, b->shape), a->dtype);
}

Type CompareRel(const std::vector<Type>& args, const Attrs& attrs, const std::vector<Type>& targs) {
  Type same = BinaryRel(args, attrs, targs);
  return MakeTensorType(same.as<TensorTypeNode>()->shape, DType::kBool);
}

std::vector<NDArray> BinaryKernel(BinOp op, const std::vector<NDArray>& in, const Type& out_type) {
  NDArray out = math::EmptyOf(out_type);
  const NDArray &a = in[0], &b = in[1];
  std::array<const NDArray*, 2> ins = {&a, &b};
  if (IsFloat(out.dtype())) {
    ForEachBroadcast(out.shape(), ins, [&](int64_t i, const std::array<int64_t, 2>& o) {
      out.SetFloat(i, FloatBinary(op, a.GetFloat(o[0]), b.GetFloat(o[1])));
    });
  } else {
    ForEachBroadcast(out.shape(), ins, [&](int64_t i, const std::array<int64_t, 2>& o) {
      out.SetInt(i, IntBinary(op, a.GetInt(o[0]), b.GetInt(o[1])));
    });
  }
  return {out};
}

std::vector<NDArray> CompareKernel(CmpOp op, const std::vector<NDArray>& in, const Type& out_type) {
  NDArray out = math::EmptyOf(out_type);
  const NDArray &a = in[0], &b = in[1];
  std::array<const NDArray*, 2> ins = {&a, &b};
  bool is_float = IsFloat(a.dtype());
  ForEachBroadcast(out.shape(), ins, [&](int64_t i, const std::array<int64_t, 2>& o) {
    bool r = is_float ? Compare(op, a.GetFloat(o[0]), b.GetFloat(o[1]))
                      : Compare(op, a.GetInt(o[0]), b.GetInt(o[1]));
    out.SetInt(i, r);
  });
  return {out};
}

Type WhereRel(const std::vector<Type>& args, const Attrs&, const std::vector<Type>&) {
  const auto* cond = ExpectTensor(args, 0);
  const auto* x = ExpectTensor(args, 1);
  const auto* y = ExpectTensor(args, 2);
  if (cond->dtype != DType::kBool)
    TS_THROW(kType) << "condition must be a bool tensor, got " << DTypeName(cond->dtype);
  if (x->dtype != y->dtype)
    TS_THROW(kType) << "x and y dtypes differ: " << DTypeName(x->dtype) << " and "
                    << DTypeName(y->dtype);
  std::vector<int64_t> shape = BroadcastShapes(BroadcastShapes(cond->shape, x->shape), y->shape);
  return MakeTensorType(shape, x->dtype);
}

std::vector<NDArray> WhereKernel(const std::vector<NDArray>& in, const Attrs&,
                                 const Type& out_type) {
  NDArray out = math::EmptyOf(out_type);
  const NDArray &c = in[0], &x = in[1], &y = in[2];
  std::array<const NDArray*, 3> ins = {&c, &x, &y};
  const size_t bytes = static_cast<size_t>(DTypeBytes(out.dtype()));
  auto* to = static_cast<uint8_t*>(out.data());
  const auto* xd = static_cast<const uint8_t*>(x.data());
  const auto* yd = static_cast<const uint8_t*>(y.data());
  // Selection copies bytes so every dtype (and NaN payloads) pass through exactly.
  ForEachBroadcast(out.shape(), ins, [&](int64_t i, const std::array<int64_t, 3>& o) {
    const uint8_t* src = c.GetInt(o[0]) != 0 ? xd + o[1] * bytes : yd + o[2] * bytes;
    std::memcpy(to + i * bytes, src, bytes);
  });
  return {out};
}

void RegisterBinary(OpRegistry& registry, const char* name, const char* description, BinOp op) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.inputs = {"lhs", "rhs"};
  def.pattern = OpPatternKind::kBroadcast;
  def.type_rel = BinaryRel;
  def.kernel = [op](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return BinaryKernel(op, in, out_type);
  };
  registry.Register(std::move(def));
}

void RegisterCompare(OpRegistry& registry, const char* name, const char* description, CmpOp op) {
  OpDef def;
  def.name = name;
  def.description = description;
  def.inputs = {"lhs", "rhs"};
  def.pattern = OpPatternKind::kBroadcast;
  def.type_rel = CompareRel;
  def.kernel = [op](const std::vector<NDArray>& in, const Attrs&, const Type& out_type) {
    return CompareKernel(op, in, out_type);
  };
  registry.Register(std::move(def));
}

}  // namespace

void RegisterElemwiseOps(OpRegistry& registry) {
  RegisterBinary(registry, "add", "elementwise lhs + rhs with NumPy broadcasting", BinOp::kAdd);
  RegisterBinary(registry, "subtract", "elementwise lhs - rhs with NumPy broadcasting",
                 BinOp::kSub);
  RegisterBinary(registry, "multiply", "elementwise lhs * rhs with NumPy broadcasting",
                 BinOp::kMul);
  RegisterBinary(registry, "divide",
                 "elementwise lhs / rhs with NumPy broadcasting (integers truncate toward zero)",
                 BinOp::kDiv);
  RegisterBinary(registry, "power", "elementwise lhs ** rhs with NumPy broadcasting", BinOp::kPow);
  RegisterBinary(registry, "maximum", "elementwise max(lhs, rhs) with NumPy broadcasting",
                 BinOp::kMax);
  RegisterBinary(registry, "minimum", "elementwise min(lhs, rhs) with NumPy broadcasting",
                 BinOp::kMin);
  RegisterCompare(registry, "equal", "elementwise lhs == rhs as bool", CmpOp::kEq);
  RegisterCompare(registry, "not_equal", "elementwise lhs != rhs as bool", CmpOp::kNe);
  RegisterCompare(registry, "less", "elementwise lhs < rhs as bool", CmpOp::kLt);
  RegisterCompare(registry, "less_equal", "elementwise lhs <= rhs as bool", CmpOp::kLe);
  RegisterCompare(registry, "greater", "elementwise lhs > rhs as bool", CmpOp::kGt);
  RegisterCompare(registry, "greater_equal", "elementwise lhs >= rhs as bool", CmpOp::kGe);

  OpDef where;
  where.name = "where";
  where.description = "x where condition is true, else y, with 3-way NumPy broadcasting";
  where.inputs = {"condition", "x", "y"};
  where.pattern = OpPatternKind::kBroadcast;
  where.type_rel = WhereRel;
  where.kernel = WhereKernel;
  registry.Register(std::move(where));

  RegisterUnaryOps(registry);
  RegisterFillOps(registry);
}

}  // namespace tessera::op_defs
