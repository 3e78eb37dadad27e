// Several translation units into one shared object: each unit compiled to an object file
// (cached by its own content), up to CompileJobs() compiler processes at once, then linked.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "compile_cache.h"
#include "compile_driver.h"
#include "tessera/backend/native/compiler.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/support/sha256.h"

namespace tessera::native {

int CompileJobs() {
  if (std::string v = detail::Getenv("TESSERA_COMPILE_JOBS"); !v.empty()) {
    char* end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (end && *end == '\0' && n > 0) return static_cast<int>(std::min(n, 256L));
    LogWarn("TESSERA_COMPILE_JOBS='" + v + "' is not a positive integer; ignored");
  }
  // The CPUs this process may run on (a process pinned to one core compiles on it alone).
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) return std::max(1, CPU_COUNT(&allowed));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::string CompileSharedObject(const std::vector<std::string>& units,
                                const CompileOptions& options) {
  if (units.empty()) TS_THROW(kValue) << "CompileSharedObject: no translation units";
  if (units.size() == 1) return CompileSharedObject(units[0], options);
  const std::string key_text = detail::CompilerKeyText();
  const std::string dir = CacheDirectory(options);
  // The shared object's own entry, keyed by its units': a warm build reads one file.
  std::vector<std::string> unit_keys;
  std::string so_key = "tessera-native-units-v1\n" + key_text;
  for (const std::string& u : units) {
    unit_keys.push_back(Sha256Hex("tessera-native-unit-v1\n" + key_text + u));
    so_key += unit_keys.back() + "\n";
  }
  const std::string so_name = Sha256Hex(so_key) + ".so.entry";
  std::string payload;
  bool damaged = false;
  if (options.use_cache && detail::ReadEntry(dir + "/" + so_name, &payload, &damaged)) {
    detail::CountCacheHit();
    if (LogDebugEnabled()) LogDebug("native: compiled kernels found in the cache: " + so_name);
    return payload;
  }
  if (damaged) detail::CountCacheRebuild();

  // Largest units first, so the last ones to finish are short (units' sizes stand for
  // their compile times).
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return units[a].size() > units[b].size(); });
  std::vector<std::string> objects(units.size());
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t k; (k = next++) < order.size();) {
      size_t i = order[k];
      try {
        const std::string name = unit_keys[i] + ".o.entry";
        bool bad = false;
        if (options.use_cache && detail::ReadEntry(dir + "/" + name, &objects[i], &bad)) {
          detail::CountCacheHit();
          continue;
        }
        if (bad) detail::CountCacheRebuild();
        objects[i] = detail::CompileUnit(units[i], /*shared=*/false);
        if (options.use_cache) detail::StoreEntry(dir, name, objects[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = order.size();  // the others stop after their current unit
      }
    }
  };
  const int jobs = std::min<int>(options.jobs > 0 ? options.jobs : CompileJobs(),
                                 static_cast<int>(units.size()));
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  payload = detail::LinkObjects(objects);
  if (options.use_cache) detail::StoreEntry(dir, so_name, payload);
  return payload;
}

}  // namespace tessera::native
