// The pattern-table registry: per backend ("compiler"), the labelled patterns its
// library implements as one kernel and the single ops it supports (BYOC's two styles).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/pattern/matcher.h"

namespace tessera {

/// One fusion a backend implements: matches of `pattern` passing `predicate` (given
/// the typed root of the match) become `Composite=label` functions, e.g.
/// `dnnl.conv2d_bias_relu`. The label's prefix up to the first '.' names the backend.
struct PatternTableEntry {
  std::string label;
  DFPattern pattern;
  PatternPredicate predicate;  ///< may be null: every match is supported
};

/// Decides whether a backend supports one (typed) call of an op.
using OpSupportPredicate = std::function<bool(const CallNode& call)>;

/// The process-wide tables, filled on first use by explicit registration functions
/// (RegisterBuiltinPatternTables), like the op and backend registries.
class PatternTableRegistry {
 public:
  /// The registry with every built-in backend's table registered.
  static PatternTableRegistry& Global();
  /// Appends `entries` to `compiler`'s table (earlier entries are tried first, so
  /// register longer patterns before their prefixes).
  void RegisterPatterns(const std::string& compiler, std::vector<PatternTableEntry> entries);
  /// Replaces `compiler`'s pattern table (its op-support predicates stay).
  void ReplacePatterns(const std::string& compiler, std::vector<PatternTableEntry> entries);
  /// Declares that `compiler` supports calls of `op` that pass `predicate`; an unknown
  /// op is a not-found error, a second predicate for the same op an internal error.
  void RegisterOpSupport(const std::string& compiler, const std::string& op,
                         OpSupportPredicate predicate);
  /// `compiler`'s pattern table; throws a not-found error listing the known compilers.
  const std::vector<PatternTableEntry>& GetPatterns(const std::string& compiler) const;
  /// The support predicate of `op` for `compiler`, or nullptr.
  const OpSupportPredicate* FindOpSupport(const std::string& compiler, const std::string& op) const;
  /// Ops `compiler` supports one by one, sorted.
  std::vector<std::string> SupportedOps(const std::string& compiler) const;
  /// Whether `compiler` registered anything.
  bool HasCompiler(const std::string& compiler) const;
  /// Every compiler with a table or op predicates, sorted.
  std::vector<std::string> ListCompilers() const;

 private:
  PatternTableRegistry() = default;
  struct Table;
  Table& TableOf(const std::string& compiler);
  const Table* FindTable(const std::string& compiler) const;
  std::vector<std::pair<std::string, std::shared_ptr<Table>>> tables_;  // sorted by name
};

/// Shorthand for PatternTableRegistry::Global().GetPatterns(compiler).
const std::vector<PatternTableEntry>& GetPatternTable(const std::string& compiler);

/// True when `call` is supported by `compiler`: a Composite function call whose label
/// starts with `compiler.`, or an op call with a registered predicate that accepts it.
bool IsSupportedBy(const std::string& compiler, const CallNode& call);

/// Registers every built-in backend's table; defined by the top-level wiring
/// (cpp/src/registry/builtins.cc) and called once by PatternTableRegistry::Global().
void RegisterBuiltinPatternTables(PatternTableRegistry& registry);

}  // namespace tessera
