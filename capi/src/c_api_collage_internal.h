// Shared internals of the Collage C API's source files: the handle structs and how C
// callbacks with user data become C++ functions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/collage/candidate_partition.h"
#include "tessera/collage/combiner_rule.h"
#include "tessera/collage/cost_database.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/dataflow_graph.h"
#include "tessera/collage/partition_rule.h"
#include "tessera/collage/sub_graph.h"
#include "tessera/pattern/pattern.h"

struct TsPartitionRule_ {
  tessera::collage::PartitionRulePtr rule;
};
struct TsCombinerRule_ {
  tessera::collage::CombinerRulePtr rule;
};
/// A graph and the module it came from (rewrites return a new module of it); labels are
/// computed once so they can be handed out borrowed.
struct TsDataflowGraph_ {
  tessera::IRModule mod;
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  std::vector<std::string> labels;
};
/// Candidates grouped by spec: spec i holds candidates [first, first + count).
struct TsCandidateList_ {
  struct Spec {
    std::string name;
    size_t first = 0, count = 0;
  };
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  std::vector<tessera::collage::CandidatePartition> candidates;
  std::vector<Spec> specs;
};
struct TsCandidate_ {
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  tessera::collage::CandidatePartition candidate;
};
/// A sub-graph with the attributes its function gets (empty for a candidate's own).
struct TsSubGraph_ {
  std::shared_ptr<const tessera::collage::DataflowGraph> graph;
  tessera::collage::SubGraph sub_graph;
  tessera::Attrs attrs;
};
struct TsCostEstimator_ {
  tessera::collage::CostEstimatorPtr estimator;
};
struct TsCostDatabase_ {
  std::shared_ptr<tessera::collage::CostDatabase> db;
};
struct TsCostRecordList_ {
  std::vector<tessera::collage::CostRecord> records;
};

namespace tessera::capi {

/// A callback's user data, destroyed once when the last C++ function holding it dies.
struct UserData {
  void* data;
  TsUserDataDestroy destroy;
  UserData(void* d, TsUserDataDestroy f) : data(d), destroy(f) {}
  UserData(const UserData&) = delete;
  UserData& operator=(const UserData&) = delete;
  ~UserData() {
    if (destroy) destroy(data);
  }
};
using UserDataPtr = std::shared_ptr<UserData>;

/// Takes ownership of `data` at once, so it is destroyed even when the call fails.
inline UserDataPtr HoldUserData(void* data, TsUserDataDestroy destroy) {
  return std::make_shared<UserData>(data, destroy);
}

/// A borrowed handle of node `node` for a callback (no reference is added).
template <typename H>
H Lend(const Object* node) {
  return reinterpret_cast<H>(const_cast<Object*>(node));
}

/// A predicate on expressions calling C `fn` (null when `fn` is NULL); `where` prefixes
/// its errors.
std::function<bool(const Expr&)> ExprPredicateFromC(TsCollageExprPredicate fn, UserDataPtr data,
                                                    std::string where);

/// The pattern behind a borrowed handle; a type error naming `what` when it is another
/// node. (DFPatternNode has no type index range of its own, so Borrow alone would accept
/// any node: the dynamic type is checked.)
inline DFPattern PatternOf(TsPattern handle, const char* what) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!object) TS_THROW(kValue) << what << ": the pattern is NULL";
  if (!dynamic_cast<const DFPatternNode*>(object))
    TS_THROW(kType) << what << ": expected a pattern";
  return DFPattern(Borrow<DFPatternNode>(handle, "a pattern"));
}

/// A depth or exit limit from C: 0 means none; negative is a value error naming `what`.
size_t LimitFromC(int64_t value, const char* what, const char* which = "max_depth");

/// The rule behind a handle; a value error naming `what` when NULL.
collage::PartitionRulePtr RuleOf(TsPartitionRule rule, const char* what);

/// Targets from a borrowed C array; a value error naming `what` for a NULL entry.
std::vector<Target> TargetsFromC(const TsTarget* targets, size_t num_targets, const char* what);

}  // namespace tessera::capi
