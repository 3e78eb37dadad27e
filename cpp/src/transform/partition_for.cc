// partition_for_<library>: the classic BYOC pipeline, and the pass registrations of the
// BYOC passes for textual pipelines.
#include <sstream>

#include "builtin_passes.h"
#include "tessera/support/error.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/passes.h"

namespace tessera {

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

PassRegistration PartitionForRegistration() {
  return {"PartitionFor",
          "the classic BYOC pipeline (partition_for_<compiler>)",
          {{"compiler", AttrValue::Kind::kString, AttrValue("dnnl"),
            "the compiler whose patterns and op predicates to use"}},
          [](const Attrs& o) { return PartitionForPass(o.GetString("compiler")); }};
}

}  // namespace tessera
