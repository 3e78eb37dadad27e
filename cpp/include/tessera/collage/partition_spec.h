// PartitionSpec: how one backend (target) finds candidate kernels: a partition rule, the
// target, and a validator for extracted candidate functions.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/collage/candidate_partition.h"
#include "tessera/target/target.h"

namespace tessera::collage {

class PartitionRule;
/// Rules are immutable and shared between rule trees.
using PartitionRulePtr = std::shared_ptr<const PartitionRule>;

/// Checks a candidate's extracted function; returns an error message to reject it.
using SubGraphValidator = std::function<std::optional<std::string>(const Function& function)>;

/// One backend's way of finding candidates. `compiler` is the `Compiler` attribute an
/// external backend's kernels carry (empty for the native code generator, whose
/// candidates are fused later by FuseOps-like lowering).
struct PartitionSpec {
  std::string name;             ///< e.g. "native" or "dnnl"; prefixes every rule name
  Target target;                ///< the target candidates are built for
  PartitionRulePtr rule;        ///< finds the candidates
  std::string compiler;         ///< non-empty: external codegen (Compiler attribute value)
  SubGraphValidator validator;  ///< optional

  /// Every candidate the rule finds on `graph`, rule names prefixed with the spec name.
  static std::vector<CandidatePartition> AllCandidates(
      const std::shared_ptr<const PartitionSpec>& spec, const DataflowGraph& graph);
  /// The spec and its rule tree, readable.
  std::string ToString() const;
};

/// A spec of `target` named `name` with rule `rule`.
PartitionSpecPtr MakePartitionSpec(std::string name, Target target, PartitionRulePtr rule,
                                   std::string compiler = "", SubGraphValidator validator = {});

/// The native backend's spec: FuseOps's combinations explored exhaustively,
///   OnlyValid{1 exit, no taps, depth max_depth}(
///     Combine(OpCallByKind, [AllSimple[A->B, B->R, I->I], TupleArg, TupleProj], max_depth))
/// where the kinds are the op registry's pattern kinds.
PartitionSpecPtr MakeNativePartitionSpec(const Target& target, size_t max_depth);

/// How far a library backend's candidates grow beyond its pattern table's matches
/// (TVM's BYOC fusion styles).
enum class ByocFusionStyle {
  kNoFusion,         ///< only the table's matches and single supported op calls
  kTVMFusion,        ///< plus FuseOps's combinations (A->B, B->R, I->I)
  kArbitraryFusion,  ///< plus any touching pair of non-opaque candidates (A->A)
};

/// Parses a fusion style: "NoFusion", "TVMFusion", "ArbitraryFusion" (TVM's names), or
/// "none", "tvm", "arbitrary"; otherwise a value error naming `what` and the choices.
ByocFusionStyle ParseByocFusionStyle(const std::string& name, const std::string& what);

/// The rule of library backend `compiler`, built from the same data the classic BYOC
/// flow uses (its registered pattern table and op-support predicates):
///   Primitive(OnlyValid{1 exit, no taps, max_depth}(Combine(Union(
///       Composite(label, DFPattern(pattern, predicate)) per table entry,
///       OpPredicate(supported op calls)), fusion rules, max_depth)))
/// with Combine left out for kNoFusion. Throws a not-found error for an unknown compiler.
PartitionRulePtr MakeByocPartitionRule(const std::string& compiler, size_t max_depth,
                                       ByocFusionStyle style);

/// The spec of library backend `compiler` (named after it, `Compiler=compiler`), run on
/// `target` (the library's own target kind, e.g. "dnnl").
PartitionSpecPtr MakeByocPartitionSpec(const Target& target, const std::string& compiler,
                                       size_t max_depth,
                                       ByocFusionStyle style = ByocFusionStyle::kArbitraryFusion);

/// The specs of `targets`: for every target the FuseOps-like spec of its kind (named by
/// the kind, "_2", "_3" for the same kind with other options; a target listed twice
/// counts once), and for every library it offloads to (`-compiler=dnnl`, `-libs=blas`)
/// that library's BYOC spec (once per library, sharing the target's `num_threads`);
/// then a "host" spec (HostPartitionRule) when `include_host`.
std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   size_t max_depth, bool include_host);

/// What GatherPartitionSpecs builds: depths per kind of spec and fusion style per library.
struct SpecOptions {
  size_t native_max_depth = 8;  ///< the FuseOps-like rule's depth (0: no limit)
  size_t byoc_max_depth = 8;    ///< library rules' depth (0: no limit)
  /// Fusion style per library; libraries not listed use kArbitraryFusion.
  std::map<std::string, ByocFusionStyle> fusion_styles;
  bool include_host = true;  ///< append the "host" spec
};
/// GatherPartitionSpecs with separate depths and per-library fusion styles.
std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   const SpecOptions& options);

/// The rule of MakeNativePartitionSpec, for building other specs from it.
PartitionRulePtr MakeFuseOpsLikeRule(size_t max_depth);

}  // namespace tessera::collage
