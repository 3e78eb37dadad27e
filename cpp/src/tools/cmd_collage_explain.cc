// `tessera collage explain FILE --target ...`: builds with Collage and explains the
// choice (text on stdout; with -o, an HTML page with the graph coloured by backend).
#include <cstdio>
#include <fstream>

#include "cli.h"
#include "tessera/backend/build.h"
#include "tessera/collage/report.h"
#include "tessera/runtime/executable.h"
#include "tessera/support/error.h"

namespace tessera::cli {

static const char* kExplainHelp =
    "usage: tessera collage explain FILE [--target TARGET]... [-o OUT.html] [--measure]\n"
    "                               [--shape NAME=D1,...] [options]\n"
    "\n"
    "Builds FILE with Collage over the targets (repeat --target: native, dnnl, blas, or\n"
    "\"native -compiler=dnnl -libs=blas\") and prints every chosen kernel: its ops, backend,\n"
    "estimated cost and the cheapest rejected alternative, the estimated total and the\n"
    "guard's end-to-end timings. Progress goes to stderr.\n"
    "  -o OUT.html   also write an HTML page with the graph coloured by backend (Graphviz)\n"
    "  --measure     time the built program end to end (the additive error of the costs)\n"
    "  --runner R    where candidates are timed: local (default) or dask://HOST:PORT\n"
    "%s%s";

int RunCollageExplain(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h", "--measure"},
               {"-o", "--target", "--shape", "--runner", CONTEXT_OPTIONS}, "collage explain");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kExplainHelp, kShapeHelp, kContextHelp);
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fprintf(stderr, "tessera collage explain: expected one FILE\n\n");
    std::fprintf(stderr, kExplainHelp, kShapeHelp, kContextHelp);
    return 2;
  }
  std::ofstream html;
  if (!args.Get("-o").empty()) {  // before the search, which may take minutes
    html.open(args.Get("-o"));
    if (!html) TS_THROW(kIO) << "cannot write '" << args.Get("-o") << "'";
  }
  IRModule mod = LoadModule(args.positionals()[0], ShapesFromArgs(args));
  PassContext ctx = ContextFromArgs(args, {}, /*collage=*/true);
  PassContext::Scope scope(ctx);
  std::vector<Target> targets = TargetsFromArgs(args);
  Progress("collage: building for " + TargetsText(targets) + " ...");
  auto exe = Build(mod, targets);
  double measured = -1;
  if (args.Has("--measure")) {
    Progress("timing the program ...");
    runtime::ExecutorOptions eo;
    eo.num_threads = exe->default_num_threads() > 0 ? exe->default_num_threads() : 1;
    runtime::Executor ex(exe, eo);
    measured = ex.Benchmark(runtime::RandomInputs(*exe), 3, 20).median_ms;
  }
  Progress("");
  std::printf("%s", collage::ReportToText(exe->collage_report(), measured).c_str());
  if (html.is_open()) {
    html << collage::ReportToHtml(exe->collage_report(), measured);
    std::fprintf(stderr, "tessera collage explain: wrote %s\n", args.Get("-o").c_str());
  }
  return 0;
}

}  // namespace tessera::cli
