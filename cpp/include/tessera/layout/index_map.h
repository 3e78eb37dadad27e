// IndexMap: an affine map of tensor indices (floordiv/floormod by constants allowed), the
// representation of every layout rewrite: layout_transform's argument, ConvertLayout's
// layouts, PlanLayouts' flowed constraints.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::layout {

/// `lambda i0, ..., i{n-1}: (e0, ..., e{m-1})`: n input indices mapped to m output indices.
///
/// The output expressions are integer expressions over the input variables only, built
/// from the variables, integer constants, +, -, * by a constant, and floordiv/floormod by a
/// positive constant. Every map the class accepts decomposes into "splits" of its input
/// variables (`((x + offset) floordiv lower) floormod extent`, scaled and summed), which is
/// what makes shapes, inverses, composition and identity exactly computable. A map is a
/// value: copies share immutable nodes; equality is alpha-equivalence (variable names do not
/// matter).
class IndexMap {
 public:
  /// The empty map (arity 0, no outputs); `defined()` is false.
  IndexMap() = default;
  /// Validates and simplifies the outputs: each must be an int32 expression over
  /// `initial` only, of the accepted form; throws a value error naming the expression.
  IndexMap(std::vector<tir::Var> initial, std::vector<tir::PrimExpr> final_indices);

  /// `lambda i0..i{n-1}: (i0..i{n-1})`.
  static IndexMap Identity(int ndim);
  /// The map of a transpose: output k is input `axes[k]` (a permutation; else a value error).
  static IndexMap Permutation(const std::vector<int64_t>& axes);
  /// The map between two TVM layout strings with the same primal axes: "NCHW" -> "NHWC",
  /// "NCHW" -> "NCHW16c", "OIHW" -> "OIHW4i4o", "NCHW4c" -> "NCHW". Input variables are
  /// named after the source axes (primal `c`, sub-axis `c4`). Throws a value error naming
  /// the layouts for an unknown or repeated axis, a sub-axis without its primal axis, or
  /// different primal axes.
  static IndexMap FromLayouts(const std::string& src_layout, const std::string& dst_layout);
  /// Parses the text form `lambda n, c, h, w: (n, c // 4, h, w, c % 4)` (`//`, `%`, `*`, `+`,
  /// `-`, parentheses; also `floordiv(a, b)` / `floormod(a, b)`). A parse error names the
  /// position.
  static IndexMap Parse(const std::string& text);

  /// The text form, as Parse reads it; canonical: equal maps print equally up to names.
  std::string ToString() const;

  bool defined() const { return !initial_.empty() || !final_.empty(); }
  /// Number of input indices.
  int arity() const { return static_cast<int>(initial_.size()); }
  /// Number of output indices.
  int num_outputs() const { return static_cast<int>(final_.size()); }
  /// The input variables.
  const std::vector<tir::Var>& initial_indices() const { return initial_; }
  /// The output expressions (simplified).
  const std::vector<tir::PrimExpr>& final_indices() const { return final_; }

  /// The outputs at concrete indices (arity must match; a value error otherwise).
  std::vector<int64_t> MapIndices(const std::vector<int64_t>& indices) const;
  /// The outputs with `indices` substituted for the variables, simplified.
  std::vector<tir::PrimExpr> MapIndices(const std::vector<tir::PrimExpr>& indices) const;
  /// The shape of the image of `shape` (the smallest shape holding every mapped index;
  /// larger than the input's element count when the map pads, e.g. c -> (c // 4, c % 4)
  /// over [14] gives [4, 4]). Throws a type error naming the map and shape when the arity
  /// differs, and a value error when an output can be negative.
  std::vector<int64_t> MapShape(const std::vector<int64_t>& shape) const;

  /// The inverse over `shape` and where it is padding (defined after the class, since it
  /// holds an IndexMap).
  struct InverseResult;
  /// The inverse of an injective map over `shape`, which may pad (TVM's
  /// NonSurjectiveInverse). Throws a value error naming the map and shape when the map is
  /// not injective on `shape` (it drops or folds indices) or not invertible in this form.
  InverseResult NonSurjectiveInverse(const std::vector<int64_t>& shape) const;
  /// The inverse of a bijection over `shape`; throws a value error when the map pads.
  IndexMap Inverse(const std::vector<int64_t>& shape) const;
  /// Whether the map is a bijection from `shape` onto MapShape(shape).
  bool IsBijective(const std::vector<int64_t>& shape) const;
  /// Whether the map is injective on `shape` (NonSurjectiveInverse would succeed).
  bool IsInjective(const std::vector<int64_t>& shape) const;

  /// `then ∘ this`: first this map, then `then` (whose arity must equal num_outputs()).
  IndexMap ComposeWith(const IndexMap& then) const;
  /// Proves that the map is the identity on every index of `shape` (same arity and
  /// outputs, each output equal to its input on the domain). Exact for every accepted map.
  bool IsIdentity(const std::vector<int64_t>& shape) const;
  /// Proves that this map and `other` (same arity) give the same outputs on every index of
  /// `shape`. Exact for every accepted map (both are brought to a normal form that uses
  /// the domain, e.g. c % 64 is c when c < 64).
  bool EqualOn(const IndexMap& other, const std::vector<int64_t>& shape) const;
  /// Whether the map only permutes axes; sets `axes` (output k reads input axes[k]) if so.
  bool IsPermutation(std::vector<int64_t>* axes = nullptr) const;

  /// A new tensor of MapShape(x.shape()) with out[map(i)] = x[i] and `pad_value` at padding
  /// positions (converted to x's dtype).
  NDArray Apply(const NDArray& x, double pad_value = 0.0) const;

  /// Alpha-equivalence: same arity and structurally equal outputs after renaming.
  friend bool operator==(const IndexMap& a, const IndexMap& b);
  friend bool operator!=(const IndexMap& a, const IndexMap& b) { return !(a == b); }
  /// Hash consistent with ==.
  size_t Hash() const;

 private:
  std::vector<tir::Var> initial_;
  std::vector<tir::PrimExpr> final_;
};

/// Python-style text of an index or predicate expression, as ToString prints outputs:
/// `c // 4 % 4 * 16 + h`, comparisons, `and`, `or`, `not`, True/False (Python's eval
/// reads it; e.g. InverseResult::padding_predicate).
std::string IndexExprToString(const tir::PrimExpr& expr);

/// The variables an index expression uses (which axes an output of a map reads).
std::unordered_set<const tir::VarNode*> VarsOf(const tir::PrimExpr& expr);

struct IndexMap::InverseResult {
  /// Maps output indices (arity num_outputs()) back to input indices.
  IndexMap inverse;
  /// A bool expression over `inverse.initial_indices()`: true at positions of
  /// MapShape(shape) that no input index maps to (constant false for a bijection).
  tir::PrimExpr padding_predicate;
};

}  // namespace tessera::layout
