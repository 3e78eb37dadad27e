// CLI helpers shared by opt and compile: a PassContext from --opt-level, --required-pass,
// --disable-pass and --config.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "cli.h"

#include <chrono>

#include "tessera/collage/cost_estimator.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::cli {

const char* kContextHelp =
    "  --opt-level N         PassContext opt_level (default 2); a pass whose own level is\n"
    "                        higher is skipped, with a note on stderr\n"
    "  --required-pass NAME  run a pass whatever the opt level (repeatable)\n"
    "  --disable-pass NAME   skip a pass inside the pipeline (repeatable)\n"
    "  --config KEY=VALUE    PassContext config (repeatable; tessera opt --list-configs\n"
    "                        shows the keys); VALUE in double quotes is a string as written\n";

/// Parses a `--config KEY=VALUE` value: true/false, integers, numbers, else a string; a
/// value in double quotes is a string as written ("" is the empty string, "42" a string).
static AttrValue ParseConfigValue(const std::string& text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    return AttrValue(text.substr(1, text.size() - 2));
  if (!text.empty() && text.front() == '[') {
    // An array: comma-separated items in brackets, e.g. [dnnl.NoFusion,blas.NoFusion]
    // (quotes optional).
    if (text.back() != ']') TS_THROW(kValue) << "--config: an array ends with ']', got '" << text << "'";
    std::vector<AttrValue> items;
    std::string inner = text.substr(1, text.size() - 2), item;
    std::istringstream in(inner);
    while (std::getline(in, item, ',')) {
      size_t a = item.find_first_not_of(" \"'"), b = item.find_last_not_of(" \"'");
      if (a == std::string::npos) continue;
      items.push_back(ParseConfigValue(item.substr(a, b - a + 1)));
    }
    return AttrValue(std::move(items));
  }
  if (text == "true" || text == "True") return AttrValue(true);
  if (text == "false" || text == "False") return AttrValue(false);
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return AttrValue(static_cast<int64_t>(i));
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return AttrValue(d);
  return AttrValue(text);
}

/// Rejects names in --required-pass / --disable-pass that no registered pass has: on the
/// command line a typo would otherwise silently change nothing.
static void CheckPassNames(const std::vector<std::string>& names, const char* option) {
  std::vector<const PassRegistration*> passes = ListPasses();
  for (const std::string& name : names) {
    bool known = std::any_of(passes.begin(), passes.end(),
                             [&](const PassRegistration* r) { return r->name == name; });
    if (known) continue;
    std::string valid;
    for (const PassRegistration* r : passes) valid += (valid.empty() ? "" : ", ") + r->name;
    TS_THROW(kValue) << option << ": unknown pass '" << name << "' (registered: " << valid << ")";
  }
}

PassContext ContextFromArgs(const ArgList& args,
                            std::vector<std::shared_ptr<PassInstrument>> instruments,
                            bool collage) {
  Attrs config;
  if (collage) {
    config.Set("collage.enable", AttrValue(true));
    // The rate since the first timed candidate of a batch gives the time left (building
    // the batch's kernels comes before it).
    struct Clock {
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), first;
      size_t total = 0;
    };
    auto clock = std::make_shared<Clock>();
    collage::SetDefaultProgress([clock](size_t done, size_t total) {
      auto now = std::chrono::steady_clock::now();
      if (done <= 1 || total != clock->total) {
        clock->first = now;
        clock->total = total;
      }
      double s = std::chrono::duration<double>(now - clock->start).count();
      std::string text = "collage: measured " + std::to_string(done) + "/" + std::to_string(total) +
                         " candidate kernels, " + std::to_string(static_cast<int>(s)) + " s";
      if (done > 1 && done < total) {
        double per = std::chrono::duration<double>(now - clock->first).count() /
                     static_cast<double>(done - 1);
        text += ", about " + std::to_string(static_cast<int>(per * static_cast<double>(total - done) + 0.5)) +
                " s left";
      }
      Progress(text);
    });
  }
  if (collage && !args.Get("--runner").empty())
    config.Set("collage.runner", AttrValue(args.Get("--runner")));
  for (const std::string& spec : args.GetAll("--config")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--config expects KEY=VALUE, got '" << spec << "'";
    config.Set(spec.substr(0, eq), ParseConfigValue(spec.substr(eq + 1)));
  }
  std::string level = args.Get("--opt-level", "2");
  char* end = nullptr;
  long opt_level = std::strtol(level.c_str(), &end, 10);
  if (level.empty() || *end != '\0' || opt_level < 0 || opt_level > 4)
    TS_THROW(kValue) << "--opt-level expects an integer from 0 to 4, got '" << level << "'";
  std::vector<std::string> required = args.GetAll("--required-pass");
  std::vector<std::string> disabled = args.GetAll("--disable-pass");
  CheckPassNames(required, "--required-pass");
  CheckPassNames(disabled, "--disable-pass");
  return PassContext::Create(static_cast<int>(opt_level), required, disabled, config,
                             std::move(instruments));
}

std::vector<Target> TargetsFromArgs(const ArgList& args) {
  std::vector<Target> targets;
  for (const std::string& t : args.GetAll("--target")) targets.push_back(Target::Parse(t));
  if (targets.empty()) targets.push_back(Target("native"));
  return targets;
}

std::string TargetsText(const std::vector<Target>& targets) {
  std::string out;
  for (const Target& t : targets) out += (out.empty() ? "" : ", ") + t.ToString();
  return out;
}

}  // namespace tessera::cli
