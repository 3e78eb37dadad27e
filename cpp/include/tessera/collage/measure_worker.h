// MeasureWorker: the process Collage times candidates in (tessera-measure-worker, which
// needs only the runtime), so that a candidate that crashes, hangs or returns non-finite
// output becomes invalid with the reason and the search goes on with a new worker.
#pragma once

#include <sys/types.h>

#include <string>

#include "tessera/collage/cost_estimator.h"
#include "tessera/runtime/timing.h"

namespace tessera::collage {

/// The worker executable: $TESSERA_MEASURE_WORKER, else `tessera-measure-worker` next to
/// libtessera.so (build tree, Python package) or in its `tessera/` folder (installed);
/// "" when there is none.
std::string MeasureWorkerPath();

/// One worker process, started on first use, pinned to the first cores this process may
/// use (as many as the job's threads), and replaced after a crash or a timeout.
class MeasureWorker {
 public:
  /// `path`: the executable; `timeout_s`: the longest one candidate may take (loading,
  /// warm-up and samples) before it is killed.
  MeasureWorker(std::string path, double timeout_s);
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker&) = delete;
  MeasureWorker& operator=(const MeasureWorker&) = delete;

  /// Times the saved executable `bytes` with `threads` threads. A crash, a timeout, an
  /// error or non-finite output gives an invalid result (+inf) with the reason.
  EstimateResult Measure(const std::string& bytes, int threads, const runtime::TimingOptions& options);
  /// Processes started so far (the first and every replacement).
  int starts() const { return starts_; }

 private:
  void Start(int threads);
  /// Kills the process (if any) and returns how it ended ("" if it was still running).
  std::string Stop();
  /// The tail of what the worker wrote to stderr.
  std::string StderrTail();
  /// ": <the last line the worker wrote to stderr>" ("" if none), forgetting the rest.
  std::string TakeLastWords();

  std::string path_;
  double timeout_s_;
  pid_t pid_ = -1;
  int fd_ = -1;      // socket: the worker's stdin and stdout
  int err_fd_ = -1;  // pipe: the worker's stderr
  int threads_ = -1;  // the thread count the worker is pinned for
  int starts_ = 0;
  std::string stderr_;
};

}  // namespace tessera::collage
