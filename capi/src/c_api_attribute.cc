// The C API of attribute values (none, bool, int, float, string, arrays).
#include "c_api_ir_internal.h"

using namespace tessera;
using namespace tessera::capi;

namespace tessera::capi {

TsAttribute LookupAttr(const Attrs& attrs, const std::string& key, const char* what) {
  if (const AttrValue* value = attrs.Find(key)) return GiveAttr(*value);
  std::string names;
  for (const auto& item : attrs.items()) names += (names.empty() ? "" : ", ") + item.first;
  TS_THROW(kNotFound) << what << ": no attribute '" << key
                      << "' (has: " << (names.empty() ? "none" : names) << ")";
}

}  // namespace tessera::capi

namespace {

const char* KindName(AttrValue::Kind kind) {
  switch (kind) {
    case AttrValue::Kind::kNone:
      return "None";
    case AttrValue::Kind::kBool:
      return "a bool";
    case AttrValue::Kind::kInt:
      return "an int";
    case AttrValue::Kind::kFloat:
      return "a float";
    case AttrValue::Kind::kString:
      return "a string";
    case AttrValue::Kind::kArray:
      return "an array";
  }
  return "?";
}

/// The value of `attribute`, checked to be of `kind` (a type error naming `where` if not).
const AttrValue& ValueOf(TsAttribute attribute, AttrValue::Kind kind, const char* where) {
  const AttrValue& value = attribute->value;
  if (value.kind() != kind)
    TS_THROW(kType) << where << ": the attribute is " << KindName(value.kind()) << ", not "
                    << KindName(kind);
  return value;
}

}  // namespace

extern "C" {

TsStatus TsAttributeNoneCreate(TsAttribute* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveAttr(AttrValue()); });
}

TsStatus TsAttributeBoolCreate(int value, TsAttribute* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveAttr(AttrValue(value != 0)); });
}

TsStatus TsAttributeIntCreate(int64_t value, TsAttribute* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveAttr(AttrValue(value)); });
}

TsStatus TsAttributeFloatCreate(double value, TsAttribute* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GiveAttr(AttrValue(value)); });
}

TsStatus TsAttributeStringCreate(TsStringRef value, TsAttribute* out) {
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = GiveAttr(AttrValue(StringOf(value, "TsAttributeStringCreate: value"))); });
}

TsStatus TsAttributeArrayCreate(const TsAttribute* items, size_t num_items, TsAttribute* out) {
  TS_REQUIRE(out);
  if (num_items) TS_REQUIRE(items);
  return Guard([&] {
    std::vector<AttrValue> values;
    values.reserve(num_items);
    for (size_t i = 0; i < num_items; ++i) {
      if (!items[i]) TS_THROW(kValue) << "TsAttributeArrayCreate: item " << i << " is NULL";
      values.push_back(items[i]->value);
    }
    *out = GiveAttr(AttrValue(std::move(values)));
  });
}

TsStatus TsAttributeIntArrayCreate(const int64_t* values, size_t num_values, TsAttribute* out) {
  TS_REQUIRE(out);
  if (num_values) TS_REQUIRE(values);
  return Guard(
      [&] { *out = GiveAttr(AttrValue::Ints(std::vector<int64_t>(values, values + num_values))); });
}

TsStatus TsAttributeGetKind(TsAttribute attribute, TsAttributeKind* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  // The enum mirrors AttrValue::Kind's order.
  *out = static_cast<TsAttributeKind>(attribute->value.kind());
  return TS_OK;
}

TsStatus TsAttributeGetBool(TsAttribute attribute, int* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = ValueOf(attribute, AttrValue::Kind::kBool, "TsAttributeGetBool").AsBool() ? 1 : 0;
  });
}

TsStatus TsAttributeGetInt(TsAttribute attribute, int64_t* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = ValueOf(attribute, AttrValue::Kind::kInt, "TsAttributeGetInt").AsInt(); });
}

TsStatus TsAttributeGetFloat(TsAttribute attribute, double* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = ValueOf(attribute, AttrValue::Kind::kFloat, "TsAttributeGetFloat").AsFloat(); });
}

TsStatus TsAttributeGetString(TsAttribute attribute, TsStringRef* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = RefOf(ValueOf(attribute, AttrValue::Kind::kString, "TsAttributeGetString").AsString());
  });
}

TsStatus TsAttributeGetNumItems(TsAttribute attribute, size_t* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = ValueOf(attribute, AttrValue::Kind::kArray, "TsAttributeGetNumItems").AsArray().size();
  });
}

TsStatus TsAttributeGetItem(TsAttribute attribute, size_t index, TsAttribute* out) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(out);
  return Guard([&] {
    const auto& items = ValueOf(attribute, AttrValue::Kind::kArray, "TsAttributeGetItem").AsArray();
    CheckIndex(index, items.size(), "TsAttributeGetItem: item");
    *out = GiveAttr(items[index]);
  });
}

TsStatus TsAttributeEqual(TsAttribute a, TsAttribute b, int* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  *out = a->value == b->value ? 1 : 0;
  return TS_OK;
}

TsStatus TsAttributePrint(TsAttribute attribute, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(attribute);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(attribute->value.ToString(), callback, user_data); });
}

void TsAttributeDestroy(TsAttribute attribute) {
  delete attribute;
}

}  // extern "C"
