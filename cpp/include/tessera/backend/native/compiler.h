// The system C compiler driver: C source to shared-object bytes, cached on disk by the
// content hash of (source, flags, compiler identity); several units compiled in parallel.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::native {

/// Where and whether compiled objects are cached.
struct CompileOptions {
  /// Cache directory; empty: $TESSERA_CACHE_DIR, else $XDG_CACHE_HOME/tessera, else
  /// ~/.cache/tessera.
  std::string cache_dir;
  /// False: always run the compiler and store nothing.
  bool use_cache = true;
  /// Compiler processes run at once for several translation units; 0: CompileJobs().
  int jobs = 0;
};

/// Process-wide counters of the compiler driver (for tests and diagnostics).
struct CompilerCounters {
  uint64_t compiler_runs = 0;   ///< times the C compiler compiled a translation unit
  uint64_t cache_hits = 0;      ///< shared objects or unit objects served from the disk cache
  uint64_t cache_rebuilds = 0;  ///< damaged cache entries found and rebuilt
};

/// The compiler command: $TESSERA_CC split on spaces (e.g. "ccache gcc"), else "cc".
std::vector<std::string> CompilerCommand();
/// The flags used for kernels on this host: -O3 -march=native -fPIC -shared -std=gnu11
/// -fno-math-errno, plus -fno-ipa-cp-clone with GCC and -mprefer-vector-width=512 where
/// AVX-512 is present.
std::vector<std::string> NativeCompileFlags();
/// Whether the compiler command is GCC (by its --version); false when it cannot be run.
bool CompilerIsGcc();
/// The cache directory `options` selects (see CompileOptions::cache_dir).
std::string CacheDirectory(const CompileOptions& options = {});
/// The output of `<compiler> --version` (remembered per command); throws a not-found
/// error when the compiler cannot be run.
std::string CompilerIdentity();

/// Compiles C `source` into a shared object and returns its bytes. Served from the cache
/// when an intact entry exists; a damaged one is rebuilt. Cache writes are atomic (temp
/// file + rename). Throws an IO error with the command and the compiler's output when
/// compilation fails, a not-found error when the compiler is missing.
std::string CompileSharedObject(const std::string& source, const CompileOptions& options = {});

/// Several translation units (each with its own prelude; kernels' symbols distinct) into
/// one shared object: each unit is compiled to an object file, up to `options.jobs` at
/// once, then they are linked. The shared object and each unit's object are cached by
/// content, so a warm build reads one file and a build that changed one unit compiles
/// only that one. One unit: CompileSharedObject(units[0]).
std::string CompileSharedObject(const std::vector<std::string>& units,
                                const CompileOptions& options = {});

/// Compiler processes to run at once: $TESSERA_COMPILE_JOBS, else the number of CPUs this
/// process may run on (its affinity mask).
int CompileJobs();

/// A snapshot of the counters.
CompilerCounters GetCompilerCounters();

}  // namespace tessera::native
