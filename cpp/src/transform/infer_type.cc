// PENDING-HELPER placeholder; replaced wholesale by its owner.
#include "tessera/transform/infer_type.h"
#include "tessera/support/error.h"

namespace tessera {

IRModule InferTypes(const IRModule&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
Type InferExprType(const Expr&, const IRModule&) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }

}  // namespace tessera
