// Internal: the module kinds the runtime loads by itself.
#pragma once

#include <map>
#include <string>

#include "tessera/runtime/module.h"

namespace tessera::runtime {

/// Loads a oneDNN module (defined only when the runtime is built with oneDNN).
Module LoadDnnlModule(const std::string& bytes);
/// Loads a BLAS module (defined only when the runtime is built with OpenBLAS).
Module LoadBlasModule(const std::string& bytes);

/// The loaders of every module kind the runtime has: native, executable, and dnnl and
/// blas when built with them. The compiler adds its own kinds (interp) at load.
std::map<std::string, ModuleLoader> BuiltinModuleLoaders();

}  // namespace tessera::runtime
