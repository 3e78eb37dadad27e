/* The whole compiler from C in one flow: a CNN built with the IR API, a C pass in a pipeline
 * under a configured, instrumented context, BYOC partitioning for a C pattern table, build,
 * run and Collage, each result checked against the interpreter on the original module. */
#include <math.h>

#include "ir_test_util.h"

#define NUM_CLASSES 10

/* ---- The model ------------------------------------------------------------------------ */

/* Deterministic pseudo-random floats in [-scale, scale) (an LCG: same weights every run). */
static uint32_t rng_state = 12345u;
static void fill(float* data, size_t n, float scale) {
  for (size_t i = 0; i < n; ++i) {
    rng_state = rng_state * 1664525u + 1013904223u;
    data[i] = scale * ((float)(rng_state >> 8) / 8388608.0f - 1.0f);
  }
}

/* A constant of fresh pseudo-random floats of `shape` (copied from a TsNDArray). */
static TsExpr weight(const int64_t* shape, int32_t ndim, float scale) {
  size_t n = 1;
  for (int32_t i = 0; i < ndim; ++i) n *= (size_t)shape[i];
  float* data = (float*)malloc(n * sizeof(float));
  fill(data, n, scale);
  TsExpr c = constant(data, shape, ndim); /* the constant copies: `data` may go */
  free(data);
  return c;
}

/* conv2d(in, W) with padding 1 and `stride`, + bias, relu: consumes `in`. */
static TsExpr conv_block(TsExpr in, int64_t out_c, int64_t in_c, int64_t stride) {
  int64_t ws[4] = {out_c, in_c, 3, 3}, bs[1] = {out_c};
  TsExpr w = weight(ws, 4, 1.0f / sqrtf((float)(in_c * 9))), b = weight(bs, 1, 0.1f);
  TsNamedAttribute attrs[2] = {{S("padding"), ints2(1, 1)}, {S("strides"), ints2(stride, stride)}};
  TsExpr conv_args[2] = {in, w};
  TsExpr conv = op_call("nn.conv2d", conv_args, 2, attrs, 2);
  TsExpr bias_args[2] = {conv, b};
  TsExpr bias = op_call("nn.bias_add", bias_args, 2, NULL, 0);
  TsExpr relu = op_call("nn.relu", &bias, 1, NULL, 0);
  TsAttributeDestroy(attrs[0].value);
  TsAttributeDestroy(attrs[1].value);
  TsExpr done[5] = {in, w, b, conv, bias}; /* the calls hold what they need */
  for (int i = 0; i < 5; ++i) TsExprDestroy(done[i]);
  return relu;
}

/* x[1,3,8,8] -> conv/bias/relu -> conv(stride 2)/bias/relu -> max_pool -> flatten -> dense,
 * + bias as a plain `add` (as an importer might write it; the C pass canonicalises it) ->
 * softmax. */
static TsModule build_cnn(void) {
  int64_t xs[4] = {1, 3, 8, 8};
  TsType xt = NULL;
  TsExpr x = NULL;
  CHECK(TsTypeTensorCreate(xs, 4, kF32, &xt) == TS_OK);
  CHECK(TsExprVarCreate(S("x"), xt, &x) == TS_OK);
  TsExpr h = conv_block(TsExprRetain(x), 8, 3, 1); /* [1,8,8,8] */
  h = conv_block(h, 8, 8, 2);                      /* [1,8,4,4] */
  TsNamedAttribute pool_attrs[2] = {{S("pool_size"), ints2(2, 2)}, {S("strides"), ints2(2, 2)}};
  TsExpr pool = op_call("nn.max_pool2d", &h, 1, pool_attrs, 2); /* [1,8,2,2] */
  TsExpr flat = op_call("nn.batch_flatten", &pool, 1, NULL, 0); /* [1,32] */
  int64_t ds[2] = {NUM_CLASSES, 32}, bs[1] = {NUM_CLASSES};
  TsExpr dw = weight(ds, 2, 0.5f), db = weight(bs, 1, 0.1f);
  TsExpr dense_args[2] = {flat, dw};
  TsExpr dense = op_call("nn.dense", dense_args, 2, NULL, 0);
  TsExpr add_args[2] = {dense, db};
  TsExpr add = op_call("add", add_args, 2, NULL, 0);
  TsExpr softmax = op_call("nn.softmax", &add, 1, NULL, 0);
  TsExpr fn = NULL;
  TsModule mod = NULL;
  CHECK(TsExprFunctionCreate(&x, 1, softmax, NULL, NULL, 0, &fn) == TS_OK);
  CHECK(TsModuleFromExpr(fn, &mod) == TS_OK);
  TsExpr done[10] = {x, h, pool, flat, dw, db, dense, add, softmax, fn};
  for (int i = 0; i < 10; ++i) TsExprDestroy(done[i]);
  TsAttributeDestroy(pool_attrs[0].value);
  TsAttributeDestroy(pool_attrs[1].value);
  TsTypeDestroy(xt);
  return mod;
}

/* ---- The C pass: add(dense(a, W), b) with a 1-D constant b -> nn.bias_add(dense, b) --------
 * so the dense+bias pattern below sees it: a real rewrite, numerically identical. */

typedef struct {
  int rewrites, functions, saw_config;
  TsPattern pattern; /* add(dense(*, *), constant) */
} Canon;

static TsStatus to_bias_add(TsExpr pre, TsExpr post, TsPatternBindings b, TsExpr* out, void* u) {
  (void)b;
  /* `add` also matches with swapped arguments: take the operands from `post` by kind. */
  TsExpr args[2] = {NULL, NULL};
  TsExprKind kind = TS_EXPR_VAR;
  TsType type = NULL; /* `pre` is typed (require_type): the add's result */
  const int64_t* shape = NULL;
  size_t rank = 0;
  TsStatus st = TsExprGetCheckedType(pre, &type);
  if (st == TS_OK) st = type ? TsTensorTypeGetShape(type, &shape, &rank) : TS_ERROR_TYPE;
  TsTypeDestroy(type);
  if (st == TS_OK) st = TsCallGetArg(post, 0, &args[0]);
  if (st == TS_OK) st = TsCallGetArg(post, 1, &args[1]);
  if (st == TS_OK) st = TsExprGetKind(args[0], &kind);
  if (st == TS_OK && kind == TS_EXPR_CONSTANT) { /* constant first: swap */
    TsExpr t = args[0];
    args[0] = args[1], args[1] = t;
  }
  TsNDArray data = NULL;
  int32_t ndim = 0;
  if (st == TS_OK) st = TsConstantGetData(args[1], &data);
  if (st == TS_OK) st = TsNDArrayGetInfo(data, NULL, NULL, &ndim, NULL);
  /* Only a 1-D bias on a 2-D dense is bias_add(axis=1); anything else stays an add. */
  if (st == TS_OK && ndim == 1 && rank == 2) {
    st = TsExprOpCallCreate(S("nn.bias_add"), args, 2, NULL, 0, NULL, 0, out);
    if (st == TS_OK) ++((Canon*)u)->rewrites;
  }
  TsNDArrayDestroy(data);
  TsExprDestroy(args[0]);
  TsExprDestroy(args[1]);
  return st;
}

/* The function pass body: reads the config set from C on the lent context (to show it
 * arrives), then rewrites the function with the pattern API. */
static TsStatus canonicalize(TsExpr func, TsModule mod, TsPassContext ctx, TsExpr* out, void* u) {
  Canon* c = (Canon*)u;
  ++c->functions;
  GrowingBuffer value = {NULL, 0};
  if (TsPassContextGetConfig(ctx, "testing.immutable_module", append_growing, &value) == TS_OK)
    c->saw_config = value.text && strcmp(value.text, "true") == 0;
  free(value.text);
  TsPatternCallback cb = {c->pattern, to_bias_add, c, NULL, 1};
  return TsPatternRewrite(&cb, 1, func, mod, out);
}

/* ---- The instrument: records pass names before and counts after ------------------------ */

typedef struct {
  char names[32][40];
  int num_names, afters;
} Recorder;

static TsStatus rec_before(TsModule mod, TsPassInfo info, void* u) {
  Recorder* r = (Recorder*)u;
  TsStringRef name = TsPassInfoGetName(info);
  (void)mod;
  if (r->num_names < 32)
    snprintf(r->names[r->num_names++], 40, "%.*s", (int)name.length, name.data);
  return TS_OK;
}
static TsStatus rec_after(TsModule mod, TsPassInfo info, void* u) {
  (void)mod, (void)info;
  ++((Recorder*)u)->afters;
  return TS_OK;
}

/* The first index >= `from` where `r` recorded `name`, or -1 (also when `from` is -1, so
 * lookups chain: each starts where the previous one was found). */
static int seen_at(const Recorder* r, const char* name, int from) {
  for (int i = from < 0 ? r->num_names : from; i < r->num_names; ++i)
    if (strcmp(r->names[i], name) == 0) return i;
  return -1;
}

/* ---- The pattern table's predicate: float32 roots only (as a real library would) ------- */

static TsStatus f32_root(TsExpr root, int* accepted, void* u) {
  TsType t = NULL;
  TsDType dt = {0, 0, 0};
  ++*(int*)u;
  *accepted = TsExprGetCheckedType(root, &t) == TS_OK && t &&
              TsTensorTypeGetDType(t, &dt) == TS_OK && dt.code == 2 && dt.bits == 32;
  TsTypeDestroy(t);
  return TS_OK;
}

/* How many times `needle` occurs in the module's text. */
static int count_in_text(TsModule mod, const char* needle) {
  GrowingBuffer text = {NULL, 0};
  int n = 0;
  if (mod && TsModulePrintWithOptions(mod, 0, 0, append_growing, &text) == TS_OK && text.text)
    for (const char* at = text.text; (at = strstr(at, needle)) != NULL; ++at) ++n;
  free(text.text);
  return mod ? n : -1;
}

/* ---- Running and comparing ------------------------------------------------------------- */

static float input_data[3 * 8 * 8];

/* Runs `exe` (or, with `exe` NULL, the interpreter on `mod`) on the fixed input; copies the
 * [1,10] output to `out`. */
static int run(TsModule mod, TsExecutable exe, float out[NUM_CLASSES]) {
  int64_t xs[4] = {1, 3, 8, 8};
  const char* names[1] = {"x"};
  TsNDArray in = NULL, result = NULL;
  size_t n = 0;
  const int64_t* shape = NULL;
  int32_t ndim = 0;
  float* data = NULL;
  int ok = TsNDArrayFromBuffer(input_data, xs, 4, kF32, &in) == TS_OK;
  ok = ok && (exe ? TsExecutableRun(exe, names, &in, 1, &result, 1, &n)
                  : TsModuleRunMain(mod, names, &in, 1, &result, 1, &n)) == TS_OK;
  ok = ok && n == 1 && TsNDArrayGetInfo(result, (void**)&data, &shape, &ndim, NULL) == TS_OK &&
       ndim == 2 && shape[0] == 1 && shape[1] == NUM_CLASSES;
  if (ok) memcpy(out, data, NUM_CLASSES * sizeof(float));
  if (!ok) fprintf(stderr, "run failed: %s\n", TsGetLastError());
  TsNDArrayDestroy(result);
  TsNDArrayDestroy(in);
  return ok;
}

static int close_to(const float* want, const float* got) {
  for (int i = 0; i < NUM_CLASSES; ++i)
    if (!(fabsf(want[i] - got[i]) <= 1e-4f)) {
      fprintf(stderr, "output %d: want %g, got %g\n", i, want[i], got[i]);
      return 0;
    }
  return 1;
}

/* A TsStringCallback counting in *user the kernel symbols of the C backend's partitions. */
static void note_cpipe_kernel(const char* data, size_t length, void* user) {
  if (length > 6 && memcmp(data, "cpipe_", 6) == 0) ++*(int*)user;
}

/* Builds `mod` for the `n` targets of `texts` under `ctx`, runs it and compares with `want`. */
static TsExecutable build_and_check(TsModule mod, const char* const* texts, size_t n,
                                    TsPassContext ctx, const float* want) {
  TsTarget targets[2] = {NULL, NULL};
  TsExecutable exe = NULL;
  float got[NUM_CLASSES];
  for (size_t i = 0; i < n; ++i) CHECK(TsTargetParse(texts[i], &targets[i]) == TS_OK);
  CHECK(TsBuild(mod, targets, n, ctx, &exe) == TS_OK);
  CHECK(exe && run(NULL, exe, got) && close_to(want, got));
  for (size_t i = 0; i < n; ++i) TsTargetDestroy(targets[i]);
  return exe;
}

int main(void) {
  fill(input_data, sizeof input_data / sizeof input_data[0], 1.0f);

  /* 1. The model, and the reference: the interpreter on the module as built. */
  TsModule original = build_cnn();
  float want[NUM_CLASSES], got[NUM_CLASSES];
  CHECK(TsModuleVerify(original) == TS_OK); /* well formed, and its types infer */
  CHECK(run(original, NULL, want));
  float sum = 0;
  for (int i = 0; i < NUM_CLASSES; ++i) sum += want[i];
  CHECK(fabsf(sum - 1.0f) < 1e-5f); /* a softmax: the reference itself is sane */

  /* 2. The C pass between registered ones in a Sequential, under a context whose config is
   *    set from C and whose instrument records what ran. */
  Canon canon = {0, 0, 0, NULL};
  TsPattern add_op = NULL, dense_op = NULL, any1 = NULL, any2 = NULL, cst = NULL;
  TsPattern dense = NULL, add = NULL;
  CHECK(TsPatternIsOp("add", &add_op) == TS_OK && TsPatternIsOp("nn.dense", &dense_op) == TS_OK);
  CHECK(TsPatternWildcard(&any1) == TS_OK && TsPatternWildcard(&any2) == TS_OK);
  CHECK(TsPatternIsConstant(&cst) == TS_OK);
  TsPattern dense_args[2] = {any1, any2};
  CHECK(TsPatternCall(dense_op, dense_args, 2, &dense) == TS_OK);
  TsPattern add_args[2] = {dense, cst};
  CHECK(TsPatternCall(add_op, add_args, 2, &add) == TS_OK);
  canon.pattern = add;

  const char* infer[1] = {"InferType"};
  TsPass passes[3] = {NULL, NULL, NULL}, seq = NULL;
  CHECK(TsPassCreateFromRegistry("InferType", NULL, &passes[0]) == TS_OK);
  CHECK(TsFunctionPassCreate("CanonicalizeDenseBias", 0, infer, 1, 0, canonicalize, &canon, NULL,
                             &passes[1]) == TS_OK);
  CHECK(TsPassCreateFromRegistry("FoldConstant", NULL, &passes[2]) == TS_OK);
  CHECK(TsSequentialCreate(passes, 3, "c_pipeline", 0, NULL, 0, &seq) == TS_OK);

  Recorder rec;
  memset(&rec, 0, sizeof rec);
  TsPassInstrumentCallbacks hooks = {NULL, NULL, NULL, rec_before, rec_after, NULL};
  TsPassInstrument inst = NULL;
  TsPassContext ctx = NULL;
  CHECK(TsPassInstrumentCreate("Recorder", &hooks, &rec, NULL, &inst) == TS_OK);
  CHECK(TsPassContextCreateWithInstruments(3, NULL, 0, NULL, 0, NULL, &inst, 1, &ctx) == TS_OK);
  /* A pass that edits its input in place would now fail: the C pass must not. */
  CHECK(TsPassContextSetConfig(ctx, "testing.immutable_module", "true") == TS_OK);

  TsModule optimized = NULL;
  CHECK(TsPassRun(seq, original, ctx, &optimized) == TS_OK);
  CHECK(canon.functions == 1 && canon.rewrites == 1 && canon.saw_config == 1);
  /* The add became the third bias_add; the input module is untouched (IR is immutable). */
  CHECK(count_in_text(optimized, " add(") == 0 && count_in_text(optimized, "nn.bias_add(") == 3);
  CHECK(count_in_text(original, " add(") == 1 && count_in_text(original, "nn.bias_add(") == 2);
  /* The instrument saw the Sequential, then InferType, the C pass, FoldConstant in order
   * (the C pass's required InferType may run again in between). */
  int at_seq = seen_at(&rec, "c_pipeline", 0), at_infer = seen_at(&rec, "InferType", at_seq);
  int at_canon = seen_at(&rec, "CanonicalizeDenseBias", at_infer);
  int at_fold = seen_at(&rec, "FoldConstant", at_canon);
  CHECK(at_seq == 0 && at_infer > at_seq && at_canon > at_infer && at_fold > at_canon);
  CHECK(rec.afters == rec.num_names && rec.num_names >= 4);
  printf("passes run:");
  for (int i = 0; i < rec.num_names; ++i) printf(" %s", rec.names[i]);
  printf("\n");
  CHECK(optimized && run(optimized, NULL, got) && close_to(want, got));

  /* 3. A pattern table from C registered as an external backend the native code generator
   *    compiles, and the module partitioned for it. */
  int predicate_calls = 0;
  TsPattern conv_op = NULL, bias_op = NULL, relu_op = NULL, any3 = NULL, any4 = NULL;
  TsPattern conv = NULL, conv_bias = NULL, conv_relu = NULL, dense_bias = NULL, cst2 = NULL;
  CHECK(TsPatternIsOp("nn.conv2d", &conv_op) == TS_OK &&
        TsPatternIsOp("nn.bias_add", &bias_op) == TS_OK);
  CHECK(TsPatternIsOp("nn.relu", &relu_op) == TS_OK);
  CHECK(TsPatternWildcard(&any3) == TS_OK && TsPatternWildcard(&any4) == TS_OK);
  /* One pattern node matches one expression: the weight and the bias need a node each. */
  CHECK(TsPatternIsConstant(&cst2) == TS_OK);
  TsPattern conv_args[2] = {any3, cst};
  CHECK(TsPatternCall(conv_op, conv_args, 2, &conv) == TS_OK);
  TsPattern cb_args[2] = {conv, cst2}, db_args[2] = {dense, any4};
  CHECK(TsPatternCall(bias_op, cb_args, 2, &conv_bias) == TS_OK);
  CHECK(TsPatternCall(relu_op, &conv_bias, 1, &conv_relu) == TS_OK);
  CHECK(TsPatternCall(bias_op, db_args, 2, &dense_bias) == TS_OK);
  /* Longer patterns first: dense+bias before a bare dense. */
  TsPatternTableEntry entries[3] = {
      {"conv2d_bias_relu", conv_relu, f32_root, &predicate_calls, NULL},
      {"dense_bias", dense_bias, NULL, NULL, NULL},
      {"dense", dense, NULL, NULL, NULL}};
  TsPatternTable table = NULL;
  CHECK(TsPatternTableCreate(entries, 3, &table) == TS_OK);
  CHECK(TsExternalBackendRegister("cpipe", table, NULL, NULL, NULL) == TS_OK);

  TsModule part = NULL;
  CHECK(TsModulePartitionFor(optimized, "cpipe", &part) == TS_OK);
  size_t num_funcs = 0, num_cpipe = 0;
  CHECK(part && TsModuleGetNumFunctions(part, &num_funcs) == TS_OK);
  for (size_t i = 0; part && i < num_funcs; ++i) {
    TsExpr fn = NULL;
    TsAttribute compiler = NULL;
    TsStringRef value = {NULL, 0};
    CHECK(TsModuleGetFunction(part, i, &fn) == TS_OK);
    if (TsBaseFuncLookupAttr(fn, S("Compiler"), &compiler) == TS_OK &&
        TsAttributeGetString(compiler, &value) == TS_OK && ref_is(value, "cpipe"))
      ++num_cpipe;
    TsAttributeDestroy(compiler);
    TsExprDestroy(fn);
  }
  /* Both conv blocks merge into one region; the dense+bias is another (pooling between). */
  CHECK(num_cpipe == 2 && predicate_calls >= 2);
  CHECK(part && module_has(part, "Composite=\"cpipe.conv2d_bias_relu\"") &&
        module_has(part, "Composite=\"cpipe.dense_bias\""));

  /* 4. Build and run against the interpreter on the original: the partitioned module with
   *    the backend as a target of its own (as with dnnl), and the unpartitioned one with
   *    native's -compiler option, which partitions for it while building. Either way the
   *    backend's two partitions must be among the kernels that ran. */
  const char* byoc_targets[2] = {"native -num_threads=1", "cpipe"};
  const char* offload_target[1] = {"native -num_threads=1 -compiler=cpipe"};
  for (int way = 0; way < 2; ++way) {
    TsExecutable exe = way == 0 ? build_and_check(part, byoc_targets, 2, NULL, want)
                                : build_and_check(optimized, offload_target, 1, NULL, want);
    int cpipe_kernels = 0;
    CHECK(exe && TsExecutableGetKernels(exe, note_cpipe_kernel, &cpipe_kernels) == TS_OK);
    CHECK(cpipe_kernels == 2);
    TsExecutableDestroy(exe);
  }

  /* 5. Collage: the module the pipeline gave (unpartitioned: Collage chooses the partitions
   *    itself), two targets (oneDNN when this build has it, else the C backend), and
   *    collage.enable in the context's config JSON this time. */
  GrowingBuffer listed = {NULL, 0};
  CHECK(TsListTargets(append_growing, &listed) == TS_OK);
  int have_dnnl = listed.text && strstr(listed.text, "\"dnnl\"") != NULL;
  free(listed.text);
  const char* collage_targets[2] = {"native -num_threads=1",
                                    have_dnnl ? "dnnl" : "native -num_threads=1 -compiler=cpipe"};
  TsPassContext collage_ctx = NULL;
  /* No cost database: the test measures afresh and writes nothing outside the build. */
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0,
                            "{\"collage.enable\": true, \"collage.cost_db\": \"\"}",
                            &collage_ctx) == TS_OK);
  TsExecutable exe = build_and_check(optimized, collage_targets, 2, collage_ctx, want);
  GrowingBuffer report = {NULL, 0}, text = {NULL, 0};
  CHECK(exe && TsExecutableGetReport(exe, append_growing, &report) == TS_OK);
  CHECK(report.length > 0 && strstr(report.text, "\"backend\"") != NULL);
  CHECK(report.text &&
        TsCollageReportRender(report.text, "text", -1, append_growing, &text) == TS_OK);
  CHECK(text.text && strncmp(text.text, "Collage partition", 17) == 0);
  if (text.text) printf("%.*s\n", (int)strcspn(text.text, "\n"), text.text);
  free(report.text);
  free(text.text);
  TsExecutableDestroy(exe);

  /* Everything the test made is released (the backend registry keeps its copy). */
  TsPassContextDestroy(collage_ctx);
  TsModuleDestroy(part);
  TsPatternTableDestroy(table);
  TsPattern pats[] = {add_op, dense_op,  any1,      any2,       cst,  dense,
                      add,    conv_op,   bias_op,   relu_op,    any3, any4,
                      conv,   conv_bias, conv_relu, dense_bias, cst2};
  for (size_t i = 0; i < sizeof pats / sizeof pats[0]; ++i) TsPatternDestroy(pats[i]);
  TsModuleDestroy(optimized);
  TsPassContextDestroy(ctx);
  TsPassInstrumentDestroy(inst);
  TsPassDestroy(seq);
  for (int i = 0; i < 3; ++i) TsPassDestroy(passes[i]);
  TsModuleDestroy(original);
  return check_summary();
}
