// What the CPU this process runs on offers the code generator: its SIMD register width.
#pragma once

namespace tessera {

/// Bytes per SIMD register of this CPU: 64 with AVX-512F, 32 with AVX/AVX2, else 16.
int HostSimdBytes();

}  // namespace tessera
