// Reading and writing NumPy .npy files.
#pragma once

#include <string>

#include "tessera/runtime/ndarray.h"

namespace tessera {

/// Reads a little-endian, C-order .npy file (versions 1-3); throws with the path and the
/// problem for anything else.
NDArray ReadNpy(const std::string& path);
/// Parses .npy bytes already in memory; `what` names the source in errors.
NDArray ParseNpy(const std::string& bytes, const std::string& what);
/// Writes `array` as a version 1.0 .npy file.
void WriteNpy(const std::string& path, const NDArray& array);
/// Serialises `array` to .npy bytes.
std::string SerializeNpy(const NDArray& array);

}  // namespace tessera
