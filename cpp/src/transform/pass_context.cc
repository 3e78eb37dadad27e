// PassContext: validated config, the thread-local context stack, and the instrument
// protocol with TVM's exception semantics.
#include "tessera/transform/pass_context.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>

#include "tessera/support/error.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_instrument.h"

namespace tessera {

namespace {

struct ConfigRegistry {
  std::mutex mutex;
  std::map<std::string, ConfigOption> options;  // ordered: ListConfigs is sorted
};

ConfigRegistry& Configs() {
  static ConfigRegistry* registry = [] {
    auto* r = new ConfigRegistry();
    auto add = [&](const char* key, AttrValue::Kind kind, AttrValue def, const char* desc,
                   std::function<void(const AttrValue&)> validate = nullptr) {
      r->options[key] = ConfigOption{key, kind, std::move(def), desc, std::move(validate)};
    };
    // Built-in keys, registered here (not by static constructors) so the list is complete
    // as soon as anyone asks.
    add("collage.enable", AttrValue::Kind::kBool, false,
        "build: partition the model across the targets' backends by measured latency "
        "(Collage) instead of FuseOps and the libraries' classic partitioning");
    auto at_least = [](int64_t low) {
      return [low](const AttrValue& v) {
        if (v.AsInt() < low) TS_THROW(kValue) << "must be >= " << low << ", got " << v.AsInt();
      };
    };
    add("collage.native_max_depth", AttrValue::Kind::kInt, int64_t{8},
        "Collage: most ops on a path through one native kernel (0: no limit)", at_least(0));
    add("collage.tvm_max_depth", AttrValue::Kind::kInt, int64_t{8},
        "Collage: TVM's name for collage.native_max_depth (used when that is not set)",
        at_least(0));
    add("collage.byoc_max_depth", AttrValue::Kind::kInt, int64_t{8},
        "Collage: most ops on a path through one library kernel (0: no limit)", at_least(0));
    add("collage.byoc_fusion_style", AttrValue::Kind::kArray, std::vector<AttrValue>{},
        "Collage: per library, how far its candidates grow: \"<library>.NoFusion\", "
        "\"<library>.TVMFusion\" or \"<library>.ArbitraryFusion\" (the default)",
        [](const AttrValue& v) {
          for (const AttrValue& item : v.AsArray()) {
            std::string s = item.is_string() ? item.AsString() : "";
            size_t dot = s.rfind('.');
            std::string style = dot == std::string::npos ? "" : s.substr(dot + 1);
            if (dot == 0 || (style != "NoFusion" && style != "TVMFusion" &&
                             style != "ArbitraryFusion"))
              TS_THROW(kValue) << "entry " << item.ToString()
                               << " is not \"<library>.NoFusion|TVMFusion|ArbitraryFusion\"";
          }
        });
    add("collage.prune", AttrValue::Kind::kBool, false,
        "Collage: keep only maximal candidates before estimating (TVM's heuristic)");
    add("collage.coalesce", AttrValue::Kind::kBool, true,
        "Collage: merge touching winners of one library into one partition (TVM's MaxCoalesce)");
    add("collage.library_regions", AttrValue::Kind::kBool, true,
        "Collage: also measure each library's largest regions (its candidates merged where "
        "they touch, as its classic partitioning makes them) as candidates");
    add("collage.refine", AttrValue::Kind::kInt, int64_t{0},
        "Collage: calibration rounds: build the chosen program, scale every backend's costs "
        "by how its kernels ran there against alone, search again, keep the faster (0: off; "
        "needs the measuring estimator)",
        at_least(0));
    add("collage.launch_penalty_us", AttrValue::Kind::kFloat, -1.0,
        "Collage: microseconds added per kernel launch (negative: measured per target)",
        [](const AttrValue& v) {
          if (!std::isfinite(v.AsFloat()))
            TS_THROW(kValue) << "must be a finite number of microseconds, got " << v.AsFloat();
        });
    add("collage.search", AttrValue::Kind::kString, "dp",
        "Collage: the search (\"dp\": Dijkstra over covered node sets; \"dp+refine\": then "
        "covers near it built and timed end to end within collage.refine_budget_s)",
        [](const AttrValue& v) {
          if (v.AsString() != "dp" && v.AsString() != "dp+refine")
            TS_THROW(kValue) << "unknown search '" << v.AsString() << "' (known: dp, dp+refine)";
        });
    add("collage.refine_budget_s", AttrValue::Kind::kFloat, 60.0,
        "Collage: seconds the dp+refine search may spend building and timing covers",
        [](const AttrValue& v) {
          if (!(v.AsFloat() >= 0) || !std::isfinite(v.AsFloat()))
            TS_THROW(kValue) << "must be a finite number >= 0, got " << v.AsFloat();
        });
    add("collage.estimator", AttrValue::Kind::kString, "measure",
        "Collage: the cost estimator: \"measure\" (build and time each candidate) or a "
        "name registered with collage.register_estimator");
    add("collage.measure_repeat", AttrValue::Kind::kInt, int64_t{5},
        "Collage: timed samples per candidate (at least 9 with collage.measure_flush_cache, "
        "whose single cold runs are noisier)",
        at_least(1));
    add("collage.measure_number", AttrValue::Kind::kInt, int64_t{0},
        "Collage: runs per sample (0: enough for about 1 ms)", at_least(0));
    add("collage.measure_percentile", AttrValue::Kind::kFloat, 50.0,
        "Collage: the percentile of the samples taken as the cost (50: median)",
        [](const AttrValue& v) {
          if (!(v.AsFloat() >= 0 && v.AsFloat() <= 100))
            TS_THROW(kValue) << "must be in [0, 100], got " << v.AsFloat();
        });
    add("collage.measure_flush_cache", AttrValue::Kind::kBool, true,
        "Collage: evict the caches before every timed run of a candidate (as in a model, "
        "where weights and inputs come from memory)");
    add("collage.measure_isolate", AttrValue::Kind::kBool, true,
        "Collage: time candidates in a worker process (tessera-measure-worker), so one that "
        "crashes or hangs is marked invalid and the search goes on");
    add("collage.measure_timeout_s", AttrValue::Kind::kFloat, 60.0,
        "Collage: seconds a candidate may take in the worker before it is killed and marked "
        "invalid",
        [](const AttrValue& v) {
          if (!(v.AsFloat() > 0) || !std::isfinite(v.AsFloat()))
            TS_THROW(kValue) << "must be a finite number > 0, got " << v.AsFloat();
        });
    add("collage.measure_check_finite", AttrValue::Kind::kBool, true,
        "Collage: a candidate whose outputs hold NaN or infinity on random inputs in [-1, 1] "
        "is invalid");
    add("collage.runner", AttrValue::Kind::kString, "local",
        "Collage: where candidates are timed: \"local\" (a worker process here) or "
        "\"dask://HOST:PORT\" (the scheduler tcp://HOST:PORT of a Dask cluster, whose "
        "workers with this machine's fingerprint measure)",
        [](const AttrValue& v) {
          const std::string& r = v.AsString();
          size_t colon = r.rfind(':');
          size_t scheme = r.rfind("dask://", 0) == 0 || r.rfind("tcp://", 0) == 0 ? r.find("//") + 2 : 0;
          bool dask = scheme > 0 && colon != std::string::npos && colon > scheme &&
                      colon + 1 < r.size() && colon + 6 >= r.size() &&
                      r.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                      std::atoi(r.c_str() + colon + 1) <= 65535;
          if (r != "local" && !dask)
            TS_THROW(kValue) << "expected \"local\" or \"dask://HOST:PORT\" (or tcp://HOST:PORT), "
                             << "got '" << r << "'";
        });
    add("collage.guard", AttrValue::Kind::kBool, true,
        "Collage: time the chosen partition end to end against native-only and each "
        "library's classic partitioning, and keep the fastest (with the measuring "
        "estimator; a custom estimator's choice is kept)");
    add("collage.cost_db", AttrValue::Kind::kString, "auto",
        "Collage: the SQLite file measured costs are kept in and reused from (\"auto\": "
        "collage.db in $TESSERA_CACHE_DIR, else ~/.cache/tessera; \"\": none)");
    add("native.winograd", AttrValue::Kind::kBool, true,
        "lowering to TIR (native and interp backends): 3x3 stride-1 float32 convolutions "
        "with constant weights and channel-blocked outputs use Winograd F(2x2, 3x3) where it "
        "is faster (false: always the direct template, whose rounding differs slightly)");
    add("testing.immutable_module", AttrValue::Kind::kBool, false,
        "fail a pass that changes its input module in place (structural hash check)");
    return r;
  }();
  return *registry;
}

/// Releases one node so Object::Destroy's thread_local queue exists before the stack
/// below: thread_locals die in reverse order of construction, so the queue then outlives
/// the stack, whose destructor releases contexts at thread exit.
struct DestroyQueueWarmUp {
  DestroyQueueWarmUp() { Ref<PassContextNode> node = MakeNode<PassContextNode>(); }
};

struct ContextStack {
  DestroyQueueWarmUp warm_up;  // first member: constructed first, destroyed last
  std::vector<PassContext> stack;
  PassContext default_context = PassContext::Create();
};

ContextStack& ThreadStack() {
  thread_local ContextStack stack;
  return stack;
}

}  // namespace

const char* AttrKindName(AttrValue::Kind kind) {
  switch (kind) {
    case AttrValue::Kind::kNone:
      return "None";
    case AttrValue::Kind::kBool:
      return "bool";
    case AttrValue::Kind::kInt:
      return "int";
    case AttrValue::Kind::kFloat:
      return "float";
    case AttrValue::Kind::kString:
      return "string";
    case AttrValue::Kind::kArray:
      return "array";
  }
  return "?";
}

std::string KindWithArticle(AttrValue::Kind kind) {
  bool vowel = kind == AttrValue::Kind::kInt || kind == AttrValue::Kind::kArray;
  return std::string(vowel ? "an " : "a ") + AttrKindName(kind);
}

void RegisterConfigOption(const std::string& key, AttrValue::Kind kind, AttrValue default_value,
                          const std::string& description) {
  ConfigRegistry& reg = Configs();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto it = reg.options.find(key);
  if (it != reg.options.end()) {
    TS_ICHECK(it->second.kind == kind && it->second.default_value == default_value)
        << "config option '" << key << "' registered twice with different definitions";
    return;
  }
  reg.options[key] = ConfigOption{key, kind, std::move(default_value), description, nullptr};
}

std::vector<ConfigOption> ListConfigs() {
  ConfigRegistry& reg = Configs();
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::vector<ConfigOption> out;
  for (const auto& [key, option] : reg.options) out.push_back(option);
  return out;
}

/// The registered option for `key`; throws listing the valid keys.
static ConfigOption FindConfig(const std::string& key) {
  {
    // Every pass run reads testing.immutable_module: look up without copying the table.
    ConfigRegistry& reg = Configs();
    std::lock_guard<std::mutex> lock(reg.mutex);
    auto it = reg.options.find(key);
    if (it != reg.options.end()) return it->second;
  }
  std::string valid;
  for (const ConfigOption& option : ListConfigs())
    valid += (valid.empty() ? "" : ", ") + option.key;
  TS_THROW(kNotFound) << "invalid config option '" << key << "' (valid keys: " << valid << ")";
}

/// `value` checked against registered config `key` (ints widen to floats).
static AttrValue CheckedConfig(const std::string& key, const AttrValue& value) {
  ConfigOption option = FindConfig(key);
  AttrValue v = value;
  if (v.is_none())
    TS_THROW(kValue) << "config option '" << key << "' is None (expects "
                     << KindWithArticle(option.kind) << " value)";
  if (option.kind == AttrValue::Kind::kFloat && v.is_int()) v = AttrValue(v.AsFloat());
  if (v.kind() != option.kind)
    TS_THROW(kType) << "config option '" << key << "' expects " << KindWithArticle(option.kind)
                    << " value, got " << AttrKindName(v.kind()) << " " << v.ToString();
  if (option.validate) {
    try {
      option.validate(v);
    } catch (const Error& e) {
      TS_THROW(kValue) << "config option '" << key << "': " << e.what();
    }
  }
  return v;
}

PassContext PassContext::Create(int opt_level, std::vector<std::string> required_pass,
                                std::vector<std::string> disabled_pass, const Attrs& config,
                                std::vector<std::shared_ptr<PassInstrument>> instruments) {
  // Passes declare opt levels 0 to 4; a level outside them would silently run all or none.
  if (opt_level < 0 || opt_level > 4)
    TS_THROW(kValue) << "PassContext: opt_level must be from 0 to 4, got " << opt_level;
  auto node = MakeNode<PassContextNode>();
  node->opt_level = opt_level;
  node->required_pass = std::move(required_pass);
  node->disabled_pass = std::move(disabled_pass);
  for (const auto& [key, value] : config.items()) node->config.Set(key, CheckedConfig(key, value));
  for (const auto& inst : instruments)
    if (!inst) TS_THROW(kValue) << "null pass instrument";
  node->instruments = std::move(instruments);
  return PassContext(std::move(node));
}

void PassContext::SetConfig(const std::string& key, const AttrValue& value) const {
  node_->config.Set(key, CheckedConfig(key, value));
}

PassContext PassContext::Current() {
  ContextStack& s = ThreadStack();
  return s.stack.empty() ? s.default_context : s.stack.back();
}

AttrValue PassContext::GetConfig(const std::string& key) const {
  if (const AttrValue* v = node_->config.Find(key)) return *v;
  return FindConfig(key).default_value;
}

bool PassContext::PassEnabled(const PassInfo& info) const {
  auto contains = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  if (contains(node_->disabled_pass, info.name)) return false;
  if (contains(node_->required_pass, info.name)) return true;
  return node_->opt_level >= info.opt_level;
}

/// Calls enter hooks in order; on failure, exits the entered ones in reverse, clears the
/// list and rethrows.
static void EnterInstruments(PassContextNode* node) {
  size_t entered = 0;
  try {
    for (; entered < node->instruments.size(); ++entered)
      node->instruments[entered]->EnterPassContext();
  } catch (...) {
    for (size_t i = entered; i-- > 0;) {
      try {
        node->instruments[i]->ExitPassContext();
      } catch (...) {
        // The enter failure is the error to report; a failing cleanup must not hide it.
      }
    }
    node->instruments.clear();
    throw;
  }
}

/// Calls exit hooks in order; on failure the rest are skipped, the list cleared, rethrow.
static void ExitInstruments(PassContextNode* node) {
  try {
    for (const auto& inst : node->instruments) inst->ExitPassContext();
  } catch (...) {
    node->instruments.clear();
    throw;
  }
}

void PassContext::OverrideInstruments(
    std::vector<std::shared_ptr<PassInstrument>> instruments) const {
  for (const auto& inst : instruments)
    if (!inst) TS_THROW(kValue) << "null pass instrument";
  ExitInstruments(node_.get());
  node_->instruments = std::move(instruments);
  EnterInstruments(node_.get());
}

void PassContext::EnterWithScope() const {
  EnterInstruments(node_.get());
  ThreadStack().stack.push_back(*this);
}

void PassContext::ExitWithScope() const {
  ContextStack& s = ThreadStack();
  if (s.stack.empty() || !s.stack.back().same_as(*this))
    TS_THROW(kValue) << "exiting a pass context that is not the innermost one";
  s.stack.pop_back();
  ExitInstruments(node_.get());
}

PassContext::Scope::Scope(PassContext ctx)
    : ctx_(std::move(ctx)), uncaught_(std::uncaught_exceptions()) {
  ctx_.EnterWithScope();
}

PassContext::Scope::~Scope() noexcept(false) {
  // Do not throw from exit hooks while an exception is unwinding this scope (throwing
  // would terminate); compare with the count at entry so a scope used inside another
  // unwinding destructor still reports its own exit errors.
  if (std::uncaught_exceptions() > uncaught_) {
    try {
      ctx_.ExitWithScope();
    } catch (...) {
    }
    return;
  }
  ctx_.ExitWithScope();
}

bool PassContext::InstrumentShouldRun(const IRModule& mod, const PassInfo& info) const {
  if (std::find(node_->required_pass.begin(), node_->required_pass.end(), info.name) !=
      node_->required_pass.end())
    return true;
  bool run = true;
  for (const auto& inst : node_->instruments) run &= inst->ShouldRun(mod, info);
  return run;
}

void PassContext::InstrumentBeforePass(const IRModule& mod, const PassInfo& info) const {
  for (const auto& inst : node_->instruments) inst->RunBeforePass(mod, info);
}

void PassContext::InstrumentAfterPass(const IRModule& mod, const PassInfo& info) const {
  for (const auto& inst : node_->instruments) inst->RunAfterPass(mod, info);
}

void PassContext::InstrumentAfterPassFailed(const IRModule& mod, const PassInfo& info) const {
  for (const auto& inst : node_->instruments) {
    try {
      inst->RunAfterPassFailed(mod, info);
    } catch (...) {
      // The pass's own error is the one to report.
    }
  }
}

}  // namespace tessera
