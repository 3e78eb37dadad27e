// Private helpers of tir::Simplify: constant folding and structural comparison of
// scalar expressions (simplify_fold.cc), used by the rewriter in simplify.cc.
#pragma once

#include <cstdint>
#include <optional>

#include "tessera/ir/tir.h"

namespace tessera::tir::simplify_detail {

/// int32/int64: the types affine normalisation applies to. int8/uint8 arithmetic wraps
/// at widths where reassociation could change results, so those only get folding.
bool IsIndexType(DType d);
/// The value of an IntImm, or nullopt.
std::optional<int64_t> ConstInt(const PrimExpr& e);
/// The value of a FloatImm, or nullopt.
std::optional<double> ConstFloat(const PrimExpr& e);
/// Structural equality of scalar expressions; variables and buffers compare by identity,
/// float literals by bits.
bool ExprEqual(const PrimExpr& a, const PrimExpr& b);
/// Integer division and modulo rounding toward negative infinity (b != 0).
int64_t FloorDivInt(int64_t a, int64_t b);
int64_t FloorModInt(int64_t a, int64_t b);
/// Folds `x op y` on integer (or bool) constants of `dtype`; nullopt when the result
/// is undefined (division by zero) or does not fit the result dtype.
std::optional<int64_t> FoldInt(BinaryOp op, int64_t x, int64_t y, DType dtype);
/// Folds `x op y` on float constants of `dtype` into a FloatImm or a bool IntImm; null
/// when not folded (division by zero, NaN in min/max).
PrimExpr FoldFloat(BinaryOp op, double x, double y, DType dtype);
/// A constant `value` converted to `dtype`; null when `value` is not a constant or the
/// conversion is undefined (out-of-range or NaN float to int).
PrimExpr FoldCast(DType dtype, const PrimExpr& value);

}  // namespace tessera::tir::simplify_detail
