// `tessera viz FILE -o OUT`: draws a model's dataflow after the build's fusion and
// partitioning (fused kernels and library partitions as clusters coloured by backend).
#include <cstdio>
#include <string>

#include "cli.h"
#include "tessera/backend/build.h"
#include "tessera/ir/graph_dot.h"
#include "tessera/ir/infer_type.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::cli {

static const char* kVizHelp =
    "usage: tessera viz FILE -o OUT.svg|OUT.html|OUT.dot [--target TARGET] [options]\n"
    "\n"
    "Draws the model (ONNX .onnx, text IR or JSON; '-' = stdin) as the build sees it before\n"
    "code generation: its ops, the kernels they fuse into and the library partitions the\n"
    "target asks for, each cluster coloured by the backend that runs it. SVG and HTML need\n"
    "Graphviz's dot (Debian: graphviz); .dot writes the graph itself.\n"
    "  -o OUT                .svg, .html (the picture in a page) or .dot\n"
    "  --target TARGET       e.g. \"native -compiler=dnnl\" to see oneDNN's partitions\n"
    "                        (default native)\n"
    "  --passes PIPELINE     draw after this pipeline instead of the build's (e.g. \"\" for\n"
    "                        the model as loaded)\n"
    "%s%s";

/// The build's pipeline without the final lowering, which would hide the ops in PrimFuncs.
static Pass PipelineBeforeLowering() {
  std::vector<Pass> passes;
  for (const Pass& p : SequentialPasses(BuildPipeline()))
    if (p.info().name != "LowerToTIR") passes.push_back(p);
  return Sequential(passes, "viz");
}

static std::string HtmlPage(const std::string& title, const std::string& svg) {
  std::string escaped;
  for (char c : title) escaped += c == '<' ? "&lt;" : c == '&' ? "&amp;" : std::string(1, c);
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escaped +
         "</title></head>\n<body><h1>" + escaped + "</h1>\n" + svg + "\n</body></html>\n";
}

int RunViz(const std::vector<std::string>& raw_args) {
  ArgList args(raw_args, {"--help", "-h"}, {"-o", "--target", "--passes", "--shape", CONTEXT_OPTIONS},
               "viz");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kVizHelp, kShapeHelp, kContextHelp);
    return 0;
  }
  if (args.positionals().size() != 1 || args.Get("-o").empty()) {
    std::fprintf(stderr, "tessera viz: expected one FILE and -o OUT\n\n");
    std::fprintf(stderr, kVizHelp, kShapeHelp, kContextHelp);
    return 2;
  }
  std::string out = args.Get("-o");
  auto ends_with = [&](const char* ext) {
    std::string e(ext);
    return out.size() >= e.size() && out.compare(out.size() - e.size(), e.size(), e) == 0;
  };
  if (!ends_with(".svg") && !ends_with(".html") && !ends_with(".dot"))
    TS_THROW(kValue) << "-o: write a .svg, .html or .dot file, got '" << out << "'";
  std::vector<Target> targets = TargetsFromArgs(args);
  PassContext ctx = ContextFromArgs(args);
  // Collage's choice (several targets, collage.enable) is measured, not drawn here.
  if (targets.size() > 1 || ctx.GetConfigBool("collage.enable"))
    TS_THROW(kValue) << "viz draws the build's fusion and the partitions of one target's "
                        "-compiler/-libs options; Collage's choice among several targets is "
                        "drawn by its report: tessera collage explain FILE --target ... -o "
                        "collage.html";
  if (!args.GetAll("--passes").empty() && !args.GetAll("--target").empty())
    TS_THROW(kValue) << "--passes replaces the build's fusion and partitioning, which is what "
                        "--target chooses: give one of them";
  IRModule mod = LoadModule(args.positionals()[0], ShapesFromArgs(args));
  {
    PassContext::Scope scope(ctx);
    if (args.GetAll("--passes").empty()) {
      // As Build does: at opt_level 3 layouts are planned before the libraries partition.
      const Target& host = targets.front();
      mod = PipelineBeforeLowering()(
          OffloadToLibraries(PlanLayoutsForLibraries(InferTypes(mod), host), host));
    } else if (!args.Get("--passes").empty()) {
      mod = ParsePipeline(args.Get("--passes"))(mod);
    }
  }
  std::string dot = ModuleToDot(InferTypes(mod));
  std::string text = ends_with(".dot") ? dot
                     : ends_with(".svg") ? DotToSvg(dot)
                                         : HtmlPage(args.positionals()[0] + " (" +
                                                        TargetsText(targets) + ")",
                                                    DotToSvg(dot));
  WriteTextFile(out, text);
  std::fprintf(stderr, "tessera viz: wrote %s\n", out.c_str());
  return 0;
}

}  // namespace tessera::cli
