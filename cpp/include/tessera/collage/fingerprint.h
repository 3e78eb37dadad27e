// Machine fingerprints: what a measured cost depends on besides the workload (CPU, ISA
// extensions, thread count, backend versions), so costs are only reused where they hold.
#pragma once

#include <string>
#include <vector>

#include "tessera/target/target.h"

namespace tessera::collage {

/// The fingerprint of measuring on `targets` on this machine, readable, one item per line:
/// RunnerFingerprint's lines (where the program runs), then the identity of every
/// backend the targets build with (the host, and each library a target names or is:
/// compiler version and flags, library versions).
std::string MachineFingerprint(const std::vector<Target>& targets);

/// What measuring a saved program for `targets_text` (';'-separated targets) depends on
/// where it runs: CPU model, ISA extensions, the thread count (the first target's
/// -num_threads, else every core), the libraries its kernels call, the label in
/// $TESSERA_MACHINE_TAG (for what the rest cannot see) and Tessera's version.
/// Remote workers must match the driver's (the driver builds, they only run). Backends
/// this process does not know are skipped.
std::string RunnerFingerprint(const std::string& targets_text);

/// The first 16 hex digits of the SHA-256 of a fingerprint's text.
std::string FingerprintHash(const std::string& fingerprint_text);

/// The fingerprint hash measuring on `targets_text` (targets separated by ';', as cost
/// records store them) has on this machine; "" when a target does not parse here.
std::string LocalFingerprintHash(const std::string& targets_text);

}  // namespace tessera::collage
