// `tessera opt FILE`: type-checks a module and prints it as text or JSON.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "cli.h"
#include "tessera/ir/graph_dot.h"
#include "tessera/ir/json.h"
#include "tessera/ir/printer.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass_instrument.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::cli {

static const char* kOptHelp =
    "usage: tessera opt FILE [--passes PIPELINE] [options]\n"
    "\n"
    "Reads a module (ONNX, text IR or JSON; '-' = stdin), runs a pass pipeline, infers\n"
    "types and prints the result.\n"
    "  --passes PIPELINE     e.g. \"InferType,FoldConstant,FuseOps{max_depth=4}\";\n"
    "                        --list-passes shows the registered passes and options\n"
    "%s"
    "  --print-before-all    print the module before every pass (stdout)\n"
    "  --print-after-all     print the module after every pass (stdout)\n"
    "  --print-after-change  print after a pass only when it changed the module\n"
    "  --time-passes         print a nested timing tree to stderr\n"
    "  --verify-each         check well-formedness after every pass\n"
    "  --dump-ir DIR         write the module after every pass to DIR\n"
    "  --emit FORMAT         text (default), json, or dot (the dataflow for Graphviz;\n"
    "                        tessera viz draws it)\n"
    "  -o OUT                write to OUT instead of standard output\n"
    "  --show-types          annotate bindings with their inferred types (text only)\n"
    "%s%s"
    "A crash reproducer given as FILE replays its pass unless --passes says otherwise.\n";

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

/// Says on stderr which passes named in the pipeline the context will skip for their opt
/// level (TVM's rule, which a user naming a pass does not expect to be silent).
static void NoteSkippedPasses(const Pass& pipeline, const PassContext& ctx) {
  std::vector<Pass> work = {pipeline};
  while (!work.empty()) {
    Pass pass = work.back();
    work.pop_back();
    std::vector<Pass> children = SequentialPasses(pass);
    if (!children.empty()) {
      work.insert(work.end(), children.rbegin(), children.rend());
      continue;
    }
    const PassInfo& info = pass.info();
    const auto& required = ctx.required_pass();
    const auto& disabled = ctx.disabled_pass();
    bool is_required = std::find(required.begin(), required.end(), info.name) != required.end();
    bool is_disabled = std::find(disabled.begin(), disabled.end(), info.name) != disabled.end();
    if (!is_required && !is_disabled && info.opt_level > ctx.opt_level())
      std::fprintf(stderr,
                   "tessera opt: note: %s needs opt_level %d and is skipped at --opt-level %d "
                   "(raise --opt-level or add --required-pass %s)\n",
                   info.name.c_str(), info.opt_level, ctx.opt_level(), info.name.c_str());
  }
}

static ArgList OptArgs(const std::vector<std::string>& raw_args) {
  return ArgList(
      raw_args,
      {"--help", "-h", "--show-types", "--print-before-all", "--print-after-all",
       "--print-after-change", "--time-passes", "--verify-each", "--list-passes", "--list-configs"},
      {"--emit", "-o", "--passes", "--dump-ir", "--crash-reproducer", "--shape", CONTEXT_OPTIONS},
      "opt");
}

int RunOpt(const std::vector<std::string>& raw_args) {
  ArgList args = OptArgs(raw_args);
  if (args.Has("--help") || args.Has("-h")) {
    std::printf(kOptHelp, kContextHelp, kShapeHelp, kReproducerHelp);
    return 0;
  }
  if (args.Has("--list-passes") || args.Has("--list-configs")) {
    ListPassesAndConfigs(args.Has("--list-passes"), args.Has("--list-configs"));
    return 0;
  }
  if (args.positionals().size() != 1) {
    std::fprintf(stderr, "tessera opt: expected one FILE, got %zu\n\n", args.positionals().size());
    std::fprintf(stderr, kOptHelp, kContextHelp, kShapeHelp, kReproducerHelp);
    return 2;
  }
  if (args.Get("--passes").empty()) {
    std::vector<std::string> replay = ReproducerArgs(args.positionals()[0]);
    if (!replay.empty()) {
      std::vector<std::string> all = raw_args;
      all.insert(all.end(), replay.begin(), replay.end());
      args = OptArgs(all);
      std::fprintf(stderr, "tessera opt: replaying the crash reproducer: --passes %s\n",
                   args.Get("--passes").c_str());
    }
  }
  std::string emit = args.Get("--emit", "text");
  if (emit != "text" && emit != "json" && emit != "dot")
    TS_THROW(kValue) << "--emit must be 'text', 'json' or 'dot', got '" << emit << "'";
  IRModule mod = LoadModule(args.positionals()[0], ShapesFromArgs(args));

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
  auto repro = std::make_shared<ReproducerInstrument>();
  std::string repro_path = args.Get("--crash-reproducer");
  if (!repro_path.empty()) instruments.push_back(repro);
  PassContext ctx = ContextFromArgs(args, instruments);
  if (!args.Get("--passes").empty()) {
    Pass pipeline = ParsePipeline(args.Get("--passes"));
    NoteSkippedPasses(pipeline, ctx);
    try {
      PassContext::Scope scope(ctx);
      mod = pipeline(mod);
    } catch (const Error& e) {
      if (repro->failed()) {
        WriteReproducer(repro_path, *repro, &pipeline, args, e.what());
        std::fprintf(stderr, "tessera opt: wrote a crash reproducer to %s (replay: tessera opt %s)\n",
                     repro_path.c_str(), repro_path.c_str());
      } else if (!repro_path.empty()) {
        std::fprintf(stderr, "tessera opt: no crash reproducer written: the failure is not in "
                             "a pass (a reproducer replays a failing pass)\n");
      }
      throw;
    }
  }
  if (args.Has("--time-passes")) std::fputs(timing->Render().c_str(), stderr);
  mod = InferTypes(mod);
  PrintOptions options;
  options.show_types = args.Has("--show-types");
  std::string out = emit == "json"  ? ModuleToJson(mod, 1) + "\n"
                    : emit == "dot" ? ModuleToDot(mod)
                                    : PrintModule(mod, options);
  WriteTextFile(args.Get("-o", "-"), out);
  return 0;
}

}  // namespace tessera::cli
