// The C API's Collage search: estimators (C callbacks, mock, measuring), the estimator
// registry, the CollagePartition pass with progress callbacks and reports on modules.
#include <cmath>
#include <string>
#include <vector>

#include "c_api_collage_internal.h"
#include "tessera/collage/collage_partition.h"
#include "tessera/collage/measure.h"

using namespace tessera::capi;
using namespace tessera::collage;

namespace {

/// An estimator calling a C function; the user data lives as long as the estimator.
class CCostEstimator : public CostEstimator {
 public:
  CCostEstimator(std::string name, TsCostEstimateCallback fn, UserDataPtr data)
      : name_(std::move(name)), fn_(fn), data_(std::move(data)) {}
  double Estimate(const tessera::IRModule& mod, const tessera::Target& target) override {
    TsTarget_ borrowed{target};
    double seconds = std::nan("");
    TsStatus status = fn_(Lend<TsModule>(mod.get()), &borrowed, &seconds, data_->data());
    if (status != TS_OK) ThrowCallbackError(status, "cost estimator '" + name_ + "'");
    return seconds;
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  TsCostEstimateCallback fn_;
  UserDataPtr data_;
};

/// A progress function calling C (empty when `fn` is NULL).
ProgressFn ProgressFromC(TsCollageProgressCallback fn, UserDataPtr data) {
  if (!fn) return nullptr;
  return [fn, data](size_t done, size_t total) {
    TsStatus status = fn(done, total, data->data());
    if (status != TS_OK) ThrowCallbackError(status, "Collage progress callback");
  };
}

void CheckEstimator(TsCostEstimator estimator, const char* what) {
  if (!estimator || !estimator->estimator) TS_THROW(kValue) << what << ": the estimator is NULL";
}

}  // namespace

extern "C" {

/* ---- Estimators ---- */

TsStatus TsCostEstimatorCreate(const char* name, TsCostEstimateCallback estimate, void* user_data,
                               TsUserDataDestroy destroy, TsCostEstimator* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
  TS_REQUIRE(estimate);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string n = name ? name : "custom";
    if (n.empty()) TS_THROW(kValue) << "TsCostEstimatorCreate: the name is empty";
    *out = new TsCostEstimator_{std::make_shared<CCostEstimator>(n, estimate, data)};
  });
}

TsStatus TsCostEstimatorMockCreate(const char* const* kinds, const double* costs, size_t num_kinds,
                                   size_t max_estimates, TsCostEstimator* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_kinds && (!kinds || !costs))
      TS_THROW(kValue) << "TsCostEstimatorMockCreate: kinds or costs are NULL";
    std::map<std::string, double> table;
    for (size_t i = 0; i < num_kinds; ++i) {
      if (!kinds[i]) TS_THROW(kValue) << "TsCostEstimatorMockCreate: kind " << i << " is NULL";
      table[kinds[i]] = costs[i];
    }
    *out = new TsCostEstimator_{std::make_shared<MockCostEstimator>(table, max_estimates)};
  });
}

TsStatus TsCostEstimatorMockGetNumEstimates(TsCostEstimator estimator, size_t* out) {
  TS_REQUIRE(estimator);
  TS_REQUIRE(out);
  return Guard([&] {
    auto* mock = dynamic_cast<MockCostEstimator*>(estimator->estimator.get());
    if (!mock)
      TS_THROW(kType) << "TsCostEstimatorMockGetNumEstimates: expected a mock estimator, got '"
                      << estimator->estimator->name() << "'";
    *out = mock->num_estimates();
  });
}

TsStatus TsCostEstimatorMeasuringCreate(int repeat, int number, double percentile,
                                        const char* runner, int isolate, double timeout_s,
                                        TsCostEstimator* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    MeasureOptions o;
    o.repeat = repeat;
    o.number = number;
    o.percentile = percentile;
    o.runner = runner ? runner : "local";
    // The config key's check of the runner ("local" or "dask://HOST:PORT").
    tessera::PassContext::Create(2, {}, {},
                                 tessera::Attrs{{"collage.runner", tessera::AttrValue(o.runner)}});
    o.isolate = isolate != 0;
    o.timeout_s = timeout_s;
    *out = new TsCostEstimator_{std::make_shared<MeasuringCostEstimator>(o)};
  });
}

TsStatus TsCostEstimatorEstimate(TsCostEstimator estimator, TsModule module, TsTarget target,
                                 double* out) {
  TS_REQUIRE(estimator);
  TS_REQUIRE(module);
  TS_REQUIRE(target);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = estimator->estimator->Estimate(BorrowModule(module), target->target); });
}

TsStatus TsCostEstimatorGetLaunchPenalty(TsCostEstimator estimator, TsTarget target, double* out) {
  TS_REQUIRE(estimator);
  TS_REQUIRE(target);
  TS_REQUIRE(out);
  return Guard([&] { *out = estimator->estimator->LaunchPenalty(target->target); });
}

TsStatus TsCostEstimatorGetName(TsCostEstimator estimator, TsStringCallback callback,
                                void* user_data) {
  TS_REQUIRE(estimator);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(estimator->estimator->name(), callback, user_data); });
}

void TsCostEstimatorDestroy(TsCostEstimator estimator) {
  delete estimator;
}

TsStatus TsCostEstimatorRegister(const char* name, TsCostEstimator estimator) {
  TS_REQUIRE(name);
  return Guard([&] { RegisterCostEstimator(name, estimator ? estimator->estimator : nullptr); });
}

TsStatus TsListCostEstimators(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] { Emit(nlohmann::json(ListCostEstimators()).dump(), callback, user_data); });
}

/* ---- The pass and reports ---- */

TsStatus TsCollagePartitionPassCreate(const TsTarget* targets, size_t num_targets,
                                      TsCostEstimator estimator, TsCollageProgressCallback progress,
                                      void* user_data, TsUserDataDestroy destroy, TsPass* out) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
  TS_REQUIRE(targets);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_targets == 0)
      TS_THROW(kValue) << "TsCollagePartitionPassCreate: needs at least one target";
    std::vector<tessera::Target> ts =
        TargetsFromC(targets, num_targets, "TsCollagePartitionPassCreate");
    *out = new TsPass_{CollagePartition(ts, estimator ? estimator->estimator : nullptr,
                                        ProgressFromC(progress, data))};
  });
}

TsStatus TsCollageSetProgress(TsCollageProgressCallback progress, void* user_data,
                              TsUserDataDestroy destroy) {
  UserDataPtr data;
  if (TsStatus s = TakeUserData(user_data, destroy, &data)) return s;
  return Guard([&] { SetDefaultProgress(ProgressFromC(progress, data)); });
}

TsStatus TsCollageGetReport(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] {
    const tessera::AttrValue* report = BorrowModule(module).attrs().Find("collage.report");
    if (!report || report->kind() != tessera::AttrValue::Kind::kString)
      TS_THROW(kNotFound)
          << "TsCollageGetReport: the module has no Collage report (run the Collage pass)";
    Emit(report->AsString(), callback, user_data);
  });
}

}  // extern "C"
