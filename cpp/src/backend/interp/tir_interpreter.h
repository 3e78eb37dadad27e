// Private: the tensor-IR interpreter entry point used by the graph interpreter.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::interp {

/// Runs `func` on `buffers` (inputs then outputs) like RunPrimFunc; `name` is used in
/// error messages ("in PrimFunc @name: ...").
void RunPrimFuncNamed(const std::string& name, const tir::PrimFuncNode* func,
                      const std::vector<NDArray>& buffers);

}  // namespace tessera::interp
