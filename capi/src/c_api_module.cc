// The C API of IRModules: text and JSON in and out, type inference, verification,
// structural equality, building and inspecting modules, their functions and attributes, and
// running @main with the reference interpreter.
#include "c_api_ir_internal.h"

#include <optional>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/json.h"
#include "tessera/ir/module.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/transform/pass.h"

using namespace tessera;
using namespace tessera::capi;

namespace {

/// The function (Function or PrimFunc) behind a borrowed handle.
BaseFunc FuncOf(TsExpr func, const char* where) {
  const Object* object = reinterpret_cast<const Object*>(func);
  if (!IsInstance<BaseFuncNode>(object))
    TS_THROW(kType) << where << ": expected a Function or PrimFunc";
  return BaseFunc(static_cast<const BaseFuncNode*>(object));
}

}  // namespace

extern "C" {

TsStatus TsModuleParse(const char* text, size_t length, TsModule* out) {
  TS_REQUIRE(text);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::ParseModule(TextOf(text, length), "<c-api>")); });
}

TsStatus TsModuleParseWithSourceName(TsStringRef text, TsStringRef source_name, TsModule* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GiveModule(ParseModule(StringOf(text, "TsModuleParseWithSourceName: text"),
                                  StringOf(source_name, "TsModuleParseWithSourceName: name")));
  });
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

TsStatus TsModulePrintWithOptions(TsModule module, int show_meta_data, int show_types,
                                  TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] {
    PrintOptions options;
    options.show_meta_data = show_meta_data != 0;
    options.show_types = show_types != 0;
    Emit(PrintModule(BorrowModule(module), options), callback, user_data);
  });
}

TsStatus TsModuleToJSON(TsModule module, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tessera::ModuleToJson(BorrowModule(module), 1), callback, user_data); });
}

TsStatus TsModuleToJSONWithIndent(TsModule module, int indent, TsStringCallback callback,
                                  void* user_data) {
  TS_REQUIRE(module);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(ModuleToJson(BorrowModule(module), indent), callback, user_data); });
}

TsStatus TsModuleInferTypes(TsModule module, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(tessera::InferTypes(BorrowModule(module))); });
}

TsStatus TsModuleVerify(TsModule module) {
  TS_REQUIRE(module);
  return Guard([&] { VerifyModule(BorrowModule(module)); });
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

TsStatus TsModuleStructuralHash(TsModule module, uint64_t* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = static_cast<uint64_t>(StructuralHash(BorrowModule(module))); });
}

TsStatus TsModuleStructuralDiff(TsModule a, TsModule b, TsStringCallback callback,
                                void* user_data) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(callback);
  return Guard([&] {
    std::optional<std::string> diff = StructuralDiff(BorrowModule(a), BorrowModule(b));
    if (diff) Emit(*diff, callback, user_data);
  });
}

TsStatus TsModuleCreate(TsModule* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveModule(IRModule()); });
}

TsStatus TsModuleFromExpr(TsExpr main, TsModule* out) {
  TS_REQUIRE(main);
  TS_REQUIRE(out);
  return Guard([&] {
    const Object* object = reinterpret_cast<const Object*>(main);
    if (!IsInstance<FunctionNode>(object))
      TS_THROW(kType) << "TsModuleFromExpr: expected a graph Function as @main";
    *out = GiveModule(IRModule::FromExpr(Function(static_cast<const FunctionNode*>(object))));
  });
}

TsStatus TsModuleGetNumFunctions(TsModule module, size_t* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = BorrowModule(module).functions().size(); });
}

TsStatus TsModuleGetFunctionName(TsModule module, size_t index, TsStringRef* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    IRModule mod = BorrowModule(module);
    CheckIndex(index, mod.functions().size(), "TsModuleGetFunctionName: function");
    *out = RefOf(mod.functions()[index].first);
  });
}

TsStatus TsModuleGetFunction(TsModule module, size_t index, TsExpr* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    IRModule mod = BorrowModule(module);
    CheckIndex(index, mod.functions().size(), "TsModuleGetFunction: function");
    *out = Give<TsExpr>(mod.functions()[index].second);
  });
}

TsStatus TsModuleLookupFunction(TsModule module, TsStringRef name, TsExpr* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    *out =
        Give<TsExpr>(BorrowModule(module).Lookup(StringOf(name, "TsModuleLookupFunction: name")));
  });
}

TsStatus TsModuleFindFunction(TsModule module, TsStringRef name, TsExpr* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsExpr>(BorrowModule(module).Find(StringOf(name, "TsModuleFindFunction: name")));
  });
}

TsStatus TsModuleWithFunction(TsModule module, TsStringRef name, TsExpr function, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard([&] {
    std::string n = StringOf(name, "TsModuleWithFunction: name");
    if (n.empty()) TS_THROW(kValue) << "TsModuleWithFunction: the function name is empty";
    *out =
        GiveModule(BorrowModule(module).WithFunction(n, FuncOf(function, "TsModuleWithFunction")));
  });
}

TsStatus TsModuleWithoutFunction(TsModule module, TsStringRef name, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GiveModule(
        BorrowModule(module).WithoutFunction(StringOf(name, "TsModuleWithoutFunction: name")));
  });
}

TsStatus TsModuleGetNumAttrs(TsModule module, size_t* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] { *out = BorrowModule(module).attrs().size(); });
}

TsStatus TsModuleGetAttr(TsModule module, size_t index, TsNamedAttribute* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = NamedAttrOf(BorrowModule(module).attrs(), index, "TsModuleGetAttr: attribute");
  });
}

TsStatus TsModuleWithAttr(TsModule module, TsStringRef key, TsAttribute value, TsModule* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GiveModule(
        BorrowModule(module).WithAttr(StringOf(key, "TsModuleWithAttr: key"), AttrOf(value)));
  });
}

TsModule TsModuleRetain(TsModule module) {
  return Retain(module);
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
