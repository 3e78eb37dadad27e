// Structural equality and hashing of IR: graph expressions, PrimFuncs and modules.
#pragma once

#include <optional>
#include <string>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"

namespace tessera {

/// True when `a` and `b` have the same structure. Variables bound inside (function
/// params, let vars, loop and block vars, PrimFunc buffers) are compared by binding
/// position; free variables must be the same node unless `map_free_vars`, in which case
/// they are matched by first occurrence. Global references compare by name, constants
/// by dtype, shape and bytes, attributes order-insensitively. Sharing must match too (a
/// node used twice on one side is used twice on the other). Checked types are ignored.
/// Iterative: deep graphs do not overflow the stack.
bool StructuralEqual(const Expr& a, const Expr& b, bool map_free_vars = false);
/// Same for two modules: the same function names with equal functions, equal attrs.
bool StructuralEqual(const IRModule& a, const IRModule& b);
/// Same for tensor-IR scalar expressions and statements.
bool StructuralEqual(const tir::PrimExpr& a, const tir::PrimExpr& b, bool map_free_vars = false);
bool StructuralEqual(const tir::Stmt& a, const tir::Stmt& b, bool map_free_vars = false);

/// A hash consistent with StructuralEqual (equal IR hashes equal; bound variables hash
/// by binding position, free variables by first occurrence).
size_t StructuralHash(const Expr& expr);
size_t StructuralHash(const IRModule& mod);
size_t StructuralHash(const tir::PrimExpr& expr);
size_t StructuralHash(const tir::Stmt& stmt);

/// Describes the first difference between two modules (or nullopt when equal): the
/// function, the two differing sub-expressions printed, and what differs.
std::optional<std::string> StructuralDiff(const IRModule& a, const IRModule& b);
std::optional<std::string> StructuralDiff(const Expr& a, const Expr& b, bool map_free_vars = false);
/// Throws a value error carrying StructuralDiff's description when not equal.
void AssertStructuralEqual(const IRModule& a, const IRModule& b);
void AssertStructuralEqual(const Expr& a, const Expr& b, bool map_free_vars = false);

}  // namespace tessera
