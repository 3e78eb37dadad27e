// The op registry, attribute validation against op schemas, and op-call construction.
#include <algorithm>
#include <mutex>
#include <optional>

#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {

const char* OpPatternKindName(OpPatternKind kind) {
  switch (kind) {
    case OpPatternKind::kElemwise:
      return "elemwise";
    case OpPatternKind::kBroadcast:
      return "broadcast";
    case OpPatternKind::kInjective:
      return "injective";
    case OpPatternKind::kCommReduce:
      return "comm_reduce";
    case OpPatternKind::kOutEWiseFusable:
      return "out_elemwise_fusable";
    case OpPatternKind::kTuple:
      return "tuple";
    case OpPatternKind::kOpaque:
      return "opaque";
  }
  return "?";
}

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpDef def) {
  TS_ICHECK(!Find(def.name)) << "op '" << def.name << "' registered twice";
  TS_ICHECK(def.type_rel) << "op '" << def.name << "' has no type relation";
  auto entry = std::make_unique<Entry>();
  entry->def = std::move(def);
  entry->op = MakeNode<const OpNode>(entry->def.name, &entry->def);
  entries_.push_back(std::move(entry));
}

const OpDef* OpRegistry::Find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e->def.name == name) return &e->def;
  return nullptr;
}

const OpDef& OpRegistry::Get(std::string_view name) const {
  if (const OpDef* def = Find(name)) return *def;
  TS_THROW(kNotFound) << "unknown op '" << name << "'";
}

Op OpRegistry::GetOp(std::string_view name) const {
  for (const auto& e : entries_)
    if (e->def.name == name) return e->op;
  TS_THROW(kNotFound) << "unknown op '" << name << "'";
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e->def.name);
  std::sort(names.begin(), names.end());
  return names;
}

Op GetOp(std::string_view name) {
  return OpRegistry::Global().GetOp(name);
}

static const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "an integer";
    case AttrType::kFloat:
      return "a number";
    case AttrType::kBool:
      return "a bool";
    case AttrType::kString:
      return "a string";
    case AttrType::kIntArray:
      return "an array of integers";
    case AttrType::kNestedIntArray:
      return "an array of integer arrays";
    case AttrType::kOptionalInt:
      return "an integer or None";
    case AttrType::kOptionalIntArray:
      return "an array of integers or None";
    case AttrType::kIntOrIntArray:
      return "an integer or an array of integers";
    case AttrType::kOptionalFloat:
      return "a number or None";
  }
  return "?";
}

static bool IsIntArray(const AttrValue& v) {
  if (!v.is_array()) return false;
  for (const auto& item : v.AsArray())
    if (!item.is_int()) return false;
  return true;
}

/// Converts `value` to the schema's kind, or returns nullopt when impossible.
static std::optional<AttrValue> CoerceAttr(const AttrValue& value, AttrType type) {
  switch (type) {
    case AttrType::kInt:
      if (value.is_int()) return value;
      if (value.is_bool()) return AttrValue(int64_t{value.AsBool()});
      return std::nullopt;
    case AttrType::kFloat:
      if (value.is_float()) return value;
      if (value.is_int()) return AttrValue(static_cast<double>(value.AsInt()));
      return std::nullopt;
    case AttrType::kBool:
      if (value.is_bool()) return value;
      if (value.is_int() && (value.AsInt() == 0 || value.AsInt() == 1))
        return AttrValue(value.AsInt() == 1);
      return std::nullopt;
    case AttrType::kString:
      if (value.is_string()) return value;
      return std::nullopt;
    case AttrType::kOptionalIntArray:
      if (value.is_none()) return value;
      [[fallthrough]];
    case AttrType::kIntArray:
      if (value.is_int()) return AttrValue(std::vector<AttrValue>{value});
      if (IsIntArray(value)) return value;
      return std::nullopt;
    case AttrType::kNestedIntArray:
      if (!value.is_array()) return std::nullopt;
      for (const auto& item : value.AsArray())
        if (!IsIntArray(item)) return std::nullopt;
      return value;
    case AttrType::kOptionalInt:
      if (value.is_none() || value.is_int()) return value;
      return std::nullopt;
    case AttrType::kIntOrIntArray:
      if (value.is_int() || IsIntArray(value)) return value;
      return std::nullopt;
    case AttrType::kOptionalFloat:
      if (value.is_none() || value.is_float()) return value;
      if (value.is_int()) return AttrValue(static_cast<double>(value.AsInt()));
      return std::nullopt;
  }
  return std::nullopt;
}

bool IsFrozenLayout(const Call& call) {
  const AttrValue* v = call->attrs.Find(attr::kFrozenLayout);
  return v && v->is_bool() && v->AsBool();
}

Attrs NormalizeOpAttrs(const OpDef& def, const Attrs& given) {
  for (const auto& item : given.items()) {
    const std::string& key = item.first;  // a reference, not a binding: clang 14 captures it
    if (key == attr::kFrozenLayout) continue;
    bool known = std::any_of(def.attrs.begin(), def.attrs.end(),
                             [&](const AttrField& f) { return f.name == key; });
    if (known) continue;
    std::string valid;
    for (const auto& f : def.attrs) valid += (valid.empty() ? "" : ", ") + f.name;
    TS_THROW(kValue) << "op '" << def.name << "': unknown attribute '" << key << "'"
                     << (valid.empty() ? " (it takes no attributes)" : " (valid: " + valid + ")");
  }
  Attrs out;
  for (const auto& field : def.attrs) {
    const AttrValue* value = given.Find(field.name);
    if (!value) {
      bool optional = field.type == AttrType::kOptionalInt ||
                      field.type == AttrType::kOptionalIntArray ||
                      field.type == AttrType::kOptionalFloat;
      if (field.default_value.is_none() && !optional)
        TS_THROW(kValue) << "op '" << def.name << "': attribute '" << field.name << "' is required";
      out.Set(field.name, field.default_value);
      continue;
    }
    auto coerced = CoerceAttr(*value, field.type);
    if (!coerced)
      TS_THROW(kValue) << "op '" << def.name << "': attribute '" << field.name << "' must be "
                       << AttrTypeName(field.type) << ", got " << value->ToString();
    out.Set(field.name, *coerced);
  }
  if (def.normalize) {
    try {
      def.normalize(out);
    } catch (const Error& e) {
      TS_THROW(kValue) << "op '" << def.name << "': " << e.what();
    }
  }
  // Every op accepts frozen_layout; it is kept only when true (last, after the schema's
  // attributes), so programs that never set it print and compare as before.
  if (const AttrValue* frozen = given.Find(attr::kFrozenLayout)) {
    auto coerced = CoerceAttr(*frozen, AttrType::kBool);
    if (!coerced)
      TS_THROW(kValue) << "op '" << def.name << "': attribute '" << attr::kFrozenLayout
                       << "' must be a bool, got " << frozen->ToString();
    if (coerced->AsBool()) out.Set(attr::kFrozenLayout, *coerced);
  }
  return out;
}

Call MakeOpCall(std::string_view name, std::vector<Expr> args, const Attrs& attrs,
                std::vector<Type> type_args) {
  const OpRegistry& registry = OpRegistry::Global();
  const OpDef& def = registry.Get(name);
  size_t arity = def.inputs.size();
  if (def.variadic ? args.size() < arity : args.size() != arity)
    TS_THROW(kType) << "op '" << def.name << "' takes " << (def.variadic ? "at least " : "")
                    << arity << " input(s), got " << args.size();
  return MakeCall(registry.GetOp(name), std::move(args), NormalizeOpAttrs(def, attrs),
                  std::move(type_args));
}

}  // namespace tessera
