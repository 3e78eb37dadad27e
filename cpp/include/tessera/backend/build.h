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

/// The passes build() runs before code generation: InlineFunctionCalls, InferType,
/// InlineComposites, InferType,
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

/// When `host` names libraries and the context enables layout planning (opt_level 3:
/// AlterOpLayout, PlanLayouts), `mod` simplified and planned as the build pipeline would, so
/// that the libraries partition the planned graph and their partitions exchange its
/// channel-blocked tensors with the native kernels; `mod` otherwise. Build runs it before
/// OffloadToLibraries.
IRModule PlanLayoutsForLibraries(const IRModule& mod, const Target& host);

/// Compiles `mod` for `targets` (the first one runs the kernels; at least one) under the
/// current PassContext and returns the executable. With the config key `collage.enable`
/// set, Collage picks the backend of every kernel among the backends the targets offer
/// (BuildWithCollage). Errors name the stage that failed.
std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::vector<Target>& targets);

/// Compiles a module already lowered to call_tir (LowerForBuild's output): the PrimFuncs
/// with the first target's backend, each extern stub with the library backend its
/// `Compiler` names (options from a target of that kind in `targets`, else the first
/// target's thread count). When `kernels` is given it must export every PrimFunc's symbol
/// and is used instead of code generation (Collage compiles many candidates at once).
std::shared_ptr<runtime::Executable> BuildLowered(const IRModule& lowered,
                                                  const std::vector<Target>& targets,
                                                  runtime::Module kernels = nullptr);

/// The Collage build: build's simplifications, then the registered pass
/// `CollagePartition` over `targets` in place of FuseOps and the libraries' partitioning,
/// then lowering and code generation. With `collage.guard` (default on) the result is
/// timed end to end against native-only and each library's classic partitioning, and the
/// fastest is kept; the executable's collage report says which won and by how much.
/// Defined by the collage layer (cpp/src/collage/build_collage.cc), which sits above this
/// one because Collage measures candidates by building them.
std::shared_ptr<runtime::Executable> BuildWithCollage(const IRModule& mod,
                                                      const std::vector<Target>& targets);

/// The target that runs the kernels of `targets`: the first one that compiles whole
/// models (with its -compiler/-libs options removed), else `native`.
Target HostTarget(const std::vector<Target>& targets);

/// The runtime program of a lowered module (LowerForBuild's output, @main calling
/// PrimFuncs through call_tir) run by `kernels`, which must export every PrimFunc's symbol.
/// Unsupported constructs in @main are an unsupported error naming them.
std::shared_ptr<runtime::Executable> CreateExecutable(const IRModule& lowered,
                                                      runtime::Module kernels);

/// Executor options from a target: its `num_threads` option when its kind has one.
runtime::ExecutorOptions ExecutorOptionsFor(const Target& target);

/// Build() for targets given as text ("native", "native -num_threads=1", "interp").
std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::string& target);

}  // namespace tessera
