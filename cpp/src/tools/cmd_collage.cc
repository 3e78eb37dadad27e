// `tessera collage candidates FILE --target ...`: lists the candidate partitions each
// spec finds on @main (count per spec; each candidate's indices, label and kind).
#include <cstdio>

#include "cli.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/partition_spec.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera::cli {

static const char* kCollageHelp =
    "usage: tessera collage candidates FILE [--target TARGET]... [options]\n"
    "       tessera collage explain FILE [--target TARGET]... [-o OUT.html]   (see --help there)\n"
    "       tessera collage db stats|list|clear|export FILE|import FILE   (see --help there)\n"
    "\n"
    "Lists the candidate partitions (kernels) each target's partition spec finds on @main,\n"
    "by post-DFS index (params first, each callee before its args, the function last).\n"
    "  --target TARGET   a target to gather specs for (repeatable; default native);\n"
    "                    '-compiler=dnnl' / '-libs=blas' add that library's spec\n"
    "  --max-depth N     the specs' depth limit (default 4; 0: no limit)\n"
    "  --host            add the host spec (nodes evaluated without a kernel)\n"
    "  --rules           print each spec's rule tree\n"
    "\n"
    "Each candidate line shows its indices, label (its ops), kind and the rule that found\n"
    "it. Kinds, lowest first: elemwise, broadcast, injective, comm_reduce,\n"
    "out_elemwise_fusable (conv2d, dense), tuple, opaque.\n";

int RunCollage(const std::vector<std::string>& raw_args) {
  if (!raw_args.empty() && raw_args[0] == "explain")
    return RunCollageExplain(std::vector<std::string>(raw_args.begin() + 1, raw_args.end()));
  if (!raw_args.empty() && raw_args[0] == "db")
    return RunCollageDb(std::vector<std::string>(raw_args.begin() + 1, raw_args.end()));
  ArgList args(raw_args, {"--help", "-h", "--host", "--rules"}, {"--target", "--max-depth"},
               "collage");
  if (args.Has("--help") || args.Has("-h")) {
    std::printf("%s", kCollageHelp);
    return 0;
  }
  if (args.positionals().empty() || args.positionals()[0] != "candidates") {
    std::fprintf(
        stderr, "tessera collage: expected 'candidates FILE', 'explain FILE' or 'db ...'%s\n\n%s",
        args.positionals().empty() ? "" : (", got '" + args.positionals()[0] + "'").c_str(),
        kCollageHelp);
    return 2;
  }
  if (args.positionals().size() != 2) {
    std::fprintf(
        stderr, "tessera collage candidates: expected one FILE, got %zu%s\n\n%s",
        args.positionals().size() - 1,
        args.positionals().size() > 2 ? (" (extra: '" + args.positionals()[2] + "')").c_str() : "",
        kCollageHelp);
    return 2;
  }
  std::string depth_text = args.Get("--max-depth", "4");
  size_t used = 0;
  long depth = -1;
  try {
    depth = std::stol(depth_text, &used);
  } catch (const std::exception&) {
  }
  if (used != depth_text.size() || depth < 0)
    TS_THROW(kValue) << "--max-depth must be an integer >= 0 (0: no limit), got '" << depth_text
                     << "'";
  std::vector<Target> targets;
  for (const std::string& t : args.GetAll("--target")) targets.push_back(Target::Parse(t));
  if (targets.empty()) targets.push_back(Target("native"));

  IRModule mod = InferTypes(LoadModule(args.positionals()[1]));
  collage::DataflowGraph graph(mod.LookupFunction("main"));
  auto specs =
      collage::GatherPartitionSpecs(targets, static_cast<size_t>(depth), args.Has("--host"));
  // The nodes by index, so the candidates' index sets can be read.
  std::printf("@main: %zu nodes (index:label)\n ", graph.size());
  for (size_t i = 0; i < graph.size(); ++i)
    std::printf(" %zu:%s%s", i, graph.NodeLabel(i).c_str(), (i + 1) % 10 == 0 ? "\n " : "");
  std::printf("\n");
  for (const collage::PartitionSpecPtr& spec : specs) {
    auto candidates = collage::PartitionSpec::AllCandidates(spec, graph);
    std::printf("spec %s (target %s): %zu candidate(s)\n", spec->name.c_str(),
                spec->target.ToString().c_str(), candidates.size());
    if (args.Has("--rules")) {
      std::string rules = spec->rule->ToString();
      std::printf("  rules:\n");
      size_t start = 0;
      for (size_t nl; (nl = rules.find('\n', start)) != std::string::npos; start = nl + 1)
        std::printf("    %s\n", rules.substr(start, nl - start).c_str());
    }
    for (const collage::CandidatePartition& c : candidates)
      std::printf("  %-16s %-40s %-20s %s\n", c.sub_graph.inside().ToString().c_str(),
                  c.sub_graph.label().c_str(), OpPatternKindName(c.sub_graph.kind()),
                  c.rule_name.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
