// The flat C API over the C++ library: every entry point catches, maps errors to
// status codes and stores the message in a thread-local last-error string.
#include "tessera/c_api.h"

#include "c_api_internal.h"

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/json.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"
#include "tessera/transform/infer_type.h"
#include "tessera/transform/pass_registry.h"

using namespace tessera::capi;

namespace {

std::string_view TextOf(const char* text, size_t length) {
  return length == static_cast<size_t>(-1) ? std::string_view(text)
                                           : std::string_view(text, length);
}

tessera::DType DTypeFromC(TsDType d) {
  using tessera::DType;
  if (d.lanes != 1)
    TS_THROW(kUnsupported) << "vector dtypes (lanes=" << d.lanes << ") are not supported";
  switch (d.code) {
    case 0:
      if (d.bits == 8) return DType::kInt8;
      if (d.bits == 32) return DType::kInt32;
      if (d.bits == 64) return DType::kInt64;
      break;
    case 1:
      if (d.bits == 8) return DType::kUInt8;
      break;
    case 2:
      if (d.bits == 16) return DType::kFloat16;
      if (d.bits == 32) return DType::kFloat32;
      if (d.bits == 64) return DType::kFloat64;
      break;
    case 4:
      if (d.bits == 16) return DType::kBFloat16;
      break;
    case 6:
      if (d.bits == 8) return DType::kBool;
      break;
  }
  TS_THROW(kUnsupported) << "unsupported dtype (code " << int{d.code} << ", bits " << int{d.bits}
                         << ")";
}

TsDType DTypeToC(tessera::DType d) {
  using tessera::DType;
  switch (d) {
    case DType::kInt8:
      return {0, 8, 1};
    case DType::kInt32:
      return {0, 32, 1};
    case DType::kInt64:
      return {0, 64, 1};
    case DType::kUInt8:
      return {1, 8, 1};
    case DType::kFloat16:
      return {2, 16, 1};
    case DType::kFloat32:
      return {2, 32, 1};
    case DType::kFloat64:
      return {2, 64, 1};
    case DType::kBFloat16:
      return {4, 16, 1};
    case DType::kBool:
      return {6, 8, 1};
  }
  return {2, 32, 1};
}

std::vector<int64_t> ShapeFromC(const int64_t* shape, int32_t ndim) {
  if (ndim < 0) TS_THROW(kValue) << "negative rank " << ndim;
  if (ndim > 0 && !shape) TS_THROW(kValue) << "shape is NULL for rank " << ndim;
  std::vector<int64_t> out(shape, shape + ndim);
  for (int64_t d : out)
    if (d < 0) TS_THROW(kValue) << "negative dimension in shape " << tessera::ShapeToString(out);
  return out;
}

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

namespace {
thread_local std::string last_error;
}  // namespace

TsStatus StatusOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse:
      return TS_ERROR_PARSE;
    case ErrorKind::kType:
      return TS_ERROR_TYPE;
    case ErrorKind::kValue:
      return TS_ERROR_VALUE;
    case ErrorKind::kNotFound:
      return TS_ERROR_NOT_FOUND;
    case ErrorKind::kUnsupported:
      return TS_ERROR_UNSUPPORTED;
    case ErrorKind::kIO:
      return TS_ERROR_IO;
    case ErrorKind::kInternal:
      return TS_ERROR_INTERNAL;
  }
  return TS_ERROR_INTERNAL;
}

TsStatus Fail(TsStatus status, std::string message) {
  last_error = std::move(message);
  return status;
}

const char* LastError() {
  return last_error.c_str();
}

std::map<std::string, NDArray> NamedInputs(const char* const* names, const TsTensor* inputs,
                                           size_t num_inputs) {
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!names[i] || !inputs[i]) TS_THROW(kValue) << "input " << i << " has a NULL name or tensor";
    if (!named.emplace(names[i], inputs[i]->array).second)
      TS_THROW(kValue) << "input '" << names[i] << "' is given twice";
  }
  return named;
}

void StoreOutputs(std::vector<NDArray> results, const TsTensor* inputs, size_t num_inputs,
                  TsTensor* outputs, size_t max_outputs, size_t* num_outputs) {
  if (results.size() > max_outputs)
    TS_THROW(kValue) << "@main returns " << results.size() << " tensors but room for only "
                     << max_outputs << " was given";
  for (size_t i = 0; i < results.size(); ++i) {
    // An output that is an input (e.g. @main returns a parameter) would alias caller
    // memory the caller may free; hand back a copy instead.
    bool aliases = false;
    for (size_t k = 0; k < num_inputs; ++k) aliases |= results[i].data() == inputs[k]->array.data();
    outputs[i] = new TsTensor_{aliases ? results[i].Copy() : results[i]};
  }
  *num_outputs = results.size();
}

}  // namespace tessera::capi

extern "C" {

const char* TsGetLastError(void) {
  return tessera::capi::LastError();
}

const char* TsStatusName(TsStatus status) {
  switch (status) {
    case TS_OK:
      return "ok";
    case TS_ERROR_PARSE:
      return "parse error";
    case TS_ERROR_TYPE:
      return "type error";
    case TS_ERROR_VALUE:
      return "value error";
    case TS_ERROR_NOT_FOUND:
      return "not found";
    case TS_ERROR_UNSUPPORTED:
      return "unsupported";
    case TS_ERROR_IO:
      return "I/O error";
    case TS_ERROR_INTERNAL:
      return "internal error";
    case TS_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
  }
  return "unknown status";
}

TsStatus TsModuleParse(const char* text, size_t length, TsModule* out) {
  TS_REQUIRE(text);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = new TsModule_{tessera::ParseModule(TextOf(text, length), "<c-api>")}; });
}

TsStatus TsModuleFromJSON(const char* json, size_t length, TsModule* out) {
  TS_REQUIRE(json);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsModule_{tessera::ModuleFromJson(TextOf(json, length))}; });
}

TsStatus TsModulePrint(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::PrintModule(module->mod), callback, user_data); });
}

TsStatus TsModuleToJSON(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::ModuleToJson(module->mod, 1), callback, user_data); });
}

TsStatus TsModuleInferTypes(TsModule module, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsModule_{tessera::InferTypes(module->mod)}; });
}

int TsModuleStructuralEqual(TsModule a, TsModule b) {
  if (!a || !b) {
    Fail(TS_ERROR_INVALID_ARGUMENT, "TsModuleStructuralEqual: module must not be NULL");
    return 0;
  }
  int equal = 0;
  Guard([&] { equal = tessera::StructuralEqual(a->mod, b->mod) ? 1 : 0; });
  return equal;
}

void TsModuleDestroy(TsModule module) {
  delete module;
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
      *out = new TsModule_{pass->pass(module->mod)};
      return;
    }
    tessera::PassContext::Scope scope(context->ctx);
    *out = new TsModule_{pass->pass(module->mod, context->ctx)};
  });
}

void TsPassDestroy(TsPass pass) {
  delete pass;
}

TsStatus TsTensorFromBuffer(void* data, const int64_t* shape, int32_t ndim, TsDType dtype,
                            TsTensor* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<int64_t> dims = ShapeFromC(shape, ndim);
    if (!data && tessera::ShapeNumElements(dims) > 0)
      TS_THROW(kValue) << "data is NULL for a non-empty tensor";
    *out = new TsTensor_{tessera::NDArray::FromBorrowed(data, dims, DTypeFromC(dtype))};
  });
}

TsStatus TsTensorCreate(const int64_t* shape, int32_t ndim, TsDType dtype, TsTensor* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsTensor_{tessera::NDArray::Zeros(ShapeFromC(shape, ndim), DTypeFromC(dtype))};
  });
}

TsStatus TsTensorGetInfo(TsTensor tensor, void** data, const int64_t** shape, int32_t* ndim,
                         TsDType* dtype) {
  TS_REQUIRE(tensor);
  return Guard([&] {
    if (data) *data = tensor->array.data();
    if (shape) *shape = tensor->array.shape().data();
    if (ndim) *ndim = tensor->array.ndim();
    if (dtype) *dtype = DTypeToC(tensor->array.dtype());
  });
}

void TsTensorDestroy(TsTensor tensor) {
  delete tensor;
}

TsStatus TsTensorFromDLPack(DLManagedTensor* managed, TsTensor* out) {
  TS_REQUIRE(managed);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsTensor_{tessera::NDArray::FromDLPack(managed)}; });
}

TsStatus TsTensorToDLPack(TsTensor tensor, DLManagedTensor** out) {
  TS_REQUIRE(tensor);
  TS_REQUIRE(out);
  return Guard([&] { *out = tensor->array.ToDLPack(); });
}

TsStatus TsModuleRunMain(TsModule module, const char* const* input_names, const TsTensor* inputs,
                         size_t num_inputs, TsTensor* outputs, size_t max_outputs,
                         size_t* num_outputs) {
  TS_REQUIRE(module);
  TS_REQUIRE(num_outputs);
  if (num_inputs) {
    TS_REQUIRE(input_names);
    TS_REQUIRE(inputs);
  }
  if (max_outputs) TS_REQUIRE(outputs);
  return Guard([&] {
    std::vector<tessera::NDArray> results =
        tessera::RunMain(module->mod, NamedInputs(input_names, inputs, num_inputs)).Flatten();
    StoreOutputs(std::move(results), inputs, num_inputs, outputs, max_outputs, num_outputs);
  });
}

}  // extern "C"
