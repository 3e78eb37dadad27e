// The BLAS backend's registration: OpenBLAS cblas_sgemm for dense / matmul / batch_matmul.
#pragma once

namespace tessera {

class BackendRegistry;

/// Registers the "blas" backend (external codegen for `Compiler="blas"` partitions).
void RegisterBlasBackend(BackendRegistry& registry);

}  // namespace tessera
