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
    "  bench FILE  latency (median/p90) and per-kernel profile on a target\n"
    "\n"
    "FILE is an ONNX model (.onnx), text IR or JSON IR; '-' reads standard input.\n"
    "Run 'tessera <command> --help' for a command's options.\n"
    "Set TESSERA_LOG_LEVEL=debug|info|warn for logging.\n";

}  // namespace

int main(int argc, char** argv) {
  tessera::InitLoggingFromEnv();
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "opt") return tessera::cli::RunOpt(args);
    if (command == "run") return tessera::cli::RunRun(args);
    if (command == "compile") return tessera::cli::RunCompile(args);
    if (command == "collage") return tessera::cli::RunCollage(args);
    if (command == "bench") return tessera::cli::RunBench(args);
    std::fprintf(stderr, "tessera: unknown command '%s'\n\n%s", command.c_str(), kUsage);
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
