// The native backend's registration: C code generation for every kernel of a build.
#pragma once

namespace tessera {

class BackendRegistry;

/// Registers the "native" backend (target `native`: C for this CPU, compiled and cached).
void RegisterNativeBackend(BackendRegistry& registry);

}  // namespace tessera
