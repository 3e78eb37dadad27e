// CostEstimator's defaults, the mock and custom estimators, and the estimator registry.
#include "tessera/collage/cost_estimator.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <sstream>

#include "tessera/collage/measure.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"

namespace tessera::collage {

std::string CostToString(double seconds) {
  if (IsInvalidCost(seconds)) return "invalid";
  if (IsUnknownCost(seconds)) return "unknown";
  std::ostringstream os;
  os.precision(4);
  os << seconds * 1e6 << "us";
  return os.str();
}

namespace {
ProgressFn& ThreadProgress() {
  thread_local ProgressFn progress;
  return progress;
}
}  // namespace

void SetDefaultProgress(ProgressFn progress) { ThreadProgress() = std::move(progress); }

const ProgressFn& DefaultProgress() { return ThreadProgress(); }

std::vector<EstimateResult> CostEstimator::EstimateAll(const std::vector<EstimateRequest>& requests,
                                                       const ProgressFn& progress) {
  std::vector<EstimateResult> results(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      results[i].cost = Estimate(requests[i].mod, requests[i].target);
      if (results[i].cost < 0)
        TS_THROW(kValue) << "estimator '" << name() << "' returned a negative cost "
                         << results[i].cost;
    } catch (const Error& e) {
      // An internal error is a bug (or the mock's exhausted budget): it stops the search.
      if (e.kind() == ErrorKind::kInternal) throw;
      results[i].cost = kInvalidCost;
      results[i].error = e.what();
    }
    if (progress) progress(i + 1, requests.size());
  }
  return results;
}

double CostEstimator::LaunchPenalty(const Target&) { return 0.0; }

MockCostEstimator::MockCostEstimator(std::map<std::string, double> costs, size_t max_estimates)
    : costs_(std::move(costs)), max_estimates_(max_estimates) {
  for (const auto& [kind, cost] : costs_)
    if (!(cost >= 0) || std::isinf(cost))
      TS_THROW(kValue) << "mock cost estimator: the cost of '" << kind
                       << "' must be a finite number >= 0, got " << cost;
}

double MockCostEstimator::Estimate(const IRModule& mod, const Target& target) {
  ++num_estimates_;
  if (max_estimates_ > 0 && num_estimates_ > max_estimates_)
    TS_THROW(kInternal) << "mock cost estimator: more than " << max_estimates_
                        << " estimates (the search should have pruned)";
  auto it = costs_.find(target.kind());
  if (it == costs_.end())
    TS_THROW(kNotFound) << "mock cost estimator: no cost for target kind '" << target.kind() << "'";
  double op_cost = it->second;
  double cost = 0.0;
  int calls = 0;
  // Every op call of every function (Composite bodies included) costs 0.9x the previous.
  for (const auto& [name, func] : mod.functions()) {
    const auto* fn = func.as<FunctionNode>();
    if (!fn) continue;
    PostOrderVisit(Function(fn), [&](const Expr& e) {
      const auto* call = e.as<CallNode>();
      if (!call || !call->op()) return;
      cost += op_cost * std::pow(0.9, calls++);
    });
  }
  return cost;
}

CustomCostEstimator::CustomCostEstimator(Fn fn, std::string name)
    : fn_(std::move(fn)), name_(std::move(name)) {
  if (!fn_) TS_THROW(kValue) << "custom cost estimator: no function";
}

double CustomCostEstimator::Estimate(const IRModule& mod, const Target& target) {
  return fn_(mod, target);
}

namespace {

struct EstimatorRegistry {
  std::mutex mutex;
  std::map<std::string, CostEstimatorPtr> estimators;
};

EstimatorRegistry& Estimators() {
  static auto* registry = new EstimatorRegistry();  // never destroyed: safe at exit
  return *registry;
}

}  // namespace

void RegisterCostEstimator(const std::string& name, CostEstimatorPtr estimator) {
  if (name.empty()) TS_THROW(kValue) << "a cost estimator needs a name";
  if (name == "measure")
    TS_THROW(kValue) << "cost estimator 'measure' is built in and cannot be replaced";
  if (!estimator) TS_THROW(kValue) << "cost estimator '" << name << "' is null";
  EstimatorRegistry& reg = Estimators();
  std::lock_guard<std::mutex> lock(reg.mutex);
  reg.estimators[name] = std::move(estimator);
}

CostEstimatorPtr GetCostEstimator(const std::string& name) {
  if (name == "measure")
    return std::make_shared<MeasuringCostEstimator>(
        MeasureOptions::FromContext(PassContext::Current()));
  {
    EstimatorRegistry& reg = Estimators();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto it = reg.estimators.find(name);
    if (it != reg.estimators.end()) return it->second;
  }
  std::string known;
  for (const std::string& n : ListCostEstimators()) known += (known.empty() ? "" : ", ") + n;
  TS_THROW(kNotFound) << "unknown cost estimator '" << name << "' (known: " << known
                      << "; register one with collage.register_estimator)";
}

std::vector<std::string> ListCostEstimators() {
  std::vector<std::string> names{"measure"};
  EstimatorRegistry& reg = Estimators();
  std::lock_guard<std::mutex> lock(reg.mutex);
  for (const auto& [name, _] : reg.estimators) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace tessera::collage
