// C API of the DFPattern language: building and printing patterns, matching, bindings,
// rewriting with C callbacks and partitioning matches into Composite functions.
#include <algorithm>
#include <string>
#include <vector>

#include "c_api_pattern_internal.h"
#include "tessera/ir/indexed_graph.h"
#include "tessera/runtime/dtype.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass.h"

using namespace tessera;
using namespace tessera::capi;

namespace tessera::capi {

DFPattern BorrowPattern(TsPattern handle, const char* what) {
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!object) return DFPattern();
  const auto* node = dynamic_cast<const DFPatternNode*>(object);
  if (!node) TS_THROW(kType) << "expected " << what << " (a pattern), got another kind of node";
  return DFPattern(Ref<const DFPatternNode>(node));
}

Function BorrowFunction(TsExpr handle, const char* what) {
  if (!handle) TS_THROW(kValue) << what << " must not be NULL";
  const Object* object = reinterpret_cast<const Object*>(handle);
  if (!IsInstance<FunctionNode>(object))
    TS_THROW(kType) << what << " must be a function, got another kind of node";
  return Function(static_cast<const FunctionNode*>(object));
}

PatternPredicate PredicateFromC(TsPatternPredicate fn, UserDataPtr data, std::string where) {
  if (!fn) return nullptr;
  return [fn, data, where](const Expr& root) {
    int accepted = 0;
    TsStatus status = fn(Lend<TsExpr>(root.get()), &accepted, data->data());
    if (status != TS_OK) ThrowCallbackError(status, where);
    return accepted != 0;
  };
}

TsPatternBindings_ BindingsOf(const PatternNodeMap& map) {
  TsPatternBindings_ out;
  for (const auto& [node, expr] : map)
    out.entries.emplace_back(DFPattern(Ref<const DFPatternNode>(node)), expr);
  return out;
}

}  // namespace tessera::capi

namespace {

/// Patterns from a C array; NULL entries are value errors naming `what`.
std::vector<DFPattern> PatternsFromC(const TsPattern* patterns, size_t num, const char* what) {
  if (num && !patterns) TS_THROW(kValue) << what << "s are NULL with a count of " << num;
  std::vector<DFPattern> out;
  for (size_t i = 0; i < num; ++i) {
    if (!patterns[i]) TS_THROW(kValue) << what << " " << i << " is NULL";
    out.push_back(BorrowPattern(patterns[i], what));
  }
  return out;
}

/// A C++ rewrite rule calling C callback `c` (entry `index` of its array) with its user
/// data, which the rule owns when `owned` (else the caller keeps it).
DFPatternCallback CallbackFromC(const TsPatternCallback& c, size_t index, bool owned) {
  DFPatternCallback cb;
  cb.pattern = BorrowPattern(c.pattern, "a callback's pattern");
  cb.require_type = c.require_type != 0;
  TsPatternRewriteCallback fn = c.callback;
  auto data = std::make_shared<UserData>(c.user_data, owned ? c.user_data_destroy : nullptr);
  std::string where = "pattern callback " + std::to_string(index);
  cb.callback = [fn, data, where](const Expr& pre, const Expr& post, const PatternNodeMap& map) {
    TsPatternBindings_ bindings = BindingsOf(map);
    TsExpr out = nullptr;
    TsStatus status =
        fn(Lend<TsExpr>(pre.get()), Lend<TsExpr>(post.get()), &bindings, &out, data->data());
    Expr result = AdoptResult<ExprNode>(status, out, "an expression", where);
    return result.defined() ? result : post;
  };
  return cb;
}

/// Checks a C callback array before anything takes over its user data.
void CheckCallbacks(const TsPatternCallback* callbacks, size_t num) {
  if (num && !callbacks) TS_THROW(kValue) << "callbacks are NULL with a count of " << num;
  for (size_t i = 0; i < num; ++i) {
    if (!callbacks[i].pattern) TS_THROW(kValue) << "callback " << i << " has a NULL pattern";
    if (!callbacks[i].callback) TS_THROW(kValue) << "callback " << i << " has a NULL function";
    BorrowPattern(callbacks[i].pattern, "a callback's pattern");
  }
}

/// Derives a pattern from `base` with `make`, checking handles.
template <typename F>
TsStatus Derive(TsPattern base, TsPattern* out, F&& make) {
  return Guard([&] { *out = GivePattern(make(BorrowPattern(base, "the pattern"))); });
}

}  // namespace

extern "C" {

TsStatus TsPatternWildcard(TsPattern* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePattern(Wildcard()); });
}

TsStatus TsPatternIsOp(const char* name, TsPattern* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePattern(IsOp(name)); });
}

TsStatus TsPatternIsExpr(TsExpr expr, TsPattern* out) {
  TS_REQUIRE(expr);
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePattern(IsExpr(Borrow<ExprNode>(expr, "an expression"))); });
}

TsStatus TsPatternIsConstant(TsPattern* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePattern(IsConstant()); });
}

TsStatus TsPatternIsVar(const char* name, TsPattern* out) {
  TS_REQUIRE(out);
  return Guard([&] { *out = GivePattern(IsVar(name ? name : "")); });
}

TsStatus TsPatternIsTuple(const TsPattern* fields, size_t num_fields, TsPattern* out) {
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = GivePattern(IsTuple(PatternsFromC(fields, num_fields, "tuple field"))); });
}

TsStatus TsPatternIsTupleGetItem(TsPattern tuple, int index, TsPattern* out) {
  TS_REQUIRE(tuple);
  TS_REQUIRE(out);
  return Guard([&] {
    if (index < -1) TS_THROW(kValue) << "a projection index is >= 0 (or -1: any), got " << index;
    *out = GivePattern(IsTupleGetItem(BorrowPattern(tuple, "the tuple pattern"), index));
  });
}

TsStatus TsPatternDominates(TsPattern parent, TsPattern path, TsPattern child, TsPattern* out) {
  TS_REQUIRE(parent);
  TS_REQUIRE(path);
  TS_REQUIRE(child);
  TS_REQUIRE(out);
  return Guard([&] {
    *out =
        GivePattern(Dominates(BorrowPattern(parent, "the parent"), BorrowPattern(path, "the path"),
                              BorrowPattern(child, "the child")));
  });
}

TsStatus TsPatternCall(TsPattern callee, const TsPattern* args, size_t num_args, TsPattern* out) {
  TS_REQUIRE(callee);
  TS_REQUIRE(out);
  return Guard([&] {
    DFPattern c = BorrowPattern(callee, "the callee");
    *out = GivePattern(c(PatternsFromC(args, num_args, "call argument")));
  });
}

TsStatus TsPatternCallAnyArgs(TsPattern callee, TsPattern* out) {
  TS_REQUIRE(callee);
  TS_REQUIRE(out);
  return Derive(callee, out, [](const DFPattern& p) { return p.CallAnyArgs(); });
}

TsStatus TsPatternAlt(TsPattern first, TsPattern second, TsPattern* out) {
  TS_REQUIRE(first);
  TS_REQUIRE(second);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = GivePattern(BorrowPattern(first, "the first alternative") |
                       BorrowPattern(second, "the second alternative"));
  });
}

TsStatus TsPatternHasAttr(TsPattern pattern, const TsNamedAttribute* attrs, size_t num_attrs,
                          TsPattern* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(out);
  return Derive(pattern, out, [&](const DFPattern& p) {
    return p.HasAttr(AttrsFromC(attrs, num_attrs, "TsPatternHasAttr"));
  });
}

TsStatus TsPatternHasType(TsPattern pattern, TsType type, TsPattern* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(type);
  TS_REQUIRE(out);
  return Derive(pattern, out,
                [&](const DFPattern& p) { return p.HasType(Borrow<TypeNode>(type, "a type")); });
}

TsStatus TsPatternHasShape(TsPattern pattern, const int64_t* shape, size_t ndim, TsPattern* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(out);
  if (ndim) TS_REQUIRE(shape);
  return Derive(pattern, out, [&](const DFPattern& p) {
    return p.HasShape(std::vector<int64_t>(shape, shape + ndim));
  });
}

TsStatus TsPatternHasDType(TsPattern pattern, const char* dtype, TsPattern* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(dtype);
  TS_REQUIRE(out);
  return Derive(pattern, out, [&](const DFPattern& p) {
    return p.HasDType(ParseDTypeOrThrow(dtype, "TsPatternHasDType"));
  });
}

TsStatus TsPatternPrint(TsPattern pattern, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(callback);
  return Guard(
      [&] { Emit(BorrowPattern(pattern, "the pattern").ToString(), callback, user_data); });
}

TsPattern TsPatternRetain(TsPattern pattern) {
  return Retain(pattern);
}

void TsPatternDestroy(TsPattern pattern) {
  Drop(pattern);
}

TsStatus TsPatternMatch(TsPattern pattern, TsExpr expr, int* matched) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(expr);
  TS_REQUIRE(matched);
  return Guard([&] {
    *matched =
        MatchPattern(BorrowPattern(pattern, "the pattern"), Borrow<ExprNode>(expr, "an expression"))
            ? 1
            : 0;
  });
}

TsStatus TsPatternMatchIn(TsPattern pattern, TsExpr expr, TsExpr func, TsPatternBindings* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(expr);
  TS_REQUIRE(func);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = nullptr;
    Function f = BorrowFunction(func, "TsPatternMatchIn: func");
    IndexedGraph graph(f);
    DFPatternMatcher matcher(&graph);
    if (!matcher.Match(BorrowPattern(pattern, "the pattern"),
                       Borrow<ExprNode>(expr, "an expression")))
      return;
    *out = new TsPatternBindings_(BindingsOf(matcher.node_map()));
  });
}

TsStatus TsPatternBindingsGetNumEntries(TsPatternBindings bindings, size_t* num_entries) {
  TS_REQUIRE(bindings);
  TS_REQUIRE(num_entries);
  *num_entries = bindings->entries.size();
  return TS_OK;
}

TsStatus TsPatternBindingsGetEntry(TsPatternBindings bindings, size_t index, TsPattern* pattern,
                                   TsExpr* expr) {
  TS_REQUIRE(bindings);
  return Guard([&] {
    CheckIndex(index, bindings->entries.size(), "TsPatternBindingsGetEntry: entry");
    const auto& [p, e] = bindings->entries[index];
    if (pattern) *pattern = GivePattern(p);
    if (expr) *expr = Give<TsExpr>(e);
  });
}

TsStatus TsPatternBindingsLookup(TsPatternBindings bindings, TsPattern pattern, TsExpr* out) {
  TS_REQUIRE(bindings);
  TS_REQUIRE(pattern);
  TS_REQUIRE(out);
  return Guard([&] {
    DFPattern p = BorrowPattern(pattern, "the pattern");
    for (const auto& [node, expr] : bindings->entries)
      if (node.same_as(p)) {
        *out = Give<TsExpr>(expr);
        return;
      }
    TS_THROW(kNotFound) << "the match did not bind pattern " << p.ToString();
  });
}

void TsPatternBindingsDestroy(TsPatternBindings bindings) {
  delete bindings;
}

TsStatus TsPatternRewrite(const TsPatternCallback* callbacks, size_t num_callbacks, TsExpr func,
                          TsModule module, TsExpr* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(out);
  return Guard([&] {
    CheckCallbacks(callbacks, num_callbacks);
    std::vector<DFPatternCallback> cbs;
    for (size_t i = 0; i < num_callbacks; ++i) cbs.push_back(CallbackFromC(callbacks[i], i, false));
    IRModule mod = module ? BorrowModule(module) : IRModule();
    *out = Give<TsExpr>(RewritePatterns(cbs, BorrowFunction(func, "TsPatternRewrite: func"), mod));
  });
}

TsStatus TsPatternRewritePassCreate(const char* name, const TsPatternCallback* callbacks,
                                    size_t num_callbacks, TsPass* out) {
  TS_REQUIRE(name);
  TS_REQUIRE(out);
  return Guard([&] {
    if (!*name) TS_THROW(kValue) << "TsPatternRewritePassCreate: the pass needs a name";
    CheckCallbacks(callbacks, num_callbacks);
    // Checked: from here on the pass owns the user data.
    std::vector<DFPatternCallback> cbs;
    for (size_t i = 0; i < num_callbacks; ++i) cbs.push_back(CallbackFromC(callbacks[i], i, true));
    PassInfo info;
    info.name = name;
    Pass pass =
        CreateFunctionPass([cbs](Function f, const IRModule& mod,
                                 const PassContext&) { return RewritePatterns(cbs, f, mod); },
                           info);
    *out = new TsPass_{std::move(pass)};
  });
}

TsStatus TsPatternPartition(TsPattern pattern, TsExpr func, const char* label,
                            TsPatternPredicate check, void* check_data, TsExpr* out) {
  TS_REQUIRE(pattern);
  TS_REQUIRE(func);
  TS_REQUIRE(label);
  TS_REQUIRE(out);
  return Guard([&] {
    *out = Give<TsExpr>(PartitionPattern(
        BorrowPattern(pattern, "the pattern"), label,
        BorrowFunction(func, "TsPatternPartition: func"),
        PredicateFromC(check, std::make_shared<UserData>(check_data, nullptr), "the check")));
  });
}

}  // extern "C"
