/* Index maps from C: parsing and printing, layouts, shapes, inverses with padding,
 * composition and identity, equality and hashing, applying a map to a tensor, errors. */
#include "c_test_util.h"
#include "tessera/c_api.h"

static TsIndexMap parse(const char* text) {
  TsIndexMap map = NULL;
  CHECK(TsIndexMapParse(TsStringRefFromC(text), &map) == TS_OK);
  return map;
}

/* 1 when `map` prints as `text`. */
static int prints_as(TsIndexMap map, const char* text) {
  GrowingBuffer b = {NULL, 0};
  int ok = TsIndexMapPrint(map, append_growing, &b) == TS_OK && b.text && strcmp(b.text, text) == 0;
  if (!ok) fprintf(stderr, "printed: %s\nwanted:  %s\n", b.text ? b.text : "(null)", text);
  free(b.text);
  return ok;
}

static void test_text_and_shapes(void) {
  TsIndexMap split = parse("lambda i: (i // 4, floormod(i, 4))");
  CHECK(prints_as(split, "lambda i: (i // 4, i % 4)"));
  size_t n = 0;
  CHECK(TsIndexMapGetArity(split, &n) == TS_OK && n == 1);
  CHECK(TsIndexMapGetNumOutputs(split, &n) == TS_OK && n == 2);
  int64_t shape[1] = {14}, out[2] = {0, 0};
  CHECK(TsIndexMapMapShape(split, shape, 1, out, 2) == TS_OK && out[0] == 4 && out[1] == 4);
  int64_t index[1] = {13};
  CHECK(TsIndexMapMapIndices(split, index, 1, out, 2) == TS_OK && out[0] == 3 && out[1] == 1);
  CHECK(TsIndexMapMapShape(split, shape, 1, out, 1) == TS_ERROR_VALUE);
  int64_t rank2[2] = {4, 4};
  CHECK(TsIndexMapMapShape(split, rank2, 2, out, 2) == TS_ERROR_TYPE);
  CHECK(error_has("takes 1 indices but shape [4, 4] has rank 2"));

  TsPrimExpr var = NULL, expr = NULL;
  CHECK(TsIndexMapGetInitialIndex(split, 0, &var) == TS_OK && var != NULL);
  CHECK(TsIndexMapGetFinalIndex(split, 1, &expr) == TS_OK && expr != NULL);
  CHECK(TsIndexMapGetFinalIndex(split, 2, &expr) == TS_ERROR_VALUE);
  TsIndexMap rebuilt = NULL;
  TsPrimExpr outs[1] = {expr};
  CHECK(TsIndexMapCreate(&var, 1, outs, 1, &rebuilt) == TS_OK);
  CHECK(prints_as(rebuilt, "lambda i: (i % 4,)"));
  TsIndexMapDestroy(rebuilt);
  TsPrimExprDestroy(var);
  TsPrimExprDestroy(expr);
  TsIndexMapDestroy(split);
}

static void test_inverses(void) {
  TsIndexMap left = parse("lambda i: ((i + 1) // 4, (i + 1) % 4)");
  int64_t shape[1] = {15};
  TsIndexMap inverse = NULL;
  GrowingBuffer pred = {NULL, 0};
  CHECK(TsIndexMapNonSurjectiveInverse(left, shape, 1, &inverse, append_growing, &pred) == TS_OK);
  CHECK(prints_as(inverse, "lambda i0, i1: (i0 * 4 + i1 - 1,)"));
  CHECK(pred.text && strcmp(pred.text, "i0 * 4 + i1 < 1") == 0);
  free(pred.text);
  int bijective = 1;
  CHECK(TsIndexMapIsBijective(left, shape, 1, &bijective) == TS_OK && !bijective);
  int injective = 0;
  CHECK(TsIndexMapIsInjective(left, shape, 1, &injective) == TS_OK && injective);
  TsIndexMap not_inverse = NULL;
  CHECK(TsIndexMapInverse(left, shape, 1, &not_inverse) == TS_ERROR_VALUE && !not_inverse);
  CHECK(error_has("is not a bijection on shape [15]"));
  TsIndexMapDestroy(inverse);

  /* A bijection: the predicate is False and the round trip is the identity. */
  TsIndexMap split = parse("lambda i: (i // 4, i % 4)");
  int64_t sixteen[1] = {16};
  GrowingBuffer none = {NULL, 0};
  CHECK(TsIndexMapNonSurjectiveInverse(split, sixteen, 1, &inverse, append_growing, &none) ==
        TS_OK);
  CHECK(none.text && strcmp(none.text, "False") == 0);
  free(none.text);
  TsIndexMap round = NULL;
  int identity = 0;
  CHECK(TsIndexMapComposeWith(split, inverse, &round) == TS_OK);
  CHECK(TsIndexMapIsIdentity(round, sixteen, 1, &identity) == TS_OK && identity);
  TsIndexMapDestroy(round);
  TsIndexMapDestroy(inverse);

  TsIndexMap drop = parse("lambda i: (i // 4,)");
  CHECK(TsIndexMapNonSurjectiveInverse(drop, sixteen, 1, &inverse, NULL, NULL) == TS_ERROR_VALUE);
  CHECK(error_has("is not injective on shape [16]"));
  TsIndexMapDestroy(drop);
  TsIndexMapDestroy(split);
  TsIndexMapDestroy(left);
}

static void test_layouts_and_equality(void) {
  TsIndexMap to16 = NULL, from16 = NULL, nhwc = NULL, perm = NULL, round = NULL;
  CHECK(TsIndexMapFromLayouts("NCHW", "NCHW16c", &to16) == TS_OK);
  CHECK(prints_as(to16, "lambda n, c, h, w: (n, c // 16, h, w, c % 16)"));
  TsIndexMap parsed = parse("lambda a, b, c, d: (a, b // 16, c, d, b % 16)");
  int equal = 0;
  uint64_t h1 = 0, h2 = 1;
  CHECK(TsIndexMapEqual(to16, parsed, &equal) == TS_OK && equal);
  CHECK(TsIndexMapHash(to16, &h1) == TS_OK && TsIndexMapHash(parsed, &h2) == TS_OK && h1 == h2);
  CHECK(TsIndexMapFromLayouts("NCHW16c", "NCHW", &from16) == TS_OK);
  CHECK(TsIndexMapComposeWith(to16, from16, &round) == TS_OK);
  int64_t shape[4] = {1, 64, 8, 8};
  int identity = 0;
  CHECK(TsIndexMapIsIdentity(round, shape, 4, &identity) == TS_OK && identity);

  CHECK(TsIndexMapFromLayouts("NCHW", "NHWC", &nhwc) == TS_OK);
  int64_t axes[4] = {0, 0, 0, 0};
  int is_perm = 0;
  CHECK(TsIndexMapIsPermutation(nhwc, axes, 4, &is_perm) == TS_OK && is_perm);
  CHECK(axes[0] == 0 && axes[1] == 2 && axes[2] == 3 && axes[3] == 1);
  CHECK(TsIndexMapPermutation(axes, 4, &perm) == TS_OK);
  CHECK(TsIndexMapEqualOn(nhwc, perm, shape, 4, &equal) == TS_OK && equal);
  CHECK(TsIndexMapEqualOn(nhwc, to16, shape, 4, &equal) == TS_OK && !equal);
  TsIndexMap square = NULL, id2 = NULL;
  int64_t swap[2] = {1, 0}, eight[2] = {8, 8};
  CHECK(TsIndexMapPermutation(swap, 2, &square) == TS_OK && TsIndexMapIdentity(2, &id2) == TS_OK);
  CHECK(TsIndexMapIsIdentity(square, eight, 2, &identity) == TS_OK && !identity);
  CHECK(TsIndexMapEqual(square, id2, &equal) == TS_OK && !equal);

  TsIndexMap bad = NULL;
  CHECK(TsIndexMapFromLayouts("NCHW", "NCHW16k", &bad) == TS_ERROR_VALUE && !bad);
  CHECK(error_has("without its primal axis K"));
  CHECK(TsIndexMapComposeWith(to16, square, &bad) == TS_ERROR_VALUE);
  TsIndexMapDestroy(square);
  TsIndexMapDestroy(id2);
  TsIndexMapDestroy(parsed);
  TsIndexMapDestroy(round);
  TsIndexMapDestroy(perm);
  TsIndexMapDestroy(nhwc);
  TsIndexMapDestroy(from16);
  TsIndexMapDestroy(to16);
}

static void test_apply(void) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[1] = {6};
  TsNDArray x = NULL, y = NULL;
  CHECK(TsNDArrayFromBuffer(data, shape, 1, kF32, &x) == TS_OK);
  TsIndexMap split = parse("lambda i: (i // 4, i % 4)");
  CHECK(TsIndexMapApply(split, x, -1.0, &y) == TS_OK);
  float* out = NULL;
  const int64_t* out_shape = NULL;
  int32_t ndim = 0;
  CHECK(TsNDArrayGetInfo(y, (void**)&out, &out_shape, &ndim, NULL) == TS_OK);
  CHECK(ndim == 2 && out_shape[0] == 2 && out_shape[1] == 4);
  CHECK(out[0] == 0 && out[5] == 5 && out[6] == -1 && out[7] == -1);
  TsNDArrayDestroy(y);
  TsIndexMap pair = parse("lambda i, j: (j, i)");
  CHECK(TsIndexMapApply(pair, x, 0.0, &y) == TS_ERROR_TYPE);
  CHECK(error_has("takes 2 indices but the array is float32[6]"));
  TsIndexMapDestroy(pair);
  TsIndexMapDestroy(split);
  TsNDArrayDestroy(x);
}

static void test_errors(void) {
  TsIndexMap map = NULL;
  CHECK(TsIndexMapParse(TsStringRefFromC("lambda i: (i ** 2)"), &map) == TS_ERROR_PARSE && !map);
  CHECK(error_has("at position"));
  CHECK(TsIndexMapParse(TsStringRefFromC("lambda i, j: (i * j,)"), &map) == TS_ERROR_VALUE);
  CHECK(error_has("is not an affine split/fuse of the input variables"));
  CHECK(TsIndexMapParse(TsStringRefFromC("lambda i: (i,)"), NULL) == TS_ERROR_INVALID_ARGUMENT);
  int64_t axes[2] = {0, 0};
  CHECK(TsIndexMapPermutation(axes, 2, &map) == TS_ERROR_VALUE);
  CHECK(TsIndexMapPermutation(NULL, 2, &map) == TS_ERROR_VALUE);
  CHECK(TsIndexMapIdentity(-1, &map) == TS_ERROR_VALUE);
  size_t n = 0;
  CHECK(TsIndexMapGetArity(NULL, &n) == TS_ERROR_INVALID_ARGUMENT);
  TsIndexMapDestroy(NULL);
}

int main(void) {
  test_text_and_shapes();
  test_inverses();
  test_layouts_and_equality();
  test_apply();
  test_errors();
  printf("test_c_layout: ");
  return check_summary();
}
