// The flat C API over the C++ library: every entry point catches, maps errors to
// status codes and stores the message in a thread-local last-error string.
#include "tessera/c_api.h"

#include "c_api_internal.h"

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/json.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"

using namespace tessera::capi;

namespace {

/// Converts one JSON value to a config AttrValue (bool, int, float, string, or an array
/// of those).
tessera::AttrValue ConfigValue(const std::string& key, const nlohmann::json& v) {
  if (v.is_boolean()) return tessera::AttrValue(v.get<bool>());
  if (v.is_number_integer()) return tessera::AttrValue(v.get<int64_t>());
  if (v.is_number_float()) return tessera::AttrValue(v.get<double>());
  if (v.is_string()) return tessera::AttrValue(v.get<std::string>());
  if (v.is_array()) {
    std::vector<tessera::AttrValue> items;
    for (const nlohmann::json& item : v) items.push_back(ConfigValue(key, item));
    return tessera::AttrValue(std::move(items));
  }
  TS_THROW(kType) << "config option '" << key << "': unsupported JSON value " << v.dump();
}

}  // namespace

namespace tessera::capi {

Attrs AttrsFromC(const TsNamedAttribute* attrs, size_t num_attrs, const char* what) {
  Attrs out;
  if (num_attrs && !attrs)
    TS_THROW(kValue) << what << ": attributes are NULL with a count of " << num_attrs;
  for (size_t i = 0; i < num_attrs; ++i) {
    if (!attrs[i].name.data) TS_THROW(kValue) << what << ": attribute " << i << " has a NULL name";
    out.Set(std::string(attrs[i].name.data, attrs[i].name.length),
            attrs[i].value ? attrs[i].value->value : AttrValue());
  }
  return out;
}

ErrorKind KindOf(TsStatus status) {
  switch (status) {
    case TS_ERROR_PARSE:
      return ErrorKind::kParse;
    case TS_ERROR_TYPE:
      return ErrorKind::kType;
    case TS_ERROR_VALUE:
    case TS_ERROR_INVALID_ARGUMENT:
      return ErrorKind::kValue;
    case TS_ERROR_NOT_FOUND:
      return ErrorKind::kNotFound;
    case TS_ERROR_UNSUPPORTED:
      return ErrorKind::kUnsupported;
    case TS_ERROR_IO:
      return ErrorKind::kIO;
    case TS_OK:
    case TS_ERROR_INTERNAL:
      break;
  }
  return ErrorKind::kInternal;
}

void ThrowCallbackError(TsStatus status, const std::string& where) {
  std::string message = LastError();
  if (message.empty()) message = "failed without a message";
  throw Error(KindOf(status), where.empty() ? message : where + ": " + message);
}

}  // namespace tessera::capi

extern "C" {

TsStatus TsModuleParse(const char* text, size_t length, TsModule* out) {
  TS_REQUIRE(text);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::ParseModule(TextOf(text, length), "<c-api>")); });
}

TsStatus TsModuleFromJSON(const char* json, size_t length, TsModule* out) {
  TS_REQUIRE(json);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::ModuleFromJson(TextOf(json, length))); });
}

TsStatus TsModulePrint(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::PrintModule(BorrowModule(module)), callback, user_data); });
}

TsStatus TsModuleToJSON(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::ModuleToJson(BorrowModule(module), 1), callback, user_data); });
}

TsStatus TsModuleInferTypes(TsModule module, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::InferTypes(BorrowModule(module))); });
}

int TsModuleStructuralEqual(TsModule a, TsModule b) {
  if (!a || !b) {
    Fail(TS_ERROR_INVALID_ARGUMENT, "TsModuleStructuralEqual: module must not be NULL");
    return 0;
  }
  int equal = 0;
  Guard([&] { equal = tessera::StructuralEqual(BorrowModule(a), BorrowModule(b)) ? 1 : 0; });
  return equal;
}

void TsModuleDestroy(TsModule module) {
  Drop(module);
}

TsStatus TsPassContextCreate(int opt_level, const char* const* required, size_t num_required,
                             const char* const* disabled, size_t num_disabled,
                             const char* config_json, TsPassContext* out) {
  TS_REQUIRE(out);
  if (num_required) TS_REQUIRE(required);
  if (num_disabled) TS_REQUIRE(disabled);
  return Guard([&] {
    std::vector<std::string> req, dis;
    for (size_t i = 0; i < num_required; ++i) {
      if (!required[i]) TS_THROW(kValue) << "required pass " << i << " is NULL";
      req.emplace_back(required[i]);
    }
    for (size_t i = 0; i < num_disabled; ++i) {
      if (!disabled[i]) TS_THROW(kValue) << "disabled pass " << i << " is NULL";
      dis.emplace_back(disabled[i]);
    }
    tessera::Attrs config;
    if (config_json && *config_json) {
      nlohmann::json j = nlohmann::json::parse(config_json);
      if (!j.is_object()) TS_THROW(kParse) << "config must be a JSON object, got " << j.dump();
      for (auto it = j.begin(); it != j.end(); ++it)
        config.Set(it.key(), ConfigValue(it.key(), it.value()));
    }
    *out = new TsPassContext_{tessera::PassContext::Create(opt_level, req, dis, config)};
  });
}

void TsPassContextDestroy(TsPassContext context) {
  delete context;
}

TsStatus TsListConfigs(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    nlohmann::json j = nlohmann::json::object();
    for (const tessera::ConfigOption& c : tessera::ListConfigs())
      j[c.key] = {{"type", tessera::AttrKindName(c.kind)},
                  {"default", c.default_value.ToString()},
                  {"description", c.description}};
    Emit(j.dump(), callback, user_data);
  });
}

TsStatus TsListPasses(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    nlohmann::json j = nlohmann::json::array();
    for (const tessera::PassRegistration* r : tessera::ListPasses()) {
      nlohmann::json options = nlohmann::json::array();
      for (const tessera::PassOption& o : r->options)
        options.push_back({{"name", o.name},
                           {"type", tessera::AttrKindName(o.kind)},
                           {"default", o.default_value.ToString()},
                           {"description", o.description}});
      j.push_back({{"name", r->name}, {"description", r->description}, {"options", options}});
    }
    Emit(j.dump(), callback, user_data);
  });
}

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

TsStatus TsPassRun(TsPass pass, TsModule module, TsPassContext context, TsModule* out) {
  TS_REQUIRE(pass);
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    if (!context) {
      *out = GiveModule(pass->pass(BorrowModule(module)));
      return;
    }
    tessera::PassContext::Scope scope(context->ctx);
    *out = GiveModule(pass->pass(BorrowModule(module), context->ctx));
  });
}

void TsPassDestroy(TsPass pass) {
  delete pass;
}

TsStatus TsModuleRunMain(TsModule module, const char* const* input_names, const TsNDArray* inputs,
                         size_t num_inputs, TsNDArray* outputs, size_t max_outputs,
                         size_t* num_outputs) {
  TS_REQUIRE(module);
  TS_REQUIRE(num_outputs);
  TS_REQUIRE_INPUTS();
  if (max_outputs) TS_REQUIRE(outputs);
  return Guard([&] {
    std::vector<tessera::NDArray> results =
        tessera::RunMain(BorrowModule(module), NamedInputs(input_names, inputs, num_inputs))
            .Flatten();
    StoreOutputs(std::move(results), inputs, num_inputs, outputs, max_outputs, num_outputs);
  });
}

}  // extern "C"
