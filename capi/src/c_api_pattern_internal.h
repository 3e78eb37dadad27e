// Internals of the pattern C API shared by its sources (and usable by other concepts that
// take patterns, tables or predicates from C, e.g. Collage): the table and bindings
// structs, pattern handles, borrowed handles for callbacks and C predicates.
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

/// The handle of `ref` without a new reference: borrowed by a callback for one call.
template <typename H, typename T>
H Lend(const Ref<T>& ref) {
  return reinterpret_cast<H>(const_cast<Object*>(static_cast<const Object*>(ref.get())));
}

/// Takes over the reference a callback returned in `handle` (an expression); releases it
/// and throws a type error naming `where` for another kind of node.
Expr AdoptExpr(TsExpr handle, const std::string& where);

/// The function behind a borrowed handle; a type error naming `what` for anything else
/// and a value error for NULL.
Function BorrowFunction(TsExpr handle, const char* what);

/// Calls `destroy(data)` once when the last copy of a callback holding it dies (unless
/// `Release`d first, when the caller keeps ownership after a failure).
class UserData {
 public:
  UserData(void* data, TsUserDataDestroy destroy) : data_(data), destroy_(destroy) {}
  ~UserData() {
    if (destroy_) destroy_(data_);
  }
  UserData(const UserData&) = delete;
  UserData& operator=(const UserData&) = delete;
  void* data() const { return data_; }
  void Release() { destroy_ = nullptr; }

 private:
  void* data_;
  TsUserDataDestroy destroy_;
};

/// A C++ predicate calling the C predicate `fn` with `user_data` (kept alive, and
/// destroyed when the last copy dies, by `holder`, which may be null); errors it reports
/// are thrown prefixed with `where`. NULL `fn` gives a null predicate.
PatternPredicate PredicateFromC(TsPatternPredicate fn, void* user_data,
                                std::shared_ptr<UserData> holder, std::string where);

/// The bindings of a match (its node map) in a fixed order.
TsPatternBindings_ BindingsOf(const PatternNodeMap& map);

/// Names from a C array (`num` entries, each non-NULL); `what` names them in errors.
std::vector<std::string> NamesFromC(const char* const* names, size_t num, const char* what);

}  // namespace tessera::capi
