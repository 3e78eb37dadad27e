// Conversion between scalar expressions and IterSums: the accepted expression forms in,
// the canonical expression out.
#include <cstdlib>

#include "index_text.h"
#include "iter_sum.h"
#include "tessera/support/error.h"

namespace tessera::layout::detail {

using tir::BinaryNode;
using tir::BinaryOp;
using tir::PrimExpr;

VarEnv IdentityEnv(const std::vector<tir::Var>& vars) {
  VarEnv env;
  env.reserve(vars.size());
  for (size_t k = 0; k < vars.size(); ++k)
    env.emplace_back(vars[k].get(), VarSum(static_cast<int>(k)));
  return env;
}

IterSum ToIterSum(const PrimExpr& expr, const VarEnv& env, Domain domain) {
  if (!expr.defined()) throw NotAffine("an output expression is null");
  if (auto* imm = expr.as<tir::IntImmNode>()) {
    if (!IsInteger(imm->dtype))
      throw NotAffine("`" + IndexExprText(expr) + "` is a " + DTypeName(imm->dtype) +
                      " constant, not an integer");
    return ConstSum(imm->value);
  }
  if (auto* v = expr.as<tir::VarNode>()) {
    for (const auto& [var, sum] : env)
      if (var == v) return sum;
    TS_THROW(kValue) << "variable `" << v->name << "` is not an input of the map";
  }
  auto* b = expr.as<BinaryNode>();
  if (!b)
    throw NotAffine("`" + IndexExprText(expr) +
                    "` is not made of variables, constants, +, -, *, // and %");
  auto text = [&] { return "`" + IndexExprText(expr) + "`"; };
  switch (b->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
      return AddSums(ToIterSum(b->a, env, domain), ToIterSum(b->b, env, domain),
                     b->op == BinaryOp::kAdd ? 1 : -1, domain);
    case BinaryOp::kMul: {
      IterSum a = ToIterSum(b->a, env, domain), c = ToIterSum(b->b, env, domain);
      if (c.IsConstant()) return ScaleSum(a, c.base, domain);
      if (a.IsConstant()) return ScaleSum(c, a.base, domain);
      throw NotAffine(text() + " multiplies two index expressions");
    }
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      IterSum a = ToIterSum(b->a, env, domain), c = ToIterSum(b->b, env, domain);
      if (!c.IsConstant() || c.base <= 0)
        throw NotAffine(text() + " divides by something other than a positive constant");
      if (a.IsConstant()) {
        return ConstSum(b->op == BinaryOp::kFloorDiv ? FloorDivInt(a.base, c.base)
                                                     : FloorModInt(a.base, c.base));
      }
      auto qr = DivModSum(a, c.base, domain);
      if (!qr)
        throw NotAffine(text() +
                        " does not split its operand into whole digits (the part "
                        "below the divisor is not known to lie in [0, " +
                        std::to_string(c.base) + "))");
      return b->op == BinaryOp::kFloorDiv ? qr->first : qr->second;
    }
    case BinaryOp::kDiv:
      throw NotAffine(text() + " uses truncating division; use // (floordiv)");
    default:
      throw NotAffine(text() + " is not made of variables, constants, +, -, *, // and %");
  }
}

namespace {

/// floormod(floordiv(x + offset, lower), extent), without the parts that are identities.
PrimExpr SplitExpr(const Split& s, const std::vector<tir::Var>& vars) {
  PrimExpr e = vars.at(static_cast<size_t>(s.var));
  if (s.offset != 0) e = tir::MakeBinary(BinaryOp::kAdd, e, tir::IntImm(s.offset));
  if (s.lower != 1) e = tir::MakeBinary(BinaryOp::kFloorDiv, e, tir::IntImm(s.lower));
  if (s.bounded()) e = tir::MakeBinary(BinaryOp::kFloorMod, e, tir::IntImm(s.extent));
  return e;
}

/// `split * |scale|` (no factor for 1).
PrimExpr TermExpr(const Term& t, const std::vector<tir::Var>& vars) {
  PrimExpr e = SplitExpr(t.split, vars);
  int64_t magnitude = t.scale < 0 ? -t.scale : t.scale;
  return magnitude == 1 ? e : tir::MakeBinary(BinaryOp::kMul, e, tir::IntImm(magnitude));
}

}  // namespace

PrimExpr ToPrimExpr(const IterSum& s, const std::vector<tir::Var>& vars) {
  if (s.terms.empty()) return tir::IntImm(s.base);
  // Positive terms, a positive base, then what is subtracted: `i * 4 + j - 1`, `15 - i`.
  PrimExpr e;
  for (const Term& t : s.terms)
    if (t.scale > 0)
      e = e.defined() ? tir::MakeBinary(BinaryOp::kAdd, e, TermExpr(t, vars)) : TermExpr(t, vars);
  if (s.base > 0)
    e = e.defined() ? tir::MakeBinary(BinaryOp::kAdd, e, tir::IntImm(s.base)) : tir::IntImm(s.base);
  for (const Term& t : s.terms) {
    if (t.scale > 0) continue;
    if (e.defined()) {
      e = tir::MakeBinary(BinaryOp::kSub, e, TermExpr(t, vars));
    } else {
      // Only subtracted terms: the first carries its sign as a factor.
      e = tir::MakeBinary(BinaryOp::kMul, SplitExpr(t.split, vars), tir::IntImm(t.scale));
    }
  }
  if (s.base < 0) e = tir::MakeBinary(BinaryOp::kSub, e, tir::IntImm(-s.base));
  return e;
}

}  // namespace tessera::layout::detail
