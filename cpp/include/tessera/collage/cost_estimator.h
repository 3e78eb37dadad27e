// CostEstimator: what one candidate kernel costs on a target, in seconds. The base
// class, the mock and custom estimators, and the registry of named estimators that the
// config key `collage.estimator` selects (the measuring estimator is in measure.h).
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/target/target.h"

namespace tessera::collage {

/// The cost of a kernel that cannot run on its target (never chosen).
inline constexpr double kInvalidCost = std::numeric_limits<double>::infinity();
/// Whether `cost` marks an invalid candidate (+inf).
inline bool IsInvalidCost(double cost) { return std::isinf(cost) && cost > 0; }
/// Whether `cost` is unknown (NaN: not estimated, or the estimator could not tell).
inline bool IsUnknownCost(double cost) { return std::isnan(cost); }
/// "12.5us", "invalid", "unknown".
std::string CostToString(double seconds);

/// Called as work progresses: `done` of `total` estimates finished.
using ProgressFn = std::function<void(size_t done, size_t total)>;

/// Sets the progress callback Collage uses on this thread when its pass was given none
/// (the CLI's progress line); an empty function removes it.
void SetDefaultProgress(ProgressFn progress);
/// The callback SetDefaultProgress set on this thread (may be empty).
const ProgressFn& DefaultProgress();

/// One kernel to estimate: @main of `mod` calls the candidate once (an inline Primitive
/// function, or a global Compiler function with its constants inside), as in the model.
struct EstimateRequest {
  IRModule mod;
  Target target;
};

/// What an estimate gave: seconds (+inf invalid, NaN unknown) and, when invalid, why;
/// a measuring estimator also says how much its samples spread and how many it took.
struct EstimateResult {
  double cost = std::numeric_limits<double>::quiet_NaN();
  std::string error;
  double spread = std::numeric_limits<double>::quiet_NaN();  ///< seconds, 10th to 90th percentile
  int repeats = 0;                                           ///< timed samples
};

/// Estimates kernel costs. Collage asks each distinct (kernel structure, target) once per
/// run; subclasses decide how (measure, model, look up).
class CostEstimator {
 public:
  virtual ~CostEstimator() = default;
  /// Seconds to run @main of `mod` on `target` (+inf: cannot run there). Throwing a
  /// tessera::Error makes the candidate invalid, with the message as the reason.
  virtual double Estimate(const IRModule& mod, const Target& target) = 0;
  /// Estimates every request. The default calls Estimate on each in order, turning
  /// errors into invalid results; estimators that amortise work (compiling many kernels
  /// at once) override it. `progress` (optional) is told after each one.
  virtual std::vector<EstimateResult> EstimateAll(const std::vector<EstimateRequest>& requests,
                                                  const ProgressFn& progress);
  /// Seconds the executor spends per extra kernel call on `target`, added to every
  /// kernel's cost by the search. 0 unless the estimator measures.
  virtual double LaunchPenalty(const Target& target);
  /// A short name for reports: "measure", "mock", "custom", ...
  virtual std::string name() const = 0;
  /// The name and settings its numbers depend on, when they are worth keeping in the
  /// cost database (collage.cost_db) across processes; "" (the default): never stored.
  virtual std::string cost_model() const { return ""; }
};

/// Shared handle to an estimator.
using CostEstimatorPtr = std::shared_ptr<CostEstimator>;

/// TVM's mock estimator, for tests: a candidate on a target of kind K costs
/// costs[K] * 0.9^k summed over its op calls (k counts from 0 in visiting order, Composite
/// bodies included), so fusing more ops is cheaper. A kind missing from `costs` is an
/// error; more than `max_estimates` estimates (when non-zero) is an error.
class MockCostEstimator : public CostEstimator {
 public:
  explicit MockCostEstimator(std::map<std::string, double> costs, size_t max_estimates = 0);
  double Estimate(const IRModule& mod, const Target& target) override;
  std::string name() const override { return "mock"; }
  /// How many estimates were made so far.
  size_t num_estimates() const { return num_estimates_; }

 private:
  std::map<std::string, double> costs_;
  size_t max_estimates_;
  size_t num_estimates_ = 0;
};

/// An estimator calling a plain function.
class CustomCostEstimator : public CostEstimator {
 public:
  /// Estimates with `fn` (seconds; errors it throws make the candidate invalid).
  using Fn = std::function<double(const IRModule& mod, const Target& target)>;
  explicit CustomCostEstimator(Fn fn, std::string name = "custom");
  double Estimate(const IRModule& mod, const Target& target) override;
  std::string name() const override { return name_; }

 private:
  Fn fn_;
  std::string name_;
};

/// Registers `estimator` under `name` for the config key `collage.estimator` (replacing
/// an earlier registration). "measure" is built in and cannot be replaced.
void RegisterCostEstimator(const std::string& name, CostEstimatorPtr estimator);
/// The estimator `name` selects: "measure" (a MeasuringCostEstimator configured from the
/// current PassContext) or a registered name; an unknown name is a not-found error
/// listing the known ones.
CostEstimatorPtr GetCostEstimator(const std::string& name);
/// "measure" and every registered name, sorted.
std::vector<std::string> ListCostEstimators();

}  // namespace tessera::collage
