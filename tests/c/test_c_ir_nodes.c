/* IR nodes through the C API only: types, attribute values and every expression kind
 * (builders, getters, identity vs structural equality, printing, parsing), bad input. */
#include "ir_test_util.h"

static void test_types(void) {
  int64_t shape[2] = {1, 3};
  TsType t = NULL, t2 = NULL, s = NULL, tup = NULL, fn = NULL, field = NULL, ret = NULL;
  CHECK(TsTypeTensorCreate(shape, 2, kF32, &t) == TS_OK);
  CHECK(TsTypeTensorCreate(shape, 2, kF32, &t2) == TS_OK);
  CHECK(TsTypeTensorCreate(NULL, 0, (TsDType){0, 64, 1}, &s) == TS_OK);
  CHECK(type_prints(t, "Tensor[(1, 3), float32]"));
  CHECK(type_prints(s, "Tensor[(), int64]"));
  TsType fields[2] = {t, s};
  CHECK(TsTypeTupleCreate(fields, 2, &tup) == TS_OK);
  CHECK(TsTypeFuncCreate(fields, 2, tup, &fn) == TS_OK);
  CHECK(type_prints(tup, "(Tensor[(1, 3), float32], Tensor[(), int64])"));

  TsTypeKind kind;
  CHECK(TsTypeGetKind(t, &kind) == TS_OK && kind == TS_TYPE_TENSOR);
  CHECK(TsTypeGetKind(tup, &kind) == TS_OK && kind == TS_TYPE_TUPLE);
  CHECK(TsTypeGetKind(fn, &kind) == TS_OK && kind == TS_TYPE_FUNC);
  const int64_t* got = NULL;
  size_t ndim = 9;
  CHECK(TsTensorTypeGetShape(s, &got, &ndim) == TS_OK && ndim == 0);
  CHECK(TsTensorTypeGetShape(t, &got, &ndim) == TS_OK && ndim == 2 && got[1] == 3);
  size_t n = 0;
  CHECK(TsTupleTypeGetNumFields(tup, &n) == TS_OK && n == 2);
  CHECK(gave_type(TsTupleTypeGetField(tup, 1, &field), &field, s)); /* the same node */
  CHECK(TsFuncTypeGetNumArgs(fn, &n) == TS_OK && n == 2);
  CHECK(gave_type(TsFuncTypeGetRetType(fn, &ret), &ret, tup));
  CHECK(gave_type(TsFuncTypeGetArg(fn, 0, &field), &field, t));

  int eq = -1;
  uint64_t h1 = 0, h2 = 1;
  CHECK(t != t2 && TsTypeEqual(t, t2, &eq) == TS_OK && eq == 1);
  CHECK(TsTypeEqual(t, s, &eq) == TS_OK && eq == 0);
  CHECK(TsTypeHash(t, &h1) == TS_OK && TsTypeHash(t2, &h2) == TS_OK && h1 == h2);

  /* Bad input: wrong kinds, ranges, values, NULLs. */
  TsType bad = NULL;
  int64_t neg[1] = {-1};
  CHECK(TsTupleTypeGetNumFields(t, &n) == TS_ERROR_TYPE);
  CHECK(error_has("tuple type"));
  CHECK(TsTensorTypeGetShape(fn, &got, &ndim) == TS_ERROR_TYPE);
  CHECK(TsTupleTypeGetField(tup, 2, &bad) == TS_ERROR_VALUE && bad == NULL);
  CHECK(error_has("out of range"));
  CHECK(TsFuncTypeGetArg(fn, 5, &bad) == TS_ERROR_VALUE);
  CHECK(TsTypeTensorCreate(neg, 1, kF32, &bad) == TS_ERROR_VALUE);
  CHECK(TsTypeTensorCreate(shape, 2, (TsDType){2, 8, 1}, &bad) == TS_ERROR_UNSUPPORTED);
  TsType with_null[2] = {t, NULL};
  CHECK(TsTypeTupleCreate(with_null, 2, &bad) == TS_ERROR_VALUE);
  CHECK(TsTypeFuncCreate(fields, 2, NULL, &bad) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsTypeGetKind(NULL, &kind) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsTypePrint(t, NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);

  TsDType d;
  const char* name = NULL;
  CHECK(TsDTypeFromName(S("int64"), &d) == TS_OK && d.code == 0 && d.bits == 64);
  CHECK(TsDTypeGetName(kF32, &name) == TS_OK && strcmp(name, "float32") == 0);
  CHECK(TsDTypeFromName(S("float13"), &d) == TS_ERROR_VALUE);
  CHECK(error_has("float13"));

  TsTypeDestroy(t), TsTypeDestroy(t2), TsTypeDestroy(s), TsTypeDestroy(tup), TsTypeDestroy(fn);
  TsTypeDestroy(NULL);
}

static void test_attributes(void) {
  TsAttribute none = NULL, b = NULL, i = NULL, f = NULL, str = NULL, arr = NULL, item = NULL;
  CHECK(TsAttributeNoneCreate(&none) == TS_OK);
  CHECK(TsAttributeBoolCreate(7, &b) == TS_OK);
  CHECK(TsAttributeIntCreate(-5, &i) == TS_OK);
  CHECK(TsAttributeFloatCreate(1.5, &f) == TS_OK);
  CHECK(TsAttributeStringCreate(S("NCHW"), &str) == TS_OK);
  TsAttribute items[3] = {i, str, none};
  CHECK(TsAttributeArrayCreate(items, 3, &arr) == TS_OK);

  TsAttributeKind kind;
  CHECK(TsAttributeGetKind(none, &kind) == TS_OK && kind == TS_ATTRIBUTE_NONE);
  CHECK(TsAttributeGetKind(arr, &kind) == TS_OK && kind == TS_ATTRIBUTE_ARRAY);
  int bv = 0;
  int64_t iv = 0;
  double fv = 0;
  TsStringRef sv = {NULL, 0};
  size_t n = 0;
  CHECK(TsAttributeGetBool(b, &bv) == TS_OK && bv == 1);
  CHECK(TsAttributeGetInt(i, &iv) == TS_OK && iv == -5);
  CHECK(TsAttributeGetFloat(f, &fv) == TS_OK && fv == 1.5);
  CHECK(TsAttributeGetString(str, &sv) == TS_OK && ref_is(sv, "NCHW"));
  CHECK(TsAttributeGetNumItems(arr, &n) == TS_OK && n == 3);
  CHECK(TsAttributeGetItem(arr, 1, &item) == TS_OK);
  int eq = 0;
  CHECK(TsAttributeEqual(item, str, &eq) == TS_OK && eq == 1);
  CHECK(TsAttributeEqual(i, f, &eq) == TS_OK && eq == 0);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsAttributePrint(arr, append_growing, &text) == TS_OK);
  CHECK(text.text && strcmp(text.text, "[-5, \"NCHW\", None]") == 0);
  free(text.text);

  CHECK(TsAttributeGetInt(f, &iv) == TS_ERROR_TYPE); /* no silent conversion */
  CHECK(error_has("a float"));
  CHECK(TsAttributeGetFloat(i, &fv) == TS_ERROR_TYPE);
  CHECK(TsAttributeGetItem(arr, 3, &item) == TS_ERROR_VALUE);
  CHECK(TsAttributeGetNumItems(b, &n) == TS_ERROR_TYPE);
  TsAttribute with_null[2] = {i, NULL};
  TsAttribute bad = NULL;
  CHECK(TsAttributeArrayCreate(with_null, 2, &bad) == TS_ERROR_VALUE && bad == NULL);
  CHECK(TsAttributeStringCreate((TsStringRef){NULL, 3}, &bad) == TS_ERROR_VALUE);
  CHECK(TsAttributeGetKind(NULL, &kind) == TS_ERROR_INVALID_ARGUMENT);

  TsAttributeDestroy(none), TsAttributeDestroy(b), TsAttributeDestroy(i), TsAttributeDestroy(f);
  TsAttributeDestroy(str), TsAttributeDestroy(arr), TsAttributeDestroy(item);
  TsAttributeDestroy(NULL);
}

/* The expression kinds one by one: Var, GlobalVar, Constant, Call (of an op and of a
 * global), Tuple, TupleGetItem, Let, Function; structural vs identity equality. */
static void test_expressions(void) {
  int64_t shape[2] = {2, 2};
  TsType t = NULL, got_t = NULL;
  CHECK(TsTypeTensorCreate(shape, 2, kF32, &t) == TS_OK);
  TsExpr x = NULL, y = NULL, gv = NULL, got = NULL;
  CHECK(TsExprVarCreate(S("x"), t, &x) == TS_OK);
  CHECK(TsExprVarCreate(S("y"), NULL, &y) == TS_OK);
  CHECK(TsExprGlobalVarCreate(S("helper"), &gv) == TS_OK);
  TsStringRef s;
  TsExprKind kind;
  CHECK(TsVarGetName(x, &s) == TS_OK && ref_is(s, "x"));
  CHECK(gave_type(TsVarGetTypeAnnotation(x, &got_t), &got_t, t));
  CHECK(TsVarGetTypeAnnotation(y, &got_t) == TS_OK && got_t == NULL);
  CHECK(TsGlobalVarGetName(gv, &s) == TS_OK && ref_is(s, "helper"));
  CHECK(TsExprGetKind(gv, &kind) == TS_OK && kind == TS_EXPR_GLOBAL_VAR);

  /* A constant copies its data; its data comes back sharing the constant's memory. */
  float values[4] = {1, 2, 3, 4};
  TsExpr c = constant(values, shape, 2);
  values[0] = 100;
  TsNDArray data = NULL, data2 = NULL;
  float *p = NULL, *p2 = NULL;
  const int64_t* dims = NULL;
  int32_t ndim = 0;
  CHECK(TsConstantGetData(c, &data) == TS_OK && TsConstantGetData(c, &data2) == TS_OK);
  CHECK(TsNDArrayGetInfo(data, (void**)&p, &dims, &ndim, NULL) == TS_OK);
  CHECK(TsNDArrayGetInfo(data2, (void**)&p2, NULL, NULL, NULL) == TS_OK);
  CHECK(ndim == 2 && dims[0] == 2 && p[0] == 1 && p[3] == 4 && p == p2 && p != values);
  CHECK(TsExprGetKind(c, &kind) == TS_OK && kind == TS_EXPR_CONSTANT);

  /* let %t = (%x, %y); %t.1 -- and a call of the global with a type argument. */
  TsExpr fields[2] = {x, y};
  TsExpr tup = NULL, item = NULL, let = NULL, gcall = NULL;
  CHECK(TsExprTupleCreate(fields, 2, &tup) == TS_OK);
  TsExpr tv = NULL;
  CHECK(TsExprVarCreate(S("t"), NULL, &tv) == TS_OK);
  CHECK(TsExprTupleGetItemCreate(tv, 1, &item) == TS_OK);
  CHECK(TsExprLetCreate(tv, tup, item, &let) == TS_OK);
  size_t n = 0;
  int index = -1;
  CHECK(TsTupleGetNumFields(tup, &n) == TS_OK && n == 2);
  CHECK(gave(TsTupleGetField(tup, 1, &got), &got, y));
  CHECK(TsTupleGetItemGetIndex(item, &index) == TS_OK && index == 1);
  CHECK(gave(TsTupleGetItemGetTuple(item, &got), &got, tv));
  CHECK(gave(TsLetGetVar(let, &got), &got, tv));
  CHECK(gave(TsLetGetValue(let, &got), &got, tup));
  CHECK(gave(TsLetGetBody(let, &got), &got, item));
  CHECK(TsExprGetKind(let, &kind) == TS_OK && kind == TS_EXPR_LET);
  TsExpr gargs[1] = {c};
  TsType targs[1] = {t};
  CHECK(TsExprCallCreate(gv, gargs, 1, NULL, 0, targs, 1, &gcall) == TS_OK);
  CHECK(gave(TsCallGetCallee(gcall, &got), &got, gv));
  CHECK(TsCallGetNumTypeArgs(gcall, &n) == TS_OK && n == 1);
  CHECK(gave_type(TsCallGetTypeArg(gcall, 0, &got_t), &got_t, t));

  /* Functions: params, body, ret_type, attrs, with_attr. */
  TsAttribute one = NULL;
  CHECK(TsAttributeIntCreate(1, &one) == TS_OK);
  TsNamedAttribute fattrs[1] = {{S("Primitive"), one}};
  TsExpr params[2] = {x, y};
  TsExpr fn = NULL, fn2 = NULL, fn3 = NULL;
  CHECK(TsExprFunctionCreate(params, 2, let, NULL, fattrs, 1, &fn) == TS_OK);
  CHECK(TsExprFunctionCreate(params, 2, let, NULL, fattrs, 1, &fn3) == TS_OK);
  CHECK(TsFunctionWithAttr(fn, S("Compiler"), NULL, &fn2) == TS_OK);
  CHECK(TsFunctionGetNumParams(fn, &n) == TS_OK && n == 2);
  CHECK(gave(TsFunctionGetParam(fn, 1, &got), &got, y));
  CHECK(gave(TsFunctionGetBody(fn, &got), &got, let));
  CHECK(TsFunctionGetRetType(fn, &got_t) == TS_OK && got_t == NULL);
  CHECK(TsBaseFuncGetNumAttrs(fn, &n) == TS_OK && n == 1);
  CHECK(TsBaseFuncGetNumAttrs(fn2, &n) == TS_OK && n == 2);
  TsNamedAttribute entry;
  TsAttributeKind akind;
  CHECK(TsBaseFuncGetAttr(fn2, 1, &entry) == TS_OK && ref_is(entry.name, "Compiler"));
  CHECK(TsAttributeGetKind(entry.value, &akind) == TS_OK && akind == TS_ATTRIBUTE_NONE);
  TsAttributeDestroy(entry.value);
  TsAttribute value = NULL;
  int64_t iv = 0;
  CHECK(TsBaseFuncLookupAttr(fn, S("Primitive"), &value) == TS_OK);
  CHECK(TsAttributeGetInt(value, &iv) == TS_OK && iv == 1);
  TsAttributeDestroy(value);
  CHECK(TsBaseFuncLookupAttr(fn, S("Compiler"), &value) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("Primitive"));

  /* Identity vs structure: fn and fn3 are distinct nodes of equal structure. */
  int eq = 0;
  uint64_t h1 = 0, h2 = 1;
  CHECK(fn != fn3 && TsExprStructuralEqual(fn, fn3, 0, &eq) == TS_OK && eq == 1);
  CHECK(TsExprStructuralHash(fn, &h1) == TS_OK && TsExprStructuralHash(fn3, &h2) == TS_OK);
  CHECK(h1 == h2);
  CHECK(TsExprStructuralEqual(fn, fn2, 0, &eq) == TS_OK && eq == 0);
  GrowingBuffer diff = {NULL, 0};
  CHECK(TsExprStructuralDiff(fn, fn3, 0, append_growing, &diff) == TS_OK && diff.text == NULL);
  CHECK(TsExprStructuralDiff(fn, fn2, 0, append_growing, &diff) == TS_OK && diff.text != NULL);
  free(diff.text);
  TsExpr x2 = NULL; /* free variables: equal only when mapped */
  CHECK(TsExprVarCreate(S("x"), t, &x2) == TS_OK);
  CHECK(TsExprStructuralEqual(x, x2, 0, &eq) == TS_OK && eq == 0);
  CHECK(TsExprStructuralEqual(x, x2, 1, &eq) == TS_OK && eq == 1);

  GrowingBuffer text = {NULL, 0};
  CHECK(TsExprPrint(fn, 0, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "let %t") && strstr(text.text, "Primitive=1"));
  free(text.text);
  TsExpr parsed = NULL;
  CHECK(TsExprParse(S("fn (%a: Tensor[(2), float32]) { nn.relu(%a) }"), S("e"), &parsed) == TS_OK);
  CHECK(TsExprGetKind(parsed, &kind) == TS_OK && kind == TS_EXPR_FUNCTION);
  CHECK(TsExprParse(S("fn (%a) { nn.relu(%b) }"), S("snippet.ts"), &got) == TS_ERROR_PARSE);
  CHECK(error_has("snippet.ts"));

  /* Bad input. */
  TsExpr bad = NULL;
  TsExpr with_null[2] = {x, NULL};
  CHECK(TsVarGetName(gv, &s) == TS_ERROR_TYPE && error_has("a variable"));
  CHECK(TsCallGetNumArgs(tup, &n) == TS_ERROR_TYPE);
  CHECK(TsBaseFuncGetNumAttrs(x, &n) == TS_ERROR_TYPE);
  CHECK(TsExprGetKind((TsExpr)t, &kind) == TS_ERROR_TYPE); /* a type is not an expression */
  CHECK(TsTupleGetField(tup, 2, &bad) == TS_ERROR_VALUE && bad == NULL);
  CHECK(TsFunctionGetParam(fn, 2, &bad) == TS_ERROR_VALUE);
  CHECK(TsExprTupleGetItemCreate(tup, -1, &bad) == TS_ERROR_VALUE);
  CHECK(TsExprTupleCreate(with_null, 2, &bad) == TS_ERROR_VALUE);
  CHECK(TsExprFunctionCreate(fields + 0, 1, NULL, NULL, NULL, 0, &bad) ==
        TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExprFunctionCreate(&gv, 1, x, NULL, NULL, 0, &bad) == TS_ERROR_TYPE);
  CHECK(TsExprLetCreate(gv, x, x, &bad) == TS_ERROR_TYPE);
  CHECK(TsExprConstantCreate(NULL, &bad) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExprCallCreate(gv, with_null, 2, NULL, 0, NULL, 0, &bad) == TS_ERROR_VALUE);
  CHECK(TsExprOpCallCreate(S("nn.relu"), fields, 2, NULL, 0, NULL, 0, &bad) == TS_ERROR_TYPE);
  CHECK(error_has("nn.relu"));
  TsAttribute zero = NULL;
  CHECK(TsAttributeIntCreate(0, &zero) == TS_OK);
  TsNamedAttribute unknown[1] = {{S("alpha"), zero}};
  CHECK(TsExprOpCallCreate(S("nn.relu"), fields, 1, unknown, 1, NULL, 0, &bad) == TS_ERROR_VALUE);
  CHECK(error_has("alpha"));
  TsAttributeDestroy(zero);
  CHECK(TsExprOpCallCreate(S("nn.relux"), fields, 1, NULL, 0, NULL, 0, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(TsExprGlobalVarCreate(S(""), &bad) == TS_ERROR_VALUE);

  TsAttributeDestroy(one);
  TsExprDestroy(c); /* the data outlives the constant in the arrays taken from it */
  CHECK(p[3] == 4);
  TsNDArrayDestroy(data), TsNDArrayDestroy(data2);
  TsExpr all[] = {x, y, gv, tup, tv, item, let, gcall, fn, fn2, fn3, x2, parsed};
  for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i) TsExprDestroy(all[i]);
  TsTypeDestroy(t);
  TsExprDestroy(NULL);
}

int main(void) {
  test_types();
  test_attributes();
  test_expressions();
  return check_summary();
}
