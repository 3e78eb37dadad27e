// MeasureWorker: the process Collage times candidates in, so that a candidate that
// crashes, hangs or returns non-finite output becomes invalid with the reason and the
// search goes on. Locally that is tessera-measure-worker (which needs only the runtime),
// one candidate at a time on pinned cores; on a cluster it is the Dask bridge
// (python -m tessera._dask_bridge), which keeps many candidates in flight on the
// cluster's workers. Both speak one protocol on their standard input and output:
//   job:    "measure <id> <bytes> <threads> <repeat> <number> <percentile> <flush> <check>
//            <fingerprint> <targets...>\n" then <bytes> bytes of a saved executable
//   answer: "<id> ok <seconds> <spread> <samples>\n", "<id> invalid <reason>\n" or
//           "<id> error <reason>\n", in any order.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "tessera/collage/cost_estimator.h"
#include "tessera/runtime/timing.h"

namespace tessera::collage {

/// The worker executable: $TESSERA_MEASURE_WORKER, else `tessera-measure-worker` next to
/// libtessera.so (build tree, Python package) or in its `tessera/` folder (installed);
/// "" when there is none.
std::string MeasureWorkerPath();

/// The command that runs the Dask bridge for scheduler `address` ("tcp://host:port"),
/// each candidate limited to `timeout_s` on its worker: $TESSERA_PYTHON (else
/// /usr/bin/python3, else python3) -m tessera._dask_bridge --timeout S ADDRESS.
std::vector<std::string> DaskBridgeCommand(const std::string& address, double timeout_s);

/// One candidate to measure.
struct MeasureJob {
  std::string bytes;        ///< the saved program (Executable::SaveToBytes)
  int threads = 0;          ///< threads to run it with
  std::string fingerprint;  ///< the machine fingerprint hash it must be measured under
  std::string targets;      ///< the targets' text, ';'-separated (for remote fingerprints)
};

/// A measuring process, started on first use and replaced after a crash or a timeout.
class MeasureWorker {
 public:
  /// `command`: the program and its arguments; `timeout_s`: the longest one candidate
  /// may take; `window`: candidates in flight at once (1: the local worker, which is
  /// then pinned to as many cores as a candidate's threads); `name` for messages.
  MeasureWorker(std::vector<std::string> command, double timeout_s, size_t window = 1,
                std::string name = "measurement worker");
  ~MeasureWorker();
  MeasureWorker(const MeasureWorker&) = delete;
  MeasureWorker& operator=(const MeasureWorker&) = delete;

  /// Measures jobs 0..n-1, streaming: `next(i)` makes job i when there is room in the
  /// window (an Error it throws makes that job invalid), `done(i, result)` is called as
  /// each finishes, in any order. A crash, a timeout, an error or non-finite output
  /// gives an invalid result (+inf) with the reason. A bridge that ends or stops
  /// answering is an IO error (the cluster is unusable, not the candidates).
  void MeasureAll(size_t n, const std::function<MeasureJob(size_t)>& next,
                  const runtime::TimingOptions& options,
                  const std::function<void(size_t, EstimateResult)>& done);
  /// One job.
  EstimateResult Measure(MeasureJob job, const runtime::TimingOptions& options);
  /// Processes started so far (the first and every replacement).
  int starts() const { return starts_; }

 private:
  void Start(int threads);
  /// Kills the process (if any) and returns how it ended ("" if it was still running).
  std::string Stop();
  /// Reads what the process wrote to stderr so far (keeps the last 2 KiB).
  void DrainStderr();
  /// ": <the last line the process wrote to stderr>" ("" if none), forgetting the rest.
  std::string TakeLastWords();
  /// Sends one job; false when the process is gone.
  bool Send(size_t id, const MeasureJob& job, const runtime::TimingOptions& options);
  /// Waits up to `timeout_s` for one answer line; "" on timeout, "\n" when the process
  /// ended (the caller stops it).
  std::string ReadLine(double timeout_s);

  std::vector<std::string> command_;
  double timeout_s_;
  size_t window_;
  std::string name_;
  pid_t pid_ = -1;
  int fd_ = -1;       // socket: the process's stdin and stdout
  int err_fd_ = -1;   // pipe: its stderr
  int threads_ = -1;  // the thread count the local worker is pinned for
  int starts_ = 0;
  std::string stderr_;
  std::string pending_;  // received bytes not yet split into lines
};

}  // namespace tessera::collage
