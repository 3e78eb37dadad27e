// The BLAS backend's registration: OpenBLAS cblas_sgemm for dense / matmul / batch_matmul.
#pragma once

namespace tessera {

class BackendRegistry;
class PatternTableRegistry;

/// Registers the "blas" backend (external codegen for `Compiler="blas"` partitions).
void RegisterBlasBackend(BackendRegistry& registry);
/// Registers the "blas" pattern table and op support predicates (blas_patterns.cc).
void RegisterBlasPatternTable(PatternTableRegistry& registry);

}  // namespace tessera
