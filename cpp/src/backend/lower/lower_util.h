// Private: scalar-expression walks shared by the lowering files (load collection,
// access regions, loop-nest construction).
#pragma once

#include <functional>
#include <unordered_set>
#include <vector>

#include "tessera/backend/lower/compute.h"

namespace tessera::lower {

/// Calls `fn` on every buffer load in `expr` (iteratively, any depth).
void ForEachLoad(const tir::PrimExpr& expr,
                 const std::function<void(const tir::BufferLoadNode*)>& fn);
/// Every buffer `stmt` reads: loads anywhere in it and the read regions of its blocks.
std::unordered_set<const tir::BufferNode*> ReadBuffers(const tir::Stmt& stmt);
/// `a && b`.
tir::PrimExpr And(const tir::PrimExpr& a, const tir::PrimExpr& b);
/// `0 <= v && v < n`.
tir::PrimExpr InRange(const tir::PrimExpr& v, int64_t n);
/// `v` clamped to [0, n - 1] (a safe index where a select may evaluate a load anyway).
tir::PrimExpr Clamp(const tir::PrimExpr& v, int64_t n);
/// `a / b` of non-negative indices as plain C division, which the C compiler hoists out
/// of inner loops (the floor forms carry a sign branch); `a` itself when b is 1.
tir::PrimExpr Div(const tir::PrimExpr& a, int64_t b);
/// `a % b` of non-negative indices, spelled `a - a / b * b`; 0 when b is 1.
tir::PrimExpr Mod(const tir::PrimExpr& a, int64_t b);
/// The number of nodes of `expr` as a tree, counting at most `limit + 1`.
size_t ExprSize(const tir::PrimExpr& expr, size_t limit);
/// The point access regions (index, extent 1) of every distinct load in `exprs`,
/// skipping `skip` (a stand-in) when given.
std::vector<tir::BufferRegion> ReadRegions(const std::vector<tir::PrimExpr>& exprs,
                                           const tir::BufferNode* skip = nullptr);
/// The point region buffer[indices].
tir::BufferRegion PointRegion(const tir::Buffer& buffer, const Indices& indices);
/// `indices` as a vector of expressions.
Indices AsIndices(const std::vector<tir::Var>& vars);
/// Wraps `body` in serial loops over `extents` with the given loop variables (outermost first).
tir::Stmt WrapLoops(const std::vector<tir::Var>& loop_vars, const std::vector<int64_t>& extents,
                    tir::Stmt body);

}  // namespace tessera::lower
