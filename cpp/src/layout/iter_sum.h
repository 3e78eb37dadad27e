// IterSum, the normal form of IndexMap outputs (a base plus scaled splits of the input
// variables), and the conversion of scalar expressions into it.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::layout::detail {

/// The extent of a split that has no floormod.
inline constexpr int64_t kUnbounded = 0;

/// floormod(floordiv(x + offset, lower), extent) of input variable `var` (no floormod when
/// the extent is kUnbounded). The offset is a non-negative left pad.
struct Split {
  int var = 0;
  int64_t offset = 0;
  int64_t lower = 1;
  int64_t extent = kUnbounded;
  bool bounded() const { return extent != kUnbounded; }
  friend bool operator==(const Split&, const Split&) = default;
};

/// scale * split.
struct Term {
  Split split;
  int64_t scale = 1;
  friend bool operator==(const Term&, const Term&) = default;
};

/// base + sum of terms. Normalized sums have no zero scale, no two terms with the same
/// split, no mergeable neighbours, canonical offsets, and terms in canonical order, so two
/// normalized sums of one function (over the same domain) are usually equal structurally.
struct IterSum {
  std::vector<Term> terms;
  int64_t base = 0;
  bool IsConstant() const { return terms.empty(); }
  friend bool operator==(const IterSum&, const IterSum&) = default;
};

/// The extent of every input variable, or null when unknown: without a domain only what
/// holds for every non-negative index is used.
using Domain = const std::vector<int64_t>*;

/// Thrown by the conversion for an expression outside the accepted form; `what()` names
/// the offending sub-expression. Callers turn it into a value error naming the output.
class NotAffine : public std::exception {
 public:
  explicit NotAffine(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

/// Checked int64 arithmetic: a value error on overflow.
int64_t CheckedAdd(int64_t a, int64_t b);
int64_t CheckedMul(int64_t a, int64_t b);
/// Division and modulo rounding toward negative infinity (b > 0).
int64_t FloorDivInt(int64_t a, int64_t b);
int64_t FloorModInt(int64_t a, int64_t b);

/// The sum `x` (variable `var`, scale 1).
IterSum VarSum(int var);
/// The constant sum `value`.
IterSum ConstSum(int64_t value);
/// a + b * b_scale, normalized.
IterSum AddSums(const IterSum& a, const IterSum& b, int64_t b_scale, Domain domain);
/// a * scale, normalized.
IterSum ScaleSum(const IterSum& a, int64_t scale, Domain domain);
/// (floordiv(s, k), floormod(s, k)) for k > 0, normalized; nullopt when not expressible.
std::optional<std::pair<IterSum, IterSum>> DivModSum(const IterSum& s, int64_t k, Domain domain);
/// Brings `s` to normal form (see IterSum), using `domain` when given.
void Normalize(IterSum* s, Domain domain);

/// The value of a split at x.
int64_t SplitValue(const Split& split, int64_t x);
/// The value of `s` at the given variable values.
int64_t Evaluate(const IterSum& s, const std::vector<int64_t>& x);
/// The largest value of a split (nullopt: unbounded), over `domain` when given.
std::optional<int64_t> SplitMax(const Split& split, Domain domain);
/// The smallest and largest value of `s` (nullopt: unbounded below / above).
std::pair<std::optional<int64_t>, std::optional<int64_t>> SumBounds(const IterSum& s,
                                                                    Domain domain);

/// Variables an expression may use, with the sum each stands for.
using VarEnv = std::vector<std::pair<const tir::VarNode*, IterSum>>;
/// Converts `expr` (Var, integer IntImm, +, -, * by a constant, floordiv and floormod by a
/// positive constant) into a normalized sum. Throws NotAffine for anything else and a
/// value error for a variable not in `env` or a non-integer type.
IterSum ToIterSum(const tir::PrimExpr& expr, const VarEnv& env, Domain domain);
/// The environment mapping each of `vars` to itself (variable k is index k).
VarEnv IdentityEnv(const std::vector<tir::Var>& vars);

/// The canonical int32 expression of `s` over `vars`: terms as
/// floormod(floordiv(x + offset, lower), extent) * scale in canonical order, then the base.
tir::PrimExpr ToPrimExpr(const IterSum& s, const std::vector<tir::Var>& vars);

/// A hash of a normalized sum (variables by index).
size_t HashSum(const IterSum& s);

}  // namespace tessera::layout::detail
