// `tessera --version` and `tessera targets`: what this build is and which backends it has.
#include <cstdio>
#include <string>

#include "cli.h"
#include "tessera/frontend/onnx.h"
#include "tessera/target/backend_registry.h"
#include "tessera/support/version.h"

namespace tessera::cli {

int RunVersion(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "tessera version: takes no arguments, got '%s'\n", args[0].c_str());
    return 2;
  }
  std::string backends;
  for (const std::string& name : BackendRegistry::Global().Names())
    backends += (backends.empty() ? "" : ", ") + name;
  std::printf("tessera %s\nbackends: %s\nONNX import: %s\n", Version(), backends.c_str(),
              frontend::OnnxImporterAvailable() ? "yes" : "no (built without libonnx)");
  return 0;
}

static const char* kTargetsHelp =
    "usage: tessera targets\n"
    "\n"
    "Lists the backends this build has, each with the options a --target string gives it,\n"
    "e.g. --target \"native -num_threads=1 -libs=dnnl\".\n";

int RunTargets(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h"}, {}, "targets");
  if (args.Has("--help") || args.Has("-h")) {
    std::fputs(kTargetsHelp, stdout);
    return 0;
  }
  if (!args.positionals().empty()) {
    std::fprintf(stderr, "tessera targets: takes no arguments\n\n%s", kTargetsHelp);
    return 2;
  }
  BackendRegistry& registry = BackendRegistry::Global();
  for (const std::string& name : registry.Names()) {
    const Backend& b = registry.Get(name);
    std::printf("%s: %s\n", b.name.c_str(), b.description.c_str());
    for (const TargetAttrSpec& a : b.attrs)
      std::printf("  -%s (%s, default %s): %s\n", a.name.c_str(), TargetAttrTypeName(a.type),
                  a.default_value.ToString().c_str(), a.description.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
