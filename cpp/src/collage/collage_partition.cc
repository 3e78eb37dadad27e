// The CollagePartition pass: specs, candidates, estimation (each distinct kernel once),
// the search, and the rewrite of every partitioned function, with the JSON report.
#include "tessera/collage/collage_partition.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "tessera/backend/build.h"
#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/fingerprint.h"
#include "tessera/collage/measure.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/search.h"
#include "choice_report.h"
#include "refine.h"
#include "candidate_shaping.h"
#include "tessera/ir/printer.h"
#include "tessera/pattern/pattern_table.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/target/backend_registry.h"
#include "tessera/ir/infer_type.h"

namespace tessera::collage {

using json = nlohmann::ordered_json;

std::pair<std::string, ByocFusionStyle> ParseFusionStyle(const std::string& text) {
  size_t dot = text.rfind('.');
  if (dot == std::string::npos || dot == 0)
    TS_THROW(kValue) << "collage.byoc_fusion_style: '" << text
                     << "' is not '<library>.NoFusion', '<library>.TVMFusion' or "
                        "'<library>.ArbitraryFusion'";
  return {text.substr(0, dot),
          ParseByocFusionStyle(text.substr(dot + 1), "collage.byoc_fusion_style '" + text + "'")};
}

CollageOptions CollageOptions::FromContext(const PassContext& ctx) {
  CollageOptions o;
  auto depth = [&](const char* key) {
    int64_t v = ctx.GetConfig(key).AsInt();
    if (v < 0) TS_THROW(kValue) << key << " must be >= 0 (0: no limit), got " << v;
    return static_cast<size_t>(v);
  };
  o.native_max_depth = depth(ctx.config().Has("collage.native_max_depth") ||
                                     !ctx.config().Has("collage.tvm_max_depth")
                                 ? "collage.native_max_depth"
                                 : "collage.tvm_max_depth");
  o.byoc_max_depth = depth("collage.byoc_max_depth");
  const AttrValue styles = ctx.GetConfig("collage.byoc_fusion_style");  // outlives the loop
  for (const AttrValue& v : styles.AsArray()) {
    if (!v.is_string())
      TS_THROW(kValue) << "collage.byoc_fusion_style: entries are strings, got " << v.ToString();
    auto [library, style] = ParseFusionStyle(v.AsString());
    if (!PatternTableRegistry::Global().HasCompiler(library))
      TS_THROW(kValue) << "collage.byoc_fusion_style names '" << library
                       << "', which is not a library backend with a pattern table";
    o.fusion_styles.emplace(library, style);  // the first entry for a library wins
  }
  o.prune = ctx.GetConfigBool("collage.prune");
  o.coalesce = ctx.GetConfigBool("collage.coalesce");
  o.regions = ctx.GetConfigBool("collage.library_regions");
  o.refine = static_cast<int>(ctx.GetConfig("collage.refine").AsInt());
  o.launch_penalty_us = ctx.GetConfig("collage.launch_penalty_us").AsFloat();
  o.search = ctx.GetConfig("collage.search").AsString();
  if (o.search != "dp" && o.search != "dp+refine")
    TS_THROW(kValue) << "collage.search: unknown search '" << o.search << "' (known: dp, dp+refine)";
  o.refine_budget_s = ctx.GetConfig("collage.refine_budget_s").AsFloat();
  if (o.search != "dp+refine" && ctx.config().Has("collage.refine_budget_s"))
    LogWarn("collage.refine_budget_s is set but collage.search is '" + o.search +
            "': the budget is used only by \"dp+refine\"");
  o.estimator = ctx.GetConfig("collage.estimator").AsString();
  o.cost_db = ctx.GetConfig("collage.cost_db").AsString();
  return o;
}

namespace {


/// One run of the pass: the estimates made so far (by kernel key) and the report.
class Partitioner {
 public:
  Partitioner(std::vector<Target> targets, CostEstimatorPtr estimator, ProgressFn progress,
              CollageOptions options, MeasureOptions program_timing)
      : targets_(std::move(targets)),
        estimator_(std::move(estimator)),
        progress_(std::move(progress)),
        options_(std::move(options)),
        program_timer_(program_timing) {
    // Native winners are compiled by the first target's code generator, so every target
    // that compiles whole models must be of its kind (options may differ).
    std::string kind;
    for (const Target& t : targets_) {
      if (!CompilesWholeModels(t.kind())) continue;
      if (kind.empty()) kind = t.kind();
      if (t.kind() != kind)
        TS_THROW(kValue) << "collage: targets that compile whole models must be of one kind, got '"
                         << kind << "' and '" << t.kind() << "' (offer libraries with "
                         << "-compiler=/-libs= or as targets of their own)";
    }
    SpecOptions so;
    so.native_max_depth = options_.native_max_depth;
    so.byoc_max_depth = options_.byoc_max_depth;
    so.fusion_styles = options_.fusion_styles;
    specs_ = WithOpaqueSingles(GatherPartitionSpecs(targets_, so));
    cost_model_ = estimator_->cost_model();
    // Kernel costs are stored when the estimator's are worth keeping; program times
    // (the refinement's) always are.
    if (!options_.cost_db.empty() && (!cost_model_.empty() || options_.search == "dp+refine")) {
      try {
        db_ = OpenCostDatabase(options_.cost_db);
      } catch (const Error& e) {
        // The default place may be unwritable (a read-only home); a path the user gave
        // must work.
        if (options_.cost_db != "auto") throw;
        LogWarn(std::string("collage: no cost database: ") + e.what());
      }
    }
    report_["estimator"] = estimator_->name();
    report_["cost_db"] = db_ ? json(db_->path()) : json(nullptr);
    if (const auto* m = dynamic_cast<const MeasuringCostEstimator*>(estimator_.get()))
      report_["measure"] = {{"repeat", m->options().repeat},
                            {"number", m->options().number},
                            {"percentile", m->options().percentile},
                            {"flush_cache", m->options().flush_cache},
                            {"isolate", m->options().isolate},
                            {"timeout_s", m->options().timeout_s},
                            {"check_finite", m->options().check_finite},
                            {"runner", m->options().runner}};
    report_["targets"] = json::array();
    for (const Target& t : targets_) report_["targets"].push_back(t.ToString());
    report_["specs"] = json::array();
    for (const PartitionSpecPtr& s : specs_) {
      report_["specs"].push_back(s->name);
      if (s->name == "host") continue;
      double penalty = options_.launch_penalty_us >= 0 ? options_.launch_penalty_us * 1e-6
                                                       : LaunchPenalty(s->target);
      penalty_[s->name] = penalty;
      report_["launch_penalty_us"][s->name] = penalty * 1e6;
    }
    report_["launch_penalty_source"] = options_.launch_penalty_us >= 0 ? "collage.launch_penalty_us"
                                                                       : "estimator";
    report_["functions"] = json::array();
  }

  /// The partitioned module. With collage.refine and a measuring estimator, the chosen
  /// program is then built and profiled, every backend's costs are scaled by how much
  /// slower (or faster) its kernels ran in the program than alone, and the search runs
  /// again on the same measurements; the faster program end to end is kept.
  IRModule Run(const IRModule& input) {
    auto start = std::chrono::steady_clock::now();
    IRModule best = Once(input);
    json best_report = report_;
    auto* measuring = dynamic_cast<MeasuringCostEstimator*>(estimator_.get());
    if (options_.refine > 0 && measuring) {
      std::map<std::string, double> in_model;
      double best_ms = ProgramTime(best, in_model);
      json log = json::array();
      log.push_back({{"round", 0}, {"scale", json::object()}, {"measured_ms", best_ms}});
      for (int round = 1; round <= options_.refine; ++round) {
        std::map<std::string, double> estimated;  // raw kernel costs by backend, ms
        for (const json& f : report_["functions"])
          for (const json& k : f["kernels"])
            if (k["cost_us"].get<double>() >= 0)
              estimated[k["backend"].get<std::string>()] += k["cost_us"].get<double>() * 1e-3;
        json scale = json::object();
        for (const auto& [backend, ms] : estimated) {
          auto it = in_model.find(backend);
          if (it == in_model.end() || ms <= 0) continue;
          scale_[backend] = std::clamp(it->second / ms, 0.25, 4.0);
          scale[backend] = scale_[backend];
        }
        IRModule next = Once(input);
        std::map<std::string, double> next_in_model;
        double ms = ProgramTime(next, next_in_model);
        log.push_back({{"round", round}, {"scale", scale}, {"measured_ms", ms}});
        LogInfo("collage: refinement round " + std::to_string(round) + ": " +
                std::to_string(ms) + " ms (before: " + std::to_string(best_ms) + " ms)");
        if (ms >= best_ms) break;
        best = next;
        best_ms = ms;
        best_report = report_;
        in_model = std::move(next_in_model);
      }
      best_report["calibration"] = log;
    } else if (options_.refine > 0) {
      best_report["calibration"] = "skipped: collage.refine needs the measuring estimator";
    }
    if (options_.search == "dp+refine") {
      report_ = best_report;
      best = Refine(best);
      best_report = report_;
    }
    if (const auto* m = dynamic_cast<const MeasuringCostEstimator*>(estimator_.get()))
      best_report["measure"]["workers_started"] = m->worker_starts();
    best_report["search_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return best.WithAttr("collage.report", AttrValue(best_report.dump()));
  }

 private:
  /// One search over every function with the current cost scales; fills report_.
  IRModule Once(const IRModule& input) {
    typed_ = InferTypes(input);
    num_candidates_ = 0;
    report_["scale"] = scale_;
    std::map<std::string, std::vector<size_t>> winners;
    for (const auto& [name, base] : typed_.functions()) {
      const auto* fn = base.as<FunctionNode>();
      if (!fn || GetIntAttr(fn, attr::kPrimitive) != 0 || fn->attrs.Has(attr::kCompiler) ||
          GetIntAttr(fn, attr::kSkipOptimization) != 0)
        continue;
      winners[name] = Plan(name, Function(fn));
    }
    winners_ = winners;
    return Assemble(winners);
  }

  /// The module with every planned function rewritten with `winners` (candidate indexes
  /// into its plan); fills report_'s functions and totals.
  IRModule Assemble(const std::map<std::string, std::vector<size_t>>& winners) {
    IRModule mod = typed_;
    report_["functions"] = json::array();
    NameSupply names("collage");
    for (const auto& [name, chosen] : winners) mod = mod.WithFunction(name, Realize(name, chosen, names));
    std::map<std::string, std::string> renamed;
    mod = OutlineCompilerFunctions(mod, names, &renamed);
    double total = 0;
    for (json& f : report_["functions"]) {
      for (json& k : f["kernels"]) {
        std::string n = k["name"].get<std::string>();
        if (renamed.count(n)) k["name"] = renamed[n];
      }
      total += f["estimated_total_us"].get<double>();
    }
    report_["estimated_total_us"] = total;
    report_["candidates"] = num_candidates_;
    report_["estimated"] = keys_.size();
    report_["from_cost_db"] = from_db_;
    report_["measured"] = measured_;
    return mod;
  }

  /// The graph-level refinement of the search's cover (winners_, which gave `searched`):
  /// RefineCover with every cover assembled and timed end to end (ProgramMs).
  IRModule Refine(const IRModule& searched) {
    std::map<std::string, RefineFunction> functions;
    for (const auto& [name, plan] : plans_) functions[name] = RefineFunction{&plan.cands, &plan.edge};
    json searched_report = report_;
    CoverTimer time = [&](const Cover& cover, bool fresh, std::string* why) {
      try {
        return ProgramMs(Assemble(cover), why, /*use_db=*/!fresh);
      } catch (const Error& e) {
        *why = e.what();  // e.g. the two kernels of a merge would depend on each other
        return static_cast<double>(INFINITY);
      }
    };
    RefineResult r = RefineCover(functions, winners_, time, options_.refine_budget_s);
    LogInfo("collage: refinement evaluated " + r.summary.value("evaluated", json(0)).dump() +
            " cover(s) in " + r.summary.value("seconds", json(0)).dump() + " s, " +
            std::to_string(r.summary.value("changes", json::array()).size()) + " change(s)");
    IRModule best = searched;
    if (r.summary.value("changes", json::array()).empty()) {
      report_ = searched_report;
    } else {
      best = Assemble(r.cover);
      winners_ = r.cover;
    }
    report_["refinement"] = r.summary;
    return best;
  }

  /// Milliseconds per run of partitioned module `mod` built for the targets, timed in the
  /// measurement worker (+inf with `why` when it cannot be built or run), through the
  /// cost database unless `use_db` is false.
  double ProgramMs(const IRModule& mod, std::string* why, bool use_db = true) {
    std::vector<Target> targets{HostTarget(targets_)};
    for (const PartitionSpecPtr& s : specs_)
      if (!s->compiler.empty()) targets.push_back(s->target);
    std::string joined;
    for (const Target& t : targets) joined += (joined.empty() ? "" : ";") + t.ToString();
    PrintOptions print;
    print.show_meta_data = false;
    print.meta_shapes_only = true;
    std::string text = PrintModule(mod.WithAttr("collage.report", AttrValue("")), print);
    CostRecord record;
    std::string fingerprint_text = MachineFingerprint(targets);
    record.key = CostKey{text, joined, FingerprintHash(fingerprint_text),
                         "refine/1 " + program_timer_.cost_model(), ""};
    record.kind = "program";
    record.label = "refinement";
    if (use_db && db_) {
      std::vector<std::optional<CostRecord>> found(1);
      WithDatabase([&] { found = db_->Lookup({record.key}); });
      if (found[0]) {
        *why = found[0]->error;
        return std::isfinite(found[0]->cost) ? found[0]->cost * 1e3 : INFINITY;
      }
    }
    EstimateResult r;
    try {
      auto exe = BuildLowered(LowerModuleToTIR(mod), targets);
      r = program_timer_.TimeCandidate(exe, MeasureThreads(targets.front()), targets);
    } catch (const Error& e) {
      r.cost = kInvalidCost;
      r.error = std::string("build failed: ") + e.what();
    }
    Fill(record, r);
    if (use_db && db_)
      WithDatabase([&] {
        db_->AddFingerprint(record.key.fingerprint, fingerprint_text);
        db_->Insert({record});
      });
    *why = r.error;
    return std::isfinite(r.cost) ? r.cost * 1e3 : INFINITY;
  }

  /// Median ms per run of the partitioned program, and the ms per run its kernels of each
  /// backend (module kind) took, from a profile.
  double ProgramTime(const IRModule& mod,
                     std::map<std::string, double>& by_backend) {
    std::vector<Target> targets{HostTarget(targets_)};
    for (const PartitionSpecPtr& s : specs_)
      if (!s->compiler.empty()) targets.push_back(s->target);
    auto exe = BuildLowered(LowerModuleToTIR(mod), targets);
    runtime::ExecutorOptions eo;
    eo.num_threads = MeasureThreads(targets.front());
    runtime::Executor executor(exe, eo);
    auto inputs = runtime::RandomInputs(*exe);
    const int repeat = 5;
    runtime::ProfileReport profile = executor.Profile(inputs, repeat);
    for (const runtime::ProfileRow& row : profile.rows)
      by_backend[row.module_kind] += row.total_ms / repeat;
    return executor.Benchmark(inputs, 2, 10).median_ms;
  }

 private:
  /// A function's candidates, their estimates and the search's choice.
  struct FunctionPlan {
    std::unique_ptr<DataflowGraph> graph;  // candidates point into it: never moved
    std::vector<CandidatePartition> cands;
    std::vector<std::string> reasons;
    std::vector<double> edge;
  };

  /// Gathers and estimates `func`'s candidates into plans_[fname]; returns the winners.
  std::vector<size_t> Plan(const std::string& fname, const Function& func) {
    FunctionPlan& plan = plans_[fname];
    plan.graph = std::make_unique<DataflowGraph>(func);
    const DataflowGraph& graph = *plan.graph;
    std::vector<CandidatePartition>& cands = plan.cands;
    cands.clear();
    for (const PartitionSpecPtr& spec : specs_)
      for (CandidatePartition& c : PartitionSpec::AllCandidates(spec, graph))
        cands.push_back(std::move(c));
    std::sort(cands.begin(), cands.end());
    cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
    if (options_.prune) cands = Prune(std::move(cands));
    if (options_.regions) AddLibraryRegions(graph, cands);
    for (const PartitionSpecPtr& s : specs_)
      if (s->name == "host") AddPremadeKernels(graph, s, cands);
    num_candidates_ += cands.size();
    LogDebug("collage: @" + fname + ": " + std::to_string(cands.size()) + " candidates");

    plan.reasons.assign(cands.size(), "");
    Estimate(graph, cands, plan.reasons);
    plan.edge.assign(cands.size(), 0.0);
    for (size_t i = 0; i < cands.size(); ++i)
      plan.edge[i] =
          IsHost(cands[i]) ? 0.0 : cands[i].cost * Scale(cands[i]) + penalty_[cands[i].spec_name()];
    std::vector<std::string> spec_names;
    for (const PartitionSpecPtr& s : specs_) spec_names.push_back(s->name);
    return SearchCheapestCover(graph, cands, plan.edge, plan.reasons, spec_names);
  }

  /// Function `fname` rewritten with the candidates `winners` of its plan.
  Function Realize(const std::string& fname, const std::vector<size_t>& winners, NameSupply& names) {
    const FunctionPlan& plan = plans_.at(fname);
    const DataflowGraph& graph = *plan.graph;
    const std::vector<CandidatePartition>& cands = plan.cands;
    // Library winners that touch merge into one partition (fewer transitions).
    std::vector<CandidatePartition> libs;
    std::vector<NestedSubGraph> nested;
    for (size_t w : winners) {
      const CandidatePartition& c = cands[w];
      if (IsHost(c)) continue;
      if (IsLibrary(c))
        libs.push_back(c);
      else
        nested.push_back(NestedSubGraph{SubGraph(graph, c.sub_graph.inside()),
                                        Attrs{{attr::kPrimitive, AttrValue(int64_t{1})}}});
    }
    std::vector<std::pair<IndexSet, std::string>> lib_names;
    if (options_.coalesce) libs = MaxCoalesce(graph, libs);
    for (const CandidatePartition& c : libs) {
      for (const NestedSubGraph& n : c.sub_graph.nested_sub_graphs()) {
        std::string name = names.Fresh({c.spec->compiler, ShortLabel(n.sub_graph.label())});
        nested.push_back(NestedSubGraph{n.sub_graph, n.attrs.With(attr::kGlobalSymbol, name)});
        lib_names.emplace_back(n.sub_graph.inside(), name);
      }
    }
    Function rewritten = ParallelRewrite(graph, nested);
    report_["functions"].push_back(
        DescribeChoice(fname, graph, cands, plan.edge, plan.reasons, winners, lib_names, penalty_));
    return rewritten;
  }

  /// The factor a candidate's cost is scaled by (1 until a refinement round sets it).
  double Scale(const CandidatePartition& c) const {
    auto it = scale_.find(c.spec->target.kind());
    return it == scale_.end() ? 1.0 : it->second;
  }

  /// Fills every candidate's cost: host ones are free, the others estimated once per
  /// distinct (kernel module text without constant data, target).
  void Estimate(const DataflowGraph& graph, std::vector<CandidatePartition>& cands,
                std::vector<std::string>& reasons) {
    std::vector<std::string> key_of(cands.size());
    std::vector<EstimateRequest> requests;
    std::vector<std::string> request_keys;
    std::vector<CostRecord> records;  // what each request is stored under
    PrintOptions print;
    print.show_meta_data = false;
    print.meta_shapes_only = true;
    for (size_t i = 0; i < cands.size(); ++i) {
      CandidatePartition& c = cands[i];
      if (IsHost(c)) {
        c.cost = 0.0;
        continue;
      }
      IRModule mod;
      try {
        mod = CandidateModule(graph, c);
        if (c.spec->validator)
          if (auto why = c.spec->validator(mod.LookupFunction("main")))
            TS_THROW(kValue) << "rejected by the spec's validator: " << *why;
      } catch (const Error& e) {
        c.cost = kInvalidCost;
        reasons[i] = e.what();
        continue;
      }
      std::string text = PrintModule(mod, print);
      std::string key = c.spec->target.ToString() + "\n" + text;
      key_of[i] = key;
      if (keys_.count(key)) continue;
      keys_.emplace(key, EstimateResult{});
      requests.push_back(EstimateRequest{mod, c.spec->target});
      request_keys.push_back(key);
      CostRecord record;
      record.key = CostKey{text, c.spec->target.ToString(), "", cost_model_, ""};
      record.label = c.spec_name() + ":" + c.sub_graph.label();
      records.push_back(std::move(record));
    }
    if (requests.empty()) {
      // every kernel was estimated for an earlier function
    } else if (db_ && !cost_model_.empty()) {
      for (size_t r = 0; r < records.size(); ++r)
        records[r].key.fingerprint = Fingerprint(requests[r].target);
      std::vector<size_t> missing = FromDatabase(records, request_keys);
      std::vector<EstimateRequest> to_measure;
      for (size_t m : missing) to_measure.push_back(requests[m]);
      std::vector<EstimateResult> results = Measure(to_measure);
      std::vector<CostRecord> measured;
      for (size_t j = 0; j < missing.size(); ++j) {
        CostRecord r = records[missing[j]];
        Fill(r, results[j]);
        measured.push_back(std::move(r));
        keys_[request_keys[missing[j]]] = results[j];
      }
      // Another process may have stored some of these first: its numbers win, so that
      // concurrent builds choose alike.
      WithDatabase([&] { db_->Insert(measured); });
      std::vector<std::string> measured_keys;
      for (size_t m : missing) measured_keys.push_back(request_keys[m]);
      std::vector<CostRecord> again;
      for (size_t m : missing) again.push_back(records[m]);
      FromDatabase(again, measured_keys, /*count=*/false);
    } else {
      std::vector<EstimateResult> results = Measure(requests);
      for (size_t r = 0; r < results.size(); ++r) keys_[request_keys[r]] = results[r];
    }
    for (size_t i = 0; i < cands.size(); ++i) {
      if (key_of[i].empty()) continue;
      const EstimateResult& r = keys_.at(key_of[i]);
      cands[i].cost = r.cost;
      if (!r.error.empty()) reasons[i] = r.error;
    }
  }

  /// Runs the estimator on `requests` (none: nothing).
  std::vector<EstimateResult> Measure(const std::vector<EstimateRequest>& requests) {
    if (requests.empty()) return {};
    LogInfo("collage: estimating " + std::to_string(requests.size()) + " distinct kernels with '" +
            estimator_->name() + "'");
    measured_ += requests.size();
    return estimator_->EstimateAll(requests, progress_);
  }

  /// Sets keys_[keys[i]] from the database where it has records[i]'s key; returns the
  /// indexes it has not (all of them when the database fails).
  std::vector<size_t> FromDatabase(const std::vector<CostRecord>& records,
                                   const std::vector<std::string>& keys, bool count = true) {
    std::vector<size_t> missing;
    std::vector<CostKey> lookup;
    for (const CostRecord& r : records) lookup.push_back(r.key);
    std::vector<std::optional<CostRecord>> found(records.size());
    WithDatabase([&] { found = db_->Lookup(lookup); });
    for (size_t i = 0; i < records.size(); ++i) {
      if (!found[i]) {
        missing.push_back(i);
        continue;
      }
      EstimateResult& r = keys_[keys[i]];
      r.cost = found[i]->cost;
      r.error = found[i]->error;
      r.spread = found[i]->spread;
      r.repeats = static_cast<int>(found[i]->repeats);
      if (count) ++from_db_;
    }
    if (count && records.size() > missing.size())
      LogInfo("collage: " + std::to_string(records.size() - missing.size()) +
              " kernel cost(s) from the cost database");
    return missing;
  }

  /// `record` with the numbers of `result`, stamped now.
  static void Fill(CostRecord& record, const EstimateResult& result) {
    record.cost = result.cost;
    record.error = result.error;
    record.spread = result.spread;
    record.repeats = result.repeats;
    record.measured_at = static_cast<int64_t>(std::time(nullptr));
  }

  /// Runs `f` on the database; a failure turns the database off for the rest of the run.
  template <typename F>
  void WithDatabase(F f) {
    if (!db_) return;
    try {
      f();
    } catch (const Error& e) {
      LogWarn(std::string("collage: the cost database failed; going on without it: ") + e.what());
      db_ = nullptr;
    }
  }

  /// The fingerprint hash of measuring for `target` (its text stored in the database).
  std::string Fingerprint(const Target& target) {
    std::string key = target.ToString();
    auto it = fingerprints_.find(key);
    if (it != fingerprints_.end()) return it->second;
    std::string text = MachineFingerprint({target});
    std::string hash = FingerprintHash(text);
    WithDatabase([&] { db_->AddFingerprint(hash, text); });
    return fingerprints_[key] = hash;
  }

  /// The estimator's launch penalty on `target`, through the cost database.
  double LaunchPenalty(const Target& target) {
    if (!db_ || cost_model_.empty()) return estimator_->LaunchPenalty(target);
    CostRecord r;
    r.key = CostKey{"launch penalty", target.ToString(), Fingerprint(target), cost_model_, ""};
    r.kind = "launch";
    r.label = "launch penalty";
    std::vector<std::optional<CostRecord>> found(1);
    WithDatabase([&] { found = db_->Lookup({r.key}); });
    if (found[0] && std::isfinite(found[0]->cost)) return found[0]->cost;
    r.cost = estimator_->LaunchPenalty(target);
    r.measured_at = static_cast<int64_t>(std::time(nullptr));
    WithDatabase([&] {
      db_->Insert({r});
      found = db_->Lookup({r.key});
    });
    return found[0] && std::isfinite(found[0]->cost) ? found[0]->cost : r.cost;
  }

  std::vector<Target> targets_;
  CostEstimatorPtr estimator_;
  ProgressFn progress_;
  CollageOptions options_;
  std::vector<PartitionSpecPtr> specs_;
  std::map<std::string, double> penalty_;
  std::map<std::string, double> scale_;  // by backend kind: in-program / alone (refinement)
  std::map<std::string, EstimateResult> keys_;
  IRModule typed_;                              // the input, type-inferred
  std::map<std::string, std::vector<size_t>> winners_;  // the search's cover per function
  MeasuringCostEstimator program_timer_;        // times whole programs (refinement)
  std::map<std::string, FunctionPlan> plans_;  // by function name
  std::string cost_model_;                          // "" : the estimator's costs are not stored
  std::shared_ptr<CostDatabase> db_;                // null: no database
  std::map<std::string, std::string> fingerprints_;  // hash by target string
  size_t from_db_ = 0, measured_ = 0;
  size_t num_candidates_ = 0;
  json report_;
};

}  // namespace

Pass CollagePartition(std::vector<Target> targets, CostEstimatorPtr estimator, ProgressFn progress) {
  if (targets.empty()) TS_THROW(kValue) << "CollagePartition needs at least one target";
  return CreateModulePass(
      [targets, estimator, progress](IRModule mod, const PassContext& ctx) {
        CollageOptions options = CollageOptions::FromContext(ctx);
        CostEstimatorPtr est = estimator ? estimator : GetCostEstimator(options.estimator);
        // Whole programs are timed warm (a model runs after itself) with enough samples.
        MeasureOptions programs = MeasureOptions::FromContext(ctx);
        programs.flush_cache = false;
        programs.repeat = std::max(programs.repeat, 10);
        return Partitioner(targets, est, progress ? progress : DefaultProgress(), options, programs)
            .Run(mod);
      },
      PassInfo{"CollagePartition", 0, {}});
}

}  // namespace tessera::collage
