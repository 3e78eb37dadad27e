// External backends declared at run time (e.g. from a notebook): a pattern table plus a
// backend whose partitions the native code generator compiles, so partition_for, Collage,
// build, run and save/load all work with it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/ir/expr.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/runtime/module.h"
#include "tessera/target/target.h"

namespace tessera {

/// Writes the C source of one partition's kernel: a function `c_name` with the kernel ABI,
/// `int32_t c_name(void* const* buffers, const TsKernelEnv* env)` (buffers: the
/// partition's parameters, tuples flattened, then its outputs; dense row-major; return 0).
/// The ABI's declarations are put before it.
using PartitionCSource =
    std::function<std::string(const Function& partition, const std::string& c_name)>;

/// Registers (or replaces) external backend `name`: its pattern table `patterns` (labels
/// without the "<name>." prefix get it) and a backend compiling its `Compiler="<name>"`
/// partitions with `compile_with`: "native" (the native code generator) or "c" (the C
/// that `c_source` writes, compiled by the system compiler). Built-in names (native,
/// interp, dnnl, blas, host) are refused with a value error.
void RegisterExternalBackend(const std::string& name, std::vector<PatternTableEntry> patterns,
                             const std::string& compile_with = "native",
                             PartitionCSource c_source = nullptr);

/// Compiles partition `func` (a Compiler function, constants inside) as a native program
/// exported as kernel `symbol` (an "executable" runtime module), on `target`'s threads.
runtime::Module CompilePartitionNatively(const Function& func, const std::string& symbol,
                                         const Target& target);

}  // namespace tessera
