// Internals shared by structural equality, hashing and diff: the pairwise checker and the
// short renderings used in difference reports.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"

namespace tessera::structural {

/// Hashes a pointer pair.
struct PairHash {
  size_t operator()(const std::pair<const Object*, const Object*>& p) const;
};

/// Compares IR pairwise, keeping the correspondence of variables, buffers and shared
/// nodes across calls, and records the first difference it meets.
class EqualChecker {
 public:
  explicit EqualChecker(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  /// Graph expressions; iterative over graph depth.
  bool EqualExpr(const Expr& a, const Expr& b);
  /// Tensor-IR parts; `what` names the field for the report ("loop extent").
  bool EqualPrim(const tir::PrimExpr& a, const tir::PrimExpr& b, const char* what);
  bool EqualStmt(const tir::Stmt& a, const tir::Stmt& b);
  bool EqualPrimFunc(const tir::PrimFuncNode* a, const tir::PrimFuncNode* b);

  /// What differs and short renderings of the two differing parts (set on failure).
  const std::string& reason() const { return reason_; }
  const std::string& lhs_text() const { return lhs_text_; }
  const std::string& rhs_text() const { return rhs_text_; }

 private:
  struct Work {
    Expr lhs, rhs;
    const ExprNode* lhs_parent;  ///< for context in reports; kept alive by the roots
    const ExprNode* rhs_parent;
    bool bind;  ///< bind the let variables `lhs` and `rhs` instead of comparing
  };

  bool Fail(std::string reason, std::string lhs_text, std::string rhs_text);
  bool FailExpr(const std::string& reason, const Work& w);
  /// A tensor-IR failure, shown with the statements being compared.
  bool FailTir(const std::string& reason);
  bool CompareNode(const Work& w, std::vector<Work>& stack);
  bool BindGraphVar(const VarNode* a, const VarNode* b, const Work& w);
  bool UseGraphVar(const VarNode* a, const VarNode* b, const Work& w);
  bool BindTirVar(const tir::VarNode* a, const tir::VarNode* b);
  bool UseTirVar(const tir::VarNode* a, const tir::VarNode* b);
  bool BindBuffer(const tir::Buffer& a, const tir::Buffer& b, const char* what);
  bool UseBuffer(const tir::Buffer& a, const tir::Buffer& b, const char* what);
  /// The buffers and indices of two accesses (a store, a prefetch): `what` names them in
  /// failures ("store rank 2 vs 3", "store index 1").
  bool AccessEq(const tir::Buffer& xb, const std::vector<tir::PrimExpr>& xi, const tir::Buffer& yb,
                const std::vector<tir::PrimExpr>& yi, const char* buffer_what, const char* what);
  bool PrimEq(const tir::PrimExpr& a, const tir::PrimExpr& b);
  bool RangeEq(const tir::Range& a, const tir::Range& b, const std::string& what);
  bool RegionsEq(const std::vector<tir::BufferRegion>& a, const std::vector<tir::BufferRegion>& b,
                 const std::string& what);
  bool BlockEq(const tir::BlockNode* a, const tir::BlockNode* b);
  /// Binds a variable or buffer pair at its binder. A binder met again rebinds (as
  /// shadowing does): reusing one Var object for two sibling loops is common.
  void Bind(const Object* a, const Object* b) {
    lhs_to_rhs_[a] = b;
    rhs_to_lhs_[b] = a;
  }
  /// Records lhs→rhs; false when either side is already matched with another node.
  bool Match(const Object* a, const Object* b);

  bool map_free_vars_;
  std::unordered_map<const Object*, const Object*> lhs_to_rhs_, rhs_to_lhs_;
  /// Leaf pairs (constants, PrimFuncs) already found equal, compared by value not sharing.
  std::unordered_set<std::pair<const Object*, const Object*>, PairHash> leaf_equal_;
  std::string reason_, lhs_text_, rhs_text_;
  /// The statements under comparison, for reports (null outside statements).
  tir::Stmt stmt_lhs_, stmt_rhs_;
};

/// A short one-line rendering of a graph expression, nested at most `depth` levels.
std::string RenderExpr(const Expr& expr, int depth = 2);
/// A one-line rendering of a tensor-IR scalar expression.
std::string RenderPrim(const tir::PrimExpr& expr);
/// A one-line header of a statement ("for i in [0, 16) serial", "block C", ...).
std::string RenderStmt(const tir::Stmt& stmt);
/// "none" for a null type, else its text form.
std::string RenderType(const Type& type);
/// What differs between two unequal types: "shape [1, 3] vs [1, 4]", "dtype ...".
std::string DescribeTypeDiff(const Type& a, const Type& b);
/// The first differing attribute: "attribute 'padding': [1, 1] vs [0, 0]".
std::string DescribeAttrsDiff(const Attrs& a, const Attrs& b);
/// The first differing byte-level element of two same-shape constants.
std::string DescribeDataDiff(const NDArray& a, const NDArray& b);

}  // namespace tessera::structural
