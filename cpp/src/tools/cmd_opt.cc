// `tessera opt FILE`: type-checks a module and prints it as text or JSON.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli.h"
#include "tessera/ir/json.h"
#include "tessera/ir/printer.h"
#include "tessera/support/error.h"
#include "tessera/transform/infer_type.h"
#include "tessera/transform/pass_instrument.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::cli {

static const char* kOptHelp =
    "usage: tessera opt FILE [--passes PIPELINE] [options]\n"
    "\n"
    "Reads a module (text IR or JSON; '-' = stdin), runs a pass pipeline, infers types\n"
    "and prints the result.\n"
    "  --passes PIPELINE     e.g. \"InferType,FoldConstant,FuseOps{max_depth=4}\";\n"
    "                        --list-passes shows the registered passes and options\n"
    "  --opt-level N         PassContext opt_level (default 2)\n"
    "  --disable-pass NAME   skip a pass inside the pipeline (repeatable)\n"
    "  --config KEY=VALUE    PassContext config (repeatable; --list-configs shows keys)\n"
    "  --print-before-all    print the module before every pass (stdout)\n"
    "  --print-after-all     print the module after every pass (stdout)\n"
    "  --print-after-change  print after a pass only when it changed the module\n"
    "  --time-passes         print a nested timing tree to stderr\n"
    "  --verify-each         check well-formedness after every pass\n"
    "  --dump-ir DIR         write the module after every pass to DIR\n"
    "  --emit FORMAT         text (default) or json\n"
    "  -o OUT                write to OUT instead of standard output\n"
    "  --show-types          annotate bindings with their inferred types (text only)\n";

/// Parses a `--config KEY=VALUE` value: true/false, integers, numbers, else a string.
static AttrValue ParseConfigValue(const std::string& text) {
  if (text == "true" || text == "True") return AttrValue(true);
  if (text == "false" || text == "False") return AttrValue(false);
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 10);
  if (!text.empty() && *end == '\0') return AttrValue(static_cast<int64_t>(i));
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return AttrValue(d);
  return AttrValue(text);
}

static void ListPassesAndConfigs(bool passes, bool configs) {
  if (passes) {
    for (const PassRegistration* r : ListPasses()) {
      std::printf("%-24s %s\n", r->name.c_str(), r->description.c_str());
      for (const PassOption& o : r->options)
        std::printf("    %s (%s, default %s): %s\n", o.name.c_str(), AttrKindName(o.kind),
                    o.default_value.ToString().c_str(), o.description.c_str());
    }
  }
  if (configs) {
    for (const ConfigOption& c : ListConfigs())
      std::printf("%-28s %-6s default %-8s %s\n", c.key.c_str(), AttrKindName(c.kind),
                  c.default_value.ToString().c_str(), c.description.c_str());
  }
}

int RunOpt(const std::vector<std::string>& raw_args) {
  ArgList args(
      raw_args,
      {"--help", "-h", "--show-types", "--print-before-all", "--print-after-all",
       "--print-after-change", "--time-passes", "--verify-each", "--list-passes", "--list-configs"},
      {"--emit", "-o", "--passes", "--opt-level", "--disable-pass", "--config", "--dump-ir"},
      "opt");
  if (args.Has("--help") || args.Has("-h")) {
    std::fputs(kOptHelp, stdout);
    return 0;
  }
  if (args.Has("--list-passes") || args.Has("--list-configs")) {
    ListPassesAndConfigs(args.Has("--list-passes"), args.Has("--list-configs"));
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fputs(kOptHelp, stderr);
    return 2;
  }
  std::string emit = args.Get("--emit", "text");
  if (emit != "text" && emit != "json")
    TS_THROW(kValue) << "--emit must be 'text' or 'json', got '" << emit << "'";
  IRModule mod = LoadModule(args.positionals()[0]);

  std::vector<std::shared_ptr<PassInstrument>> instruments;
  PrintIROptions print;
  print.before_all = args.Has("--print-before-all");
  print.after_all = args.Has("--print-after-all");
  print.after_change = args.Has("--print-after-change");
  if (print.before_all || print.after_all || print.after_change)
    instruments.push_back(std::make_shared<PrintIRInstrument>(print));
  auto timing = std::make_shared<PassTimingInstrument>();
  if (args.Has("--time-passes")) instruments.push_back(timing);
  if (args.Has("--verify-each")) instruments.push_back(std::make_shared<VerifierInstrument>());
  if (!args.Get("--dump-ir").empty())
    instruments.push_back(std::make_shared<DumpIRInstrument>(args.Get("--dump-ir")));
  Attrs config;
  for (const std::string& spec : args.GetAll("--config")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      TS_THROW(kValue) << "--config expects KEY=VALUE, got '" << spec << "'";
    config.Set(spec.substr(0, eq), ParseConfigValue(spec.substr(eq + 1)));
  }
  std::string level = args.Get("--opt-level", "2");
  char* end = nullptr;
  long opt_level = std::strtol(level.c_str(), &end, 10);
  if (level.empty() || *end != '\0')
    TS_THROW(kValue) << "--opt-level expects an integer, got '" << level << "'";
  PassContext ctx = PassContext::Create(static_cast<int>(opt_level), {},
                                        args.GetAll("--disable-pass"), config, instruments);
  if (!args.Get("--passes").empty()) {
    Pass pipeline = ParsePipeline(args.Get("--passes"));
    PassContext::Scope scope(ctx);
    mod = pipeline(mod);
  }
  if (args.Has("--time-passes")) std::fputs(timing->Render().c_str(), stderr);
  mod = InferTypes(mod);
  PrintOptions options;
  options.show_types = args.Has("--show-types");
  std::string out = emit == "json" ? ModuleToJson(mod, 1) + "\n" : PrintModule(mod, options);
  WriteTextFile(args.Get("-o", "-"), out);
  return 0;
}

}  // namespace tessera::cli
