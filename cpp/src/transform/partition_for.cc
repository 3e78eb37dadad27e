// partition_for_<library>: the classic BYOC pipeline, and the pass registrations of the
// BYOC passes for textual pipelines.
#include <sstream>

#include "builtin_passes.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/passes.h"

namespace tessera {

namespace {

/// Splits "dnnl,blas" into names (empty items are errors).
std::vector<std::string> SplitNames(const std::string& text, const char* what) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) TS_THROW(kValue) << what << ": empty compiler name in '" << text << "'";
    out.push_back(item);
  }
  if (out.empty()) TS_THROW(kValue) << what << " needs at least one compiler name";
  return out;
}

}  // namespace

Pass PartitionForPass(const std::string& compiler) {
  GetPatternTable(compiler);  // unknown compilers are errors now, not at run time
  return Sequential(
      {InferType(), FoldConstant(), MergeComposite(std::vector<std::string>{compiler}),
       AnnotateTarget({compiler}), MergeCompilerRegions(), PartitionGraph()},
      "PartitionFor");
}

IRModule PartitionFor(const IRModule& mod, const std::string& compiler) {
  return PartitionForPass(compiler)(mod);
}

IRModule PartitionForDnnl(const IRModule& mod) {
  return PartitionFor(mod, "dnnl");
}

IRModule PartitionForBlas(const IRModule& mod) {
  return PartitionFor(mod, "blas");
}

void AppendByocPasses(std::vector<PassRegistration>& passes) {
  passes.push_back({"MergeComposite",
                    "turn pattern-table matches into Composite functions",
                    {{"compilers", AttrValue::Kind::kString, AttrValue("dnnl"),
                      "comma-separated compilers whose pattern tables to apply"}},
                    [](const Attrs& o) {
                      return MergeComposite(SplitNames(o.GetString("compilers"), "MergeComposite"));
                    }});
  passes.push_back({"AnnotateTarget",
                    "annotate the regions external compilers support",
                    {{"compilers", AttrValue::Kind::kString, AttrValue("dnnl"),
                      "comma-separated compilers, first wins"},
                     {"include_non_call_ops", AttrValue::Kind::kBool, AttrValue(true),
                      "let tuples and projections join their operands' compiler"}},
                    [](const Attrs& o) {
                      return AnnotateTarget(SplitNames(o.GetString("compilers"), "AnnotateTarget"),
                                            o.GetBool("include_non_call_ops"));
                    }});
  passes.push_back(
      {"MergeCompilerRegions", "merge adjacent regions of one compiler", {}, [](const Attrs&) {
         return MergeCompilerRegions();
       }});
  passes.push_back(
      {"PartitionGraph", "outline annotated regions into Compiler functions", {}, [](const Attrs&) {
         return PartitionGraph();
       }});
  passes.push_back({"PartitionFor",
                    "the classic BYOC pipeline (partition_for_<compiler>)",
                    {{"compiler", AttrValue::Kind::kString, AttrValue("dnnl"),
                      "the compiler whose patterns and op predicates to use"}},
                    [](const Attrs& o) { return PartitionForPass(o.GetString("compiler")); }});
}

}  // namespace tessera
