// Rewriting tensor-level IR: a mutator over statements and scalar expressions that
// rebuilds only what changed, and variable substitution built on it.
#pragma once

#include <unordered_map>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::tir {

/// Rewrites statements and scalar expressions bottom-up. Each Visit* returns its argument
/// itself when nothing below changed, so untouched subtrees stay shared. Override the
/// hooks for the nodes a rewrite cares about and call the base version for the rest.
/// Expressions are rebuilt with the checked builders (WithChildren, MakeLoad, ...), so a
/// rewrite that breaks dtypes or ranks fails with the builders' errors.
class StmtExprMutator {
 public:
  virtual ~StmtExprMutator() = default;

  /// The rewritten expression (null stays null).
  virtual PrimExpr VisitExpr(const PrimExpr& expr);
  /// The rewritten statement (null stays null).
  virtual Stmt VisitStmt(const Stmt& stmt);
  /// A block's read or write region; the default rewrites each range's min and extent.
  virtual BufferRegion VisitRegion(const BufferRegion& region);

 protected:
  /// A variable; the default keeps it.
  virtual PrimExpr VisitVar(const Var& var) { return var; }
  /// A load; the default rewrites its indices and keeps the buffer.
  virtual PrimExpr VisitLoad(const BufferLoadNode* load);
  /// A store; the default rewrites its value and indices and keeps the buffer.
  virtual Stmt VisitStore(const BufferStoreNode* store);
  /// A loop; the default rewrites its bounds and body.
  virtual Stmt VisitFor(const ForNode* loop);
  /// A block; the default rewrites bindings, domains, regions, init and body.
  virtual Stmt VisitBlock(const BlockNode* block);
  /// An allocation; the default rewrites its body.
  virtual Stmt VisitAllocate(const AllocateNode* alloc);
  /// A sequence; the default rewrites each statement.
  virtual Stmt VisitSeq(const SeqStmtNode* seq);
  /// A branch; the default rewrites its condition and both cases.
  virtual Stmt VisitIfThenElse(const IfThenElseNode* branch);
  /// A prefetch; the default rewrites its indices and keeps the buffer.
  virtual Stmt VisitPrefetch(const PrefetchNode* prefetch);

  /// Every index of `indices` through VisitExpr; `changed` is set when one differs.
  std::vector<PrimExpr> VisitIndices(const std::vector<PrimExpr>& indices, bool* changed);
};

/// Replacement values of variables, by variable node.
using VarSubstitution = std::unordered_map<const VarNode*, PrimExpr>;

/// `expr` with the variables of `subst` replaced (not simplified).
PrimExpr SubstituteVars(const PrimExpr& expr, const VarSubstitution& subst);
/// `stmt` with the variables of `subst` replaced everywhere: loop bounds, bindings,
/// regions, conditions, indices and values (not simplified).
Stmt SubstituteVars(const Stmt& stmt, const VarSubstitution& subst);

/// Replacement buffers, by buffer node.
using BufferSubstitution = std::unordered_map<const BufferNode*, Buffer>;

/// `stmt` with the buffers of `subst` replaced in loads, stores, regions and allocations
/// (each replacement must have the rank and dtype of the buffer it replaces).
Stmt SubstituteBuffers(const Stmt& stmt, const BufferSubstitution& subst);

}  // namespace tessera::tir
