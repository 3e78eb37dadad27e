// Building the "native" runtime module: PrimFuncs to C, compiled by the system compiler
// and loaded (the module itself is the runtime's NativeModuleNode).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/backend/native/codegen_c.h"
#include "tessera/backend/native/compiler.h"
#include "tessera/ir/tir.h"
#include "tessera/runtime/native_module.h"

namespace tessera::native {

/// GenerateCUnits (with `codegen`'s choices) + CompileSharedObject (units compiled in
/// parallel, cached) + load: one module exporting every kernel under its symbol. The C
/// source stays available through runtime::NativeModuleNode::source().
runtime::Module BuildNativeModule(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                                  const CompileOptions& options = {},
                                  const CodegenOptions& codegen = {});

}  // namespace tessera::native
