/* The IR through the C API only: the op registry, modules, and a small CNN built in C,
 * typed, run and checked against the same model parsed from text and against a direct C
 * computation, with text and JSON round trips and bad input (test_c_ir_nodes.c covers
 * types, attribute values and expressions one by one). */
#include <math.h>

#include "ir_test_util.h"

static void test_ops(void) {
  GrowingBuffer names = {NULL, 0};
  CHECK(TsOpListNames(append_growing, &names) == TS_OK);
  CHECK(names.text && strstr(names.text, "nn.conv2d") && strstr(names.text, "nn.relu"));
  free(names.text);

  TsExpr conv = NULL, again = NULL, bad = NULL;
  CHECK(TsOpGet(S("nn.conv2d"), &conv) == TS_OK);
  CHECK(TsOpGet(S("nn.conv2d"), &again) == TS_OK && again == conv); /* interned */
  TsExprKind kind;
  CHECK(TsExprGetKind(conv, &kind) == TS_OK && kind == TS_EXPR_OP);
  TsStringRef s;
  size_t n = 0;
  int variadic = 1;
  TsOpPatternKind pattern;
  CHECK(TsOpGetName(conv, &s) == TS_OK && ref_is(s, "nn.conv2d"));
  CHECK(TsOpGetDescription(conv, &s) == TS_OK && s.length > 0);
  CHECK(TsOpGetNumInputs(conv, &n) == TS_OK && n == 2);
  CHECK(TsOpGetInputName(conv, 1, &s) == TS_OK && ref_is(s, "weight"));
  CHECK(TsOpIsVariadic(conv, &variadic) == TS_OK && variadic == 0);
  CHECK(TsOpGetPattern(conv, &pattern) == TS_OK && pattern == TS_OP_PATTERN_OUT_ELEMWISE_FUSABLE);
  CHECK(strcmp(TsOpPatternKindGetName(pattern), "out_elemwise_fusable") == 0);
  CHECK(strcmp(TsOpPatternKindGetName((TsOpPatternKind)5), "unknown") == 0);
  CHECK(TsOpGetNumAttrs(conv, &n) == TS_OK && n == 10);
  TsOpAttrSchema schema;
  CHECK(TsOpGetAttrSchema(conv, 1, &schema) == TS_OK);
  CHECK(ref_is(schema.name, "padding") && schema.type == TS_OP_ATTR_INT_ARRAY);
  CHECK(schema.required == 0 && strcmp(TsOpAttrTypeGetName(schema.type), "int_array") == 0);
  size_t items = 0;
  CHECK(TsAttributeGetNumItems(schema.default_value, &items) == TS_OK && items == 2);
  TsAttributeDestroy(schema.default_value);
  CHECK(TsOpGetAttrSchema(conv, 4, &schema) == TS_OK); /* channels: optional, None */
  TsAttributeKind akind;
  CHECK(schema.type == TS_OP_ATTR_OPTIONAL_INT && schema.required == 0);
  CHECK(TsAttributeGetKind(schema.default_value, &akind) == TS_OK && akind == TS_ATTRIBUTE_NONE);
  TsAttributeDestroy(schema.default_value);

  CHECK(TsOpGet(S("nn.conv3000"), &bad) == TS_ERROR_NOT_FOUND && bad == NULL);
  CHECK(error_has("nn.conv3000"));
  CHECK(TsOpGetAttrSchema(conv, 10, &schema) == TS_ERROR_VALUE);
  CHECK(TsOpGetInputName(conv, 2, &s) == TS_ERROR_VALUE);
  TsExprDestroy(conv), TsExprDestroy(again);
}

/* ---- The CNN ------------------------------------------------------------------------ */

/* x[1,2,6,6] -> conv2d(3x3, 4 channels, padding 1) -> bias_add -> relu -> max_pool2d(2x2,
 * stride 2) -> batch_flatten -> dense(3). */
enum { C_IN = 2, H = 6, C_OUT = 4, PH = 3, UNITS = 3, FLAT = C_OUT * PH * PH };
static float g_x[C_IN * H * H], g_w[C_OUT * C_IN * 9], g_b[C_OUT], g_wd[UNITS * FLAT];

static void fill_weights(void) {
  for (int i = 0; i < C_IN * H * H; ++i) g_x[i] = (float)((i * 7) % 11) / 11.0f - 0.4f;
  for (int i = 0; i < C_OUT * C_IN * 9; ++i) g_w[i] = (float)((i * 5) % 13) / 13.0f - 0.5f;
  for (int i = 0; i < C_OUT; ++i) g_b[i] = 0.1f * (float)i - 0.15f;
  for (int i = 0; i < UNITS * FLAT; ++i) g_wd[i] = (float)((i * 3) % 17) / 17.0f - 0.5f;
}

/* The same network computed directly in C. */
static void reference(float out[UNITS]) {
  float conv[C_OUT][H][H], pooled[FLAT];
  for (int o = 0; o < C_OUT; ++o)
    for (int h = 0; h < H; ++h)
      for (int w = 0; w < H; ++w) {
        float acc = 0;
        for (int c = 0; c < C_IN; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              int ih = h + kh - 1, iw = w + kw - 1;
              if (ih < 0 || iw < 0 || ih >= H || iw >= H) continue;
              acc += g_x[(c * H + ih) * H + iw] * g_w[((o * C_IN + c) * 3 + kh) * 3 + kw];
            }
        acc += g_b[o];
        conv[o][h][w] = acc > 0 ? acc : 0;
      }
  for (int o = 0; o < C_OUT; ++o)
    for (int h = 0; h < PH; ++h)
      for (int w = 0; w < PH; ++w) {
        float m = conv[o][2 * h][2 * w];
        for (int k = 1; k < 4; ++k) m = fmaxf(m, conv[o][2 * h + k / 2][2 * w + k % 2]);
        pooled[(o * PH + h) * PH + w] = m;
      }
  for (int u = 0; u < UNITS; ++u) {
    out[u] = 0;
    for (int k = 0; k < FLAT; ++k) out[u] += pooled[k] * g_wd[u * FLAT + k];
  }
}

/* Standard base64 of `n` bytes into `out` (room for 4 * ceil(n / 3) + 1). */
static void base64(const unsigned char* in, size_t n, char* out) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
                 (i + 2 < n ? in[i + 2] : 0);
    out[o++] = k[v >> 18 & 63], out[o++] = k[v >> 12 & 63];
    out[o++] = i + 1 < n ? k[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? k[v & 63] : '=';
  }
  out[o] = '\0';
}

/* The CNN as text IR, its weights in the metadata section. */
static char* cnn_text(void) {
  static char b64[3][4 * (sizeof(g_wd) / 3 + 1) + 1];
  base64((const unsigned char*)g_w, sizeof(g_w), b64[0]);
  base64((const unsigned char*)g_b, sizeof(g_b), b64[1]);
  base64((const unsigned char*)g_wd, sizeof(g_wd), b64[2]);
  size_t size = 4096 + sizeof(b64);
  char* text = (char*)malloc(size);
  snprintf(text, size,
           "def @main(%%x: Tensor[(1, 2, 6, 6), float32]) {\n"
           "  %%0 = nn.conv2d(%%x, meta[Constant][0], strides=[1, 1], padding=[1, 1]);\n"
           "  %%1 = nn.bias_add(%%0, meta[Constant][1]);\n"
           "  %%2 = nn.relu(%%1);\n"
           "  %%3 = nn.max_pool2d(%%2, pool_size=[2, 2], strides=[2, 2]);\n"
           "  %%4 = nn.batch_flatten(%%3);\n"
           "  nn.dense(%%4, meta[Constant][2], units=3)\n"
           "}\n"
           "#[metadata]\n"
           "{\"Constant\": [{\"dtype\": \"float32\", \"shape\": [4, 2, 3, 3], \"data\": \"%s\"},"
           " {\"dtype\": \"float32\", \"shape\": [4], \"data\": \"%s\"},"
           " {\"dtype\": \"float32\", \"shape\": [3, 36], \"data\": \"%s\"}]}\n",
           b64[0], b64[1], b64[2]);
  return text;
}

/* Builds the CNN with the C API; `*conv_out` receives the conv2d call (new). */
static TsModule build_cnn(TsExpr* conv_out) {
  int64_t xs[4] = {1, C_IN, H, H}, ws[4] = {C_OUT, C_IN, 3, 3}, bs[1] = {C_OUT};
  int64_t ds[2] = {UNITS, FLAT};
  TsType xt = NULL;
  TsExpr x = NULL;
  CHECK(TsTypeTensorCreate(xs, 4, kF32, &xt) == TS_OK);
  CHECK(TsExprVarCreate(S("x"), xt, &x) == TS_OK);
  TsExpr w = constant(g_w, ws, 4), b = constant(g_b, bs, 1), wd = constant(g_wd, ds, 2);

  TsAttribute strides = ints2(1, 1), padding = ints2(1, 1), pool = ints2(2, 2), units = NULL;
  CHECK(TsAttributeIntCreate(UNITS, &units) == TS_OK);
  TsNamedAttribute conv_attrs[2] = {{S("strides"), strides}, {S("padding"), padding}};
  TsNamedAttribute pool_attrs[2] = {{S("pool_size"), pool}, {S("strides"), pool}};
  TsNamedAttribute dense_attrs[1] = {{S("units"), units}};

  TsExpr conv_op = NULL, conv = NULL;
  TsExpr args[2] = {x, w};
  CHECK(TsOpGet(S("nn.conv2d"), &conv_op) == TS_OK);
  CHECK(TsExprCallCreate(conv_op, args, 2, conv_attrs, 2, NULL, 0, &conv) == TS_OK);
  args[0] = conv, args[1] = b;
  TsExpr biased = op_call("nn.bias_add", args, 2, NULL, 0);
  TsExpr relu = op_call("nn.relu", &biased, 1, NULL, 0);
  TsExpr pooled = op_call("nn.max_pool2d", &relu, 1, pool_attrs, 2);
  TsExpr flat = op_call("nn.batch_flatten", &pooled, 1, NULL, 0);
  args[0] = flat, args[1] = wd;
  TsExpr dense = op_call("nn.dense", args, 2, dense_attrs, 1);

  TsExpr main_fn = NULL;
  TsModule mod = NULL;
  CHECK(TsExprFunctionCreate(&x, 1, dense, NULL, NULL, 0, &main_fn) == TS_OK);
  CHECK(TsModuleFromExpr(main_fn, &mod) == TS_OK);
  *conv_out = conv;

  TsAttribute attrs[] = {strides, padding, pool, units};
  for (size_t i = 0; i < 4; ++i) TsAttributeDestroy(attrs[i]);
  TsExpr exprs[] = {x, w, b, wd, conv_op, biased, relu, pooled, flat, dense, main_fn};
  for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); ++i) TsExprDestroy(exprs[i]);
  TsTypeDestroy(xt);
  return mod;
}

/* Runs @main on g_x; `out` receives UNITS floats. */
static int run_cnn(TsModule mod, float out[UNITS]) {
  int64_t xs[4] = {1, C_IN, H, H};
  TsNDArray input = NULL, result[1] = {NULL};
  const char* names[1] = {"x"};
  size_t n = 0;
  const int64_t* shape = NULL;
  int32_t ndim = 0;
  float* data = NULL;
  int ok = TsNDArrayFromBuffer(g_x, xs, 4, kF32, &input) == TS_OK &&
           TsModuleRunMain(mod, names, &input, 1, result, 1, &n) == TS_OK && n == 1 &&
           TsNDArrayGetInfo(result[0], (void**)&data, &shape, &ndim, NULL) == TS_OK && ndim == 2 &&
           shape[0] == 1 && shape[1] == UNITS;
  if (ok) memcpy(out, data, UNITS * sizeof(float));
  TsNDArrayDestroy(input), TsNDArrayDestroy(result[0]);
  return ok;
}

static void test_cnn(void) {
  fill_weights();
  TsExpr conv = NULL;
  TsModule mod = build_cnn(&conv);
  if (!mod) return;
  TsType type = NULL;
  CHECK(TsExprGetCheckedType(conv, &type) == TS_OK && type == NULL); /* not inferred yet */

  /* The op call was normalised: padding has four entries, defaults are filled in. */
  size_t n = 0, items = 0;
  TsAttribute padding = NULL;
  CHECK(TsCallGetNumAttrs(conv, &n) == TS_OK && n == 10);
  CHECK(TsCallLookupAttr(conv, S("padding"), &padding) == TS_OK);
  CHECK(TsAttributeGetNumItems(padding, &items) == TS_OK && items == 4);
  TsAttributeDestroy(padding);
  TsNamedAttribute entry;
  TsStringRef layout;
  CHECK(TsCallGetAttr(conv, 6, &entry) == TS_OK && ref_is(entry.name, "data_layout"));
  CHECK(TsAttributeGetString(entry.value, &layout) == TS_OK && ref_is(layout, "NCHW"));
  TsAttributeDestroy(entry.value);
  CHECK(TsCallGetAttr(conv, 10, &entry) == TS_ERROR_VALUE);
  CHECK(TsCallLookupAttr(conv, S("stride"), &padding) == TS_ERROR_NOT_FOUND);
  TsExpr arg = NULL;
  TsExprKind kind;
  CHECK(TsCallGetArg(conv, 1, &arg) == TS_OK && TsExprGetKind(arg, &kind) == TS_OK);
  CHECK(kind == TS_EXPR_CONSTANT);
  TsExprDestroy(arg);

  /* Infer types; check the checked types along the chain from the result back. */
  TsModule typed = NULL;
  TsExpr main_fn = NULL, e = NULL;
  CHECK(TsModuleInferTypes(mod, &typed) == TS_OK);
  CHECK(TsModuleLookupFunction(typed, S("main"), &main_fn) == TS_OK);
  CHECK(TsFunctionGetRetType(main_fn, &type) == TS_OK &&
        type_prints(type, "Tensor[(1, 3), float32]"));
  TsTypeDestroy(type);
  CHECK(TsExprGetCheckedType(main_fn, &type) == TS_OK &&
        TsTypeGetKind(type, &(TsTypeKind){0}) == TS_OK);
  CHECK(type_prints(type, "fn (Tensor[(1, 2, 6, 6), float32]) -> Tensor[(1, 3), float32]"));
  TsTypeDestroy(type);
  static const int64_t want[][4] = {{1, 3},       {1, 36},      {1, 4, 3, 3},
                                    {1, 4, 6, 6}, {1, 4, 6, 6}, {1, 4, 6, 6}};
  static const size_t want_ndim[] = {2, 2, 4, 4, 4, 4};
  static const char* want_op[] = {"nn.dense", "nn.batch_flatten", "nn.max_pool2d",
                                  "nn.relu",  "nn.bias_add",      "nn.conv2d"};
  CHECK(TsFunctionGetBody(main_fn, &e) == TS_OK);
  for (int i = 0; i < 6 && e; ++i) {
    TsExpr callee = NULL, next = NULL;
    TsStringRef name = {NULL, 0};
    CHECK(TsCallGetCallee(e, &callee) == TS_OK && TsOpGetName(callee, &name) == TS_OK);
    CHECK(ref_is(name, want_op[i]));
    CHECK(checked_shape(e, want[i], want_ndim[i]));
    CHECK(TsCallGetArg(e, 0, &next) == TS_OK);
    TsExprDestroy(callee), TsExprDestroy(e);
    e = next;
  }
  CHECK(e && TsExprGetKind(e, &kind) == TS_OK && kind == TS_EXPR_VAR);
  TsExprDestroy(e);
  GrowingBuffer typed_text = {NULL, 0};
  CHECK(TsExprPrint(main_fn, 1, append_growing, &typed_text) == TS_OK);
  CHECK(typed_text.text && strstr(typed_text.text, "ty=Tensor[(1, 4, 3, 3), float32]"));
  free(typed_text.text);
  CHECK(TsModuleVerify(typed) == TS_OK);

  /* The same model from text: structurally equal, the same numbers, and both match C. */
  char* text = cnn_text();
  TsModule parsed = NULL;
  CHECK(TsModuleParseWithSourceName(S(text), S("cnn.ts"), &parsed) == TS_OK);
  free(text);
  CHECK(TsModuleStructuralEqual(mod, parsed) == 1);
  CHECK(TsModuleStructuralEqual(typed, parsed) == 0); /* typed @main declares its result */
  GrowingBuffer diff = {NULL, 0};
  CHECK(TsModuleStructuralDiff(mod, parsed, append_growing, &diff) == TS_OK && !diff.text);
  uint64_t h1 = 0, h2 = 1;
  CHECK(TsModuleStructuralHash(mod, &h1) == TS_OK && TsModuleStructuralHash(parsed, &h2) == TS_OK);
  CHECK(h1 == h2);
  float got[UNITS] = {0}, from_text[UNITS] = {1}, expect[UNITS];
  reference(expect);
  CHECK(run_cnn(mod, got) && run_cnn(parsed, from_text));
  CHECK(memcmp(got, from_text, sizeof(got)) == 0);
  for (int i = 0; i < UNITS; ++i) CHECK(fabsf(got[i] - expect[i]) < 1e-4f);
  CHECK(expect[0] != expect[1]); /* the numbers are not trivial */

  /* Round trips through text (with the constants' data) and JSON. */
  GrowingBuffer printed = {NULL, 0}, json = {NULL, 0}, no_meta = {NULL, 0};
  TsModule from_print = NULL, from_json = NULL;
  CHECK(TsModulePrintWithOptions(typed, 1, 1, append_growing, &printed) == TS_OK);
  CHECK(TsModuleParse(printed.text, printed.length, &from_print) == TS_OK);
  CHECK(TsModuleStructuralEqual(typed, from_print) == 1);
  CHECK(TsModuleToJSONWithIndent(mod, -1, append_growing, &json) == TS_OK);
  CHECK(json.text && strchr(json.text, '\n') == NULL);
  CHECK(TsModuleFromJSON(json.text, json.length, &from_json) == TS_OK);
  CHECK(TsModuleStructuralEqual(mod, from_json) == 1);
  CHECK(run_cnn(from_json, from_text) && memcmp(got, from_text, sizeof(got)) == 0);
  CHECK(TsModulePrintWithOptions(mod, 0, 0, append_growing, &no_meta) == TS_OK);
  CHECK(no_meta.text && strlen(no_meta.text) < printed.length);
  GrowingBuffer plain = {NULL, 0}, with_meta = {NULL, 0}, indented = {NULL, 0};
  CHECK(TsModulePrint(mod, append_growing, &plain) == TS_OK); /* = show_meta_data, no types */
  CHECK(TsModulePrintWithOptions(mod, 1, 0, append_growing, &with_meta) == TS_OK);
  CHECK(plain.text && with_meta.text && strcmp(plain.text, with_meta.text) == 0);
  CHECK(TsModuleToJSON(mod, append_growing, &indented) == TS_OK);
  CHECK(indented.text && strchr(indented.text, '\n') != NULL);
  free(printed.text), free(json.text), free(no_meta.text);
  free(plain.text), free(with_meta.text), free(indented.text);

  TsExprDestroy(conv), TsExprDestroy(main_fn);
  TsModule mods[] = {mod, typed, parsed, from_print, from_json};
  for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); ++i) TsModuleDestroy(mods[i]);
}

/* Modules: functions in order, lookup, add/replace/remove, attributes, a call of a global
 * function run by the interpreter. */
static void test_modules(void) {
  TsModule empty = NULL, m1 = NULL, m2 = NULL, m3 = NULL, m4 = NULL, bad = NULL;
  CHECK(TsModuleCreate(&empty) == TS_OK);
  size_t n = 9;
  CHECK(TsModuleGetNumFunctions(empty, &n) == TS_OK && n == 0);

  int64_t shape[1] = {3};
  TsType t = NULL;
  CHECK(TsTypeTensorCreate(shape, 1, kF32, &t) == TS_OK);
  TsExpr a = NULL, x = NULL, gv = NULL, helper = NULL, main_fn = NULL, call = NULL, got = NULL;
  CHECK(TsExprVarCreate(S("a"), t, &a) == TS_OK);
  CHECK(TsExprVarCreate(S("x"), t, &x) == TS_OK);
  TsExpr sum_args[2] = {a, a};
  TsExpr sum = op_call("add", sum_args, 2, NULL, 0);
  CHECK(TsExprFunctionCreate(&a, 1, sum, NULL, NULL, 0, &helper) == TS_OK);
  CHECK(TsExprGlobalVarCreate(S("double"), &gv) == TS_OK);
  CHECK(TsExprCallCreate(gv, &x, 1, NULL, 0, NULL, 0, &call) == TS_OK);
  CHECK(TsExprFunctionCreate(&x, 1, call, NULL, NULL, 0, &main_fn) == TS_OK);
  CHECK(TsModuleWithFunction(empty, S("double"), helper, &m1) == TS_OK);
  CHECK(TsModuleWithFunction(m1, S("main"), main_fn, &m2) == TS_OK);
  CHECK(TsModuleGetNumFunctions(m1, &n) == TS_OK && n == 1); /* m1 is unchanged */
  CHECK(TsModuleGetNumFunctions(m2, &n) == TS_OK && n == 2);
  TsStringRef name;
  CHECK(TsModuleGetFunctionName(m2, 1, &name) == TS_OK && ref_is(name, "main"));
  CHECK(gave(TsModuleGetFunction(m2, 0, &got), &got, helper));
  CHECK(gave(TsModuleLookupFunction(m2, S("main"), &got), &got, main_fn));
  CHECK(TsModuleFindFunction(m2, S("nope"), &got) == TS_OK && got == NULL);
  CHECK(TsModuleLookupFunction(m2, S("nope"), &got) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("nope"));

  float xv[3] = {1, -2, 3};
  int64_t xs[1] = {3};
  TsNDArray input = NULL, out[1] = {NULL};
  const char* names[1] = {"x"};
  CHECK(TsNDArrayFromBuffer(xv, xs, 1, kF32, &input) == TS_OK);
  CHECK(TsModuleRunMain(m2, names, &input, 1, out, 1, &n) == TS_OK && n == 1);
  float* data = NULL;
  CHECK(TsNDArrayGetInfo(out[0], (void**)&data, NULL, NULL, NULL) == TS_OK);
  CHECK(data && data[0] == 2 && data[1] == -4 && data[2] == 6);
  TsNDArrayDestroy(out[0]);

  /* Replacing keeps the position; removing drops the function. */
  CHECK(TsModuleWithFunction(m2, S("double"), main_fn, &m3) == TS_OK);
  CHECK(TsModuleGetFunctionName(m3, 0, &name) == TS_OK && ref_is(name, "double"));
  CHECK(gave(TsModuleGetFunction(m3, 0, &got), &got, main_fn));
  TsModuleDestroy(m3);
  CHECK(TsModuleWithoutFunction(m2, S("double"), &m3) == TS_OK);
  CHECK(TsModuleGetNumFunctions(m3, &n) == TS_OK && n == 1);
  CHECK(TsModuleVerify(m2) == TS_OK);
  CHECK(TsModuleVerify(m3) != TS_OK); /* @main calls the removed @double */

  TsAttribute v = NULL;
  CHECK(TsAttributeStringCreate(S("demo"), &v) == TS_OK);
  CHECK(TsModuleWithAttr(m2, S("name"), v, &m4) == TS_OK);
  TsNamedAttribute entry;
  TsStringRef sv;
  CHECK(TsModuleGetNumAttrs(m2, &n) == TS_OK && n == 0);
  CHECK(TsModuleGetNumAttrs(m4, &n) == TS_OK && n == 1);
  CHECK(TsModuleGetAttr(m4, 0, &entry) == TS_OK && ref_is(entry.name, "name"));
  CHECK(TsAttributeGetString(entry.value, &sv) == TS_OK && ref_is(sv, "demo"));
  TsAttributeDestroy(entry.value);
  CHECK(TsModuleStructuralEqual(m2, m4) == 0);
  GrowingBuffer diff = {NULL, 0};
  CHECK(TsModuleStructuralDiff(m2, m4, append_growing, &diff) == TS_OK && diff.text);
  free(diff.text);

  CHECK(TsModuleGetAttr(m4, 1, &entry) == TS_ERROR_VALUE);
  CHECK(TsModuleGetFunction(m2, 2, &got) == TS_ERROR_VALUE);
  CHECK(TsModuleWithFunction(m2, S("f"), x, &bad) == TS_ERROR_TYPE && bad == NULL);
  CHECK(TsModuleFromExpr(x, &bad) == TS_ERROR_TYPE);
  CHECK(TsModuleGetNumFunctions((TsModule)t, &n) == TS_ERROR_TYPE);
  CHECK(TsModuleCreate(NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsModuleParseWithSourceName(S("def @main( {"), S("broken.ts"), &bad) == TS_ERROR_PARSE);
  CHECK(error_has("broken.ts:1:"));

  TsAttributeDestroy(v);
  TsNDArrayDestroy(input);
  TsExpr exprs[] = {a, x, gv, helper, main_fn, call, sum};
  for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); ++i) TsExprDestroy(exprs[i]);
  TsTypeDestroy(t);
  TsModule mods[] = {empty, m1, m2, m3, m4};
  for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); ++i) TsModuleDestroy(mods[i]);
}

int main(void) {
  test_ops();
  test_cnn();
  test_modules();
  return check_summary();
}
