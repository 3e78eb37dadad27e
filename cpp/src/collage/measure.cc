// The measuring estimator: candidates lowered, native kernels compiled in batches on
// every core, then each candidate timed alone on random inputs.
#include "tessera/collage/measure.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "tessera/backend/build.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/support/version.h"
#include "tessera/runtime/timing.h"
#include "tessera/target/backend_registry.h"
#include "tessera/ir/infer_type.h"

namespace tessera::collage {

MeasureOptions MeasureOptions::FromContext(const PassContext& ctx) {
  MeasureOptions o;
  o.repeat = static_cast<int>(ctx.GetConfig("collage.measure_repeat").AsInt());
  o.number = static_cast<int>(ctx.GetConfig("collage.measure_number").AsInt());
  o.percentile = ctx.GetConfig("collage.measure_percentile").AsFloat();
  o.flush_cache = ctx.GetConfigBool("collage.measure_flush_cache");
  o.isolate = ctx.GetConfigBool("collage.measure_isolate");
  o.timeout_s = ctx.GetConfig("collage.measure_timeout_s").AsFloat();
  o.check_finite = ctx.GetConfigBool("collage.measure_check_finite");
  o.runner = ctx.GetConfig("collage.runner").AsString();
  // Said, not silently dropped: a cluster always measures in worker processes, and only a
  // worker process can be timed out.
  if (!o.isolate && o.runner != "local")
    LogWarn("collage.measure_isolate=false has no effect with collage.runner '" + o.runner +
            "': the cluster measures in worker processes");
  else if (!o.isolate && ctx.config().Has("collage.measure_timeout_s"))
    LogWarn("collage.measure_timeout_s has no effect with collage.measure_isolate=false: "
            "a candidate timed in this process cannot be stopped");
  return o;
}

std::string MeasuringCostEstimator::RemoteFingerprint(const std::string& targets) {
  if (options_.runner == "local") return "";  // the local worker is this machine
  auto it = fingerprints_.find(targets);
  if (it == fingerprints_.end())
    it = fingerprints_.emplace(targets, FingerprintHash(RunnerFingerprint(targets))).first;
  return it->second;
}

int MeasureThreads(const Target& target) {
  if (target.HasAttr("num_threads")) {
    int64_t n = target.GetInt("num_threads");
    if (n > 0) return static_cast<int>(n);
  }
  // 0 or no option: the program runs on every core, so its kernels are measured so.
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}


MeasuringCostEstimator::MeasuringCostEstimator(MeasureOptions options) : options_(options) {
  if (!(options_.timeout_s > 0)) TS_THROW(kValue) << "collage.measure_timeout_s must be > 0";
  if (options_.repeat < 1) TS_THROW(kValue) << "collage.measure_repeat must be >= 1";
  if (options_.number < 0) TS_THROW(kValue) << "collage.measure_number must be >= 0";
  if (!(options_.percentile >= 0 && options_.percentile <= 100))
    TS_THROW(kValue) << "collage.measure_percentile must be in [0, 100]";
  if (options_.batch_size < 1) options_.batch_size = 1;
}

std::string MeasuringCostEstimator::cost_model() const {
  // Bump the first number when a change to how candidates are timed changes the costs.
  char percentile[32];
  std::snprintf(percentile, sizeof percentile, "%g", options_.percentile);
  return std::string("measure/1 p") + percentile + (options_.flush_cache ? " cold" : " warm") +
         " tessera-" + Version();
}

double MeasuringCostEstimator::Time(const std::shared_ptr<runtime::Executable>& exe,
                                    int num_threads, bool cold) const {
  return TimeSamples(exe, num_threads, cold).cost;
}

runtime::TimingOptions MeasuringCostEstimator::Timing(bool cold) const {
  runtime::TimingOptions t;
  t.repeat = options_.repeat;
  t.number = options_.number;
  t.percentile = options_.percentile;
  t.flush_cache = cold && options_.flush_cache;
  t.check_finite = options_.check_finite;
  return t;
}

EstimateResult MeasuringCostEstimator::TimeSamples(const std::shared_ptr<runtime::Executable>& exe,
                                                   int num_threads, bool cold) const {
  runtime::Timing t = runtime::TimeExecutable(exe, num_threads, Timing(cold));
  EstimateResult out;
  out.cost = t.error.empty() ? t.seconds : kInvalidCost;
  out.error = t.error;
  out.spread = t.spread;
  out.repeats = t.repeats;
  return out;
}

MeasureWorker* MeasuringCostEstimator::Worker() {
  if (worker_) return worker_.get();
  if (options_.runner != "local") {
    // Many candidates in flight: the bridge spreads them over the cluster's workers.
    std::string address = "tcp://" + options_.runner.substr(options_.runner.find("//") + 2);
    worker_ = std::make_unique<MeasureWorker>(DaskBridgeCommand(address, options_.timeout_s),
                                              options_.timeout_s, 256, "Dask runner");
  } else if (options_.isolate) {
    std::string path = MeasureWorkerPath();
    if (path.empty()) {
      static std::once_flag warned;
      std::call_once(warned, [] {
        LogWarn("collage: tessera-measure-worker was not found next to libtessera.so (set "
                "TESSERA_MEASURE_WORKER); candidates are timed in this process, so one that "
                "crashes ends the build");
      });
      options_.isolate = false;
    } else {
      worker_ = std::make_unique<MeasureWorker>(std::vector<std::string>{path}, options_.timeout_s);
    }
  }
  return worker_.get();
}

EstimateResult MeasuringCostEstimator::TimeCandidate(const std::shared_ptr<runtime::Executable>& exe,
                                                     int num_threads,
                                                     const std::vector<Target>& targets) {
  MeasureWorker* worker = Worker();
  if (!worker) return TimeSamples(exe, num_threads);
  MeasureJob job;
  job.threads = num_threads;
  for (const Target& t : targets) job.targets += (job.targets.empty() ? "" : ";") + t.ToString();
  job.fingerprint = RemoteFingerprint(job.targets);
  job.bytes = exe->SaveToBytes();
  return worker->Measure(std::move(job), Timing(true));
}

double MeasuringCostEstimator::Estimate(const IRModule& mod, const Target& target) {
  std::vector<EstimateResult> r = EstimateAll({EstimateRequest{mod, target}}, nullptr);
  if (!r[0].error.empty()) TS_THROW(kValue) << r[0].error;
  return r[0].cost;
}

namespace {

/// The targets a candidate for `target` is built with: the target itself when it runs
/// whole models, else native (with its thread count) running the library's partition.
std::vector<Target> BuildTargets(const Target& target) {
  if (CompilesWholeModels(target.kind())) return {target};
  Target host("native");
  if (target.HasAttr("num_threads") && target.attrs().count("num_threads"))
    host.Set("num_threads", std::to_string(target.GetInt("num_threads")));
  return {host, target};
}

/// One request, lowered: its native kernels renamed apart from other requests'.
struct Prepared {
  IRModule lowered;
  std::vector<Target> targets;
  std::vector<std::pair<std::string, tir::PrimFunc>> kernels;  // by symbol
  bool offloads = false;  // has library partitions: built on its own
  runtime::Module module;
  std::string error;
};

Prepared Prepare(const EstimateRequest& request, size_t index) {
  Prepared p;
  p.targets = BuildTargets(request.target);
  p.lowered = LowerModuleToTIR(InferTypes(request.mod));
  std::string prefix = "cand" + std::to_string(index) + "_";
  IRModule renamed_module = p.lowered;
  for (const auto& [name, func] : p.lowered.functions()) {
    const auto* pf = func.as<tir::PrimFuncNode>();
    if (!pf) continue;
    if (pf->attrs.Has(kExternFunctionAttr)) {
      p.offloads = true;  // built on its own, under its own symbols
      continue;
    }
    std::string symbol = prefix + GlobalSymbolOf(name, pf);
    tir::PrimFunc renamed = tir::MakePrimFunc(pf->params, pf->num_outputs, pf->body,
                                              pf->attrs.With(attr::kGlobalSymbol, symbol));
    p.kernels.emplace_back(symbol, renamed);
    renamed_module = renamed_module.WithFunction(name, renamed);
  }
  if (!p.offloads) p.lowered = renamed_module;
  return p;
}

/// Compiles the kernels of `batch` (indexes into `prepared`) into one module each
/// request shares; on failure compiles request by request to find the culprit.
void CompileBatch(std::vector<Prepared>& prepared, const std::vector<size_t>& batch) {
  auto compile = [&](const std::vector<size_t>& items) {
    IRModule mod;
    std::vector<std::string> symbols;
    for (size_t i : items)
      for (const auto& [symbol, pf] : prepared[i].kernels) {
        mod = mod.WithFunction(symbol, pf);
        symbols.push_back(symbol);
      }
    const Target& host = prepared[items[0]].targets[0];
    return BackendRegistry::Global().Get(host.kind()).codegen(mod, symbols, host);
  };
  try {
    runtime::Module m = compile(batch);
    for (size_t i : batch) prepared[i].module = m;
  } catch (const Error&) {
    for (size_t i : batch) {
      try {
        prepared[i].module = compile({i});
      } catch (const Error& e) {
        prepared[i].error = std::string("build failed: ") + e.what();
      }
    }
  }
}

}  // namespace

std::vector<EstimateResult> MeasuringCostEstimator::EstimateAll(
    const std::vector<EstimateRequest>& requests, const ProgressFn& progress) {
  std::vector<EstimateResult> results(requests.size());
  std::vector<Prepared> prepared(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    try {
      prepared[i] = Prepare(requests[i], i);
    } catch (const Error& e) {
      prepared[i].error = std::string("lowering failed: ") + e.what();
    }
  }
  // Native kernels: batches of kernels per compiler run (grouped by host target), the
  // batches compiled on every core before anything is timed (so timing runs alone).
  std::map<std::string, std::vector<size_t>> by_host;
  for (size_t i = 0; i < requests.size(); ++i)
    if (prepared[i].error.empty() && !prepared[i].offloads && !prepared[i].kernels.empty())
      by_host[prepared[i].targets[0].ToString()].push_back(i);
  std::vector<std::vector<size_t>> batches;
  for (auto& [host, items] : by_host) {
    std::vector<size_t> batch;
    size_t kernels = 0;
    for (size_t i : items) {
      batch.push_back(i);
      kernels += prepared[i].kernels.size();
      if (kernels >= static_cast<size_t>(options_.batch_size)) {
        batches.push_back(std::move(batch));
        batch.clear();
        kernels = 0;
      }
    }
    if (!batch.empty()) batches.push_back(std::move(batch));
  }
  unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(),
                                           static_cast<unsigned>(batches.size())));
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&] {
      for (size_t b = next++; b < batches.size(); b = next++) CompileBatch(prepared, batches[b]);
    });
  for (std::thread& t : threads) t.join();
  LogDebug("collage: compiled " + std::to_string(batches.size()) + " native batch(es) for " +
           std::to_string(requests.size()) + " candidate(s)");

  // Each candidate is built just before it is measured and released right after, so
  // only the window in flight is held in memory.
  auto build = [&](size_t i) {
    Prepared& p = prepared[i];
    if (!p.error.empty()) TS_THROW(kValue) << p.error;
    auto exe = p.offloads || p.kernels.empty() ? BuildLowered(p.lowered, p.targets)
                                               : BuildLowered(p.lowered, p.targets, p.module);
    p = Prepared();  // release the compiled module and the IR early
    return exe;
  };
  size_t finished = 0;
  auto done = [&](size_t i, EstimateResult r) {
    results[i] = std::move(r);
    if (progress) progress(++finished, requests.size());
  };
  if (MeasureWorker* worker = Worker()) {
    worker->MeasureAll(
        requests.size(),
        [&](size_t i) {
          MeasureJob job;
          job.threads = MeasureThreads(requests[i].target);
          std::vector<Target> targets = BuildTargets(requests[i].target);
          for (const Target& t : targets) job.targets += (job.targets.empty() ? "" : ";") + t.ToString();
          job.fingerprint = RemoteFingerprint(job.targets);
          job.bytes = build(i)->SaveToBytes();
          return job;
        },
        Timing(true), done);
    return results;
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    EstimateResult r;
    try {
      r = TimeSamples(build(i), MeasureThreads(requests[i].target));
    } catch (const Error& e) {
      r.cost = kInvalidCost;
      r.error = e.what();
    }
    done(i, std::move(r));
  }
  return results;
}

double MeasuringCostEstimator::LaunchPenalty(const Target& target) {
  int threads = MeasureThreads(target);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = launch_penalty_.find(threads);
    if (it != launch_penalty_.end()) return it->second;
  }
  // `count` one-element kernels in a chain; each is its own Primitive call, so every one
  // is a separate kernel launch of the same compiled function.
  auto chain = [](int count) {
    Type t = MakeTensorType({1}, DType::kFloat32);
    Var x = MakeVar("x", t);
    Var p = MakeVar("p", t);
    Function add_one =
        MakeFunction({p}, MakeOpCall("add", {p, MakeConstant(NDArray::Scalar(1.0, DType::kFloat32))}),
                     t, Attrs{{attr::kPrimitive, AttrValue(int64_t{1})}});
    Expr body = x;
    for (int i = 0; i < count; ++i) body = MakeCall(add_one, {body});
    return InferTypes(IRModule::FromExpr(MakeFunction({x}, body)));
  };
  std::vector<Target> targets{Target("native")};
  auto one = BuildLowered(LowerModuleToTIR(chain(1)), targets);
  auto many = BuildLowered(LowerModuleToTIR(chain(17)), targets);
  double t1 = Time(one, threads, false), t17 = Time(many, threads, false);
  double penalty = std::max(0.0, (t17 - t1) / 16.0);
  LogDebug("collage: launch penalty " + CostToString(penalty) + " on " + std::to_string(threads) +
           " thread(s)");
  std::lock_guard<std::mutex> lock(mutex_);
  launch_penalty_[threads] = penalty;
  return penalty;
}

}  // namespace tessera::collage
