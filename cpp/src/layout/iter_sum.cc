// IterSum arithmetic and normalization: sums, scaling, floordiv/floormod by constants,
// split merging and the rules a known domain adds.
#include "iter_sum.h"

#include <algorithm>
#include <tuple>

#include "tessera/support/error.h"

namespace tessera::layout::detail {

int64_t CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    TS_THROW(kValue) << "index arithmetic overflows int64 (" << a << " + " << b << ")";
  return r;
}

int64_t CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    TS_THROW(kValue) << "index arithmetic overflows int64 (" << a << " * " << b << ")";
  return r;
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

IterSum VarSum(int var) {
  IterSum s;
  s.terms.push_back({Split{var, 0, 1, kUnbounded}, 1});
  return s;
}

IterSum ConstSum(int64_t value) {
  IterSum s;
  s.base = value;
  return s;
}

namespace {

/// Puts a split's offset in canonical range: below lower * extent when bounded (the
/// floormod ignores multiples of it), below lower when unbounded (whole multiples of lower
/// leave the floordiv as a constant, which moves to the base).
void CanonicalOffset(Term& t, int64_t& base) {
  Split& s = t.split;
  if (s.bounded()) {
    s.offset = FloorModInt(s.offset, CheckedMul(s.lower, s.extent));
    return;
  }
  int64_t q = FloorDivInt(s.offset, s.lower);
  base = CheckedAdd(base, CheckedMul(t.scale, q));
  s.offset -= q * s.lower;
}

/// Uses the variable's extent: a split constant over the domain joins the base, and a
/// floormod that never wraps is dropped. Returns whether the term remains.
bool ApplyDomain(Term& t, int64_t& base, Domain domain) {
  Split& s = t.split;
  int64_t e = std::max<int64_t>((*domain)[s.var], 1);
  int64_t lo = FloorDivInt(s.offset, s.lower);
  int64_t hi = FloorDivInt(CheckedAdd(s.offset, e - 1), s.lower);
  if (lo == hi) {
    int64_t v = s.bounded() ? FloorModInt(lo, s.extent) : lo;
    base = CheckedAdd(base, CheckedMul(t.scale, v));
    return false;
  }
  if (s.bounded() && FloorDivInt(lo, s.extent) == FloorDivInt(hi, s.extent)) {
    int64_t wraps = FloorDivInt(lo, s.extent);
    base = CheckedAdd(base, -CheckedMul(CheckedMul(t.scale, s.extent), wraps));
    s.extent = kUnbounded;
    CanonicalOffset(t, base);
  }
  return true;
}

/// One merge step: two terms of the same split add their scales; the digits
/// Split(x, L, E) * s + Split(x, L * E, E2) * (s * E) become Split(x, L, E * E2) * s.
bool MergeOnce(std::vector<Term>& terms) {
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t j = i + 1; j < terms.size(); ++j)
      if (terms[i].split == terms[j].split) {
        terms[i].scale = CheckedAdd(terms[i].scale, terms[j].scale);
        terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(j));
        return true;
      }
  for (size_t i = 0; i < terms.size(); ++i) {
    const Split& a = terms[i].split;
    if (!a.bounded()) continue;
    int64_t span = CheckedMul(a.lower, a.extent);
    for (size_t j = 0; j < terms.size(); ++j) {
      const Split& b = terms[j].split;
      if (j == i || b.var != a.var || b.lower != span) continue;
      // Equal offsets modulo `span` give the same low digit (see CanonicalOffset).
      if (a.offset != FloorModInt(b.offset, span)) continue;
      if (terms[j].scale != CheckedMul(terms[i].scale, a.extent)) continue;
      Split merged{a.var, b.offset, a.lower,
                   b.bounded() ? CheckedMul(a.extent, b.extent) : kUnbounded};
      terms[i].split = merged;
      terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(j));
      return true;
    }
  }
  return false;
}

/// The canonical order: positive scales first, larger magnitudes first, then by variable,
/// outer digits first.
auto OrderKey(const Term& t) {
  int64_t magnitude = t.scale > 0 ? -t.scale : t.scale;
  return std::make_tuple(t.scale > 0 ? 0 : 1, magnitude, t.split.var, -t.split.lower,
                         t.split.bounded() ? 1 : 0, t.split.extent, t.split.offset);
}

}  // namespace

void Normalize(IterSum* s, Domain domain) {
  bool changed = true;
  while (changed) {
    std::vector<Term> kept;
    for (Term t : s->terms) {
      if (t.scale == 0 || (t.split.bounded() && t.split.extent == 1)) continue;
      CanonicalOffset(t, s->base);
      if (domain && !ApplyDomain(t, s->base, domain)) continue;
      kept.push_back(t);
    }
    s->terms = std::move(kept);
    changed = MergeOnce(s->terms);
  }
  std::sort(s->terms.begin(), s->terms.end(),
            [](const Term& a, const Term& b) { return OrderKey(a) < OrderKey(b); });
}

IterSum AddSums(const IterSum& a, const IterSum& b, int64_t b_scale, Domain domain) {
  IterSum r = a;
  r.base = CheckedAdd(r.base, CheckedMul(b.base, b_scale));
  for (const Term& t : b.terms) r.terms.push_back({t.split, CheckedMul(t.scale, b_scale)});
  Normalize(&r, domain);
  return r;
}

IterSum ScaleSum(const IterSum& a, int64_t scale, Domain domain) {
  IterSum r;
  r.base = CheckedMul(a.base, scale);
  for (const Term& t : a.terms) r.terms.push_back({t.split, CheckedMul(t.scale, scale)});
  Normalize(&r, domain);
  return r;
}

int64_t SplitValue(const Split& split, int64_t x) {
  int64_t v = FloorDivInt(x + split.offset, split.lower);
  return split.bounded() ? FloorModInt(v, split.extent) : v;
}

int64_t Evaluate(const IterSum& s, const std::vector<int64_t>& x) {
  int64_t v = s.base;
  for (const Term& t : s.terms)
    v = CheckedAdd(v, CheckedMul(t.scale, SplitValue(t.split, x[t.split.var])));
  return v;
}

std::optional<int64_t> SplitMax(const Split& split, Domain domain) {
  if (domain) {
    int64_t e = std::max<int64_t>((*domain)[split.var], 1);
    int64_t hi = FloorDivInt(CheckedAdd(split.offset, e - 1), split.lower);
    return split.bounded() ? std::min(split.extent - 1, hi) : hi;
  }
  if (split.bounded()) return split.extent - 1;
  return std::nullopt;
}

std::pair<std::optional<int64_t>, std::optional<int64_t>> SumBounds(const IterSum& s,
                                                                    Domain domain) {
  std::optional<int64_t> lo = s.base, hi = s.base;
  for (const Term& t : s.terms) {
    std::optional<int64_t> m = SplitMax(t.split, domain);
    std::optional<int64_t>& side = t.scale > 0 ? hi : lo;
    if (!m)
      side.reset();
    else if (side)
      side = CheckedAdd(*side, CheckedMul(t.scale, *m));
  }
  return {lo, hi};
}

std::optional<std::pair<IterSum, IterSum>> DivModSum(const IterSum& s, int64_t k, Domain domain) {
  if (k == 1) return std::make_pair(s, ConstSum(0));
  // s = k * q + r term by term: scales divisible by k go to q, a split whose scale divides
  // k splits into a digit for q and one for r; the rest stays in r. The split is the
  // answer when r provably lies in [0, k).
  auto attempt = [&](const IterSum& in) -> std::optional<std::pair<IterSum, IterSum>> {
    IterSum q, r;
    q.base = FloorDivInt(in.base, k);
    r.base = FloorModInt(in.base, k);
    for (const Term& t : in.terms) {
      const Split& sp = t.split;
      if (t.scale % k == 0) {
        q.terms.push_back({sp, t.scale / k});
      } else if (t.scale > 0 && k % t.scale == 0 &&
                 (!sp.bounded() || sp.extent % (k / t.scale) == 0)) {
        int64_t m = k / t.scale;
        if (!sp.bounded() || sp.extent != m)
          q.terms.push_back({Split{sp.var, sp.offset, CheckedMul(sp.lower, m),
                                   sp.bounded() ? sp.extent / m : kUnbounded},
                             1});
        r.terms.push_back({Split{sp.var, sp.offset, sp.lower, m}, t.scale});
      } else {
        r.terms.push_back(t);
      }
    }
    Normalize(&q, domain);
    Normalize(&r, domain);
    auto [lo, hi] = SumBounds(r, domain);
    if (lo && *lo >= 0 && hi && *hi < k) return std::make_pair(std::move(q), std::move(r));
    return std::nullopt;
  };
  if (auto res = attempt(s)) return res;
  // A constant left pad, (x + c) // k: the constant moves into an unbounded split as its
  // offset, so that the split's digits line up with multiples of k.
  int64_t r0 = FloorModInt(s.base, k);
  for (size_t i = 0; i < s.terms.size() && r0 != 0; ++i) {
    const Term& t = s.terms[i];
    if (t.scale <= 0 || t.split.bounded() || r0 / t.scale == 0) continue;
    int64_t pad = r0 / t.scale;
    IterSum moved = s;  // not normalized: that would move the offset back into the base
    moved.terms[i].split.offset =
        CheckedAdd(moved.terms[i].split.offset, CheckedMul(pad, t.split.lower));
    moved.base -= pad * t.scale;
    if (auto res = attempt(moved)) return res;
  }
  return std::nullopt;
}

size_t HashSum(const IterSum& s) {
  size_t h = std::hash<int64_t>()(s.base);
  auto mix = [&h](int64_t v) {
    h ^= std::hash<int64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  for (const Term& t : s.terms) {
    mix(t.split.var);
    mix(t.split.offset);
    mix(t.split.lower);
    mix(t.split.extent);
    mix(t.scale);
  }
  return h;
}

}  // namespace tessera::layout::detail
