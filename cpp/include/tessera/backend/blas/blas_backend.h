// The BLAS backend's registration: OpenBLAS cblas_sgemm for dense / matmul / batch_matmul.
#pragma once

#include <string>

namespace tessera {

class BackendRegistry;

/// Registers the "blas" backend (external codegen for `Compiler="blas"` partitions).
void RegisterBlasBackend(BackendRegistry& registry);

/// The OpenBLAS kernel family in use (openblas_get_corename, e.g. "Cooperlake"; follows
/// the OPENBLAS_CORETYPE environment variable) and its build configuration.
std::string BlasCoreName();
std::string BlasConfig();

}  // namespace tessera
