// Machine fingerprints: what a measured cost depends on besides the workload (CPU, ISA
// extensions, thread count, backend versions), so costs are only reused where they hold.
#pragma once

#include <string>
#include <vector>

#include "tessera/target/target.h"

namespace tessera::collage {

/// The fingerprint of measuring on `targets` on this machine, readable, one item per line:
/// CPU model, ISA extensions, the thread count candidates are measured with (of the
/// first target), the identity of every backend the targets build with (the host, and
/// each library a target names or is), and Tessera's version.
std::string MachineFingerprint(const std::vector<Target>& targets);

/// The first 16 hex digits of the SHA-256 of a fingerprint's text.
std::string FingerprintHash(const std::string& fingerprint_text);

/// The fingerprint hash measuring on `targets_text` (targets separated by ';', as cost
/// records store them) has on this machine; "" when a target does not parse here.
std::string LocalFingerprintHash(const std::string& targets_text);

}  // namespace tessera::collage
