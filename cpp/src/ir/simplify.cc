// tir::Simplify: constant folding, safe identities and affine normal form for index
// expressions, applied to scalar expressions and to every expression of a statement.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "simplify_util.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"

namespace tessera::tir {
namespace {

using namespace simplify_detail;  // NOLINT: the folding vocabulary

// ---- Affine forms --------------------------------------------------------------------

/// sum(coef * term) + constant over non-affine terms, in first-appearance order.
struct Linear {
  std::vector<std::pair<PrimExpr, int64_t>> terms;
  int64_t constant = 0;
  bool ok = true;  ///< false after an int64 overflow: the form must not be used

  void AddConstant(int64_t v) {
    if (__builtin_add_overflow(constant, v, &constant)) ok = false;
  }
  void AddTerm(const PrimExpr& term, int64_t coef) {
    for (auto& [t, c] : terms) {
      if (ExprEqual(t, term)) {
        if (__builtin_add_overflow(c, coef, &c)) ok = false;
        return;
      }
    }
    terms.emplace_back(term, coef);
  }
  bool IsConstant() const {
    for (const auto& tc : terms)
      if (tc.second != 0) return false;
    return true;
  }
};

void Collect(const PrimExpr& e, int64_t scale, Linear* out) {
  if (!out->ok) return;
  if (auto c = ConstInt(e)) {
    int64_t v;
    if (__builtin_mul_overflow(*c, scale, &v)) {
      out->ok = false;
      return;
    }
    out->AddConstant(v);
    return;
  }
  if (auto* b = e.as<BinaryNode>()) {
    if (b->op == BinaryOp::kAdd || b->op == BinaryOp::kSub) {
      Collect(b->a, scale, out);
      int64_t s = scale;
      if (b->op == BinaryOp::kSub && __builtin_mul_overflow(scale, -1, &s)) {
        out->ok = false;
        return;
      }
      Collect(b->b, s, out);
      return;
    }
    if (b->op == BinaryOp::kMul) {
      auto ca = ConstInt(b->a), cb = ConstInt(b->b);
      if (ca || cb) {
        int64_t s;
        if (__builtin_mul_overflow(scale, ca ? *ca : *cb, &s)) {
          out->ok = false;
          return;
        }
        Collect(ca ? b->b : b->a, s, out);
        return;
      }
    }
  }
  out->AddTerm(e, scale);
}

Linear LinearOf(const PrimExpr& e) {
  Linear l;
  Collect(e, 1, &l);
  return l;
}

/// The canonical expression of an affine form: terms in order (coefficient 1 bare, -1
/// subtracted, others as term * c), then the constant; null when a value does not fit.
PrimExpr Rebuild(const Linear& l, DType dtype) {
  if (!l.ok || !FitsDType(dtype, l.constant)) return nullptr;
  PrimExpr result;
  for (const auto& [t, c] : l.terms) {
    if (c == 0) continue;
    if (!FitsDType(dtype, c) || c == INT64_MIN) return nullptr;
    if (!result) {
      result = c == 1 ? t : MakeBinary(BinaryOp::kMul, t, IntImm(c, dtype));
    } else if (c > 0) {
      result = MakeBinary(BinaryOp::kAdd, result,
                          c == 1 ? t : MakeBinary(BinaryOp::kMul, t, IntImm(c, dtype)));
    } else {
      result = MakeBinary(BinaryOp::kSub, result,
                          c == -1 ? t : MakeBinary(BinaryOp::kMul, t, IntImm(-c, dtype)));
    }
  }
  if (!result) return IntImm(l.constant, dtype);
  if (l.constant > 0) return MakeBinary(BinaryOp::kAdd, result, IntImm(l.constant, dtype));
  if (l.constant < 0 && l.constant != INT64_MIN)
    return MakeBinary(BinaryOp::kSub, result, IntImm(-l.constant, dtype));
  if (l.constant < 0) return MakeBinary(BinaryOp::kAdd, result, IntImm(l.constant, dtype));
  return result;
}

/// `a - b` as an affine form when both sides are index expressions.
std::optional<int64_t> ConstantDifference(const PrimExpr& a, const PrimExpr& b) {
  if (!IsIndexType(a->dtype)) return std::nullopt;
  Linear l;
  Collect(a, 1, &l);
  Collect(b, -1, &l);
  if (!l.ok || !l.IsConstant()) return std::nullopt;
  return l.constant;
}

// ---- Bounds of loop variables ----------------------------------------------------------

/// The values an index expression can take: [lo, hi].
struct Bounds {
  int64_t lo, hi;
};

/// The ranges of the loop and block variables enclosing the statement being simplified,
/// innermost last. Thread-local so that scalar simplification, reached from deep inside
/// the rewriting functions, sees the scope of the statement walk that called it (and
/// Simplify(expr) alone sees none).
using Scope = std::vector<std::pair<const VarNode*, std::optional<Bounds>>>;
thread_local Scope* t_scope = nullptr;

/// Pushes `var` in [min, min + extent) onto the scope while alive; without constant bounds,
/// as unknown (so an outer variable of the same node it shadows tells nothing here).
class ScopedRange {
 public:
  ScopedRange(const Var& var, const PrimExpr& min, const PrimExpr& extent) {
    if (!t_scope) return;
    auto lo = ConstInt(min), n = ConstInt(extent);
    int64_t hi;
    std::optional<Bounds> range;
    if (lo && n && *n > 0 && !__builtin_add_overflow(*lo, *n - 1, &hi)) range = Bounds{*lo, hi};
    t_scope->push_back({var.get(), range});
    pushed_ = true;
  }
  ~ScopedRange() {
    if (pushed_) t_scope->pop_back();
  }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  bool pushed_ = false;
};

/// The range of index expression `e` from the enclosing variables' ranges: sums, products
/// by constants, floordiv / floormod by positive constants, min and max; none otherwise or
/// on overflow.
std::optional<Bounds> BoundOf(const PrimExpr& e) {
  if (!IsIndexType(e->dtype)) return std::nullopt;
  if (auto c = ConstInt(e)) return Bounds{*c, *c};
  if (auto* v = e.as<VarNode>()) {
    if (t_scope)
      for (auto it = t_scope->rbegin(); it != t_scope->rend(); ++it)
        if (it->first == v) return it->second;
    return std::nullopt;
  }
  auto* b = e.as<BinaryNode>();
  if (!b) return std::nullopt;
  auto x = BoundOf(b->a), y = BoundOf(b->b);
  if (!x || !y) return std::nullopt;
  Bounds r{};
  switch (b->op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(x->lo, y->lo, &r.lo) ||
          __builtin_add_overflow(x->hi, y->hi, &r.hi))
        return std::nullopt;
      return r;
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(x->lo, y->hi, &r.lo) ||
          __builtin_sub_overflow(x->hi, y->lo, &r.hi))
        return std::nullopt;
      return r;
    case BinaryOp::kMul: {
      if (y->lo != y->hi) return std::nullopt;  // by a constant only
      int64_t p, q;
      if (__builtin_mul_overflow(x->lo, y->lo, &p) || __builtin_mul_overflow(x->hi, y->lo, &q))
        return std::nullopt;
      return Bounds{std::min(p, q), std::max(p, q)};
    }
    case BinaryOp::kDiv:  // truncating: floor division where the operand is not negative
      if (y->lo != y->hi || y->lo <= 0 || x->lo < 0) return std::nullopt;
      return Bounds{x->lo / y->lo, x->hi / y->lo};
    case BinaryOp::kFloorDiv:
      if (y->lo != y->hi || y->lo <= 0) return std::nullopt;
      return Bounds{FloorDivInt(x->lo, y->lo), FloorDivInt(x->hi, y->lo)};
    case BinaryOp::kFloorMod:
      if (y->lo != y->hi || y->lo <= 0) return std::nullopt;
      if (FloorDivInt(x->lo, y->lo) == FloorDivInt(x->hi, y->lo))
        return Bounds{FloorModInt(x->lo, y->lo), FloorModInt(x->hi, y->lo)};
      return Bounds{0, y->lo - 1};
    case BinaryOp::kMin:
      return Bounds{std::min(x->lo, y->lo), std::min(x->hi, y->hi)};
    case BinaryOp::kMax:
      return Bounds{std::max(x->lo, y->lo), std::max(x->hi, y->hi)};
    default:
      return std::nullopt;
  }
}

// ---- Rewriting -------------------------------------------------------------------------

PrimExpr SimplifyBinary(const PrimExpr& orig, BinaryOp op, PrimExpr a, PrimExpr b);

/// `a op b`, reusing `orig` when the operands did not change.
PrimExpr Rebinary(const PrimExpr& orig, BinaryOp op, const PrimExpr& a, const PrimExpr& b) {
  if (auto* n = orig.as<BinaryNode>())
    if (n->op == op && n->a.same_as(a) && n->b.same_as(b)) return orig;
  return MakeBinary(op, a, b);
}

/// floordiv/floormod of an index expression by a non-zero constant `c`: terms whose
/// coefficients `c` divides leave the division (c*K + R == K*c + R, so
/// floordiv(c*K + R, c) == K + floordiv(R, c) and floormod(c*K + R, c) == floormod(R, c)).
PrimExpr SimplifyDivMod(const PrimExpr& orig, BinaryOp op, const PrimExpr& a, const PrimExpr& b,
                        int64_t c) {
  DType dtype = a->dtype;
  if (c == 1) return op == BinaryOp::kFloorDiv ? a : IntImm(0, dtype);
  if (c == -1 && op == BinaryOp::kFloorMod) return IntImm(0, dtype);
  // Within one multiple of c over the enclosing loops' ranges, the quotient is a constant
  // q and the remainder a - q*c (a transposed operand's floormod(k, 64) inside k < 64).
  if (auto bound = c > 0 ? BoundOf(a) : std::nullopt) {
    int64_t q = FloorDivInt(bound->lo, c);
    if (q == FloorDivInt(bound->hi, c)) {
      if (op == BinaryOp::kFloorDiv) return IntImm(q, dtype);
      Linear rest = LinearOf(a);
      int64_t qc;
      if (!__builtin_mul_overflow(q, c, &qc) && qc != INT64_MIN) {
        rest.AddConstant(-qc);  // Rebuild refuses a form whose sum overflowed
        if (PrimExpr r = Rebuild(rest, dtype)) return r;
      }
    }
  }
  Linear l = LinearOf(a);
  if (l.ok && c != INT64_MIN) {
    Linear quotient, rest;
    for (const auto& [t, coef] : l.terms) {
      if (coef == 0) continue;
      if (coef % c == 0)
        quotient.AddTerm(t, coef / c);
      else
        rest.AddTerm(t, coef);
    }
    quotient.AddConstant(FloorDivInt(l.constant, c));
    rest.AddConstant(FloorModInt(l.constant, c));
    if (!quotient.IsConstant() || quotient.constant != 0) {
      PrimExpr rest_expr = Rebuild(rest, dtype);
      if (rest_expr) {
        // The remainder has no divisible part left, so this recursion ends one level down.
        PrimExpr inner = SimplifyBinary(nullptr, op, rest_expr, b);
        if (op == BinaryOp::kFloorMod) return inner;
        Linear sum = quotient;
        if (auto k = ConstInt(inner))
          sum.AddConstant(*k);
        else
          sum.AddTerm(inner, 1);
        PrimExpr result = Rebuild(sum, dtype);
        if (result) return result;
      }
    }
  }
  // Nested divisions by positive constants compose.
  if (auto* inner = a.as<BinaryNode>()) {
    auto* c1 = inner->b.as<IntImmNode>();
    if (c1 && c1->value > 0 && c > 0 && inner->op == op) {
      int64_t prod;
      if (op == BinaryOp::kFloorDiv && !__builtin_mul_overflow(c1->value, c, &prod) &&
          FitsDType(dtype, prod))
        return MakeBinary(op, inner->a, IntImm(prod, dtype));
      if (op == BinaryOp::kFloorMod && c1->value % c == 0) return MakeBinary(op, inner->a, b);
    }
  }
  return Rebinary(orig, op, a, b);
}

PrimExpr SimplifyBinary(const PrimExpr& orig, BinaryOp op, PrimExpr a, PrimExpr b) {
  DType dtype = a->dtype;
  // Constant folding.
  if (IsFloat(dtype)) {
    auto x = ConstFloat(a), y = ConstFloat(b);
    if (x && y)
      if (PrimExpr folded = FoldFloat(op, *x, *y, dtype)) return folded;
    // Only identities that hold for every float value, signed zeros aside.
    auto is = [](const std::optional<double>& v, double k) { return v && *v == k; };
    if (op == BinaryOp::kMul && is(y, 1.0)) return a;
    if (op == BinaryOp::kMul && is(x, 1.0)) return b;
    if ((op == BinaryOp::kAdd || op == BinaryOp::kSub) && is(y, 0.0)) return a;
    if (op == BinaryOp::kAdd && is(x, 0.0)) return b;
    return Rebinary(orig, op, a, b);
  }
  auto x = ConstInt(a), y = ConstInt(b);
  if (x && y)
    if (auto r = FoldInt(op, *x, *y, dtype))
      return IntImm(*r, IsComparison(op) ? DType::kBool : dtype);
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul: {
      if (IsIndexType(dtype)) {
        PrimExpr node = Rebinary(orig, op, a, b);
        // Already canonical: keep the original node so unchanged IR stays shared.
        if (PrimExpr canon = Rebuild(LinearOf(node), dtype))
          return ExprEqual(canon, node) ? node : canon;
        return node;
      }
      if (op != BinaryOp::kMul && y == 0) return a;
      if (op == BinaryOp::kAdd && x == 0) return b;
      if (op == BinaryOp::kMul && (y == 1 || x == 1)) return y == 1 ? a : b;
      if (op == BinaryOp::kMul && (y == 0 || x == 0)) return IntImm(0, dtype);
      break;
    }
    case BinaryOp::kDiv:
      if (y == 1) return a;
      // A quotient that one value over the enclosing loops' ranges is that value.
      if (IsIndexType(dtype) && y && *y > 0)
        if (auto bound = BoundOf(a); bound && bound->lo >= 0 && bound->lo / *y == bound->hi / *y)
          return IntImm(bound->lo / *y, dtype);
      break;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
      if (y && *y != 0 && IsIndexType(dtype)) return SimplifyDivMod(orig, op, a, b, *y);
      break;
    case BinaryOp::kMin:
    case BinaryOp::kMax: {
      if (ExprEqual(a, b)) return a;
      if (auto d = ConstantDifference(a, b)) return (*d <= 0) == (op == BinaryOp::kMin) ? a : b;
      break;
    }
    case BinaryOp::kEQ:
    case BinaryOp::kNE:
    case BinaryOp::kLT:
    case BinaryOp::kLE:
    case BinaryOp::kGT:
    case BinaryOp::kGE: {
      std::optional<int64_t> d = ConstantDifference(a, b);
      if (!d && ExprEqual(a, b)) d = 0;  // integers only: floats were handled above
      if (d) {
        bool r = op == BinaryOp::kEQ   ? *d == 0
                 : op == BinaryOp::kNE ? *d != 0
                 : op == BinaryOp::kLT ? *d < 0
                 : op == BinaryOp::kLE ? *d <= 0
                 : op == BinaryOp::kGT ? *d > 0
                                       : *d >= 0;
        return IntImm(r, DType::kBool);
      }
      break;
    }
    case BinaryOp::kAnd:
      if (x) return *x ? b : IntImm(0, DType::kBool);
      if (y) return *y ? a : IntImm(0, DType::kBool);
      break;
    case BinaryOp::kOr:
      if (x) return *x ? IntImm(1, DType::kBool) : b;
      if (y) return *y ? IntImm(1, DType::kBool) : a;
      break;
  }
  return Rebinary(orig, op, a, b);
}

PrimExpr Simp(const PrimExpr& e);

std::vector<PrimExpr> SimpAll(const std::vector<PrimExpr>& in, bool* changed) {
  std::vector<PrimExpr> out;
  out.reserve(in.size());
  for (const auto& x : in) {
    out.push_back(Simp(x));
    if (!out.back().same_as(x)) *changed = true;
  }
  return out;
}

PrimExpr Simp(const PrimExpr& e) {
  std::vector<PrimExpr> c = PrimExprChildren(e);  // none for literals and variables
  for (PrimExpr& x : c) x = Simp(x);
  if (auto* n = e.as<BinaryNode>()) return SimplifyBinary(e, n->op, c[0], c[1]);
  if (e.as<NotNode>()) {
    if (auto v = ConstInt(c[0])) return IntImm(*v == 0, DType::kBool);
    if (auto* inner = c[0].as<NotNode>()) return inner->a;
  } else if (e.as<SelectNode>()) {
    if (auto v = ConstInt(c[0])) return *v ? c[1] : c[2];
    if (ExprEqual(c[1], c[2])) return c[1];
  } else if (auto* n = e.as<CastNode>()) {
    if (c[0]->dtype == n->dtype) return c[0];
    if (PrimExpr folded = FoldCast(n->dtype, c[0])) return folded;
  }
  return WithChildren(e, c);  // `e` itself when no operand changed
}

Range SimpRange(const Range& r, bool* changed) {
  Range out{Simp(r.min), Simp(r.extent)};
  if (!out.min.same_as(r.min) || !out.extent.same_as(r.extent)) *changed = true;
  return out;
}

std::vector<BufferRegion> SimpRegions(const std::vector<BufferRegion>& regions, bool* changed) {
  std::vector<BufferRegion> out;
  for (const auto& br : regions) {
    BufferRegion r{br.buffer, {}};
    for (const auto& range : br.region) r.region.push_back(SimpRange(range, changed));
    out.push_back(std::move(r));
  }
  return out;
}

bool IsEmpty(const Stmt& s) {
  auto* seq = s.as<SeqStmtNode>();
  return seq && seq->seq.empty();
}

Stmt SimpStmt(const Stmt& s) {
  if (!s) return s;
  switch (s->type_index()) {
    case TypeIndex::kFor: {
      auto* n = s.as<ForNode>();
      PrimExpr min = Simp(n->min), extent = Simp(n->extent);
      auto ext = ConstInt(extent);
      if (ext && *ext <= 0) return MakeSeq({});
      ScopedRange range(n->loop_var, min, extent);
      Stmt body = SimpStmt(n->body);
      if (IsEmpty(body)) return body;
      if (min.same_as(n->min) && extent.same_as(n->extent) && body.same_as(n->body)) return s;
      return MakeFor(n->loop_var, min, extent, n->kind, body);
    }
    case TypeIndex::kBlock: {
      auto* n = s.as<BlockNode>();
      bool changed = false;
      std::vector<IterVar> ivs;
      for (const auto& iv : n->iter_vars) {
        IterVar out{iv.var, SimpRange(iv.dom, &changed), iv.kind, Simp(iv.binding)};
        if (!out.binding.same_as(iv.binding)) changed = true;
        ivs.push_back(std::move(out));
      }
      std::vector<std::unique_ptr<ScopedRange>> ranges;
      for (const auto& iv : ivs)
        ranges.push_back(std::make_unique<ScopedRange>(iv.var, iv.dom.min, iv.dom.extent));
      auto reads = SimpRegions(n->reads, &changed);
      auto writes = SimpRegions(n->writes, &changed);
      Stmt init = SimpStmt(n->init), body = SimpStmt(n->body);
      if (!changed && init.same_as(n->init) && body.same_as(n->body)) return s;
      return MakeBlock(n->name, std::move(ivs), std::move(reads), std::move(writes), init, body);
    }
    case TypeIndex::kBufferStore: {
      auto* n = s.as<BufferStoreNode>();
      bool changed = false;
      auto indices = SimpAll(n->indices, &changed);
      PrimExpr value = Simp(n->value);
      if (!changed && value.same_as(n->value)) return s;
      return MakeStore(n->buffer, value, std::move(indices));
    }
    case TypeIndex::kPrefetch: {
      auto* n = s.as<PrefetchNode>();
      bool changed = false;
      auto indices = SimpAll(n->indices, &changed);
      return changed ? MakePrefetch(n->buffer, std::move(indices)) : s;
    }
    case TypeIndex::kAllocate: {
      auto* n = s.as<AllocateNode>();
      Stmt body = SimpStmt(n->body);
      return body.same_as(n->body) ? s : MakeAllocate(n->buffer, body, n->zero_fill);
    }
    case TypeIndex::kSeqStmt: {
      auto* n = s.as<SeqStmtNode>();
      bool changed = false;
      std::vector<Stmt> seq;
      for (const auto& x : n->seq) {
        seq.push_back(SimpStmt(x));
        if (!seq.back().same_as(x)) changed = true;
      }
      return changed ? MakeSeq(std::move(seq)) : s;
    }
    case TypeIndex::kIfThenElse: {
      auto* n = s.as<IfThenElseNode>();
      PrimExpr cond = Simp(n->cond);
      if (auto c = ConstInt(cond)) {
        const Stmt& taken = *c ? n->then_case : n->else_case;
        return taken ? SimpStmt(taken) : MakeSeq({});
      }
      Stmt then_case = SimpStmt(n->then_case), else_case = SimpStmt(n->else_case);
      if (cond.same_as(n->cond) && then_case.same_as(n->then_case) &&
          else_case.same_as(n->else_case))
        return s;
      return MakeIfThenElse(cond, then_case, else_case);
    }
    default:
      return s;
  }
}

}  // namespace

PrimExpr Simplify(const PrimExpr& expr) {
  TS_ICHECK(expr.defined()) << "Simplify of a null expression";
  return Simp(expr);
}

Stmt Simplify(const Stmt& stmt) {
  // A statement's walk has its own scope of variable ranges (nested calls keep theirs).
  Scope scope;
  auto* saved = std::exchange(t_scope, &scope);
  struct Restore {
    decltype(saved) s;
    ~Restore() { t_scope = s; }
  } restore{saved};
  return SimpStmt(stmt);
}

}  // namespace tessera::tir
