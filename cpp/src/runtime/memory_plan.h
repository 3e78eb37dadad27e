// Internal: the liveness-based static memory plan of an Executable's intermediates.
#pragma once

#include <vector>

#include "tessera/runtime/executable.h"

namespace tessera::runtime {

/// Assigns every kIntermediate slot a storage and arena offset: a storage is released
/// after its value's last use and reused (best fit, else grown) by later values. A
/// kernel's outputs never share storage with its own inputs. A part (Slot::view_of) takes
/// its place in its whole's storage.
MemoryPlanStats PlanMemory(std::vector<Slot>& slots, const std::vector<Instruction>& program);

}  // namespace tessera::runtime
