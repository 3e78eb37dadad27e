// PENDING-HELPER placeholder; replaced wholesale by its owner.
#include "tessera/ir/parser.h"
#include "tessera/support/error.h"

namespace tessera {

IRModule ParseModule(std::string_view, std::string_view) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
Expr ParseExpr(std::string_view, std::string_view) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }

}  // namespace tessera
