// Private: the tensor-IR half of the text printer, called by the module printer.
#pragma once

#include <string>

#include "tessera/ir/tir.h"

namespace tessera::text {

/// `primfn @name(inputs, attrs) -> (outputs) { body }`; an empty `name` prints the
/// anonymous form `primfn (...)` that ParseExpr accepts.
std::string PrintPrimFuncText(const std::string& name, const tir::PrimFuncNode* func);

}  // namespace tessera::text
