// The text of index expressions and index maps: a Python-style printer (`x // 4 % 4 * 16`,
// comparisons, `and`, `or`, `not`) and the parser of `lambda i, j: (...)`.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::layout::detail {

/// Python-style text of an index or predicate expression, parenthesized only where
/// Python's precedence needs it, so Python's eval and IndexMap::Parse read it back.
std::string IndexExprText(const tir::PrimExpr& expr);

/// The parameters and outputs of a parsed lambda (outputs not yet simplified).
struct ParsedLambda {
  std::vector<tir::Var> params;
  std::vector<tir::PrimExpr> outputs;
};
/// Parses `lambda i, j: (e0, e1)` (a single output may omit the parentheses). Throws a
/// parse error naming the position and what was expected.
ParsedLambda ParseLambda(const std::string& text);

}  // namespace tessera::layout::detail
