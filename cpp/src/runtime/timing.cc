// TimeExecutable: warm-up, cache eviction, samples, percentile and spread, finite check.
#include "tessera/runtime/timing.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <vector>

#include "tessera/support/error.h"

namespace tessera::runtime {

size_t CacheFlushBytes() {
  // In a model a kernel's inputs and weights were last touched by other kernels, so they
  // come from the shared cache or memory, not from the core's own caches as when one
  // kernel runs again and again; evicting the whole shared cache (hundreds of MiB on
  // some servers) would cost more than the kernels.
  size_t l2 = 0;
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), size_file(dir + "/size");
    int level = 0;
    std::string text;
    if (!(level_file >> level) || level != 2 || !(size_file >> text) || text.empty()) continue;
    size_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (text.back() == 'K') value <<= 10;
    if (text.back() == 'M') value <<= 20;
    l2 = std::max(l2, value);
  }
  if (l2 == 0) l2 = size_t{1} << 20;
  return std::max<size_t>(2 * l2, size_t{4} << 20);
}

namespace {

bool AllFinite(const NDArray& a) {
  if (a.dtype() == DType::kFloat32) {
    const float* p = static_cast<const float*>(a.data());
    for (int64_t i = 0, n = a.NumElements(); i < n; ++i)
      if (!std::isfinite(p[i])) return false;
  } else if (a.dtype() == DType::kFloat64) {
    const double* p = static_cast<const double*>(a.data());
    for (int64_t i = 0, n = a.NumElements(); i < n; ++i)
      if (!std::isfinite(p[i])) return false;
  }
  return true;
}

}  // namespace

Timing TimeExecutable(const std::shared_ptr<Executable>& exe, int num_threads,
                      const TimingOptions& options) {
  ExecutorOptions eo;
  eo.num_threads = num_threads;
  Executor executor(exe, eo);
  std::map<std::string, NDArray> inputs = RandomInputs(*exe);
  Timing out;
  if (options.check_finite) {
    std::vector<NDArray> outputs = executor.Run(inputs);
    for (size_t i = 0; i < outputs.size(); ++i)
      if (!AllFinite(outputs[i])) {
        out.seconds = INFINITY;
        out.error = "output " + std::to_string(i) + " holds NaN or infinity on finite inputs";
        return out;
      }
  }
  // One run tells roughly how long a run takes; warm up for ~5 ms, and put enough runs
  // in each sample that it lasts ~1 ms (the clock's and the loop's cost vanish).
  double first_ms = std::max(executor.Benchmark(inputs, 1, 1, 1).median_ms, 1e-4);
  int number = options.number > 0
                   ? options.number
                   : static_cast<int>(std::clamp(std::ceil(1.0 / first_ms), 1.0, 1000.0));
  int warmup = static_cast<int>(std::clamp(std::ceil(5.0 / first_ms), 1.0, 200.0));
  int repeat = std::max(options.repeat, 1);
  std::function<void()> flush;
  static thread_local std::vector<char> flush_buffer;
  if (options.flush_cache) {
    // Every timed run starts with cold caches; single runs are noisier, so take more.
    if (flush_buffer.empty()) flush_buffer.assign(CacheFlushBytes(), 1);
    number = 1;
    warmup = std::min(warmup, 3);
    repeat = std::max(repeat, 9);
    flush = [] {
      volatile char* p = flush_buffer.data();
      for (size_t i = 0; i < flush_buffer.size(); i += 64) p[i] = static_cast<char>(p[i] + 1);
    };
  }
  BenchmarkResult r = executor.Benchmark(inputs, warmup, repeat, number, flush);
  std::vector<double> s = r.samples_ms;
  std::sort(s.begin(), s.end());
  auto at = [&](double percentile) {
    double pos = percentile / 100.0 * static_cast<double>(s.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, s.size() - 1);
    return (s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo))) * 1e-3;
  };
  out.seconds = at(options.percentile);
  out.spread = at(90) - at(10);
  out.repeats = static_cast<int>(s.size());
  return out;
}

}  // namespace tessera::runtime
