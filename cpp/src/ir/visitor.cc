// PENDING-HELPER placeholder; replaced wholesale by its owner.
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"

namespace tessera {

std::vector<Expr> ExprChildren(const Expr&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
Expr WithChildren(const Expr&, const std::vector<Expr>&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
void PostOrderVisit(const Expr&, const std::function<void(const Expr&)>&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
Expr ExprMutator::Mutate(const Expr&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
Expr Substitute(const Expr&, const std::unordered_map<const VarNode*, Expr>&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
std::vector<Var> FreeVars(const Expr&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }

}  // namespace tessera
