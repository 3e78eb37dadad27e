// C source generation for PrimFuncs: translation units whose kernels follow the C kernel
// ABI (tessera/runtime/kernel_abi.h), ready for the system C compiler.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::native {

/// Kernel C per translation unit (past the prelude) before a unit is closed: units of
/// about this size compile in a fraction of a second each, so the units of a model keep
/// every core busy while each compiler process's fixed cost (its start, the prelude)
/// stays small. Fixed rather than per core count, so units (and their cache entries)
/// are the same on every machine.
constexpr size_t kUnitBytes = 32 * 1024;

/// A parallel loop whose static work (element stores, through every loop of constant
/// extent) is below this runs on the calling thread: on two cores of this kind, splitting
/// a kernel of under ~64K stores (a few microseconds) cost more in wake-up and in moving
/// its tensors between the cores' caches than it saved (a transformer encoder's softmax,
/// layer norm and transposes; 2-thread encoder 1.05 -> 0.95 ms).
constexpr int64_t kMinParallelWork = 64 * 1024;

/// Code generation choices; the defaults describe the host CPU.
struct CodegenOptions {
  /// Bytes per SIMD register for `vectorized` loops (16, 32 or 64); 0 = the host's
  /// (64 with AVX-512, 32 with AVX/AVX2, else 16).
  int vector_bytes = 0;
  /// GenerateCUnits closes a unit once its kernels' C reaches this many bytes.
  size_t unit_bytes = kUnitBytes;
  /// Parallel loops with less static work run serially (0: every parallel loop uses the
  /// pool).
  int64_t min_parallel_work = kMinParallelWork;
};

/// The SIMD register width of the CPU this process runs on, in bytes.
int HostVectorBytes();

/// The C function names under which kernels with these symbols are exported, in order:
/// a symbol that is a valid C identifier and not reserved by the generated code is kept
/// as is; others are sanitised ("tsk_" prefix, "_N" suffix for uniqueness).
std::vector<std::string> CSymbolNames(const std::vector<std::string>& symbols);

/// The C declarations of the kernel ABI (tessera/runtime/kernel_abi.h), after <stddef.h>
/// and <stdint.h>: what the generated code and hand-written kernels start with.
std::string KernelAbiDeclarations();

/// One C translation unit defining every kernel as
/// `int32_t NAME(void* const* buffers, const TsKernelEnv* env)` (NAME from CSymbolNames).
/// A kernel returns 0, 1 when a scratch allocation failed, 2 on integer division by
/// zero. Throws on IR the generator cannot express (unbound variables, stores into
/// inputs, unknown buffers). Deterministic: the same input gives byte-identical C.
std::string GenerateC(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                      const CodegenOptions& options = {});

/// GenerateC's kernels split into translation units for parallel compilation.
struct CUnits {
  /// GenerateC's single translation unit (for reading: the units hold the same kernels).
  std::string source;
  /// Each unit: the prelude, then kernels in order until they reach `unit_bytes`.
  std::vector<std::string> units;
};

/// The kernels as GenerateC writes them, also split into translation units.
CUnits GenerateCUnits(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                      const CodegenOptions& options = {});

}  // namespace tessera::native
