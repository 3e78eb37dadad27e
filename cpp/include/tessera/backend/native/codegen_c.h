// C source generation for PrimFuncs: one translation unit whose kernels follow the C
// kernel ABI (tessera/runtime/kernel_abi.h), ready for the system C compiler.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::native {

/// Code generation choices; the defaults describe the host CPU.
struct CodegenOptions {
  /// Bytes per SIMD register for `vectorized` loops (16, 32 or 64); 0 = the host's
  /// (64 with AVX-512, 32 with AVX/AVX2, else 16).
  int vector_bytes = 0;
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

}  // namespace tessera::native
