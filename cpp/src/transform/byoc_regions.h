// Private: the annotated regions of a function body, shared by AnnotateTarget,
// MergeCompilerRegions and PartitionGraph.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera::byoc {

inline constexpr const char* kBegin = "annotation.compiler_begin";
inline constexpr const char* kEnd = "annotation.compiler_end";

/// The compiler of an annotation call (`compiler_begin`/`end`), or nullptr otherwise.
const std::string* AnnotationCompiler(const Expr& e, const char* which);
/// `e` with any begin/end annotations around it removed.
Expr StripAnnotations(Expr e);
/// annotation.compiler_begin(x, compiler=c) / compiler_end.
Expr Begin(Expr x, const std::string& compiler);
Expr End(Expr x, const std::string& compiler);
/// A node that computes (a non-annotation call, tuple or projection).
bool IsCompute(const Expr& e);
/// The dataflow operands of a compute node (call args, tuple fields, projected tuple).
std::vector<Expr> Operands(const Expr& e);

/// Regions of one function body: compute nodes joined by direct (unannotated) edges.
struct Regions {
  std::vector<Expr> nodes;                         ///< compute nodes, post-order
  std::unordered_map<const ExprNode*, int> index;  ///< node -> position in `nodes`
  std::vector<int> parent;                         ///< union-find over positions
  std::vector<std::string> target;                 ///< per node: annotated compiler or ""
  /// Consumers (positions) of each node, looking through annotations.
  std::vector<std::vector<int>> consumers;
  /// Producers (positions) of each node, looking through annotations.
  std::vector<std::vector<int>> producers;

  int Find(int i);
  void Union(int a, int b) { parent[Find(a)] = Find(b); }
};

/// Analyses `body` (nested functions are leaves). Throws a value error when one region
/// mixes two compilers.
Regions AnalyseRegions(const Expr& body);

}  // namespace tessera::byoc
