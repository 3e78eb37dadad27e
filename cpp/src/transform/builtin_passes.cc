// The transform layer's passes in the built-in table, one line per pass (each pass's
// registration is defined next to its code).
#include "builtin_passes.h"

namespace tessera {

void AppendTransformPasses(std::vector<PassRegistration>& passes) {
  passes.push_back(InferTypeRegistration());
  passes.push_back(PrintIRRegistration());
  passes.push_back(FuseOpsRegistration());
  passes.push_back(FoldConstantRegistration());
  passes.push_back(InlineCompositesRegistration());
  passes.push_back(InlineFunctionCallsRegistration());
  passes.push_back(DeadCodeEliminationRegistration());
  passes.push_back(EliminateCommonSubexprRegistration());
  passes.push_back(SimplifyInferenceRegistration());
  passes.push_back(FoldScaleAxisRegistration());
  passes.push_back(SimplifyExprRegistration());
  passes.push_back(MergeCompositeRegistration());
  passes.push_back(AnnotateTargetRegistration());
  passes.push_back(MergeCompilerRegionsRegistration());
  passes.push_back(PartitionGraphRegistration());
  passes.push_back(PartitionForRegistration());
}

}  // namespace tessera
