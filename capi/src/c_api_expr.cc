// The C API of graph-level expressions: kinds, checked types, printing, structural
// equality, and the variable, constant, tuple, let and function nodes (calls and ops are in
// c_api_op.cc).
#include "c_api_ir_internal.h"

#include <optional>

#include "tessera/ir/expr.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"

using namespace tessera;
using namespace tessera::capi;

namespace {

Expr ExprOf(TsExpr expr) {
  return Borrow<ExprNode>(expr, "an expression");
}
/// What an expression node is, for messages (in TsExprKind's order).
const char* KindOf(const Object* object) {
  static const char* const kNames[] = {
      "a variable", "a global variable",  "a constant", "an op",      "a call",
      "a tuple",    "a tuple projection", "a let",      "a function", "a PrimFunc"};
  int index = static_cast<int>(object->type_index()) - static_cast<int>(TypeIndex::kVar);
  return index >= 0 && index < 10 ? kNames[index] : "another expression";
}

template <typename T>
Ref<const T> NodeOf(TsExpr expr, const char* where, const char* kind) {
  const Object* object = reinterpret_cast<const Object*>(expr);
  if (!IsInstance<ExprNode>(object)) TS_THROW(kType) << where << ": expected an expression";
  if (!IsInstance<T>(object))
    TS_THROW(kType) << where << ": expected " << kind << ", got " << KindOf(object);
  return Ref<const T>(static_cast<const T*>(object));
}
#define TS_NODE(T, HANDLE, KIND) NodeOf<T>(HANDLE, current_function, KIND)

}  // namespace

extern "C" {

TsStatus TsExprGetKind(TsExpr expr, TsExprKind* out) {
  TS_REQUIRE(expr);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    // TypeIndex orders the expression kinds as TsExprKind does, from kVar on.
    Expr e = ExprOf(expr);
    *out = static_cast<TsExprKind>(static_cast<int>(e->type_index()) -
                                   static_cast<int>(TypeIndex::kVar));
  });
}

TsStatus TsExprGetCheckedType(TsExpr expr, TsType* out) {
  TS_REQUIRE(expr);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = Give<TsType>(ExprOf(expr)->checked_type_or_null()); });
}

TsStatus TsExprPrint(TsExpr expr, int show_types, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(expr);
  TS_REQUIRE(callback);
  return Guard(__func__, [&] {
    PrintOptions options;
    options.show_types = show_types != 0;
    Emit(PrintExpr(ExprOf(expr), options), callback, user_data);
  });
}

TsStatus TsExprParse(TsStringRef text, TsStringRef source_name, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    *out = Give<TsExpr>(ParseExpr(StringOf(text, "TsExprParse: text"),
                                  StringOf(source_name, "TsExprParse: source name")));
  });
}

TsStatus TsExprStructuralEqual(TsExpr a, TsExpr b, int map_free_vars, int* out) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = StructuralEqual(ExprOf(a), ExprOf(b), map_free_vars != 0) ? 1 : 0; });
}

TsStatus TsExprStructuralHash(TsExpr expr, uint64_t* out) {
  TS_REQUIRE(expr);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = static_cast<uint64_t>(StructuralHash(ExprOf(expr))); });
}

TsStatus TsExprStructuralDiff(TsExpr a, TsExpr b, int map_free_vars, TsStringCallback callback,
                              void* user_data) {
  TS_REQUIRE(a);
  TS_REQUIRE(b);
  TS_REQUIRE(callback);
  return Guard(__func__, [&] {
    std::optional<std::string> diff = StructuralDiff(ExprOf(a), ExprOf(b), map_free_vars != 0);
    if (diff) Emit(*diff, callback, user_data);
  });
}

TsExpr TsExprRetain(TsExpr expr) {
  return Retain(expr);
}

void TsExprDestroy(TsExpr expr) {
  Drop(expr);
}

// ---- Variables, globals, constants ----------------------------------------------------

TsStatus TsExprVarCreate(TsStringRef name_hint, TsType type_annotation, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    *out = Give<TsExpr>(MakeVar(StringOf(name_hint, "TsExprVarCreate: name"),
                                Borrow<TypeNode>(type_annotation, "a type annotation")));
  });
}

TsStatus TsVarGetName(TsExpr var, TsStringRef* out) {
  TS_REQUIRE(var);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = RefOf(TS_NODE(VarNode, var, "a variable")->name_hint); });
}

TsStatus TsVarGetTypeAnnotation(TsExpr var, TsType* out) {
  TS_REQUIRE(var);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = Give<TsType>(TS_NODE(VarNode, var, "a variable")->type_annotation); });
}

TsStatus TsExprGlobalVarCreate(TsStringRef name, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    std::string n = StringOf(name, "TsExprGlobalVarCreate: name");
    if (n.empty()) TS_THROW(kValue) << "TsExprGlobalVarCreate: the name is empty";
    *out = Give<TsExpr>(MakeGlobalVar(std::move(n)));
  });
}

TsStatus TsGlobalVarGetName(TsExpr global_var, TsStringRef* out) {
  TS_REQUIRE(global_var);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = RefOf(TS_NODE(GlobalVarNode, global_var, "a global variable")->name); });
}

TsStatus TsExprConstantCreate(TsNDArray data, TsExpr* out) {
  TS_REQUIRE(data);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = Give<TsExpr>(MakeConstant(data->array.Copy())); });
}

TsStatus TsConstantGetData(TsExpr constant, TsNDArray* out) {
  TS_REQUIRE(constant);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = new TsNDArray_{TS_NODE(ConstantNode, constant, "a constant")->data}; });
}

// ---- Tuples and lets ----------------------------------------------------------------

TsStatus TsExprTupleCreate(const TsExpr* fields, size_t num_fields, TsExpr* out) {
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    *out = Give<TsExpr>(MakeTuple(
        NodesOf<ExprNode>(fields, num_fields, "TsExprTupleCreate: field", "an expression")));
  });
}

TsStatus TsTupleGetNumFields(TsExpr tuple, size_t* out) {
  TS_REQUIRE(tuple);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = TS_NODE(TupleNode, tuple, "a tuple")->fields.size(); });
}

TsStatus TsTupleGetField(TsExpr tuple, size_t index, TsExpr* out) {
  TS_REQUIRE(tuple);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    Tuple t = TS_NODE(TupleNode, tuple, "a tuple");
    CheckIndex(index, t->fields.size(), "TsTupleGetField: field");
    *out = Give<TsExpr>(t->fields[index]);
  });
}

TsStatus TsExprTupleGetItemCreate(TsExpr tuple, int index, TsExpr* out) {
  TS_REQUIRE(tuple);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    if (index < 0)
      TS_THROW(kValue) << "TsExprTupleGetItemCreate: index " << index << " is negative";
    *out = Give<TsExpr>(MakeTupleGetItem(ExprOf(tuple), index));
  });
}

TsStatus TsTupleGetItemGetTuple(TsExpr item, TsExpr* out) {
  TS_REQUIRE(item);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = Give<TsExpr>(TS_NODE(TupleGetItemNode, item, "a tuple projection")->tuple); });
}

TsStatus TsTupleGetItemGetIndex(TsExpr item, int* out) {
  TS_REQUIRE(item);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = TS_NODE(TupleGetItemNode, item, "a tuple projection")->index; });
}

TsStatus TsExprLetCreate(TsExpr var, TsExpr value, TsExpr body, TsExpr* out) {
  TS_REQUIRE(var);
  TS_REQUIRE(value);
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    *out = Give<TsExpr>(MakeLet(TS_NODE(VarNode, var, "a variable"), ExprOf(value), ExprOf(body)));
  });
}

TsStatus TsLetGetVar(TsExpr let, TsExpr* out) {
  TS_REQUIRE(let);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = Give<TsExpr>(TS_NODE(LetNode, let, "a let")->var); });
}

TsStatus TsLetGetValue(TsExpr let, TsExpr* out) {
  TS_REQUIRE(let);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = Give<TsExpr>(TS_NODE(LetNode, let, "a let")->value); });
}

TsStatus TsLetGetBody(TsExpr let, TsExpr* out) {
  TS_REQUIRE(let);
  TS_REQUIRE(out);
  return Guard(__func__, [&] { *out = Give<TsExpr>(TS_NODE(LetNode, let, "a let")->body); });
}

// ---- Functions ----------------------------------------------------------------------

TsStatus TsExprFunctionCreate(const TsExpr* params, size_t num_params, TsExpr body, TsType ret_type,
                              const TsNamedAttribute* attrs, size_t num_attrs, TsExpr* out) {
  TS_REQUIRE(body);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    std::vector<Var> vars =
        NodesOf<VarNode>(params, num_params, "TsExprFunctionCreate: parameter", "a variable");
    *out = Give<TsExpr>(MakeFunction(std::move(vars), ExprOf(body),
                                     Borrow<TypeNode>(ret_type, "a result type"),
                                     AttrsFromC(attrs, num_attrs, "TsExprFunctionCreate")));
  });
}

TsStatus TsFunctionGetNumParams(TsExpr function, size_t* out) {
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = TS_NODE(FunctionNode, function, "a function")->params.size(); });
}

TsStatus TsFunctionGetParam(TsExpr function, size_t index, TsExpr* out) {
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    Function f = TS_NODE(FunctionNode, function, "a function");
    CheckIndex(index, f->params.size(), "TsFunctionGetParam: parameter");
    *out = Give<TsExpr>(f->params[index]);
  });
}

TsStatus TsFunctionGetBody(TsExpr function, TsExpr* out) {
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = Give<TsExpr>(TS_NODE(FunctionNode, function, "a function")->body); });
}

TsStatus TsFunctionGetRetType(TsExpr function, TsType* out) {
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard(
      [&] { *out = Give<TsType>(TS_NODE(FunctionNode, function, "a function")->ret_type); });
}

TsStatus TsFunctionWithAttr(TsExpr function, TsStringRef key, TsAttribute value, TsExpr* out) {
  TS_REQUIRE(function);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    *out = Give<TsExpr>(WithAttr(TS_NODE(FunctionNode, function, "a function"),
                                 StringOf(key, "TsFunctionWithAttr: key"), AttrOf(value)));
  });
}

TsStatus TsBaseFuncGetNumAttrs(TsExpr func, size_t* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(out);
  return Guard(__func__,
               [&] { *out = TS_NODE(BaseFuncNode, func, "a function or PrimFunc")->attrs.size(); });
}

TsStatus TsBaseFuncGetAttr(TsExpr func, size_t index, TsNamedAttribute* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    BaseFunc f = TS_NODE(BaseFuncNode, func, "a function or PrimFunc");
    *out = NamedAttrOf(f->attrs, index, "TsBaseFuncGetAttr: attribute");
  });
}

TsStatus TsBaseFuncLookupAttr(TsExpr func, TsStringRef name, TsAttribute* out) {
  TS_REQUIRE(func);
  TS_REQUIRE(out);
  return Guard(__func__, [&] {
    BaseFunc f = TS_NODE(BaseFuncNode, func, "a function or PrimFunc");
    *out =
        LookupAttr(f->attrs, StringOf(name, "TsBaseFuncLookupAttr: name"), "TsBaseFuncLookupAttr");
  });
}

}  // extern "C"
