// What the CPU this process runs on offers: its SIMD register width, model name and ISA
// extensions (for the code generator and for fingerprints of measured costs).
#pragma once

#include <string>
#include <vector>

namespace tessera {

/// Bytes per SIMD register of this CPU: 64 with AVX-512F, 32 with AVX/AVX2, else 16.
int HostSimdBytes();

/// The CPU's model name ("AMD EPYC 9B45", from /proc/cpuinfo), or "unknown".
std::string HostCpuModel();

/// The vector and matrix ISA extensions this CPU reports that change how fast kernels
/// run (sse4_2, avx, avx2, fma, f16c, avx512*, amx*, ...), sorted.
std::vector<std::string> HostIsaExtensions();

}  // namespace tessera
