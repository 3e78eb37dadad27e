// Private: the registrations of the built-in passes, gathered in one table.
#pragma once

#include <vector>

#include "tessera/transform/pass_registry.h"

namespace tessera {

/// Every built-in pass, in no particular order (the registry sorts by name).
std::vector<PassRegistration> BuiltinPassRegistrations();
/// Appends the standard optimisation passes (standard_passes.cc).
void AppendStandardPasses(std::vector<PassRegistration>& passes);
/// Appends the BYOC partitioning passes (partition_for.cc).
void AppendByocPasses(std::vector<PassRegistration>& passes);
/// Appends the Collage passes (collage/collage_passes.cc).
void AppendCollagePasses(std::vector<PassRegistration>& passes);
/// Whether `pass` is a Sequential (SequentialPasses cannot tell an empty one apart).
bool IsSequential(const Pass& pass);

}  // namespace tessera
