// The pass registry and the textual pipeline parser/printer.
#include "tessera/transform/pass_registry.h"

#include <cctype>
#include <charconv>
#include <map>
#include <memory>
#include <mutex>

#include "builtin_passes.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<PassRegistration>> passes;  // sorted by name
};

Registry& GlobalRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry();
    for (PassRegistration& reg : BuiltinPassRegistrations()) {
      std::string name = reg.name;
      r->passes[name] = std::make_unique<PassRegistration>(std::move(reg));
    }
    return r;
  }();
  return *registry;
}

/// A registered pass built with options: behaves as the inner pass and prints as
/// `name{non-default options}` in pipelines.
class RegisteredPassNode : public PassNode {
 public:
  RegisteredPassNode(Pass inner, std::string name, Attrs non_default_options)
      : inner_(std::move(inner)),
        name_(std::move(name)),
        options_(std::move(non_default_options)) {}
  const PassInfo& info() const override { return inner_.info(); }
  PassKind kind() const override { return inner_.kind(); }
  IRModule Transform(const IRModule& mod, const PassContext& ctx) const override {
    return inner_.get()->Transform(mod, ctx);
  }
  std::string Describe() const override { return inner_.Describe(); }
  std::string ToPipelineString() const override {
    if (options_.empty()) return name_;
    std::string out = name_ + "{";
    for (size_t i = 0; i < options_.items().size(); ++i) {
      const auto& [k, v] = options_.items()[i];
      out += (i ? "," : "") + k + "=" + OptionText(v);
    }
    return out + "}";
  }

  /// An option value as the pipeline parser reads it back.
  static std::string OptionText(const AttrValue& v) {
    if (v.is_bool()) return v.AsBool() ? "true" : "false";
    if (!v.is_string()) return v.ToString();  // ints; floats print as `1.5f`, which parses
    const std::string& text = v.AsString();
    bool plain = !text.empty() && text.find_first_of(",{}()=\"\\ \t\n") == std::string::npos;
    if (plain) return text;
    std::string out = "\"";
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }

 private:
  Pass inner_;
  std::string name_;
  Attrs options_;
};

/// Parses option text `raw` as the option's kind.
AttrValue ParseOptionValue(const std::string& pass, const PassOption& option,
                           const std::string& raw) {
  auto fail = [&]() -> AttrValue {
    TS_THROW(kValue) << "pass '" << pass << "': option '" << option.name << "' expects "
                     << KindWithArticle(option.kind) << " value, got '" << raw << "'";
  };
  switch (option.kind) {
    case AttrValue::Kind::kBool:
      if (raw == "true" || raw == "1" || raw == "True") return AttrValue(true);
      if (raw == "false" || raw == "0" || raw == "False") return AttrValue(false);
      return fail();
    case AttrValue::Kind::kInt: {
      int64_t v = 0;
      auto res = std::from_chars(raw.data(), raw.data() + raw.size(), v);
      if (res.ec != std::errc() || res.ptr != raw.data() + raw.size()) return fail();
      return AttrValue(v);
    }
    case AttrValue::Kind::kFloat: {
      // Accept the printer's `1.5f` form as well as plain numbers.
      size_t size = raw.size() > 1 && raw.back() == 'f' ? raw.size() - 1 : raw.size();
      double v = 0;
      auto res = std::from_chars(raw.data(), raw.data() + size, v);
      if (res.ec != std::errc() || res.ptr != raw.data() + size) return fail();
      return AttrValue(v);
    }
    case AttrValue::Kind::kString:
      return AttrValue(raw);
    default:
      return fail();
  }
}

}  // namespace

void RegisterPass(PassRegistration registration) {
  Registry& reg = GlobalRegistry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  TS_ICHECK(!reg.passes.count(registration.name))
      << "pass '" << registration.name << "' registered twice";
  TS_ICHECK(registration.factory) << "pass '" << registration.name << "' has no factory";
  std::string name = registration.name;
  reg.passes[name] = std::make_unique<PassRegistration>(std::move(registration));
}

std::vector<const PassRegistration*> ListPasses() {
  Registry& reg = GlobalRegistry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  std::vector<const PassRegistration*> out;
  for (const auto& [name, r] : reg.passes) out.push_back(r.get());
  return out;
}

/// Builds a registered pass from raw option strings (pipeline) or typed values.
static Pass BuildPass(std::string_view name,
                      const std::vector<std::pair<std::string, std::string>>* raw,
                      const Attrs* typed) {
  const PassRegistration* registration = nullptr;
  for (const PassRegistration* r : ListPasses())
    if (r->name == name) registration = r;
  if (!registration) {
    std::string valid;
    for (const PassRegistration* r : ListPasses()) valid += (valid.empty() ? "" : ", ") + r->name;
    TS_THROW(kNotFound) << "unknown pass '" << name << "' (registered: " << valid << ")";
  }
  auto find_option = [&](const std::string& key) -> const PassOption& {
    for (const PassOption& o : registration->options)
      if (o.name == key) return o;
    std::string valid;
    for (const PassOption& o : registration->options) valid += (valid.empty() ? "" : ", ") + o.name;
    TS_THROW(kValue) << "pass '" << name << "': unknown option '" << key << "'"
                     << (valid.empty() ? " (it takes no options)" : " (valid: " + valid + ")");
  };
  Attrs given;
  if (raw)
    for (const auto& [k, v] : *raw) {
      const PassOption& option = find_option(k);
      if (given.Has(k))
        TS_THROW(kValue) << "pass '" << name << "': option '" << k << "' given twice";
      given.Set(k, ParseOptionValue(registration->name, option, v));
    }
  if (typed) {
    for (const auto& [k, v] : typed->items()) {
      const PassOption& option = find_option(k);
      AttrValue value = v;
      if (option.kind == AttrValue::Kind::kFloat && value.is_int())
        value = AttrValue(value.AsFloat());
      if (value.kind() != option.kind)
        TS_THROW(kType) << "pass '" << name << "': option '" << k << "' expects "
                        << KindWithArticle(option.kind) << " value, got "
                        << AttrKindName(value.kind()) << " " << value.ToString();
      given.Set(k, value);
    }
  }
  Attrs full, non_default;
  for (const PassOption& o : registration->options) {
    const AttrValue* v = given.Find(o.name);
    full.Set(o.name, v ? *v : o.default_value);
    if (v && !(*v == o.default_value)) non_default.Set(o.name, *v);
  }
  Pass inner = registration->factory(full);
  return Pass(MakeNode<const RegisteredPassNode>(inner, registration->name, non_default));
}

Pass GetPass(std::string_view name, const Attrs& options) {
  return BuildPass(name, nullptr, &options);
}

namespace {

/// Recursive-descent parser for the pipeline grammar in pass_registry.h.
class PipelineParser {
 public:
  explicit PipelineParser(std::string_view text) : text_(text) {}

  Pass ParseTop() {
    std::vector<Pass> passes = ParseList();
    SkipSpace();
    if (pos_ < text_.size()) Fail("expected ',' or end of pipeline");
    return Sequential(std::move(passes), "pipeline");
  }

 private:
  std::vector<Pass> ParseList() {
    std::vector<Pass> passes;
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] == ')') return passes;
    while (true) {
      passes.push_back(ParseElement());
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      return passes;
    }
  }

  Pass ParseElement() {
    SkipSpace();
    // Recursion follows Sequential nesting; bound it so hostile input cannot overflow.
    if (depth_ >= kMaxDepth) Fail("Sequential nested deeper than " + std::to_string(kMaxDepth));
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '.'))
      ++pos_;
    if (pos_ == start) Fail("expected a pass name");
    std::string name(text_.substr(start, pos_ - start));
    std::vector<std::pair<std::string, std::string>> options;
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '{') options = ParseOptions();
    if (name != "Sequential") {
      try {
        return BuildPass(name, &options, nullptr);
      } catch (const Error& e) {
        TS_THROW(kParse) << "pipeline column " << start + 1 << ": " << e.what();
      }
    }
    std::string seq_name = "sequential";
    int opt_level = 0;
    for (const auto& [k, v] : options) {
      if (k == "name") {
        seq_name = v;
      } else if (k == "opt_level") {
        auto res = std::from_chars(v.data(), v.data() + v.size(), opt_level);
        if (res.ec != std::errc() || res.ptr != v.data() + v.size())
          Fail("opt_level must be an integer");
      } else {
        Fail("Sequential takes options 'name' and 'opt_level', got '" + k + "'");
      }
    }
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != '(') Fail("expected '(' after Sequential");
    ++pos_;
    ++depth_;
    std::vector<Pass> passes = ParseList();
    --depth_;
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != ')') Fail("expected ')' closing Sequential");
    ++pos_;
    return Sequential(std::move(passes), seq_name, opt_level);
  }

  std::vector<std::pair<std::string, std::string>> ParseOptions() {
    ++pos_;  // '{'
    std::vector<std::pair<std::string, std::string>> options;
    while (true) {
      SkipSpace();
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] != '=' && text_[pos_] != '}' && text_[pos_] != ',')
        ++pos_;
      std::string key = Trim(text_.substr(start, pos_ - start));
      if (key.empty()) Fail("expected an option name");
      if (pos_ >= text_.size() || text_[pos_] != '=')
        Fail("expected '=' after option '" + key + "'");
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '"') {
        options.emplace_back(key, ParseQuoted());
        SkipSpace();
      } else {
        start = pos_;
        while (pos_ < text_.size() && text_[pos_] != '}' && text_[pos_] != ',') ++pos_;
        options.emplace_back(key, Trim(text_.substr(start, pos_ - start)));
      }
      if (pos_ >= text_.size()) Fail("expected '}' closing the options");
      if (text_[pos_] != '}' && text_[pos_] != ',')
        Fail("expected ',' or '}' after option '" + key + "'");
      if (text_[pos_++] == '}') return options;
    }
  }

  /// A double-quoted value with `\"` and `\\` escapes (for values holding `,` or `}`).
  std::string ParseQuoted() {
    size_t open = pos_++;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    if (pos_ >= text_.size()) {
      pos_ = open;
      Fail("unterminated quoted value");
    }
    ++pos_;
    return out;
  }

  static std::string Trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
    return b == std::string_view::npos ? "" : std::string(s.substr(b, e - b + 1));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void Fail(const std::string& what) {
    // Quote the pipeline when it is short enough to help; the column locates it anyway.
    std::string in = text_.size() <= 400 ? " in '" + std::string(text_) + "'" : "";
    TS_THROW(kParse) << "pipeline column " << pos_ + 1 << ": " << what << in;
  }

  static constexpr int kMaxDepth = 200;
  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Pass ParsePipeline(std::string_view text) {
  return PipelineParser(text).ParseTop();
}

std::string PrintPipeline(const Pass& pass) {
  // A top-level "pipeline" Sequential prints as its bare list, the form users write.
  if (IsSequential(pass) && pass.info().name == "pipeline" && pass.info().opt_level == 0 &&
      pass.info().required.empty()) {
    std::string out;
    for (const Pass& p : SequentialPasses(pass))
      out += (out.empty() ? "" : ",") + p.ToPipelineString();
    return out;
  }
  return pass.ToPipelineString();
}

}  // namespace tessera
