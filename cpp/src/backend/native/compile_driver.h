// Private: running the system C compiler on one translation unit, and linking objects.
#pragma once

#include <string>
#include <vector>

namespace tessera::native::detail {

/// Compiles C `source` with NativeCompileFlags(): into a shared object (`shared`), else
/// into a position-independent object file (-c). Returns the output's bytes; throws an IO
/// error with the command and the compiler's output when it fails, a not-found error when
/// the compiler is missing.
std::string CompileUnit(const std::string& source, bool shared);

/// Links object files (their bytes, in order) into one shared object with -lm.
std::string LinkObjects(const std::vector<std::string>& objects);

/// What besides the source decides the output (compiler identity, command, flags): the
/// start of every cache key.
std::string CompilerKeyText();

/// Counts a compiled object found in (or damaged in) the cache.
void CountCacheHit();
void CountCacheRebuild();

}  // namespace tessera::native::detail
