// Private: the transform layer's pass registrations, by file.
#pragma once

#include <vector>

#include "tessera/transform/pass_registry.h"

namespace tessera {

/// Appends the standard optimisation passes (standard_passes.cc).
void AppendStandardPasses(std::vector<PassRegistration>& passes);
/// Appends the BYOC partitioning passes (partition_for.cc).
void AppendByocPasses(std::vector<PassRegistration>& passes);
/// Whether `pass` is a Sequential (SequentialPasses cannot tell an empty one apart).
bool IsSequential(const Pass& pass);

}  // namespace tessera
