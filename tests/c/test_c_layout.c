/* Index maps from C: parsing and printing, layouts, shapes, inverses with padding,
 * composition and identity, equality and hashing, applying a map to a tensor, errors; and
 * the PrimFunc layout primitives (transform_layout, transform_block_layout, suggestions);
 * a PlanLayouts flow rule written in C; AlterOpImpl with a replacement PrimFunc. */
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

/* B[n, c, w] = sum over h of A[n, c, h, w]. */
static const char* kSum =
    "primfn @f(%A: Buffer[(1, 4, 2, 3), float32]) -> (%B: Buffer[(1, 4, 3), float32]) {\n"
    "  for %n: int32 in 0 +: 1 { for %c: int32 in 0 +: 4 { for %h: int32 in 0 +: 2 {\n"
    "  for %w: int32 in 0 +: 3 {\n"
    "    block \"sum\"(%vn: int32 in 0 +: 1 spatial = %n, %vc: int32 in 0 +: 4 spatial = %c,\n"
    "                  %vh: int32 in 0 +: 2 reduce = %h, %vw: int32 in 0 +: 3 spatial = %w)\n"
    "        reads(%A[%vn, %vc, %vh, %vw]) writes(%B[%vn, %vc, %vw]) {\n"
    "      init { %B[%vn, %vc, %vw] = 0f; }\n"
    "      %B[%vn, %vc, %vw] = %B[%vn, %vc, %vw] + %A[%vn, %vc, %vh, %vw];\n"
    "    }\n"
    "  } } } }\n"
    "}\n";

/* 1 when `map` equals (up to names) the map `text` parses to. */
static int equals(TsIndexMap map, const char* text) {
  TsIndexMap want = parse(text);
  int equal = 0;
  int ok = map && TsIndexMapEqual(map, want, &equal) == TS_OK && equal;
  if (!ok && map) prints_as(map, text);
  TsIndexMapDestroy(want);
  return ok;
}

/* The PrimFunc @f of a module parsed from `text`. */
static TsExpr prim_func(const char* text) {
  TsModule mod = NULL;
  TsExpr f = NULL;
  CHECK(TsModuleParse(text, (size_t)-1, &mod) == TS_OK);
  CHECK(TsModuleLookupFunction(mod, TsStringRefFromC("f"), &f) == TS_OK);
  TsModuleDestroy(mod);
  return f;
}

/* 1 when the text of PrimFunc `f` contains `piece`. */
static int text_has(TsExpr f, const char* piece) {
  GrowingBuffer b = {NULL, 0};
  int ok = TsPrimFuncPrint(f, TsStringRefFromC("f"), append_growing, &b) == TS_OK && b.text &&
           strstr(b.text, piece) != NULL;
  if (!ok) fprintf(stderr, "printed: %s\nwanted a piece: %s\n", b.text ? b.text : "(null)", piece);
  free(b.text);
  return ok;
}

/* Runs PrimFunc `f` (one input of `shape`, one output) on `x` through a module calling it. */
static TsNDArray run(TsExpr f, TsNDArray x, const char* in_type, const char* out_type) {
  GrowingBuffer b = {NULL, 0};
  CHECK(TsPrimFuncPrint(f, TsStringRefFromC("f"), append_growing, &b) == TS_OK);
  char text[8192];
  snprintf(text, sizeof text, "%s\ndef @main(%%x: %s) { call_tir(@f, (%%x,), %s) }\n", b.text,
           in_type, out_type);
  free(b.text);
  TsModule mod = NULL;
  TsValue arg = NULL, out = NULL;
  TsNDArray y = NULL;
  CHECK(TsModuleParse(text, (size_t)-1, &mod) == TS_OK);
  CHECK(TsValueFromNDArray(x, &arg) == TS_OK);
  CHECK(TsModuleEvaluate(mod, TsStringRefFromC("main"), &arg, 1, &out) == TS_OK);
  CHECK(TsValueGetNDArray(out, &y) == TS_OK);
  TsValueDestroy(out);
  TsValueDestroy(arg);
  TsModuleDestroy(mod);
  return y;
}

static void test_prim_func_layouts(void) {
  TsExpr f = prim_func(kSum);
  TsIndexMap nhwc = NULL, order = parse("lambda n, c, h, w: (n, h, w, c)");
  CHECK(TsIndexMapFromLayouts("NCHW", "NHWC", &nhwc) == TS_OK);
  TsExpr g = NULL, h = NULL;
  CHECK(TsPrimFuncTransformLayout(f, "A", 0, nhwc, NULL, &g) == TS_OK);
  CHECK(text_has(g, "%A: Buffer[(1, 2, 3, 4), float32]"));
  CHECK(text_has(g, "%A[%vn, %vh, %vw, %vc]"));
  CHECK(TsPrimFuncTransformBlockLayout(g, "sum", order, &h) == TS_OK);
  CHECK(text_has(h, "for %c: int32 in 0 +: 4 serial {\n          block \"sum\""));

  /* The same sums from the NHWC input. */
  float data[24];
  for (int i = 0; i < 24; ++i) data[i] = (float)(i % 7) - 2.5f;
  int64_t shape[4] = {1, 4, 2, 3};
  TsNDArray x = NULL, xt = NULL;
  CHECK(TsNDArrayFromBuffer(data, shape, 4, kF32, &x) == TS_OK);
  CHECK(TsIndexMapApply(nhwc, x, 0.0, &xt) == TS_OK);
  TsNDArray want = run(f, x, "Tensor[(1, 4, 2, 3), float32]", "Tensor[(1, 4, 3), float32]");
  TsNDArray got = run(h, xt, "Tensor[(1, 2, 3, 4), float32]", "Tensor[(1, 4, 3), float32]");
  float *w = NULL, *o = NULL;
  CHECK(TsNDArrayGetInfo(want, (void**)&w, NULL, NULL, NULL) == TS_OK);
  CHECK(TsNDArrayGetInfo(got, (void**)&o, NULL, NULL, NULL) == TS_OK);
  int same = w && o;
  for (int i = 0; same && i < 12; ++i) same = w[i] == o[i];
  CHECK(same);

  /* By parameter index, with a pad value (unused: NHWC does not pad). */
  TsExpr by_index = NULL;
  double pad = 0.0;
  CHECK(TsPrimFuncTransformLayout(f, NULL, 0, nhwc, &pad, &by_index) == TS_OK);
  CHECK(text_has(by_index, "%A[%vn, %vh, %vw, %vc]"));

  /* Suggestions: a blocked result asks for the input blocked the same way (the reduced h
   * stays in place). */
  TsIndexMap wanted = parse("lambda n, c, w: (n, c // 2, w, c % 2)");
  TsIndexMap params[2] = {NULL, NULL};
  CHECK(TsSuggestLayoutTransforms(f, &wanted, 1, params, 2, NULL, NULL) == TS_OK);
  CHECK(equals(params[0], "lambda n, c, h, w: (n, c // 2, h, w, c % 2)"));
  CHECK(equals(params[1], "lambda n, c, w: (n, c // 2, w, c % 2)"));
  TsIndexMap none[1] = {NULL};
  TsIndexMapDestroy(params[0]);
  TsIndexMapDestroy(params[1]);
  CHECK(TsSuggestLayoutTransforms(f, none, 1, params, 2, NULL, NULL) == TS_OK);
  CHECK(params[0] == NULL && params[1] == NULL);
  CHECK(TsSuggestLayoutTransforms(f, &wanted, 1, params, 1, NULL, NULL) == TS_ERROR_VALUE);

  /* Errors name what and where. */
  TsExpr bad = NULL;
  TsIndexMap pair = parse("lambda i, j: (j, i)");
  CHECK(TsPrimFuncTransformLayout(f, "A", 0, pair, NULL, &bad) == TS_ERROR_TYPE && !bad);
  CHECK(error_has("index map `lambda i, j: (j, i)` takes 2 indices but buffer 'A' has rank 4"));
  CHECK(TsPrimFuncTransformLayout(f, "Q", 0, nhwc, NULL, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("no buffer named 'Q' (buffers: A, B)"));
  CHECK(TsPrimFuncTransformLayout(f, NULL, 5, nhwc, NULL, &bad) == TS_ERROR_VALUE);
  CHECK(TsPrimFuncTransformBlockLayout(f, "nope", order, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("no block named 'nope' (blocks: 'sum')"));
  CHECK(TsPrimFuncTransformBlockLayout(f, "sum", pair, &bad) == TS_ERROR_TYPE);
  CHECK(TsPrimFuncTransformLayout(NULL, "A", 0, nhwc, NULL, &bad) == TS_ERROR_INVALID_ARGUMENT);
  TsExpr not_prim = NULL;
  TsModule m = NULL;
  CHECK(TsModuleParse("def @main(%x: Tensor[(1), float32]) { %x }", (size_t)-1, &m) == TS_OK);
  CHECK(TsModuleLookupFunction(m, TsStringRefFromC("main"), &not_prim) == TS_OK);
  CHECK(TsPrimFuncTransformBlockLayout(not_prim, "sum", order, &bad) == TS_ERROR_TYPE);
  CHECK(error_has("func is a graph function, expected a PrimFunc"));

  TsExprDestroy(not_prim);
  TsModuleDestroy(m);
  TsIndexMapDestroy(pair);
  TsIndexMapDestroy(wanted);
  TsNDArrayDestroy(want);
  TsNDArrayDestroy(got);
  TsNDArrayDestroy(xt);
  TsNDArrayDestroy(x);
  TsExprDestroy(by_index);
  TsExprDestroy(h);
  TsExprDestroy(g);
  TsIndexMapDestroy(order);
  TsIndexMapDestroy(nhwc);
  TsExprDestroy(f);
}

static const char* kSoftmaxBetweenNhwc =
    "def @main(%x: Tensor[(1, 8, 4, 4), float32]) {\n"
    "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
    "  %1 = nn.relu(%0, frozen_layout=True);\n"
    "  %2 = layout_transform(%1, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
    "  %3 = nn.softmax(%2, axis=1);\n"
    "  %4 = layout_transform(%3, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
    "  nn.relu(%4, frozen_layout=True)\n"
    "}\n";

static int g_rule_calls, g_rule_destroyed;

/* A softmax over channels wanted in NHWC is a softmax over the last axis. */
static TsStatus softmax_rule(TsExpr call, TsIndexMap map, TsLayoutFlow flow, void* user_data) {
  TsIndexMap nhwc = (TsIndexMap)user_data;
  int equal = 0;
  ++g_rule_calls;
  if (TsIndexMapEqual(map, nhwc, &equal) != TS_OK || !equal) return TS_OK;
  TsExpr x = NULL, softmax = NULL;
  TsAttribute axis = NULL;
  CHECK(TsCallGetArg(call, 0, &x) == TS_OK);
  CHECK(TsAttributeIntCreate(3, &axis) == TS_OK);
  TsNamedAttribute attr = {TsStringRefFromC("axis"), axis};
  CHECK(TsExprOpCallCreate(TsStringRefFromC("nn.softmax"), &x, 1, &attr, 1, NULL, 0, &softmax) ==
        TS_OK);
  TsStatus status = TsLayoutFlowSet(flow, softmax, &map, 1);
  TsExprDestroy(softmax);
  TsAttributeDestroy(axis);
  TsExprDestroy(x);
  return status;
}

static void destroy_rule(void* user_data) {
  ++g_rule_destroyed;
  TsIndexMapDestroy((TsIndexMap)user_data);
}

/* A failing rule: its status and message come out of the pass. */
static TsStatus failing_rule(TsExpr call, TsIndexMap map, TsLayoutFlow flow, void* user_data) {
  (void)call, (void)map, (void)flow, (void)user_data;
  TsSetLastError("no layout today");
  return TS_ERROR_UNSUPPORTED;
}

/* The number of layout_transform calls in `mod`'s text. */
static int transforms_in(TsModule mod) {
  GrowingBuffer b = {NULL, 0};
  CHECK(TsModulePrint(mod, append_growing, &b) == TS_OK);
  int n = 0;
  for (const char* p = b.text; p && (p = strstr(p, "layout_transform(")); ++p) ++n;
  free(b.text);
  return n;
}

static void test_flow_rules(void) {
  TsModule mod = NULL, planned = NULL;
  TsPass plan = NULL;
  TsPassContext ctx = NULL;
  TsIndexMap nhwc = NULL;
  CHECK(TsModuleParse(kSoftmaxBetweenNhwc, (size_t)-1, &mod) == TS_OK);
  CHECK(TsPipelineParse("PlanLayouts", &plan) == TS_OK);
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0, NULL, &ctx) == TS_OK);
  CHECK(TsIndexMapFromLayouts("NCHW", "NHWC", &nhwc) == TS_OK);

  /* Without a rule softmax stops the flow; with it, only the input's transform is left. */
  CHECK(TsPassRun(plan, mod, ctx, &planned) == TS_OK && transforms_in(planned) == 3);
  TsModuleDestroy(planned);
  CHECK(TsLayoutFlowRuleRegister("nn.softmax", softmax_rule, nhwc, destroy_rule) == TS_OK);
  CHECK(TsPassRun(plan, mod, ctx, &planned) == TS_OK && transforms_in(planned) == 1);
  CHECK(g_rule_calls > 0);
  TsModuleDestroy(planned);

  /* Replacing the rule destroys the old one's data; a failing rule fails the pass. */
  CHECK(TsLayoutFlowRuleRegister("nn.softmax", failing_rule, NULL, NULL) == TS_OK);
  CHECK(g_rule_destroyed == 1);
  planned = NULL;
  CHECK(TsPassRun(plan, mod, ctx, &planned) == TS_ERROR_UNSUPPORTED && planned == NULL);
  CHECK(strstr(TsGetLastError(), "no layout today") != NULL);
  CHECK(TsLayoutFlowRuleUnregister("nn.softmax") == TS_OK);
  CHECK(TsPassRun(plan, mod, ctx, &planned) == TS_OK && transforms_in(planned) == 3);
  TsModuleDestroy(planned);

  /* Bad registrations: an unknown op (its data destroyed all the same), NULL arguments. */
  CHECK(TsIndexMapFromLayouts("NCHW", "NHWC", &nhwc) == TS_OK);
  CHECK(TsLayoutFlowRuleRegister("nn.nope", softmax_rule, nhwc, destroy_rule) ==
        TS_ERROR_NOT_FOUND);
  CHECK(strstr(TsGetLastError(), "nn.nope") != NULL && g_rule_destroyed == 2);
  CHECK(TsLayoutFlowRuleRegister("nn.softmax", NULL, NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsLayoutFlowSet(NULL, NULL, NULL, 0) == TS_ERROR_INVALID_ARGUMENT);

  TsPassContextDestroy(ctx);
  TsPassDestroy(plan);
  TsModuleDestroy(mod);
}

static const char* kAddChain16 =
    "def @main(%x: Tensor[(16), float32], %y: Tensor[(16), float32]) {\n"
    "  %0 = add(%x, %y);\n"
    "  add(%0, %y)\n"
    "}\n"
    "primfn @add_4x4(%A: Buffer[(4, 4), float32], %B: Buffer[(4, 4), float32]) -> "
    "(%C: Buffer[(4, 4), float32]) {\n"
    "  for %i: int32 in 0 +: 4 {\n"
    "    for %j: int32 in 0 +: 4 {\n"
    "      block \"C\"(%vi: int32 in 0 +: 4 spatial = %i, %vj: int32 in 0 +: 4 spatial = %j) "
    "reads(%A[%vi, %vj], %B[%vi, %vj]) writes(%C[%vi, %vj]) {\n"
    "        %C[%vi, %vj] = %A[%vi, %vj] + %B[%vi, %vj];\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

static void test_alter_op_impl(void) {
  TsModule mod = NULL, out = NULL;
  TsExpr add = NULL;
  TsPass pass = NULL;
  CHECK(TsModuleParse(kAddChain16, (size_t)-1, &mod) == TS_OK);
  CHECK(TsModuleLookupFunction(mod, TsStringRefFromC("add_4x4"), &add) == TS_OK);
  TsIndexMap split = parse("lambda i: (i // 4, i % 4)");
  TsIndexMap maps[3] = {split, split, split};
  size_t num_maps[1] = {3};
  const char* ops[1] = {"add"};
  CHECK(TsAlterOpImplPassCreate(ops, &add, 1, maps, num_maps, &pass) == TS_OK);
  CHECK(TsPassRun(pass, mod, NULL, &out) == TS_OK);
  GrowingBuffer b = {NULL, 0};
  CHECK(TsModulePrint(out, append_growing, &b) == TS_OK);
  CHECK(b.text && strstr(b.text, "call_tir(@add_replacement") != NULL);
  CHECK(transforms_in(out) == 6);  /* both adds: two operands in, the result out */
  free(b.text);
  TsModuleDestroy(out);
  TsPassDestroy(pass);
  /* Without maps the (16,) operands do not fit the (4, 4) parameters: when the pass runs. */
  CHECK(TsAlterOpImplPassCreate(ops, &add, 1, NULL, NULL, &pass) == TS_OK);
  out = NULL;
  CHECK(TsPassRun(pass, mod, NULL, &out) == TS_ERROR_TYPE && out == NULL);
  CHECK(strstr(TsGetLastError(), "parameter 0 ('A')") != NULL);
  TsPassDestroy(pass);
  /* A graph function is no replacement; an unknown op is refused. */
  TsExpr main_fn = NULL;
  CHECK(TsModuleLookupFunction(mod, TsStringRefFromC("main"), &main_fn) == TS_OK);
  CHECK(TsAlterOpImplPassCreate(ops, &main_fn, 1, NULL, NULL, &pass) == TS_ERROR_TYPE);
  const char* nope[1] = {"nn.nope"};
  CHECK(TsAlterOpImplPassCreate(nope, &add, 1, NULL, NULL, &pass) == TS_ERROR_NOT_FOUND);
  CHECK(TsAlterOpImplPassCreate(ops, &add, 1, NULL, NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  /* Maps without their counts, and no op at all, are errors rather than a pass doing less. */
  CHECK(TsAlterOpImplPassCreate(ops, &add, 1, maps, NULL, &pass) == TS_ERROR_VALUE);
  CHECK(TsAlterOpImplPassCreate(NULL, NULL, 0, NULL, NULL, &pass) == TS_ERROR_VALUE);
  TsExprDestroy(main_fn);
  TsIndexMapDestroy(split);
  TsExprDestroy(add);
  TsModuleDestroy(mod);
}

int main(void) {
  test_text_and_shapes();
  test_inverses();
  test_layouts_and_equality();
  test_apply();
  test_errors();
  test_prim_func_layouts();
  test_flow_rules();
  test_alter_op_impl();
  printf("test_c_layout: ");
  return check_summary();
}
