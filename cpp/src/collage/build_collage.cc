// build() with Collage: the simplifications, the CollagePartition pass over the targets,
// lowering, code generation, and the end-to-end guard against the fixed configurations
// (native only, each library's classic partitioning), its times kept in the cost database.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <optional>
#include <set>
#include <thread>

#include "tessera/backend/build.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/collage/measure.h"
#include "tessera/ir/printer.h"
#include "tessera/support/version.h"
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

/// One configuration the guard compares: how it is built and what its time is stored
/// under in the cost database.
struct GuardEntry {
  std::string name;
  std::vector<Target> targets;  // empty: the Collage build
  collage::CostRecord record;
  std::shared_ptr<runtime::Executable> exe;
  double ms = std::numeric_limits<double>::quiet_NaN();
  std::string error;
  bool stored = false;  // the time came from the database
};

/// Costs add up only roughly (a library kernel timed alone pays conversions at its edges
/// that a merged partition does not), so the whole program is timed against the fixed
/// configurations and the fastest kept. Times are kept in the cost database (kind
/// "program"), so a second build of the model times nothing and builds only the winner.
std::shared_ptr<runtime::Executable> Guard(const PassContext& ctx, const IRModule& mod,
                                           const IRModule& partitioned,
                                           const std::vector<Target>& given,
                                           const std::vector<Target>& build_targets,
                                           const Target& host,
                                           std::shared_ptr<runtime::Executable> exe,
                                           json& report) {
  // The thread count the program runs with (every core unless -num_threads says).
  int threads = static_cast<int>(host.HasAttr("num_threads") ? host.GetInt("num_threads") : 0);
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::string joined;
  for (const Target& t : given) joined += (joined.empty() ? "" : ";") + t.ToString();
  PrintOptions print;
  print.show_meta_data = false;
  print.meta_shapes_only = true;
  const std::string input_text = PrintModule(mod, print);
  const std::string fingerprint_text = collage::MachineFingerprint(given);
  const std::string fingerprint = collage::FingerprintHash(fingerprint_text);
  auto entry = [&](std::string name, std::vector<Target> targets, const std::string& text) {
    GuardEntry e;
    e.name = std::move(name);
    e.targets = std::move(targets);
    e.record.key = collage::CostKey{e.name + "\n" + text, joined, fingerprint,
                                    "guard/2 threads=" + std::to_string(threads) + " tessera-" + Version(), ""};
    e.record.kind = "program";
    e.record.label = e.name;
    return e;
  };
  std::vector<GuardEntry> entries;
  // (Without the report: it holds the search's duration.)
  entries.push_back(
      entry("collage", {}, PrintModule(partitioned.WithAttr("collage.report", AttrValue("")), print)));
  entries[0].exe = exe;
  std::vector<std::pair<std::string, Target>> fixed{{"native", host}};
  for (const std::string& library : Libraries(given)) {
    if (!host.HasAttr("compiler")) break;  // a host that cannot offload (interp)
    Target t = host;
    t.Set("compiler", library);
    fixed.emplace_back("partition_for_" + library, t);
  }
  for (const auto& [name, target] : fixed) {
    // The library this configuration offloads to keeps its target's options.
    std::vector<Target> ts{target};
    for (size_t i = 1; i < build_targets.size(); ++i)
      if (target.HasAttr("compiler") &&
          target.GetStringList("compiler") == std::vector<std::string>{build_targets[i].kind()})
        ts.push_back(build_targets[i]);
    entries.push_back(entry(name, ts, input_text));
  }

  std::shared_ptr<collage::CostDatabase> db;
  auto with_db = [&](auto f) {
    if (!db) return;
    try {
      f();
    } catch (const Error& e) {
      LogWarn(std::string("collage guard: the cost database failed; going on without it: ") + e.what());
      db = nullptr;
    }
  };
  try {
    db = collage::OpenCostDatabase(ctx.GetConfig("collage.cost_db").AsString());
  } catch (const Error& e) {
    LogWarn(std::string("collage guard: no cost database: ") + e.what());
  }
  auto lookup = [&] {
    std::vector<collage::CostKey> keys;
    for (const GuardEntry& e : entries) keys.push_back(e.record.key);
    std::vector<std::optional<collage::CostRecord>> found(entries.size());
    with_db([&] { found = db->Lookup(keys); });
    for (size_t i = 0; i < entries.size(); ++i)
      if (found[i]) {
        entries[i].ms = std::isinf(found[i]->cost) ? INFINITY : found[i]->cost * 1e3;
        entries[i].error = found[i]->error;
        entries[i].stored = true;
      }
  };
  with_db([&] { db->AddFingerprint(fingerprint, fingerprint_text); });
  lookup();

  // Build and time what the database does not know, interleaved so that every
  // configuration sees the same machine.
  std::vector<size_t> todo;
  {
    Attrs config = ctx.config();
    config.Set("collage.enable", AttrValue(false));
    PassContext off = PassContext::Create(ctx.opt_level(), ctx.required_pass(), ctx.disabled_pass(),
                                          config, ctx.instruments());
    PassContext::Scope scope(off);
    for (size_t i = 1; i < entries.size(); ++i) {
      if (entries[i].stored) continue;
      try {
        entries[i].exe = Build(mod, entries[i].targets);
      } catch (const Error& e) {
        entries[i].error = e.what();
        entries[i].ms = INFINITY;
        continue;
      }
      todo.push_back(i);
    }
  }
  if (!entries[0].stored) todo.insert(todo.begin(), 0);
  // Timed in the measurement worker (when isolating), as Collage times its candidates and
  // covers: a program that crashes, hangs or gives NaN is ruled out instead of ending the
  // build. Two rounds, interleaved, so every configuration sees the same machine; the
  // better of a program's two medians counts.
  collage::MeasureOptions timing = collage::MeasureOptions::FromContext(ctx);
  timing.flush_cache = false;  // a model runs after itself
  timing.repeat = std::max(timing.repeat, 10);
  collage::MeasuringCostEstimator timer(timing);
  std::vector<std::vector<double>> samples(entries.size());
  for (int round = 0; round < 2; ++round)
    for (size_t i : todo) {
      if (!entries[i].error.empty()) continue;
      collage::EstimateResult r = timer.TimeCandidate(
          entries[i].exe, threads, entries[i].targets.empty() ? build_targets : entries[i].targets);
      if (!r.error.empty()) {
        entries[i].error = r.error;
        entries[i].ms = INFINITY;
        continue;
      }
      samples[i].push_back(r.cost * 1e3);
      entries[i].record.spread = std::isnan(entries[i].record.spread)
                                     ? r.spread
                                     : std::max(entries[i].record.spread, r.spread);
      entries[i].record.repeats += r.repeats;
    }
  std::vector<collage::CostRecord> records;
  for (size_t i = 0; i < entries.size(); ++i) {
    GuardEntry& e = entries[i];
    if (e.stored) continue;
    if (!samples[i].empty()) e.ms = *std::min_element(samples[i].begin(), samples[i].end());
    e.record.cost = std::isinf(e.ms) ? INFINITY : e.ms * 1e-3;
    e.record.error = e.error;
    e.record.measured_at = static_cast<int64_t>(std::time(nullptr));
    records.push_back(e.record);
  }
  if (!records.empty()) {
    // Another process may have stored some first: its numbers win, so both choose alike.
    with_db([&] { db->Insert(records); });
    std::vector<bool> was_stored;
    for (const GuardEntry& e : entries) was_stored.push_back(e.stored);
    lookup();
    for (size_t i = 0; i < entries.size(); ++i) entries[i].stored = was_stored[i];
  }

  json latency = json::object(), errors = json::object(), from_db = json::array();
  size_t best = 0, best_fixed = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const GuardEntry& e = entries[i];
    if (e.stored) from_db.push_back(e.name);
    if (!e.error.empty() || !std::isfinite(e.ms)) {
      errors[e.name] = e.error.empty() ? "invalid" : e.error;
      continue;
    }
    latency[e.name] = e.ms;
    if (!(e.ms >= entries[best].ms)) best = i;
    if (i > 0 && (best_fixed == 0 || e.ms < entries[best_fixed].ms)) best_fixed = i;
  }
  json guard = {{"chosen", entries[best].name}, {"threads", threads}, {"latency_ms", latency}};
  if (best_fixed > 0) {
    guard["best_fixed"] = entries[best_fixed].name;
    guard["collage_speedup_vs_best_fixed"] = entries[best_fixed].ms / entries[0].ms;
  }
  if (!errors.empty()) guard["errors"] = errors;
  guard["from_cost_db"] = from_db;
  report["guard"] = guard;
  LogInfo("collage: guard chose '" + entries[best].name + "'");
  if (best == 0) return exe;
  if (!entries[best].exe) {
    // Known fastest from the database: built now, under the same context as above.
    Attrs config = ctx.config();
    config.Set("collage.enable", AttrValue(false));
    PassContext off = PassContext::Create(ctx.opt_level(), ctx.required_pass(), ctx.disabled_pass(),
                                          config, ctx.instruments());
    PassContext::Scope scope(off);
    entries[best].exe = Build(mod, entries[best].targets);
  }
  return entries[best].exe;
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

  // Layouts are planned (opt_level 3) before the search, so Collage measures each
  // candidate in the layouts the program will run in: the native conv's blocked layout,
  // which oneDNN's partitions take as they are, flowed through the ops between convs.
  Pass partition = Sequential(
      {InlineFunctionCalls(), InferType(), InlineComposites(), InferType(), SimplifyInference(), FoldConstant(),
       FoldScaleAxis(), SimplifyExpr(), FoldConstant(), GetPass("AlterOpLayout"), GetPass("PlanLayouts"),
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
    exe = Guard(ctx, mod, partitioned, given, build_targets, host, exe, report);
  } else {
    report["guard"] = nullptr;
  }
  exe->SetCollageReport(report.dump());
  return exe;
}

}  // namespace tessera
