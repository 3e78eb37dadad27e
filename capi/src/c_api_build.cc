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

/// Option schema as JSON, in the schema's order.
nlohmann::json OptionsJson(const std::vector<tessera::TargetAttrSpec>& attrs) {
  nlohmann::json options = nlohmann::json::array();
  for (const tessera::TargetAttrSpec& a : attrs)
    options.push_back({{"name", a.name},
                       {"type", tessera::TargetAttrTypeName(a.type)},
                       {"default", JsonOf(a.default_value)},
                       {"description", a.description}});
  return options;
}

}  // namespace

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

TsStatus TsTargetGetKind(TsTarget target, TsStringRef* out) {
  TS_REQUIRE(target);
  TS_REQUIRE(out);
  *out = RefOf(target->target.kind());
  return TS_OK;
}

TsStatus TsTargetGetOption(TsTarget target, const char* name, TsAttribute* out) {
  TS_REQUIRE(target);
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] {
    const tessera::Target& t = target->target;
    auto given = t.attrs().find(name);
    if (given != t.attrs().end()) {
      *out = GiveAttr(given->second);
      return;
    }
    for (const tessera::TargetAttrSpec& spec :
         tessera::BackendRegistry::Global().Get(t.kind()).attrs)
      if (spec.name == name) {
        *out = GiveAttr(spec.default_value);
        return;
      }
    TS_THROW(kNotFound) << "TsTargetGetOption: target kind '" << t.kind() << "' has no option '"
                        << name << "'";
  });
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
      exe = tessera::Build(BorrowModule(module), list);
    } else {
      exe = tessera::Build(BorrowModule(module), list);
    }
    *out = MakeExecutable(std::move(exe), ExecutorOptionsFor(list.front()));
  });
}

TsStatus TsModuleLowerForBuild(TsModule module, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::LowerForBuild(BorrowModule(module))); });
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
      TS_THROW(kValue) << "TsCollageReportRender: format must be \"text\" or \"html\", got '" << f
                       << "'";
  });
}

}  // extern "C"
