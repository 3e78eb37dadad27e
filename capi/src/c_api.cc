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

using namespace tessera::capi;

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
