// Tessera's version string, set by CMake on this file alone (a new version rebuilds one file).
#include "tessera/support/version.h"

#ifndef TESSERA_VERSION
#error "TESSERA_VERSION is set by CMakeLists.txt"
#endif

namespace tessera {

const char* Version() { return TESSERA_VERSION; }

}  // namespace tessera
