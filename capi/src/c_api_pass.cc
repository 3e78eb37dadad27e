// The pass C API: pass infos, pass contexts and their config, pipelines, pass inspection
// and running, and the registry's listings.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "c_api_pass_internal.h"
#include "tessera/transform/pass_registry.h"

using namespace tessera::capi;

namespace {

/// A context from the arguments TsPassContextCreate* share.
tessera::PassContext MakeContext(int opt_level, const char* const* required, size_t num_required,
                                 const char* const* disabled, size_t num_disabled,
                                 const char* config_json,
                                 std::vector<std::shared_ptr<tessera::PassInstrument>> insts) {
  return tessera::PassContext::Create(opt_level, NamesFromC(required, num_required, "required"),
                                      NamesFromC(disabled, num_disabled, "disabled"),
                                      AttrsFromJsonText(config_json, "config"), std::move(insts));
}

/// `*out` = the borrowed string at `index` of `names`.
TsStatus NameAt(const std::vector<std::string>& names, size_t index, const char* what,
                TsStringRef* out) {
  return Guard([&] {
    CheckIndex(index, names.size(), what);
    *out = RefOf(names[index]);
  });
}

/// The options of a registered pass as JSON.
nlohmann::json OptionsJson(const std::vector<tessera::PassOption>& options) {
  nlohmann::json out = nlohmann::json::array();
  for (const tessera::PassOption& o : options)
    out.push_back({{"name", o.name},
                   {"type", tessera::AttrKindName(o.kind)},
                   {"default", JsonOf(o.default_value)},
                   {"description", o.description}});
  return out;
}

}  // namespace

extern "C" {

/* ---- Pass infos ---------------------------------------------------------------------- */

TsStatus TsPassInfoCreate(const char* name, int opt_level, const char* const* required,
                          size_t num_required, TsPassInfo* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GiveInfo(
        tessera::PassInfo{name, opt_level, NamesFromC(required, num_required, "required")});
  });
}

TsPassInfo TsPassInfoRetain(TsPassInfo info) {
  if (!info) return nullptr;
  TsPassInfo out = nullptr;
  Guard([&] { out = GiveInfo(*info->info); });
  return out;
}

void TsPassInfoDestroy(TsPassInfo info) {
  delete info;
}

TsStringRef TsPassInfoGetName(TsPassInfo info) {
  return info ? RefOf(info->info->name) : TsStringRefFromC("");
}

int TsPassInfoGetOptLevel(TsPassInfo info) {
  return info ? info->info->opt_level : 0;
}

size_t TsPassInfoGetNumRequired(TsPassInfo info) {
  return info ? info->info->required.size() : 0;
}

TsStatus TsPassInfoGetRequired(TsPassInfo info, size_t index, TsStringRef* out) {
  TS_REQUIRE(info);
  TS_REQUIRE(out);
  return NameAt(info->info->required, index, "required pass", out);
}

TsStatus TsPassInfoPrint(TsPassInfo info, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(info);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(info->info->ToString(), callback, user_data); });
}

/* ---- Pass contexts ------------------------------------------------------------------- */

TsStatus TsPassContextCreate(int opt_level, const char* const* required, size_t num_required,
                             const char* const* disabled, size_t num_disabled,
                             const char* config_json, TsPassContext* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsPassContext_{
        MakeContext(opt_level, required, num_required, disabled, num_disabled, config_json, {})};
  });
}

TsStatus TsPassContextCreateWithInstruments(int opt_level, const char* const* required,
                                            size_t num_required, const char* const* disabled,
                                            size_t num_disabled, const char* config_json,
                                            const TsPassInstrument* instruments,
                                            size_t num_instruments, TsPassContext* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsPassContext_{MakeContext(opt_level, required, num_required, disabled, num_disabled,
                                          config_json,
                                          InstrumentsFromC(instruments, num_instruments))};
  });
}

TsStatus TsPassContextGetCurrent(TsPassContext* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsPassContext_{tessera::PassContext::Current()}; });
}

TsPassContext TsPassContextRetain(TsPassContext context) {
  if (!context) return nullptr;
  TsPassContext out = nullptr;
  Guard([&] { out = new TsPassContext_{context->ctx}; });
  return out;
}

void TsPassContextDestroy(TsPassContext context) {
  delete context;
}

int TsPassContextEqual(TsPassContext a, TsPassContext b) {
  return a && b && a->ctx.same_as(b->ctx) ? 1 : 0;
}

size_t TsPassContextHash(TsPassContext context) {
  return context ? std::hash<const void*>()(context->ctx.get()) : 0;
}

TsStatus TsPassContextEnter(TsPassContext context) {
  TS_REQUIRE(context);
  return Guard([&] { context->ctx.EnterWithScope(); });
}

TsStatus TsPassContextExit(TsPassContext context) {
  TS_REQUIRE(context);
  return Guard([&] { context->ctx.ExitWithScope(); });
}

int TsPassContextGetOptLevel(TsPassContext context) {
  return context ? context->ctx.opt_level() : 0;
}

size_t TsPassContextGetNumRequiredPasses(TsPassContext context) {
  return context ? context->ctx.required_pass().size() : 0;
}

TsStatus TsPassContextGetRequiredPass(TsPassContext context, size_t index, TsStringRef* out) {
  TS_REQUIRE(context);
  TS_REQUIRE(out);
  return NameAt(context->ctx.required_pass(), index, "required pass", out);
}

size_t TsPassContextGetNumDisabledPasses(TsPassContext context) {
  return context ? context->ctx.disabled_pass().size() : 0;
}

TsStatus TsPassContextGetDisabledPass(TsPassContext context, size_t index, TsStringRef* out) {
  TS_REQUIRE(context);
  TS_REQUIRE(out);
  return NameAt(context->ctx.disabled_pass(), index, "disabled pass", out);
}

TsStatus TsPassContextPassEnabled(TsPassContext context, TsPassInfo info, int* enabled) {
  TS_REQUIRE(context);
  TS_REQUIRE(info);
  TS_REQUIRE(enabled);
  return Guard([&] { *enabled = context->ctx.PassEnabled(*info->info) ? 1 : 0; });
}

TsStatus TsPassContextSetConfig(TsPassContext context, const char* key, const char* json_value) {
  TS_REQUIRE(context);
  TS_REQUIRE(key);
  TS_REQUIRE(json_value);
  return Guard([&] {
    std::string what = std::string("config option '") + key + "'";
    context->ctx.SetConfig(key, AttrFromJson(what, nlohmann::json::parse(json_value)));
  });
}

TsStatus TsPassContextGetConfig(TsPassContext context, const char* key, TsStringCallback callback,
                                void* user_data) {
  TS_REQUIRE(context);
  TS_REQUIRE(key);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(JsonOf(context->ctx.GetConfig(key)).dump(), callback, user_data); });
}

TsStatus TsPassContextGetConfigs(TsPassContext context, TsStringCallback callback,
                                 void* user_data) {
  TS_REQUIRE(context);
  TS_REQUIRE(callback);
  return Guard([&] {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, value] : context->ctx.config().items()) j[key] = JsonOf(value);
    Emit(j.dump(), callback, user_data);
  });
}

TsStatus TsListConfigs(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    nlohmann::json j = nlohmann::json::object();
    for (const tessera::ConfigOption& c : tessera::ListConfigs())
      j[c.key] = {{"type", tessera::AttrKindName(c.kind)},
                  {"default", JsonOf(c.default_value)},
                  {"description", c.description}};
    Emit(j.dump(), callback, user_data);
  });
}

/* ---- Passes -------------------------------------------------------------------------- */

TsStatus TsPipelineParse(const char* text, TsPass* out) {
  TS_REQUIRE(text);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsPass_{tessera::ParsePipeline(text)}; });
}

TsStatus TsPassPrint(TsPass pass, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(pass);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::PrintPipeline(pass->pass), callback, user_data); });
}

TsStatus TsPassDescribe(TsPass pass, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(pass);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(pass->pass.Describe(), callback, user_data); });
}

TsStatus TsPassRun(TsPass pass, TsModule module, TsPassContext context, TsModule* out) {
  TS_REQUIRE(pass);
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    tessera::IRModule mod = BorrowModule(module);
    if (!context || context->ctx.same_as(tessera::PassContext::Current())) {
      *out = GiveModule(context ? pass->pass(mod, context->ctx) : pass->pass(mod));
      return;
    }
    tessera::PassContext::Scope scope(context->ctx);
    *out = GiveModule(pass->pass(mod, context->ctx));
  });
}

TsPass TsPassRetain(TsPass pass) {
  if (!pass) return nullptr;
  TsPass out = nullptr;
  Guard([&] { out = new TsPass_{pass->pass}; });
  return out;
}

void TsPassDestroy(TsPass pass) {
  delete pass;
}

TsPassKind TsPassGetKind(TsPass pass) {
  if (!pass) return TS_PASS_MODULE;
  switch (pass->pass.kind()) {
    case tessera::PassKind::kModule:
      return TS_PASS_MODULE;
    case tessera::PassKind::kFunction:
      return TS_PASS_FUNCTION;
    case tessera::PassKind::kPrimFunc:
      return TS_PASS_PRIM_FUNC;
    case tessera::PassKind::kSequential:
      return TS_PASS_SEQUENTIAL;
  }
  return TS_PASS_MODULE;
}

TsStatus TsPassGetInfo(TsPass pass, TsPassInfo* out) {
  TS_REQUIRE(pass);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveInfo(pass->pass.info()); });
}

size_t TsPassGetNumPasses(TsPass pass) {
  size_t n = 0;
  if (pass) Guard([&] { n = tessera::SequentialPasses(pass->pass).size(); });
  return n;
}

TsStatus TsPassGetPass(TsPass pass, size_t index, TsPass* out) {
  TS_REQUIRE(pass);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<tessera::Pass> passes = tessera::SequentialPasses(pass->pass);
    CheckIndex(index, passes.size(), "Sequential pass");
    *out = new TsPass_{passes[index]};
  });
}

/* ---- The registry -------------------------------------------------------------------- */

TsStatus TsListPasses(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    nlohmann::json j = nlohmann::json::array();
    for (const tessera::PassRegistration* r : tessera::ListPasses())
      j.push_back({{"name", r->name},
                   {"description", r->description},
                   {"options", OptionsJson(r->options)}});
    Emit(j.dump(), callback, user_data);
  });
}

TsStatus TsPassCreateFromRegistry(const char* name, const char* options_json, TsPass* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string what = std::string("pass '") + name + "' options";
    *out = new TsPass_{tessera::GetPass(name, AttrsFromJsonText(options_json, what))};
  });
}

}  // extern "C"
