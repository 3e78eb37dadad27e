// PrimFunc lookups and interval bounds of index expressions for the layout primitives.
#include "tir_util.h"

#include <algorithm>
#include <vector>

#include "iter_sum.h"
#include "tessera/support/error.h"

namespace tessera::layout::detail {

namespace {

using Interval = std::pair<int64_t, int64_t>;

/// The buffers allocated under `stmt`, in program order.
void CollectAllocated(const tir::Stmt& stmt, std::vector<tir::Buffer>& out) {
  if (!stmt) return;
  if (const auto* f = stmt.as<tir::ForNode>()) return CollectAllocated(f->body, out);
  if (const auto* a = stmt.as<tir::AllocateNode>()) {
    out.push_back(a->buffer);
    return CollectAllocated(a->body, out);
  }
  if (const auto* s = stmt.as<tir::SeqStmtNode>()) {
    for (const tir::Stmt& item : s->seq) CollectAllocated(item, out);
    return;
  }
  if (const auto* i = stmt.as<tir::IfThenElseNode>()) {
    CollectAllocated(i->then_case, out);
    return CollectAllocated(i->else_case, out);
  }
  if (const auto* b = stmt.as<tir::BlockNode>()) {
    CollectAllocated(b->init, out);
    CollectAllocated(b->body, out);
  }
}

}  // namespace

std::optional<Interval> BoundOf(const tir::PrimExpr& expr, const VarBounds& bounds) {
  if (const auto* imm = expr.as<tir::IntImmNode>()) return Interval{imm->value, imm->value};
  if (const auto* v = expr.as<tir::VarNode>()) {
    auto it = bounds.find(v);
    if (it == bounds.end()) return std::nullopt;
    return it->second;
  }
  const auto* b = expr.as<tir::BinaryNode>();
  if (!b) return std::nullopt;
  auto x = BoundOf(b->a, bounds);
  auto y = BoundOf(b->b, bounds);
  if (!x || !y) return std::nullopt;
  switch (b->op) {
    case tir::BinaryOp::kAdd:
      return Interval{x->first + y->first, x->second + y->second};
    case tir::BinaryOp::kSub:
      return Interval{x->first - y->second, x->second - y->first};
    case tir::BinaryOp::kMul: {
      int64_t c[4] = {x->first * y->first, x->first * y->second, x->second * y->first,
                      x->second * y->second};
      return Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case tir::BinaryOp::kFloorDiv:
      if (y->first != y->second || y->first <= 0) return std::nullopt;
      return Interval{FloorDivInt(x->first, y->first), FloorDivInt(x->second, y->first)};
    case tir::BinaryOp::kFloorMod: {
      if (y->first != y->second || y->first <= 0) return std::nullopt;
      int64_t m = y->first;
      // Within one period the remainder grows with the operand; across periods it wraps.
      if (FloorDivInt(x->first, m) == FloorDivInt(x->second, m))
        return Interval{x->first - FloorDivInt(x->first, m) * m,
                        x->second - FloorDivInt(x->second, m) * m};
      return Interval{0, m - 1};
    }
    default:
      return std::nullopt;
  }
}

tir::Buffer FindBuffer(const tir::PrimFunc& func, const std::string& name, const char* what) {
  for (const tir::Buffer& p : func->params)
    if (p->name == name) return p;
  std::vector<tir::Buffer> allocated;
  CollectAllocated(func->body, allocated);
  tir::Buffer found;
  for (const tir::Buffer& a : allocated) {
    if (a->name != name || a.same_as(found)) continue;
    if (found.defined())
      TS_THROW(kValue) << what << ": the PrimFunc allocates two buffers named '" << name
                       << "'; name it by parameter index or rename one";
    found = a;
  }
  if (found.defined()) return found;
  std::string names;
  for (const tir::Buffer& p : func->params) names += (names.empty() ? "" : ", ") + p->name;
  for (const tir::Buffer& a : allocated) names += (names.empty() ? "" : ", ") + a->name;
  TS_THROW(kNotFound) << what << ": the PrimFunc has no buffer named '" << name
                      << "' (buffers: " << (names.empty() ? "none" : names) << ")";
}

tir::PrimExpr SimplifyIndexOn(const tir::PrimExpr& expr, const std::vector<tir::Var>& vars,
                              const std::vector<int64_t>& extents) {
  if (!IsInteger(expr->dtype)) return tir::Simplify(expr);
  try {
    return ToPrimExpr(ToIterSum(expr, IdentityEnv(vars), &extents), vars);
  } catch (const NotAffine&) {
  } catch (const Error&) {
    // Another variable, or arithmetic outside the form: the general simplifier handles it.
  }
  return tir::Simplify(expr);
}

}  // namespace tessera::layout::detail
