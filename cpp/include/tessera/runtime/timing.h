// Timing one executable the way Collage measures candidates: warm-up, the core's caches
// evicted before each run, samples, a percentile and the spread, and a check that the
// outputs are finite. Shared by the compiler and the measurement worker process.
#pragma once

#include <memory>
#include <string>

#include "tessera/runtime/executable.h"

namespace tessera::runtime {

/// How an executable is timed.
struct TimingOptions {
  int repeat = 5;          ///< timed samples (at least 9 when flushing caches)
  int number = 0;          ///< runs per sample; 0: enough runs for ~1 ms per sample
  double percentile = 50;  ///< which percentile of the samples is the result
  /// Evict the caches before every timed run (number becomes 1): in a model a kernel's
  /// weights and often its inputs come from memory, not from the previous run's cache.
  bool flush_cache = true;
  /// Run once more and fail when an output holds NaN or infinity (a broken kernel).
  bool check_finite = false;
};

/// What timing gave: seconds (the percentile), the spread between the 10th and 90th
/// percentiles, the samples taken; `error` non-empty (and seconds +inf) when the outputs
/// were not finite.
struct Timing {
  double seconds = 0;
  double spread = 0;
  int repeats = 0;
  std::string error;
};

/// Times `exe`'s @main on RandomInputs with `num_threads` threads as `options` say.
/// Errors of the run propagate.
Timing TimeExecutable(const std::shared_ptr<Executable>& exe, int num_threads,
                      const TimingOptions& options);

/// Bytes that evict a core's private caches: twice its level-2 cache (from sysfs; 1 MiB
/// when unknown), at least 4 MiB.
size_t CacheFlushBytes();

}  // namespace tessera::runtime
