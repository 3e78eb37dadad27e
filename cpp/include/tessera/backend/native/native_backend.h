// The native backend's registration: C code generation for every kernel of a build.
#pragma once

#include "tessera/target/target.h"

namespace tessera {

class BackendRegistry;

/// The native code generator's option `-min_parallel_work` (parallel loops with fewer
/// element stores run on the calling thread), for every backend whose kernels it writes.
TargetAttrSpec MinParallelWorkAttr();

/// Registers the "native" backend (target `native`: C for this CPU, compiled and cached).
void RegisterNativeBackend(BackendRegistry& registry);

}  // namespace tessera
