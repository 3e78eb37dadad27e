// PartitionSpec: how one backend (target) finds candidate kernels: a partition rule, the
// target, and a validator for extracted candidate functions.
#pragma once

#include <functional>
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

/// One spec per target (the native FuseOps-like spec for every kind, named by the kind,
/// with "_2", "_3" for repeated kinds), plus a "host" spec (HostPartitionRule) when
/// `include_host`. A target asking for an external backend (`-compiler=X`) is an
/// unsupported error until backends register their pattern tables.
std::vector<PartitionSpecPtr> GatherPartitionSpecs(const std::vector<Target>& targets,
                                                   size_t max_depth, bool include_host);

/// The rule of MakeNativePartitionSpec, for building other specs from it.
PartitionRulePtr MakeFuseOpsLikeRule(size_t max_depth);

}  // namespace tessera::collage
