// The oneDNN backend's registration: oneDNN 2.x primitives for `Compiler="dnnl"` partitions.
#pragma once

namespace tessera {

class BackendRegistry;

/// Registers the "dnnl" backend (external codegen for `Compiler="dnnl"` partitions).
void RegisterDnnlBackend(BackendRegistry& registry);

}  // namespace tessera
