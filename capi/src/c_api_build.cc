// The C API's targets, build and compiled executables: parse targets, build a module into
// an executable, save/load it, run, benchmark and profile it.
#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/backend/build.h"
#include "tessera/collage/report.h"
#include "tessera/target/backend_registry.h"

using namespace tessera::capi;
using tessera::runtime::Executable;
using tessera::runtime::Executor;
using tessera::runtime::ExecutorOptions;

namespace {

/// Wraps `exe` with an executor of `options`.
TsExecutable MakeExecutable(std::shared_ptr<Executable> exe, ExecutorOptions options) {
  auto handle = std::make_unique<TsExecutable_>();
  handle->executor = std::make_unique<Executor>(exe, std::move(options));
  handle->exe = std::move(exe);
  return handle.release();
}

/// Option schema as JSON, in the schema's order.
nlohmann::json OptionsJson(const std::vector<tessera::TargetAttrSpec>& attrs) {
  nlohmann::json options = nlohmann::json::array();
  for (const tessera::TargetAttrSpec& a : attrs)
    options.push_back({{"name", a.name},
                       {"type", tessera::TargetAttrTypeName(a.type)},
                       {"default", a.default_value.ToString()},
                       {"description", a.description}});
  return options;
}

}  // namespace

/// Checks the run-style argument arrays shared by Run, Benchmark and Profile.
#define TS_REQUIRE_INPUTS()  \
  if (num_inputs) {          \
    TS_REQUIRE(input_names); \
    TS_REQUIRE(inputs);      \
  }

extern "C" {

TsStatus TsTargetParse(const char* text, TsTarget* out) {
  TS_REQUIRE(text);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsTarget_{tessera::Target::Parse(text)}; });
}

TsStatus TsTargetPrint(TsTarget target, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(target);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(target->target.ToString(), callback, user_data); });
}

void TsTargetDestroy(TsTarget target) {
  delete target;
}

TsStatus TsListTargets(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    const tessera::BackendRegistry& registry = tessera::BackendRegistry::Global();
    nlohmann::json j = nlohmann::json::array();
    for (const std::string& name : registry.Names()) {
      const tessera::Backend& b = registry.Get(name);
      j.push_back(
          {{"name", b.name}, {"description", b.description}, {"options", OptionsJson(b.attrs)}});
    }
    Emit(j.dump(), callback, user_data);
  });
}

TsStatus TsBuild(TsModule module, const TsTarget* targets, size_t num_targets,
                 TsPassContext context, TsExecutable* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(targets);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_targets == 0) TS_THROW(kValue) << "TsBuild: needs at least one target";
    std::vector<tessera::Target> list;
    for (size_t i = 0; i < num_targets; ++i) {
      if (!targets[i]) TS_THROW(kValue) << "TsBuild: target " << i << " is NULL";
      list.push_back(targets[i]->target);
    }
    std::shared_ptr<Executable> exe;
    if (context) {
      tessera::PassContext::Scope scope(context->ctx);
      exe = tessera::Build(module->mod, list);
    } else {
      exe = tessera::Build(module->mod, list);
    }
    *out = MakeExecutable(std::move(exe), ExecutorOptionsFor(list.front()));
  });
}

TsStatus TsExecutableSave(TsExecutable executable, const char* path) {
  TS_REQUIRE(executable);
  TS_REQUIRE(path);
  return Guard([&] { executable->exe->Save(path); });
}

TsStatus TsExecutableLoad(const char* path, int num_threads, TsExecutable* out) {
  TS_REQUIRE(path);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_threads < 0)
      TS_THROW(kValue) << "TsExecutableLoad: num_threads must be >= 0 (0 = all cores), got "
                       << num_threads;
    ExecutorOptions options;
    options.num_threads = num_threads;
    *out = MakeExecutable(Executable::Load(path), std::move(options));
  });
}

TsStatus TsExecutableGetInputNames(TsExecutable executable, TsStringCallback callback,
                                   void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const std::string& name : executable->exe->input_names()) Emit(name, callback, user_data);
  });
}

TsStatus TsExecutableGetNumThreads(TsExecutable executable, int* num_threads) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_threads);
  return Guard([&] { *num_threads = executable->executor->pool().num_threads(); });
}

TsStatus TsExecutableRun(TsExecutable executable, const char* const* input_names,
                         const TsTensor* inputs, size_t num_inputs, TsTensor* outputs,
                         size_t max_outputs, size_t* num_outputs) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_outputs);
  TS_REQUIRE_INPUTS();
  if (max_outputs) TS_REQUIRE(outputs);
  return Guard([&] {
    std::vector<tessera::NDArray> results =
        executable->executor->Run(NamedInputs(input_names, inputs, num_inputs));
    StoreOutputs(std::move(results), inputs, num_inputs, outputs, max_outputs, num_outputs);
  });
}

TsStatus TsExecutableBenchmark(TsExecutable executable, const char* const* input_names,
                               const TsTensor* inputs, size_t num_inputs, int warmup, int repeat,
                               double* median_ms, double* p90_ms, double* min_ms) {
  TS_REQUIRE(executable);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    tessera::runtime::BenchmarkResult r = executable->executor->Benchmark(
        NamedInputs(input_names, inputs, num_inputs), warmup, repeat);
    if (median_ms) *median_ms = r.median_ms;
    if (p90_ms) *p90_ms = r.p90_ms;
    if (min_ms) *min_ms = r.min_ms;
  });
}

TsStatus TsExecutableProfile(TsExecutable executable, const char* const* input_names,
                             const TsTensor* inputs, size_t num_inputs, int repeat,
                             TsStringCallback callback, void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    tessera::runtime::ProfileReport report =
        executable->executor->Profile(NamedInputs(input_names, inputs, num_inputs), repeat);
    Emit(report.table, callback, user_data);
  });
}

TsStatus TsExecutableGetReport(TsExecutable executable, TsStringCallback callback,
                               void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(executable->exe->collage_report(), callback, user_data); });
}

TsStatus TsCollageReportRender(const char* report_json, const char* format, double measured_ms,
                               TsStringCallback callback, void* user_data) {
  TS_REQUIRE(report_json);
  TS_REQUIRE(format);
  TS_REQUIRE(callback);
  return Guard([&] {
    std::string f = format;
    if (f == "text")
      Emit(tessera::collage::ReportToText(report_json, measured_ms), callback, user_data);
    else if (f == "html")
      Emit(tessera::collage::ReportToHtml(report_json, measured_ms), callback, user_data);
    else
      TS_THROW(kValue) << "TsCollageReportRender: format must be \"text\" or \"html\", got '"
                       << f << "'";
  });
}

void TsExecutableDestroy(TsExecutable executable) {
  delete executable;
}

}  // extern "C"
