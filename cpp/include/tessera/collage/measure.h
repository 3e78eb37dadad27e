// MeasuringCostEstimator: Collage's default estimator. It builds each candidate kernel
// for its target (native kernels compiled many to a compiler run, on every core), runs it
// on random inputs and returns a percentile of the timed samples.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/measure_worker.h"
#include "tessera/runtime/executable.h"
#include "tessera/transform/pass_context.h"

namespace tessera::collage {

/// How candidates are timed.
struct MeasureOptions {
  int repeat = 5;           ///< timed samples
  int number = 0;           ///< runs per sample; 0: enough runs for ~1 ms per sample
  double percentile = 50;   ///< which percentile of the samples is the cost (50: median)
  int batch_size = 24;      ///< native kernels compiled per compiler run
  /// Evict the caches before every timed run (number becomes 1): in a model a kernel's
  /// weights and often its inputs come from memory, not from the previous run's cache.
  bool flush_cache = true;
  /// Time candidates in a worker process (tessera-measure-worker): a candidate that
  /// crashes, hangs or gives non-finite output is invalid and the search goes on.
  bool isolate = true;
  double timeout_s = 60;     ///< longest a candidate may take in the worker
  bool check_finite = true;  ///< a candidate with NaN or infinite outputs is invalid
  /// Where candidates are timed: "local" (the worker process here) or
  /// "dask://HOST:PORT" (a Dask cluster's workers, through the Dask bridge).
  std::string runner = "local";
  /// The options the config keys collage.measure_* give.
  static MeasureOptions FromContext(const PassContext& ctx);
};

/// Builds and times candidates. Thread count: MeasureThreads (the target's). Inputs are uniform in [-1, 1] (integers: 0). A candidate whose build or run
/// fails is invalid, with the error as the reason.
class MeasuringCostEstimator : public CostEstimator {
 public:
  explicit MeasuringCostEstimator(MeasureOptions options = {});
  double Estimate(const IRModule& mod, const Target& target) override;
  std::vector<EstimateResult> EstimateAll(const std::vector<EstimateRequest>& requests,
                                          const ProgressFn& progress) override;
  /// The executor's cost of one more kernel call with the target's thread count,
  /// measured once per thread count: (time of 16 tiny kernels - time of 1) / 15.
  double LaunchPenalty(const Target& target) override;
  std::string name() const override { return "measure"; }
  /// "measure/<version> p<percentile> cold|warm tessera-<version>": stored costs stay
  /// valid while the way of measuring and the code generators stay the same.
  std::string cost_model() const override;
  const MeasureOptions& options() const { return options_; }

  /// Seconds per run of `exe`'s @main on random inputs with `num_threads` threads, timed
  /// as the options say (`cold` false: without flushing the caches even when configured).
  double Time(const std::shared_ptr<runtime::Executable>& exe, int num_threads,
              bool cold = true) const;
  /// Time, with the spread of the samples and their count (in this process).
  EstimateResult TimeSamples(const std::shared_ptr<runtime::Executable>& exe, int num_threads,
                             bool cold = true) const;
  /// Times `exe` as a candidate for `targets` (their fingerprint picks remote workers): in
  /// the worker process when isolating (or on the cluster), else TimeSamples.
  EstimateResult TimeCandidate(const std::shared_ptr<runtime::Executable>& exe, int num_threads,
                               const std::vector<Target>& targets = {});
  /// Worker processes started so far (0 when not isolating).
  int worker_starts() const { return worker_ ? worker_->starts() : 0; }

 private:
  MeasureOptions options_;
  std::mutex mutex_;
  std::map<int, double> launch_penalty_;  // by thread count
  std::unique_ptr<MeasureWorker> worker_;  // started on the first isolated measurement
  runtime::TimingOptions Timing(bool cold) const;
  /// The worker, started when isolating and the executable is found (else null).
  MeasureWorker* Worker();
  /// The fingerprint hash remote workers must have for `targets` ("" for the local
  /// runner), computed once per targets text.
  std::string RemoteFingerprint(const std::string& targets);
  std::map<std::string, std::string> fingerprints_;
};

/// The thread count candidates for `target` are measured with: the one the program will
/// run with, its `-num_threads` when non-zero, else every core.
int MeasureThreads(const Target& target);

}  // namespace tessera::collage
