// Tessera's version, as the build was configured (the CMake project version).
#pragma once

namespace tessera {

/// The library's version, "MAJOR.MINOR.PATCH" (static storage).
const char* Version();

}  // namespace tessera
