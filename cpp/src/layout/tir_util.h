// Private: PrimFunc lookups and index bounds shared by the layout primitives
// (TransformLayout, TransformBlockLayout).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::layout::detail {

/// Inclusive integer bounds of variables.
using VarBounds = std::unordered_map<const tir::VarNode*, std::pair<int64_t, int64_t>>;

/// Inclusive bounds of an integer index expression whose variables all have `bounds`
/// (literals, +, -, *, floordiv and floormod by positive literals); nullopt when it has
/// another variable or operator.
std::optional<std::pair<int64_t, int64_t>> BoundOf(const tir::PrimExpr& expr,
                                                   const VarBounds& bounds);

/// The buffer of `func` named `name`: a parameter, else one the body allocates. `what`
/// names the caller in errors: not found (listing the buffers) or ambiguous (a value error).
tir::Buffer FindBuffer(const tir::PrimFunc& func, const std::string& name, const char* what);

/// `expr` simplified knowing that each of `vars` lies in [0, extents[k]) (so that
/// floordiv(4 * a + b, 4) is a when b < 4): the IndexMap normal form when `expr` is an
/// affine split/fuse of `vars`, else tir::Simplify.
tir::PrimExpr SimplifyIndexOn(const tir::PrimExpr& expr, const std::vector<tir::Var>& vars,
                              const std::vector<int64_t>& extents);

}  // namespace tessera::layout::detail
