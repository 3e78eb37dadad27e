// Private: the transform layer's pass registrations, each defined in its pass's file.
#pragma once

#include <vector>

#include "tessera/transform/pass_registry.h"

namespace tessera {

/// Each pass's entry in the pass table (name, description, options, factory), defined
/// next to the pass's code.
PassRegistration InferTypeRegistration();
PassRegistration PrintIRRegistration();
PassRegistration FuseOpsRegistration();
PassRegistration FoldConstantRegistration();
PassRegistration InlineCompositesRegistration();
PassRegistration InlineFunctionCallsRegistration();
PassRegistration DeadCodeEliminationRegistration();
PassRegistration EliminateCommonSubexprRegistration();
PassRegistration SimplifyInferenceRegistration();
PassRegistration FoldScaleAxisRegistration();
PassRegistration SimplifyExprRegistration();
PassRegistration MergeCompositeRegistration();
PassRegistration AnnotateTargetRegistration();
PassRegistration MergeCompilerRegionsRegistration();
PassRegistration PartitionGraphRegistration();
PassRegistration PartitionForRegistration();

/// Whether `pass` is a Sequential (SequentialPasses cannot tell an empty one apart).
bool IsSequential(const Pass& pass);

}  // namespace tessera
