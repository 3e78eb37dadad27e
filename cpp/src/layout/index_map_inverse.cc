// Inverses of index maps over a shape: NonSurjectiveInverse (with the padding predicate),
// Inverse, IsBijective, IsInjective.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "index_map_util.h"
#include "index_text.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::layout {
namespace {

using detail::IterSum;
using detail::Split;
using detail::Term;

/// One digit of an input variable: the split that produced it, the output holding it,
/// its scale there, its number of values, and whether it is that output's outermost digit.
struct Digit {
  Split split;
  size_t output;
  int64_t scale;
  int64_t extent;
  bool outermost;
};

/// The inverse and predicate, or why there is none.
struct InverseOutcome {
  std::optional<IndexMap::InverseResult> result;
  bool pads = false;
  std::string reason;
};

/// Names for the inverse's variables: an output that is exactly an input variable keeps
/// that name, others are i0, i1, ...; repeats get a suffix.
std::vector<tir::Var> InverseVars(const IndexMap& map, const std::vector<IterSum>& sums) {
  std::vector<tir::Var> vars;
  std::unordered_set<std::string> used;
  for (size_t j = 0; j < sums.size(); ++j) {
    std::string name = "i" + std::to_string(j);
    const IterSum& s = sums[j];
    if (s.base == 0 && s.terms.size() == 1 && s.terms[0].scale == 1 &&
        s.terms[0].split == Split{s.terms[0].split.var, 0, 1, detail::kUnbounded})
      name = map.initial_indices()[static_cast<size_t>(s.terms[0].split.var)]->name;
    std::string unique = name;
    for (size_t k = 1; !used.insert(unique).second; ++k) unique = name + "_" + std::to_string(k);
    vars.push_back(tir::MakeVar(unique));
  }
  return vars;
}

InverseOutcome InverseImpl(const IndexMap& map, const std::vector<int64_t>& shape) {
  InverseOutcome outcome;
  detail::PaddedForm form = detail::Padded(map, shape);
  const std::vector<tir::Var>& inputs = map.initial_indices();
  size_t n = shape.size();
  // Every output must be a mixed-radix number of whole digits: scales 1, e0, e0*e1, ...
  std::vector<std::vector<Digit>> digits(n);
  for (size_t j = 0; j < form.sums.size(); ++j) {
    std::vector<Term> terms = form.sums[j].terms;
    std::sort(terms.begin(), terms.end(),
              [](const Term& a, const Term& b) { return a.scale < b.scale; });
    int64_t expected = 1;
    for (size_t k = 0; k < terms.size(); ++k) {
      const Term& t = terms[k];
      if (t.scale != expected) {
        outcome.reason =
            "output " + std::to_string(j) + " `" + detail::IndexExprText(map.final_indices()[j]) +
            "` is not a mixed-radix fuse of whole digits (a digit has scale " +
            std::to_string(t.scale) + " where " + std::to_string(expected) + " is needed)";
        return outcome;
      }
      int64_t extent =
          t.split.bounded() ? t.split.extent : *detail::SplitMax(t.split, &form.padded) + 1;
      digits[static_cast<size_t>(t.split.var)].push_back(
          {t.split, j, t.scale, extent, k + 1 == terms.size()});
      expected = detail::CheckedMul(expected, extent);
    }
    if (form.sums[j].base < 0) {
      outcome.reason = "output " + std::to_string(j) + " can be negative";
      return outcome;
    }
  }
  // Every variable's digits must tile it: lower factors 1, E0, E0*E1, ..., the top digit
  // unbounded over the padded extent.
  for (size_t v = 0; v < n; ++v) {
    std::vector<Digit>& ds = digits[v];
    std::string name = "variable `" + inputs[v]->name + "`";
    if (ds.empty()) {
      if (shape[v] != 1) {
        outcome.reason = name + " (extent " + std::to_string(shape[v]) + ") is dropped";
        return outcome;
      }
      continue;
    }
    std::sort(ds.begin(), ds.end(),
              [](const Digit& a, const Digit& b) { return a.split.lower < b.split.lower; });
    int64_t lower = 1;
    for (size_t k = 0; k < ds.size(); ++k) {
      const Split& s = ds[k].split;
      bool top = k + 1 == ds.size();
      if (s.offset != 0) {
        outcome.reason = name + " is padded by different offsets in different outputs";
        return outcome;
      }
      if (s.lower != lower || (s.bounded() == top)) {
        outcome.reason = name + "'s digits do not tile it exactly once (" +
                         (s.lower != lower ? "a digit of lower factor " + std::to_string(s.lower) +
                                                 " where " + std::to_string(lower) + " is next"
                                           : std::string(top ? "its top digit wraps around"
                                                             : "a digit repeats or overlaps")) +
                         ")";
        return outcome;
      }
      if (!top) lower = detail::CheckedMul(lower, s.extent);
    }
  }
  // x = u - offset, u = sum of digit * lower, each digit read back from its output.
  std::vector<tir::Var> vars = InverseVars(map, form.sums);
  std::vector<tir::PrimExpr> outs;
  std::vector<tir::PrimExpr> conds;
  for (size_t v = 0; v < n; ++v) {
    IterSum inv;
    for (const Digit& d : digits[v]) {
      Split piece{static_cast<int>(d.output), -form.sums[d.output].base, d.scale,
                  d.outermost ? detail::kUnbounded : d.extent};
      inv.terms.push_back({piece, d.split.lower});
    }
    int64_t offset = form.offset[v];
    inv.base = -offset;
    detail::Normalize(&inv, nullptr);
    outs.push_back(detail::ToPrimExpr(inv, vars));
    if (digits[v].empty()) continue;
    // The padding: x < 0 (left pad) or x >= extent (right pad), with the base moved right.
    IterSum lhs = inv;
    lhs.base = 0;
    tir::PrimExpr lhs_expr = detail::ToPrimExpr(lhs, vars);
    if (offset > 0)
      conds.push_back(tir::MakeBinary(tir::BinaryOp::kLT, lhs_expr, tir::IntImm(-inv.base)));
    if (form.padded[v] - offset > shape[v])
      conds.push_back(tir::MakeBinary(tir::BinaryOp::kGE, lhs_expr,
                                      tir::IntImm(detail::CheckedAdd(shape[v], -inv.base))));
  }
  for (size_t j = 0; j < form.sums.size(); ++j)
    if (form.sums[j].base > 0)
      conds.push_back(tir::MakeBinary(tir::BinaryOp::kLT, vars[j], tir::IntImm(form.sums[j].base)));
  tir::PrimExpr pred = tir::IntImm(0, DType::kBool);
  for (size_t k = 0; k < conds.size(); ++k)
    pred = k == 0 ? conds[k] : tir::MakeBinary(tir::BinaryOp::kOr, pred, conds[k]);
  outcome.pads = !conds.empty();
  outcome.result = IndexMap::InverseResult{IndexMap(vars, outs), pred};
  return outcome;
}

[[noreturn]] void ThrowNotInjective(const IndexMap& map, const std::vector<int64_t>& shape,
                                    const std::string& reason) {
  throw Error(ErrorKind::kValue, "index map `" + map.ToString() + "` is not injective on shape " +
                                     ShapeToString(shape) +
                                     " or not invertible as a split/fuse of its inputs: " + reason);
}

}  // namespace

IndexMap::InverseResult IndexMap::NonSurjectiveInverse(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "NonSurjectiveInverse");
  InverseOutcome outcome = InverseImpl(*this, shape);
  if (!outcome.result) ThrowNotInjective(*this, shape, outcome.reason);
  return *outcome.result;
}

IndexMap IndexMap::Inverse(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "Inverse");
  InverseOutcome outcome = InverseImpl(*this, shape);
  if (!outcome.result) ThrowNotInjective(*this, shape, outcome.reason);
  if (outcome.pads)
    TS_THROW(kValue) << "index map `" << ToString() << "` is not a bijection on shape "
                     << ShapeToString(shape) << ": it pads to " << ShapeToString(MapShape(shape))
                     << " (padding where `"
                     << detail::IndexExprText(outcome.result->padding_predicate) << "` over `"
                     << outcome.result->inverse.ToString() << "`); use NonSurjectiveInverse";
  return outcome.result->inverse;
}

bool IndexMap::IsBijective(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "IsBijective");
  InverseOutcome outcome = InverseImpl(*this, shape);
  return outcome.result && !outcome.pads;
}

bool IndexMap::IsInjective(const std::vector<int64_t>& shape) const {
  detail::CheckShape(*this, shape, "IsInjective");
  return InverseImpl(*this, shape).result.has_value();
}

}  // namespace tessera::layout
