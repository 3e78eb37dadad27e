// Matching DFPatterns against graph expressions, callback rewriting, and partitioning
// matches into `Composite` functions (TVM's PatternRewriter / PatternPartitioner).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/ir/indexed_graph.h"
#include "tessera/ir/module.h"
#include "tessera/pattern/pattern.h"

namespace tessera {

/// Which expression each pattern node matched (one per node; the `path` of a dominator
/// pattern matches many nodes and is not recorded here).
using PatternNodeMap = std::unordered_map<const DFPatternNode*, Expr>;

/// Matches patterns against expressions of one dataflow graph. Matching follows only
/// dataflow edges (call args, tuple fields, projections); it never looks into nested
/// functions or through let-bound variables. A pattern node used twice must match the
/// same expression twice. `add` and `multiply` calls also match with swapped args.
/// Type predicates read checked types (run InferType first; untyped never matches).
class DFPatternMatcher {
 public:
  /// `graph` (optional, must outlive the matcher) is the function whose nodes are
  /// matched; dominator patterns need it to find consumers and post-dominators.
  explicit DFPatternMatcher(const IndexedGraph* graph = nullptr) : graph_(graph) {}
  /// True when `pattern` matches `expr`; afterwards node_map() and the sets below
  /// describe this match (they are reset by every call).
  bool Match(const DFPattern& pattern, const Expr& expr);
  /// Pattern node -> matched expression of the last successful match.
  const PatternNodeMap& node_map() const { return memo_; }
  /// Expressions the last match covered as computation (calls, tuples, projections).
  const std::vector<Expr>& internal() const { return internal_; }
  /// Expressions the last match took as inputs (wildcards, vars, constants not
  /// matched by is_constant / is_expr), in no particular order.
  const std::vector<Expr>& inputs() const { return inputs_; }
  /// Constants matched by is_constant() or is_expr(constant): TVM embeds them in
  /// the composite function instead of passing them as arguments.
  const std::vector<Expr>& embedded() const { return embedded_; }

 private:
  struct TrailEntry {
    const DFPatternNode* pattern;
    Expr expr;
    bool memoised;  ///< false only for the nodes a dominator's path matched
  };
  bool Visit(const DFPatternNode* p, const Expr& e);
  bool VisitInner(const DFPatternNode* p, const Expr& e);
  bool MatchDominator(const DFPatternNode* p, const Expr& e);
  void Rollback(size_t mark);

  const IndexedGraph* graph_;
  PatternNodeMap memo_;
  std::vector<TrailEntry> trail_;
  std::vector<Expr> internal_, inputs_, embedded_;
};

/// Matches `pattern` against a standalone expression (dominator patterns use the graph
/// of `expr` itself).
bool MatchPattern(const DFPattern& pattern, const Expr& expr);

/// A rewrite rule: where `pattern` matches, the expression is replaced by
/// `callback(pre, post, node_map)`: `pre` is the matched original, `post` the same node
/// rebuilt over already rewritten inputs, `node_map` what each pattern node matched in
/// `pre`. Returning `post` leaves it unchanged.
struct DFPatternCallback {
  DFPattern pattern;
  std::function<Expr(const Expr& pre, const Expr& post, const PatternNodeMap& node_map)> callback;
  bool require_type = false;  ///< infer types before each round (for type predicates)
};

/// Applies `callbacks` in order, each over the whole function body (one bottom-up sweep
/// per round), until a round changes nothing. With `require_type` a callback sees typed
/// IR (types are inferred in `mod`'s context).
Function RewritePatterns(const std::vector<DFPatternCallback>& callbacks, const Function& func,
                         const IRModule& mod = IRModule());

/// Decides whether a match (its root expression, typed) may become a composite.
using PatternPredicate = std::function<bool(const Expr& root)>;

/// TVM's pattern partitioner on one function body: from the function's result upwards
/// (consumers before producers), every match of `pattern` whose root passes `predicate`
/// and whose covered nodes are used only inside the match (the root excepted) and are
/// not already in another group becomes a call of a local function with attribute
/// `Composite=label` (plus any `extra_attrs`). The composite's params are fresh
/// variables for the match inputs, in the order a left-to-right post-order walk from the
/// root meets them; constants matched by is_constant()/is_expr stay inside its body,
/// constants matched by wildcards become arguments. Does not descend into nested
/// functions. `func` should be typed (patterns with types, params' annotations).
Function PartitionPattern(const DFPattern& pattern, const std::string& label, const Function& func,
                          const PatternPredicate& predicate = nullptr,
                          const Attrs& extra_attrs = {});

}  // namespace tessera
