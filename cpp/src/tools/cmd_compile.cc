// `tessera compile FILE -o OUT`: builds a module for a target and saves the executable.
#include <cstdio>

#include "cli.h"
#include "tessera/backend/build.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kCompileHelp =
    "usage: tessera compile FILE -o OUT [--target TARGET] [options]\n"
    "\n"
    "Builds a model (ONNX .onnx, text IR or JSON; '-' = stdin) for a target and writes the\n"
    "executable (graph, constants and compiled kernels) to OUT; `tessera run OUT` runs it\n"
    "without a compiler, with the target's -num_threads unless --threads says otherwise.\n"
    "  -o OUT                where to write the executable\n"
    "  --target TARGET       e.g. native (default), \"native -num_threads=1\", interp\n"
    "%s%s";

int RunCompile(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h"}, {"-o", "--target", "--shape", CONTEXT_OPTIONS},
               "compile");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kCompileHelp, kShapeHelp, kContextHelp);
    return 0;
  }
  if (args.positionals().size() != 1 || args.Get("-o").empty()) {
    std::fprintf(stderr, "tessera compile: expected one FILE and -o OUT\n\n");
    std::fprintf(stderr, kCompileHelp, kShapeHelp, kContextHelp);
    return 2;
  }
  IRModule mod = LoadModule(args.positionals()[0], ShapesFromArgs(args));
  PassContext ctx = ContextFromArgs(args);
  PassContext::Scope scope(ctx);
  Progress("compiling for " + args.Get("--target", "native") + " ...");
  auto exe = Build(mod, args.Get("--target", "native"));
  Progress("writing " + args.Get("-o") + " ...");
  exe->Save(args.Get("-o"));
  Progress("");
  std::fprintf(stderr, "tessera compile: %zu kernel call(s), %zu byte(s) of intermediates -> %s\n",
               exe->instructions().size(), exe->memory_plan().arena_bytes, args.Get("-o").c_str());
  return 0;
}

}  // namespace tessera::cli
