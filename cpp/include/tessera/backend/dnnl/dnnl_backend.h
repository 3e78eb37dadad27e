// The oneDNN backend's registration: oneDNN 2.x primitives for `Compiler="dnnl"` partitions.
#pragma once

namespace tessera {

class BackendRegistry;
class PatternTableRegistry;

/// Registers the "dnnl" backend (external codegen for `Compiler="dnnl"` partitions).
void RegisterDnnlBackend(BackendRegistry& registry);
/// Registers the "dnnl" pattern table and op support predicates (dnnl_patterns.cc).
void RegisterDnnlPatternTable(PatternTableRegistry& registry);

}  // namespace tessera
