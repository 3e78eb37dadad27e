// Per-kernel profiling and whole-run benchmarking of an Executor.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

namespace {

std::string FormatTable(const ProfileReport& report, int repeat) {
  size_t w = 6;
  for (const ProfileRow& r : report.rows) w = std::max(w, r.symbol.size());
  std::string out;
  char line[512];
  std::snprintf(line, sizeof(line), "%-*s  %-8s %7s %12s %12s %7s\n", static_cast<int>(w), "Kernel",
                "Module", "Calls", "Total(ms)", "Mean(ms)", "Share");
  out += line;
  for (const ProfileRow& r : report.rows) {
    std::snprintf(line, sizeof(line), "%-*s  %-8s %7lld %12.4f %12.4f %6.1f%%\n",
                  static_cast<int>(w), r.symbol.c_str(), r.module_kind.c_str(),
                  static_cast<long long>(r.calls), r.total_ms, r.mean_ms, 100.0 * r.share);
    out += line;
  }
  std::snprintf(line, sizeof(line), "%-*s  %-8s %7s %12.4f   (%d run(s))\n", static_cast<int>(w),
                "Total", "", "", report.total_ms, repeat);
  out += line;
  return out;
}

}  // namespace

ProfileReport Executor::Profile(const std::map<std::string, NDArray>& inputs, int repeat) {
  if (repeat < 1) TS_THROW(kValue) << "profile: repeat must be >= 1, got " << repeat;
  std::vector<double> ms(exe_->program_.instructions.size(), 0.0);
  std::vector<NDArray> outputs;  // first-touch page faults of fresh outputs are not a kernel's
  RunImpl(inputs, nullptr, &outputs);
  for (int r = 0; r < repeat; ++r) RunImpl(inputs, &ms, &outputs);
  std::map<std::string, ProfileRow> by_symbol;
  ProfileReport report;
  for (size_t i = 0; i < ms.size(); ++i) {
    const std::string& sym = exe_->program_.instructions[i].symbol;
    ProfileRow& row = by_symbol[sym];
    row.symbol = sym;
    row.calls += repeat;
    row.total_ms += ms[i];
    report.total_ms += ms[i];
  }
  for (auto& [sym, row] : by_symbol) {
    row.module_kind = exe_->ModuleKindOf(sym);
    row.mean_ms = row.total_ms / static_cast<double>(row.calls);
    row.share = report.total_ms > 0 ? row.total_ms / report.total_ms : 0.0;
    report.rows.push_back(row);
  }
  // Slowest first; equal times keep symbol order (the map's) so output is deterministic.
  std::stable_sort(
      report.rows.begin(), report.rows.end(),
      [](const ProfileRow& a, const ProfileRow& b) { return a.total_ms > b.total_ms; });
  report.table = FormatTable(report, repeat);
  return report;
}

BenchmarkResult Executor::Benchmark(const std::map<std::string, NDArray>& inputs, int warmup,
                                    int repeat, int number,
                                    const std::function<void()>& before_sample) {
  if (repeat < 1 || warmup < 0 || number < 1)
    TS_THROW(kValue) << "benchmark: needs warmup >= 0, repeat >= 1 and number >= 1, got "
                     << warmup << ", " << repeat << " and " << number;
  std::vector<NDArray> outputs;  // allocated by the first run, reused by the others
  for (int i = 0; i < warmup; ++i) RunImpl(inputs, nullptr, &outputs);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    if (before_sample) before_sample();
    auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < number; ++k) RunImpl(inputs, nullptr, &outputs);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        number);
  }
  std::sort(times.begin(), times.end());
  BenchmarkResult r;
  r.repeat = repeat;
  r.number = number;
  size_t n = times.size();
  r.median_ms = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  r.p90_ms = times[static_cast<size_t>(std::ceil(0.9 * n)) - 1];
  r.min_ms = times[0];
  double sum = 0;
  for (double t : times) sum += t;
  r.mean_ms = sum / n;
  r.samples_ms = std::move(times);
  return r;
}

}  // namespace tessera::runtime
