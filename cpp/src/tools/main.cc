// The `tessera` command-line tool: dispatches to subcommands, reports errors on stderr.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"

namespace {

const char* kUsage =
    "usage: tessera <command> [options]\n"
    "\n"
    "commands:\n"
    "  opt FILE    type-check a module and print it (text or JSON)\n"
    "  run FILE    run @main on .npy inputs (interpreter, --target, or a compiled file)\n"
    "  compile FILE -o OUT   build for a target and save the executable\n"
    "  collage candidates FILE --target T   list Collage's candidate partitions\n"
    "  collage explain FILE --target T...   build with Collage and explain every choice\n"
    "  collage db stats|list|clear|export|import   Collage's cost database\n"
    "  bench FILE  latency (median/p90) and per-kernel profile on a target\n"
    "  viz FILE -o OUT.svg   draw the model's kernels and partitions (also .html, .dot)\n"
    "  targets     the backends this build has and their options\n"
    "  version     the version, backends and ONNX support (also --version)\n"
    "\n"
    "FILE is an ONNX model (.onnx), text IR or JSON IR; '-' reads standard input.\n"
    "Run 'tessera <command> --help' for a command's options.\n"
    "Every command takes --log-level trace|debug|info|warn|error|off (default warn, or\n"
    "TESSERA_LOG_LEVEL) to see what the compiler does, on stderr.\n";

/// Removes `--log-level LEVEL` (or `--log-level=LEVEL`) from `args` and applies it; a
/// missing or unknown level is a value error.
void ApplyLogLevel(std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--log-level") {
      if (i + 1 >= args.size()) throw tessera::cli::UsageError("--log-level expects a level");
      tessera::SetLogLevel(args[i + 1]);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else if (args[i].rfind("--log-level=", 0) == 0) {
      tessera::SetLogLevel(args[i].substr(12));
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  tessera::InitLoggingFromEnv();
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    ApplyLogLevel(args);  // before or after the command
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "tessera: %s\n", e.what());
    return 2;
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "--version" || command == "version") return tessera::cli::RunVersion(args);
    if (command == "targets") return tessera::cli::RunTargets(args);
    if (command == "viz") return tessera::cli::RunViz(args);
    if (command == "opt") return tessera::cli::RunOpt(args);
    if (command == "run") return tessera::cli::RunRun(args);
    if (command == "compile") return tessera::cli::RunCompile(args);
    if (command == "collage") return tessera::cli::RunCollage(args);
    if (command == "bench") return tessera::cli::RunBench(args);
    std::fprintf(stderr, "tessera: unknown command '%s'\n\n%s", command.c_str(), kUsage);
    return 2;
  } catch (const tessera::cli::UsageError& e) {
    std::fprintf(stderr, "tessera %s: %s (tessera %s --help lists the options)\n",
                 command.c_str(), e.what(), command.c_str());
    return 2;
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "tessera %s: %s: %s\n", command.c_str(), tessera::ErrorKindName(e.kind()),
                 e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera %s: internal error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
