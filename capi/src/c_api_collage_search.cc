// The C API's Collage search: estimators (C callbacks, mock, measuring), the estimator
// registry, the CollagePartition pass with progress callbacks, reports on modules, and
// external backends declared from C.
#include <cmath>
#include <string>
#include <vector>

#include "c_api_collage_internal.h"
#include "tessera/backend/external_native.h"
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
    TsStatus status = fn_(Lend<TsModule>(mod.get()), &borrowed, &seconds, data_->data);
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
    TsStatus status = fn(done, total, data->data);
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
  UserDataPtr data = HoldUserData(user_data, destroy);
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
  return Guard(
      [&] { RegisterCostEstimator(name, estimator ? estimator->estimator : nullptr); });
}

TsStatus TsListCostEstimators(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] { Emit(nlohmann::json(ListCostEstimators()).dump(), callback, user_data); });
}

/* ---- The pass and reports ---- */

TsStatus TsCollagePartitionPassCreate(const TsTarget* targets, size_t num_targets,
                                      TsCostEstimator estimator, TsCollageProgressCallback progress,
                                      void* user_data, TsUserDataDestroy destroy, TsPass* out) {
  UserDataPtr data = HoldUserData(user_data, destroy);
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
  UserDataPtr data = HoldUserData(user_data, destroy);
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

/* ---- External backends ---- */

TsStatus TsRegisterExternalBackend(const char* name, const TsExternalPattern* patterns,
                                   size_t num_patterns, const char* compile_with,
                                   TsPartitionCSourceCallback c_source, void* user_data,
                                   TsUserDataDestroy destroy) {
  UserDataPtr data = HoldUserData(user_data, destroy);
  // Every predicate's user data is the library's from here on, also on failure.
  std::vector<UserDataPtr> predicate_data;
  for (size_t i = 0; patterns && i < num_patterns; ++i)
    predicate_data.push_back(
        HoldUserData(patterns[i].predicate_user_data, patterns[i].predicate_destroy));
  TS_REQUIRE(name);
  return Guard([&] {
    if (num_patterns && !patterns)
      TS_THROW(kValue) << "TsRegisterExternalBackend: patterns are NULL";
    std::string backend = name;
    std::vector<tessera::PatternTableEntry> table;
    for (size_t i = 0; i < num_patterns; ++i) {
      const TsExternalPattern& p = patterns[i];
      if (!p.label || !p.pattern)
        TS_THROW(kValue) << "TsRegisterExternalBackend: pattern " << i
                         << " has a NULL label or pattern";
      std::string label = p.label;
      if (label.rfind(backend + ".", 0) != 0) label = backend + "." + label;
      table.push_back(
          {label, PatternOf(p.pattern, "TsRegisterExternalBackend"),
           ExprPredicateFromC(p.predicate, predicate_data[i],
                              "external backend '" + backend + "' predicate of " + label)});
    }
    std::string how = compile_with ? compile_with : "native";
    if (how == "native") {
      if (c_source)
        TS_THROW(kValue)
            << "TsRegisterExternalBackend: a C source callback needs compile_with \"c\"";
      tessera::RegisterExternalBackend(backend, std::move(table), how);
      return;
    }
    if (how != "c")
      TS_THROW(kValue) << "TsRegisterExternalBackend: compile_with is \"native\" or \"c\", got '"
                       << how << "'";
    if (!c_source)
      TS_THROW(kValue) << "TsRegisterExternalBackend: compile_with \"c\" needs a C source callback";
    tessera::PartitionCSource source = [c_source, data, backend](const tessera::Function& partition,
                                                                 const std::string& c_name) {
      std::string text;
      auto append = [](const char* chunk, size_t length, void* target) {
        static_cast<std::string*>(target)->append(chunk, length);
      };
      TsStatus status =
          c_source(Lend<TsExpr>(partition.get()), c_name.c_str(), append, &text, data->data);
      if (status != TS_OK)
        ThrowCallbackError(status, "external backend '" + backend + "' C source callback");
      return text;
    };
    tessera::RegisterExternalBackend(backend, std::move(table), "c", std::move(source));
  });
}

}  // extern "C"
