// What the compiler C API's sources share (c_api_internal.h): attributes, name and target
// arrays from C, and the errors of C callbacks.
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/support/error.h"

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

std::vector<std::string> NamesFromC(const char* const* names, size_t count, const char* what) {
  if (count && !names) TS_THROW(kValue) << what << ": names are NULL with a count of " << count;
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    if (!names[i]) TS_THROW(kValue) << what << ": name " << i << " is NULL";
    out.emplace_back(names[i]);
  }
  return out;
}

std::vector<Target> TargetsFromC(const TsTarget* targets, size_t num_targets, const char* what) {
  if (num_targets && !targets) TS_THROW(kValue) << what << ": targets are NULL";
  std::vector<Target> out;
  for (size_t i = 0; i < num_targets; ++i) {
    if (!targets[i]) TS_THROW(kValue) << what << ": target " << i << " is NULL";
    out.push_back(targets[i]->target);
  }
  return out;
}

AttrValue AttrFromJson(const std::string& what, const nlohmann::json& v) {
  if (v.is_null()) return AttrValue();
  if (v.is_boolean()) return AttrValue(v.get<bool>());
  if (v.is_number_integer()) return AttrValue(v.get<int64_t>());
  if (v.is_number_float()) return AttrValue(v.get<double>());
  if (v.is_string()) return AttrValue(v.get<std::string>());
  if (v.is_array()) {
    std::vector<AttrValue> items;
    for (const nlohmann::json& item : v) items.push_back(AttrFromJson(what, item));
    return AttrValue(std::move(items));
  }
  TS_THROW(kType) << what << ": unsupported JSON value " << v.dump();
}

nlohmann::json JsonOf(const AttrValue& value) {
  switch (value.kind()) {
    case AttrValue::Kind::kNone:
      return nullptr;
    case AttrValue::Kind::kBool:
      return value.AsBool();
    case AttrValue::Kind::kInt:
      return value.AsInt();
    case AttrValue::Kind::kFloat:
      return value.AsFloat();
    case AttrValue::Kind::kString:
      return value.AsString();
    case AttrValue::Kind::kArray: {
      nlohmann::json items = nlohmann::json::array();
      for (const AttrValue& item : value.AsArray()) items.push_back(JsonOf(item));
      return items;
    }
  }
  return nullptr;
}

Attrs AttrsFromJsonText(const char* text, const std::string& what) {
  Attrs out;
  if (!text || !*text) return out;
  nlohmann::json j = nlohmann::json::parse(text);
  if (!j.is_object()) TS_THROW(kParse) << what << " must be a JSON object, got " << j.dump();
  for (auto it = j.begin(); it != j.end(); ++it)
    out.Set(it.key(), AttrFromJson(what + " '" + it.key() + "'", it.value()));
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
    case TS_STATUS_MIN_ENUM:
    case TS_STATUS_MAX_ENUM:
      break;
  }
  return ErrorKind::kInternal;
}

void ThrowCallbackError(TsStatus status, const std::string& where) {
  // A message set before the call that ran the callback is not the callback's.
  std::string message = ErrorSerial() != guard_error_serial ? LastError() : "";
  if (message.empty()) message = "failed without a message";
  throw Error(KindOf(status), where.empty() ? message : where + ": " + message);
}

}  // namespace tessera::capi
