// The C API's reference interpreter: values (tensors and tuples) and evaluating module
// functions on them.
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/backend/interp/interpreter.h"

using namespace tessera::capi;

struct TsValue_ {
  tessera::Value value;
};

namespace {

const tessera::Value& ValueOf(TsValue value) {
  return value->value;
}

}  // namespace

extern "C" {

TsStatus TsValueFromNDArray(TsNDArray tensor, TsValue* out) {
  TS_REQUIRE(tensor);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsValue_{tessera::Value(tensor->array)}; });
}

TsStatus TsValueTupleCreate(const TsValue* fields, size_t num_fields, TsValue* out) {
  if (num_fields) TS_REQUIRE(fields);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<tessera::Value> items;
    for (size_t i = 0; i < num_fields; ++i) {
      if (!fields[i]) TS_THROW(kValue) << "TsValueTupleCreate: field " << i << " is NULL";
      items.push_back(ValueOf(fields[i]));
    }
    *out = new TsValue_{tessera::Value::TupleOf(std::move(items))};
  });
}

TsStatus TsValueGetKind(TsValue value, TsValueKind* out) {
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  *out = ValueOf(value).is_tuple() ? TS_VALUE_TUPLE : TS_VALUE_TENSOR;
  return TS_OK;
}

TsStatus TsValueGetNDArray(TsValue value, TsNDArray* out) {
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  return Guard([&] {
    if (ValueOf(value).is_tuple())
      TS_THROW(kType) << "TsValueGetNDArray: the value is a tuple, not a tensor";
    *out = new TsNDArray_{ValueOf(value).tensor()};
  });
}

TsStatus TsValueGetNumFields(TsValue value, size_t* out) {
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  return Guard([&] {
    if (!ValueOf(value).is_tuple())
      TS_THROW(kType) << "TsValueGetNumFields: the value is a tensor, not a tuple";
    *out = ValueOf(value).fields().size();
  });
}

TsStatus TsValueGetField(TsValue value, size_t index, TsValue* out) {
  TS_REQUIRE(value);
  TS_REQUIRE(out);
  return Guard([&] {
    if (!ValueOf(value).is_tuple())
      TS_THROW(kType) << "TsValueGetField: the value is a tensor, not a tuple";
    const std::vector<tessera::Value>& fields = ValueOf(value).fields();
    CheckIndex(index, fields.size(), "TsValueGetField: field");
    *out = new TsValue_{fields[index]};
  });
}

void TsValueDestroy(TsValue value) {
  delete value;
}

TsStatus TsModuleEvaluate(TsModule module, TsStringRef func_name, const TsValue* args,
                          size_t num_args, TsValue* out) {
  TS_REQUIRE(module);
  TS_REQUIRE(func_name.data);
  if (num_args) TS_REQUIRE(args);
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<tessera::Value> values;
    for (size_t i = 0; i < num_args; ++i) {
      if (!args[i]) TS_THROW(kValue) << "TsModuleEvaluate: argument " << i << " is NULL";
      values.push_back(ValueOf(args[i]));
    }
    *out = new TsValue_{tessera::Evaluate(BorrowModule(module),
                                          std::string(func_name.data, func_name.length), values)};
  });
}

TsStatus TsModuleRunMainValue(TsModule module, const char* const* input_names,
                              const TsNDArray* inputs, size_t num_inputs, TsValue* out) {
  TS_REQUIRE(module);
  TS_REQUIRE_INPUTS();
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsValue_{
        tessera::RunMain(BorrowModule(module), NamedInputs(input_names, inputs, num_inputs))};
  });
}

}  // extern "C"
