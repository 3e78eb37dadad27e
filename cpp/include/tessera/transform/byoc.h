// The classic BYOC partitioning passes (TVM's MergeComposite -> AnnotateTarget ->
// MergeCompilerRegions -> PartitionGraph) and the partition_for_<library> pipelines.
#pragma once

#include <string>
#include <vector>

#include "tessera/pattern/pattern_table.h"
#include "tessera/transform/pass.h"

namespace tessera {

/// Turns every match of `table`'s entries (tried in order; each entry over the whole
/// function) into a call of a local `Composite="<label>"` function (see
/// PartitionPattern: wildcard-matched constants become the call's arguments). Runs on
/// every graph function except Primitive/Compiler/SkipOptimization ones; infers types
/// first.
Pass MergeComposite(std::vector<PatternTableEntry> table);
/// MergeComposite with the registered tables of `compilers`, concatenated in order.
Pass MergeComposite(const std::vector<std::string>& compilers);

/// Marks which calls an external compiler takes: a call is given to the first of
/// `compilers` that supports it (a Composite call labelled `<compiler>.*`, or an op
/// call whose registered support predicate accepts it); every input of such a call is
/// wrapped in `annotation.compiler_begin(x, compiler=...)` (constants excepted: they stay
/// inside the region) and every use of its result by another call in
/// `annotation.compiler_end(x, compiler=...)`. Tuples and projections join the compiler
/// of their operands when they all agree (`include_non_call_ops`). Infers types first.
Pass AnnotateTarget(std::vector<std::string> compilers, bool include_non_call_ops = true);

/// Merges adjacent regions of the same compiler (removing their end/begin pairs) along
/// dataflow edges, unless the merged region would depend on itself through another
/// region (which would make partitioning create a cycle).
Pass MergeCompilerRegions();

/// Outlines every annotated region into a global function with attributes `Primitive=1`,
/// `Compiler=<compiler>` and `global_symbol=<compiler>_<function>_<k>` (k counts per
/// compiler over the module, in function and post-order), called from the original
/// function; all annotations are removed. A region's params are its tensor inputs in the
/// order they are first used; constants stay inside its body; a region with several
/// outputs returns a tuple. Composite functions stay local functions inside it.
Pass PartitionGraph();

/// InferType, FoldConstant, MergeComposite, AnnotateTarget, MergeCompilerRegions,
/// PartitionGraph and InferType for one registered compiler (e.g. "dnnl"). nn.batch_norm
/// and nn.layer_norm are not simplified first: oneDNN implements both.
IRModule PartitionFor(const IRModule& mod, const std::string& compiler);
/// PartitionFor(mod, "dnnl").
IRModule PartitionForDnnl(const IRModule& mod);
/// PartitionFor(mod, "blas").
IRModule PartitionForBlas(const IRModule& mod);
/// The PartitionFor pipeline as a pass (registered as `PartitionFor{compiler=dnnl}`).
Pass PartitionForPass(const std::string& compiler);

}  // namespace tessera
