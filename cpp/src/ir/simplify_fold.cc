// Constant folding and structural comparison for tir::Simplify.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "simplify_util.h"

namespace tessera::tir::simplify_detail {

// Affine normalisation is limited to the index types; int8/uint8 arithmetic wraps at
// widths where reassociation could change results, so those only get folding.
bool IsIndexType(DType d) {
  return d == DType::kInt32 || d == DType::kInt64;
}

std::optional<int64_t> ConstInt(const PrimExpr& e) {
  if (auto* n = e.as<IntImmNode>()) return n->value;
  return std::nullopt;
}

std::optional<double> ConstFloat(const PrimExpr& e) {
  if (auto* n = e.as<FloatImmNode>()) return n->value;
  return std::nullopt;
}

/// Structural equality of scalar expressions; variables and buffers compare by identity.
bool ExprEqual(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->type_index() != b->type_index() || a->dtype != b->dtype) return false;
  // What a node holds besides its operands.
  switch (a->type_index()) {
    case TypeIndex::kIntImm:
      return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case TypeIndex::kFloatImm: {
      // Bitwise, so that NaN == NaN and 0.0 != -0.0 for the purpose of merging terms.
      double x = a.as<FloatImmNode>()->value, y = b.as<FloatImmNode>()->value;
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case TypeIndex::kTirVar:
      return false;  // distinct nodes are distinct variables
    case TypeIndex::kBinary:
      if (a.as<BinaryNode>()->op != b.as<BinaryNode>()->op) return false;
      break;
    case TypeIndex::kBufferLoad:
      if (!a.as<BufferLoadNode>()->buffer.same_as(b.as<BufferLoadNode>()->buffer)) return false;
      break;
    case TypeIndex::kIntrinsic:
      if (a.as<IntrinsicNode>()->name != b.as<IntrinsicNode>()->name) return false;
      break;
    default:
      break;  // not, select and cast hold only their operands (and dtype)
  }
  std::vector<PrimExpr> x = PrimExprChildren(a), y = PrimExprChildren(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (!ExprEqual(x[i], y[i])) return false;
  return true;
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/// Folds `x op y` on integer (or bool) constants of `dtype`; nullopt when the result
/// is undefined (division by zero) or does not fit the result dtype.
std::optional<int64_t> FoldInt(BinaryOp op, int64_t x, int64_t y, DType dtype) {
  int64_t r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      break;
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      break;
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
      r = op == BinaryOp::kDiv        ? x / y
          : op == BinaryOp::kFloorDiv ? FloorDivInt(x, y)
                                      : FloorModInt(x, y);
      break;
    case BinaryOp::kMin:
      r = std::min(x, y);
      break;
    case BinaryOp::kMax:
      r = std::max(x, y);
      break;
    case BinaryOp::kEQ:
      return x == y;
    case BinaryOp::kNE:
      return x != y;
    case BinaryOp::kLT:
      return x < y;
    case BinaryOp::kLE:
      return x <= y;
    case BinaryOp::kGT:
      return x > y;
    case BinaryOp::kGE:
      return x >= y;
    case BinaryOp::kAnd:
      return x != 0 && y != 0;
    case BinaryOp::kOr:
      return x != 0 || y != 0;
  }
  if (!FitsDType(dtype, r)) return std::nullopt;
  return r;
}

/// Folds `x op y` on float constants of `dtype`; the result is a FloatImm or a bool
/// IntImm, or null when not folded (division by zero).
PrimExpr FoldFloat(BinaryOp op, double x, double y, DType dtype) {
  double r = 0;
  switch (op) {
    case BinaryOp::kAdd:
      r = x + y;
      break;
    case BinaryOp::kSub:
      r = x - y;
      break;
    case BinaryOp::kMul:
      r = x * y;
      break;
    case BinaryOp::kDiv:
      if (y == 0) return nullptr;
      r = x / y;
      break;
    case BinaryOp::kFloorDiv:
      if (y == 0) return nullptr;
      r = std::floor(x / y);
      break;
    case BinaryOp::kFloorMod:
      if (y == 0) return nullptr;
      r = x - std::floor(x / y) * y;
      break;
    case BinaryOp::kMin:
      r = std::fmin(x, y);
      break;
    case BinaryOp::kMax:
      r = std::fmax(x, y);
      break;
    case BinaryOp::kEQ:
      return IntImm(x == y, DType::kBool);
    case BinaryOp::kNE:
      return IntImm(x != y, DType::kBool);
    case BinaryOp::kLT:
      return IntImm(x < y, DType::kBool);
    case BinaryOp::kLE:
      return IntImm(x <= y, DType::kBool);
    case BinaryOp::kGT:
      return IntImm(x > y, DType::kBool);
    case BinaryOp::kGE:
      return IntImm(x >= y, DType::kBool);
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return nullptr;  // not defined on floats
  }
  if (op == BinaryOp::kMin || op == BinaryOp::kMax) {
    if (std::isnan(x) || std::isnan(y)) return nullptr;  // NaN propagation is backend-defined
  }
  return FloatImm(RoundToDType(dtype, r), dtype);
}

/// `value` (a constant) converted to `dtype`, or null when the conversion is not exact
/// C++ semantics we can reproduce (out-of-range float to int).
PrimExpr FoldCast(DType dtype, const PrimExpr& value) {
  if (auto i = ConstInt(value)) {
    if (IsFloat(dtype)) return FloatImm(RoundToDType(dtype, static_cast<double>(*i)), dtype);
    if (dtype == DType::kBool) return IntImm(*i != 0, dtype);
    return IntImm(WrapToDType(dtype, *i), dtype);  // two's-complement wrap, as a C cast
  }
  if (auto f = ConstFloat(value)) {
    if (IsFloat(dtype)) return FloatImm(RoundToDType(dtype, *f), dtype);
    if (dtype == DType::kBool) return std::isnan(*f) ? nullptr : IntImm(*f != 0, dtype);
    double t = std::trunc(*f);
    if (!std::isfinite(t)) return nullptr;
    int64_t lo = dtype == DType::kInt8 ? INT8_MIN : dtype == DType::kInt32 ? INT32_MIN : 0;
    int64_t hi = dtype == DType::kInt8    ? INT8_MAX
                 : dtype == DType::kUInt8 ? UINT8_MAX
                 : dtype == DType::kInt32 ? INT32_MAX
                                          : 0;
    if (dtype == DType::kInt64) {
      if (t < -9223372036854775808.0 || t >= 9223372036854775808.0) return nullptr;
      return IntImm(static_cast<int64_t>(t), dtype);
    }
    if (t < static_cast<double>(lo) || t > static_cast<double>(hi)) return nullptr;
    return IntImm(static_cast<int64_t>(t), dtype);
  }
  return nullptr;
}

}  // namespace tessera::tir::simplify_detail
