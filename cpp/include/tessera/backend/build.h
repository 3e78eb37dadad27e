// build(): a module in, a runnable Executable out — the default pipeline under the current
// PassContext, lowering to tensor IR, code generation by the target's backend.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/runtime/executable.h"
#include "tessera/target/target.h"
#include "tessera/transform/pass.h"

namespace tessera {

/// The passes build() runs before code generation: InferType, InlineComposites, InferType,
/// SimplifyInference,
/// FoldConstant, FoldScaleAxis, SimplifyExpr, FoldConstant, FuseOps, LowerToTIR. Each
/// obeys the current PassContext (opt_level, disabled passes), except LowerToTIR, which
/// code generation needs and which turns any op left unfused into its own kernel.
Pass BuildPipeline();

/// `mod` after BuildPipeline(): @main calls PrimFuncs through call_tir.
IRModule LowerForBuild(const IRModule& mod);

/// `mod` with the sub-graphs the libraries named by `host`'s `-compiler` and `-libs`
/// options support partitioned out to them (PartitionFor each, in order); `mod` otherwise.
IRModule OffloadToLibraries(const IRModule& mod, const Target& host);

/// Compiles `mod` for `targets` (the first one runs the kernels; at least one) under the
/// current PassContext and returns the executable. Errors name the stage that failed.
std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::vector<Target>& targets);

/// Build() for targets given as text ("native", "native -num_threads=1", "interp").
std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::string& target);

}  // namespace tessera
