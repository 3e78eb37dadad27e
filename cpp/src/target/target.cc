// Target parsing, validation against the registry's option schema, and printing.
#include "tessera/target/target.h"

#include <set>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

const Backend& BackendOf(const std::string& kind) {
  const Backend* b = BackendRegistry::Global().Find(kind);
  if (!b)
    TS_THROW(kValue) << "unknown target kind '" << kind
                     << "' (valid: " << JoinNames(BackendRegistry::Global().Names()) << ")";
  return *b;
}

AttrValue ParseValue(const std::string& kind, const TargetAttrSpec& spec, std::string_view text) {
  auto bad = [&]() {
    TS_THROW(kValue) << "target '" << kind << "': option -" << spec.name << " expects "
                     << TargetAttrTypeName(spec.type) << ", got '" << text << "'";
  };
  switch (spec.type) {
    case TargetAttrType::kInt: {
      int64_t v = 0;
      const char* end = text.data() + text.size();
      auto [ptr, ec] = std::from_chars(text.data(), end, v);
      if (text.empty() || ec != std::errc() || ptr != end) bad();
      return AttrValue(v);
    }
    case TargetAttrType::kBool:
      if (text == "true" || text == "1") return AttrValue(true);
      if (text == "false" || text == "0") return AttrValue(false);
      bad();
      return AttrValue();
    case TargetAttrType::kString:
      if (text.empty()) bad();
      return AttrValue(std::string(text));
    case TargetAttrType::kStringList: {
      std::vector<AttrValue> items;
      size_t start = 0;
      while (true) {
        size_t comma = text.find(',', start);
        std::string_view item = text.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (item.empty()) bad();
        items.emplace_back(std::string(item));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return AttrValue(std::move(items));
    }
  }
  bad();
  return AttrValue();
}

std::string ValueText(const AttrValue& v) {
  switch (v.kind()) {
    case AttrValue::Kind::kBool:
      return v.AsBool() ? "true" : "false";
    case AttrValue::Kind::kInt:
      return std::to_string(v.AsInt());
    case AttrValue::Kind::kString:
      return v.AsString();
    case AttrValue::Kind::kArray: {
      std::string out;
      for (const AttrValue& item : v.AsArray()) out += (out.empty() ? "" : ",") + item.AsString();
      return out;
    }
    default:
      return v.ToString();
  }
}

}  // namespace

const char* TargetAttrTypeName(TargetAttrType type) {
  switch (type) {
    case TargetAttrType::kInt:
      return "an int";
    case TargetAttrType::kBool:
      return "a bool (true/false)";
    case TargetAttrType::kString:
      return "a string";
    case TargetAttrType::kStringList:
      return "a comma-separated string list";
  }
  return "?";
}

Target::Target(std::string kind) : kind_(std::move(kind)) {
  BackendOf(kind_);
}

Target Target::Parse(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) tokens.push_back(text.substr(start, i - start));
  }
  if (tokens.empty()) TS_THROW(kValue) << "empty target string";
  Target target{std::string(tokens[0])};
  std::set<std::string> seen;  // an option given twice is a mistake, not "last one wins"
  for (size_t t = 1; t < tokens.size(); ++t) {
    std::string_view tok = tokens[t];
    if (tok.size() < 2 || tok[0] != '-')
      TS_THROW(kValue) << "target '" << target.kind_ << "': expected an option '-name=value', got '"
                       << tok << "'";
    tok.remove_prefix(tok[1] == '-' ? 2 : 1);
    size_t eq = tok.find('=');
    std::string name(tok.substr(0, eq));
    if (!seen.insert(name).second)
      TS_THROW(kValue) << "target '" << target.kind_ << "': option -" << name << " is given twice";
    if (eq == std::string_view::npos) {
      // A bare flag "-name" means true for bool options.
      if (target.Spec(name).type != TargetAttrType::kBool)
        TS_THROW(kValue) << "target '" << target.kind_ << "': option -" << name
                         << " needs a value (" << TargetAttrTypeName(target.Spec(name).type) << ")";
      target.attrs_[name] = AttrValue(true);
    } else {
      target.Set(name, tok.substr(eq + 1));
    }
  }
  return target;
}

const TargetAttrSpec& Target::Spec(const std::string& name) const {
  const Backend& backend = BackendOf(kind_);
  std::vector<std::string> names;
  for (const TargetAttrSpec& s : backend.attrs) {
    if (s.name == name) return s;
    names.push_back(s.name);
  }
  std::sort(names.begin(), names.end());
  TS_THROW(kValue) << "target '" << kind_ << "' has no option '" << name
                   << "' (valid: " << JoinNames(names) << ")";
}

bool Target::HasAttr(const std::string& name) const {
  for (const TargetAttrSpec& s : BackendOf(kind_).attrs)
    if (s.name == name) return true;
  return false;
}

void Target::Set(const std::string& name, std::string_view value) {
  const TargetAttrSpec& spec = Spec(name);
  AttrValue v = ParseValue(kind_, spec, value);
  if (spec.validate) spec.validate(v);
  attrs_[name] = std::move(v);
}

AttrValue Target::Value(const std::string& name, TargetAttrType type) const {
  const TargetAttrSpec& spec = Spec(name);
  if (spec.type != type)
    TS_THROW(kValue) << "target '" << kind_ << "': option -" << name << " is "
                     << TargetAttrTypeName(spec.type) << ", not " << TargetAttrTypeName(type);
  auto it = attrs_.find(name);
  return it != attrs_.end() ? it->second : spec.default_value;
}

int64_t Target::GetInt(const std::string& name) const {
  AttrValue v = Value(name, TargetAttrType::kInt);
  return v.is_int() ? v.AsInt() : 0;
}

bool Target::GetBool(const std::string& name) const {
  AttrValue v = Value(name, TargetAttrType::kBool);
  return v.is_bool() && v.AsBool();
}

std::string Target::GetString(const std::string& name) const {
  AttrValue v = Value(name, TargetAttrType::kString);
  return v.is_string() ? v.AsString() : std::string();
}

std::vector<std::string> Target::GetStringList(const std::string& name) const {
  AttrValue v = Value(name, TargetAttrType::kStringList);
  std::vector<std::string> out;
  if (v.is_array())
    for (const AttrValue& item : v.AsArray()) out.push_back(item.AsString());
  return out;
}

Target Target::Without(const std::string& name) const {
  Target copy = *this;
  copy.attrs_.erase(name);
  return copy;
}

std::string Target::ToString() const {
  std::string out = kind_;
  for (const auto& [name, value] : attrs_) out += " -" + name + "=" + ValueText(value);
  return out;
}

}  // namespace tessera
