// `tessera opt FILE`: type-checks a module and prints it as text or JSON.
#include <cstdio>

#include "cli.h"
#include "tessera/ir/json.h"
#include "tessera/ir/printer.h"
#include "tessera/support/error.h"
#include "tessera/transform/infer_type.h"

namespace tessera::cli {

static const char* kOptHelp =
    "usage: tessera opt FILE [--emit text|json] [-o OUT] [--show-types]\n"
    "\n"
    "Reads a module (text IR or JSON; '-' = stdin), infers its types and prints it.\n"
    "  --emit FORMAT   text (default) or json\n"
    "  -o OUT          write to OUT instead of standard output\n"
    "  --show-types    annotate each binding with its inferred type (text only)\n";

int RunOpt(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h", "--show-types"}, {"--emit", "-o"}, "opt");
  if (args.Has("--help") || args.Has("-h")) {
    std::fputs(kOptHelp, stdout);
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fputs(kOptHelp, stderr);
    return 2;
  }
  std::string emit = args.Get("--emit", "text");
  if (emit != "text" && emit != "json")
    TS_THROW(kValue) << "--emit must be 'text' or 'json', got '" << emit << "'";
  IRModule mod = InferTypes(LoadModule(args.positionals()[0]));
  PrintOptions options;
  options.show_types = args.Has("--show-types");
  std::string out = emit == "json" ? ModuleToJson(mod, 1) + "\n" : PrintModule(mod, options);
  WriteTextFile(args.Get("-o", "-"), out);
  return 0;
}

}  // namespace tessera::cli
