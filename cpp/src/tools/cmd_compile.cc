// `tessera compile FILE -o OUT`: builds a module for a target and saves the executable.
#include <cstdio>

#include "cli.h"
#include "tessera/backend/build.h"
#include "tessera/collage/report.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kCompileHelp =
    "usage: tessera compile FILE -o OUT [--target TARGET] [options]\n"
    "\n"
    "Builds a model (ONNX .onnx, text IR or JSON; '-' = stdin) for a target and writes the\n"
    "executable (graph, constants and compiled kernels) to OUT; `tessera run OUT` runs it\n"
    "without a compiler, with the target's -num_threads unless --threads says otherwise.\n"
    "  -o OUT                where to write the executable\n"
    "  --target TARGET       e.g. native (default), \"native -num_threads=1\", interp; repeat it\n"
    "                        to offer Collage several backends (--target native --target dnnl)\n"
    "  --collage             choose every kernel's backend by measured latency (Collage; the\n"
    "                        same as --config collage.enable=true); progress on stderr\n"
    "  --runner RUNNER       where Collage times candidates: local (default) or\n"
    "                        dask://HOST:PORT (a Dask cluster; collage.runner)\n"
    "%s%s%s";

int RunCompile(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h", "--collage"},
               {"-o", "--target", "--shape", "--crash-reproducer", "--runner", CONTEXT_OPTIONS},
               "compile");
  if (!args.Get("--runner").empty() && !args.Has("--collage"))
    throw UsageError("--runner is for Collage's measurements: add --collage");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kCompileHelp, kShapeHelp, kContextHelp, kReproducerHelp);
    return 0;
  }
  if (args.positionals().size() != 1 || args.Get("-o").empty()) {
    std::fprintf(stderr, "tessera compile: expected one FILE and -o OUT\n\n");
    std::fprintf(stderr, kCompileHelp, kShapeHelp, kContextHelp, kReproducerHelp);
    return 2;
  }
  IRModule mod = LoadModule(args.positionals()[0], ShapesFromArgs(args));
  auto repro = std::make_shared<ReproducerInstrument>();
  std::string repro_path = args.Get("--crash-reproducer");
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  if (!repro_path.empty()) instruments.push_back(repro);
  PassContext ctx = ContextFromArgs(args, instruments, args.Has("--collage"));
  std::vector<Target> targets = TargetsFromArgs(args);
  Progress("compiling for " + TargetsText(targets) + " ...");
  std::shared_ptr<runtime::Executable> exe;
  try {
    PassContext::Scope scope(ctx);
    exe = Build(mod, targets);
  } catch (const Error& e) {
    if (repro->failed()) {
      Progress("");
      Pass pipeline = BuildPipeline();  // for the failing pass's options
      WriteReproducer(repro_path, *repro, &pipeline, args, e.what());
      std::fprintf(stderr, "tessera compile: wrote a crash reproducer to %s (replay: tessera opt %s)\n",
                   repro_path.c_str(), repro_path.c_str());
    } else if (!repro_path.empty()) {
      std::fprintf(stderr, "tessera compile: no crash reproducer written: the failure is not "
                           "in a pass (a reproducer replays a failing pass)\n");
    }
    throw;
  }
  Progress("writing " + args.Get("-o") + " ...");
  exe->Save(args.Get("-o"));
  Progress("");
  std::fprintf(stderr, "tessera compile: %zu kernel call(s), %zu byte(s) of intermediates -> %s\n",
               exe->instructions().size(), exe->memory_plan().arena_bytes, args.Get("-o").c_str());
  if (!exe->collage_report().empty())
    std::fprintf(stderr, "%s", collage::ReportToText(exe->collage_report()).c_str());
  return 0;
}

}  // namespace tessera::cli
