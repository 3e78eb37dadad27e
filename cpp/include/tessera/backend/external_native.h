// External backends declared at run time (e.g. from a notebook): a pattern table plus a
// backend whose partitions the native code generator compiles, so partition_for, Collage,
// build, run and save/load all work with it.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/runtime/module.h"
#include "tessera/target/target.h"

namespace tessera {

/// Registers (or replaces) external backend `name`: its pattern table `patterns` (labels
/// without the "<name>." prefix get it) and a backend compiling its `Compiler="<name>"`
/// partitions with `compile_with` (only "native"). Built-in names (native, interp, dnnl,
/// blas, host) are refused with a value error.
void RegisterExternalBackend(const std::string& name, std::vector<PatternTableEntry> patterns,
                             const std::string& compile_with = "native");

/// Compiles partition `func` (a Compiler function, constants inside) as a native program
/// exported as kernel `symbol` (an "executable" runtime module), on `target`'s threads.
runtime::Module CompilePartitionNatively(const Function& func, const std::string& symbol,
                                         const Target& target);

}  // namespace tessera
