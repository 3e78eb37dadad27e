/* What the compiler's C tests share: small builders and checks over the IR C API. */
#ifndef TESSERA_TESTS_C_IR_TEST_UTIL_H_
#define TESSERA_TESTS_C_IR_TEST_UTIL_H_

#include "c_test_util.h"
#include "tessera/c_api.h"

static inline TsStringRef S(const char* s) {
  return TsStringRefFromC(s);
}

/* 1 when a getter succeeded giving the node `want` (the new reference is released). */
static inline int gave(TsStatus status, TsExpr* got, TsExpr want) {
  int ok = status == TS_OK && *got == want;
  TsExprDestroy(*got);
  *got = NULL;
  return ok;
}
static inline int gave_type(TsStatus status, TsType* got, TsType want) {
  int ok = status == TS_OK && *got == want;
  TsTypeDestroy(*got);
  *got = NULL;
  return ok;
}

static inline TsAttribute ints2(int64_t a, int64_t b) {
  int64_t v[2] = {a, b};
  TsAttribute out = NULL;
  CHECK(TsAttributeIntArrayCreate(v, 2, &out) == TS_OK);
  return out;
}

/* A call of op `name` (NULL on failure, which a CHECK records). */
static inline TsExpr op_call(const char* name, const TsExpr* args, size_t n,
                             const TsNamedAttribute* a, size_t na) {
  TsExpr out = NULL;
  CHECK(TsExprOpCallCreate(S(name), args, n, a, na, NULL, 0, &out) == TS_OK);
  return out;
}

static inline TsExpr constant(float* data, const int64_t* shape, int32_t ndim) {
  TsNDArray array = NULL;
  TsExpr out = NULL;
  CHECK(TsNDArrayFromBuffer(data, shape, ndim, kF32, &array) == TS_OK);
  CHECK(TsExprConstantCreate(array, &out) == TS_OK);
  TsNDArrayDestroy(array);
  return out;
}

/* The printed text of a type. */
static inline int type_prints(TsType type, const char* want) {
  GrowingBuffer b = {NULL, 0};
  int ok = TsTypePrint(type, append_growing, &b) == TS_OK && b.text && strcmp(b.text, want) == 0;
  if (!ok) fprintf(stderr, "type printed as '%s', want '%s'\n", b.text ? b.text : "", want);
  free(b.text);
  return ok;
}

/* 1 when `expr`'s checked type is a float32 tensor of `shape`. */
static inline int checked_shape(TsExpr expr, const int64_t* shape, size_t ndim) {
  TsType type = NULL;
  const int64_t* got = NULL;
  size_t got_ndim = 0;
  TsDType dtype = {0, 0, 0};
  int ok = TsExprGetCheckedType(expr, &type) == TS_OK && type &&
           TsTensorTypeGetShape(type, &got, &got_ndim) == TS_OK && got_ndim == ndim &&
           memcmp(got, shape, ndim * sizeof(int64_t)) == 0 &&
           TsTensorTypeGetDType(type, &dtype) == TS_OK && dtype.code == 2 && dtype.bits == 32;
  TsTypeDestroy(type);
  return ok;
}

/* 1 when the module's text contains `needle`. */
static inline int module_has(TsModule mod, const char* needle) {
  GrowingBuffer text = {NULL, 0};
  int has = TsModulePrint(mod, append_growing, &text) == TS_OK && strstr(text.text, needle);
  free(text.text);
  return has;
}

#endif /* TESSERA_TESTS_C_IR_TEST_UTIL_H_ */
