// Internals of the pattern C API shared by its sources (and usable by other concepts that
// take patterns, tables or predicates from C, e.g. Collage): the table and bindings
// structs, pattern and function handles and C predicates.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api_internal.h"
#include "tessera/pattern/matcher.h"
#include "tessera/pattern/pattern_table.h"

struct TsPatternTable_ {
  std::vector<tessera::PatternTableEntry> entries;
};
/// A match's pattern -> expression pairs, in a fixed order.
struct TsPatternBindings_ {
  std::vector<std::pair<tessera::DFPattern, tessera::Expr>> entries;
};

namespace tessera::capi {

/// The pattern behind a borrowed handle (null for NULL); throws a type error saying `what`
/// was expected when the handle is another kind of node.
DFPattern BorrowPattern(TsPattern handle, const char* what);
/// Hands the caller a new reference to `pattern`.
inline TsPattern GivePattern(const DFPattern& pattern) {
  return Give<TsPattern>(Ref<const DFPatternNode>(pattern.get()));
}

/// The function behind a borrowed handle; a type error naming `what` for anything else
/// and a value error for NULL.
Function BorrowFunction(TsExpr handle, const char* what);

/// A C++ predicate calling the C predicate `fn` with the user data `data` holds (kept alive
/// by every copy); errors it reports are thrown prefixed with `where`. NULL `fn` gives a null
/// predicate.
PatternPredicate PredicateFromC(TsPatternPredicate fn, UserDataPtr data, std::string where);

/// The bindings of a match (its node map) in a fixed order.
TsPatternBindings_ BindingsOf(const PatternNodeMap& map);

}  // namespace tessera::capi
