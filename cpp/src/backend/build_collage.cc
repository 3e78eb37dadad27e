// build() with Collage: the simplifications, the registered CollagePartition pass over
// the targets, lowering, code generation, and the end-to-end guard against the fixed
// configurations (native only, each library's classic partitioning).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <thread>

#include "tessera/backend/build.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_registry.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

using json = nlohmann::ordered_json;

/// The libraries `targets` offer: targets of a library kind, and -compiler/-libs options.
std::vector<std::string> Libraries(const std::vector<Target>& targets) {
  std::vector<std::string> out;
  auto add = [&](const std::string& l) {
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  };
  for (const Target& t : targets) {
    if (!CompilesWholeModels(t.kind())) {
      add(t.kind());
      continue;
    }
    for (const char* option : {"compiler", "libs"})
      if (t.HasAttr(option))
        for (const std::string& l : t.GetStringList(option)) add(l);
  }
  return out;
}

/// Median ms per run of `exe` with `threads` threads, interleaved by the caller.
std::vector<double> TimeRound(const std::vector<std::shared_ptr<runtime::Executable>>& exes,
                              int threads) {
  std::vector<double> out;
  for (const auto& exe : exes) {
    runtime::ExecutorOptions eo;
    eo.num_threads = threads;
    runtime::Executor ex(exe, eo);
    out.push_back(ex.Benchmark(runtime::RandomInputs(*exe), 3, 5).median_ms);
  }
  return out;
}

}  // namespace

std::shared_ptr<runtime::Executable> BuildWithCollage(const IRModule& mod,
                                                      const std::vector<Target>& targets) {
  if (targets.empty()) TS_THROW(kValue) << "build needs at least one target (e.g. \"native\")";
  PassContext ctx = PassContext::Current();
  Target host = HostTarget(targets);
  // A library given as a target of its own runs with the host's thread count unless it
  // names one (["native -num_threads=1", "dnnl"] is one thread throughout).
  std::vector<Target> given;
  for (Target t : targets) {
    if (!CompilesWholeModels(t.kind()) && t.HasAttr("num_threads") && !t.attrs().count("num_threads") &&
        host.attrs().count("num_threads"))
      t.Set("num_threads", std::to_string(host.GetInt("num_threads")));
    given.push_back(std::move(t));
  }
  std::vector<Target> build_targets{host};
  for (const Target& t : given)
    if (!CompilesWholeModels(t.kind())) build_targets.push_back(t);
  std::string joined;
  for (const Target& t : given) joined += (joined.empty() ? "" : ";") + t.ToString();

  Pass partition = Sequential(
      {InlineFunctionCalls(), InferType(), InlineComposites(), InferType(), SimplifyInference(), FoldConstant(),
       FoldScaleAxis(), SimplifyExpr(), FoldConstant(),
       GetPass("CollagePartition", Attrs{{"targets", AttrValue(joined)}})},
      "build_collage");
  IRModule partitioned = partition(mod);
  const AttrValue* report_attr = partitioned.attrs().Find("collage.report");
  json report = report_attr && report_attr->is_string() ? json::parse(report_attr->AsString())
                                                        : json::object();
  auto exe = BuildLowered(LowerModuleToTIR(partitioned), build_targets);

  // The guard second-guesses measured costs; a custom estimator's choices are the user's.
  bool measuring = ctx.GetConfig("collage.estimator").AsString() == "measure";
  if (ctx.GetConfigBool("collage.guard") && !measuring) {
    report["guard"] = "skipped: the estimator is not 'measure' (its choices are kept)";
  } else if (ctx.GetConfigBool("collage.guard")) {
    // Costs add up only roughly (a library kernel timed alone pays conversions at its
    // edges that a merged partition does not), so the whole program is timed against
    // the fixed configurations and the fastest kept.
    std::vector<std::string> names{"collage"};
    std::vector<std::shared_ptr<runtime::Executable>> exes{exe};
    json errors = json::object();
    {
      Attrs config = ctx.config();
      config.Set("collage.enable", AttrValue(false));
      PassContext off = PassContext::Create(ctx.opt_level(), ctx.required_pass(),
                                            ctx.disabled_pass(), config, ctx.instruments());
      PassContext::Scope scope(off);
      std::vector<std::pair<std::string, Target>> fixed{{"native", host}};
      for (const std::string& library : Libraries(given)) {
        if (!host.HasAttr("compiler")) break;  // a host that cannot offload (interp)
        Target t = host;
        t.Set("compiler", library);
        fixed.emplace_back("partition_for_" + library, t);
      }
      for (const auto& [name, target] : fixed) {
        try {
          // The library this configuration offloads to keeps its target's options.
          std::vector<Target> ts{target};
          for (size_t i = 1; i < build_targets.size(); ++i)
            if (target.HasAttr("compiler") &&
                target.GetStringList("compiler") ==
                    std::vector<std::string>{build_targets[i].kind()})
              ts.push_back(build_targets[i]);
          exes.push_back(Build(mod, ts));
          names.push_back(name);
        } catch (const Error& e) {
          errors[name] = e.what();
        }
      }
    }
    // The thread count the program runs with (every core unless -num_threads says).
    int threads = static_cast<int>(host.HasAttr("num_threads") ? host.GetInt("num_threads") : 0);
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::vector<double>> samples(exes.size());
    for (int round = 0; round < 3; ++round) {
      std::vector<double> ms = TimeRound(exes, threads);
      for (size_t i = 0; i < ms.size(); ++i) samples[i].push_back(ms[i]);
    }
    json latency = json::object();
    size_t best = 0;
    std::vector<double> median(exes.size());
    for (size_t i = 0; i < exes.size(); ++i) {
      std::sort(samples[i].begin(), samples[i].end());
      median[i] = samples[i][samples[i].size() / 2];
      latency[names[i]] = median[i];
      if (median[i] < median[best]) best = i;
    }
    size_t best_fixed = 0;
    for (size_t i = 1; i < exes.size(); ++i)
      if (best_fixed == 0 || median[i] < median[best_fixed]) best_fixed = i;
    json guard = {{"chosen", names[best]}, {"threads", threads}, {"latency_ms", latency}};
    if (best_fixed > 0) {
      guard["best_fixed"] = names[best_fixed];
      guard["collage_speedup_vs_best_fixed"] = median[best_fixed] / median[0];
    }
    if (!errors.empty()) guard["errors"] = errors;
    report["guard"] = guard;
    LogInfo("collage: guard chose '" + names[best] + "'");
    exe = exes[best];
  } else {
    report["guard"] = nullptr;
  }
  exe->SetCollageReport(report.dump());
  return exe;
}

}  // namespace tessera
