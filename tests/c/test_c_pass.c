/* The pass C API: a small CNN rewritten by passes written in C inside a Sequential with
 * registered passes, under a context configured from C with an instrument recording pass
 * names; should_run, required and disabled passes; errors from callbacks and configs; the
 * registry; built-in instruments. The result is checked against the interpreter. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir_test_util.h"

static const char* kCnn =
    "def @main(%x: Tensor[(1, 2, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32],\n"
    "          %b: Tensor[(4), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1]);\n"
    "  %1 = nn.bias_add(%0, %b);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = multiply(%2, 2f);\n"
    "  nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2])\n"
    "}\n"
    "primfn @unused(%A: Buffer[(4), float32]) -> (%B: Buffer[(4), float32]) {\n"
    "  for %i: int32 in 0 +: 4 serial {\n"
    "    %B[%i] = %A[%i] + 1f;\n"
    "  }\n"
    "}\n";

static int destroyed = 0; /* user data released by the library */
static void count_destroy(void* user) {
  (void)user;
  ++destroyed;
}

/* ---- The instrument: records the names of the passes it sees ------------------------- */

typedef struct {
  char names[32][32];
  int num_names, enters, exits, afters, failed;
  const char* skip;    /* should_run says 0 for this pass */
  const char* fail_on; /* run_before_pass fails for this pass */
  int fail_enter;      /* enter_pass_context fails */
} Recorder;

static void name_of(TsPassInfo info, char out[32]) {
  TsStringRef name = TsPassInfoGetName(info);
  size_t n = name.length < 31 ? name.length : 31;
  memcpy(out, name.data, n);
  out[n] = '\0';
}
static TsStatus rec_enter(void* user) {
  Recorder* r = (Recorder*)user;
  if (r->fail_enter) return fail_with(TS_ERROR_UNSUPPORTED, "enter refused");
  ++r->enters;
  return TS_OK;
}
static TsStatus rec_exit(void* user) {
  ++((Recorder*)user)->exits;
  return TS_OK;
}
static TsStatus rec_should_run(TsModule mod, TsPassInfo info, int* run, void* user) {
  Recorder* r = (Recorder*)user;
  (void)mod;
  if (r->skip && ref_is(TsPassInfoGetName(info), r->skip)) *run = 0;
  return TS_OK;
}
static TsStatus rec_before(TsModule mod, TsPassInfo info, void* user) {
  Recorder* r = (Recorder*)user;
  if (!mod) return TS_ERROR_INTERNAL;
  if (r->fail_on && ref_is(TsPassInfoGetName(info), r->fail_on))
    return fail_with(TS_ERROR_VALUE, "instrument says no");
  if (r->num_names < 32) name_of(info, r->names[r->num_names++]);
  return TS_OK;
}
static TsStatus rec_after(TsModule mod, TsPassInfo info, void* user) {
  (void)mod, (void)info;
  ++((Recorder*)user)->afters;
  return TS_OK;
}
static TsStatus rec_failed(TsModule mod, TsPassInfo info, void* user) {
  (void)mod, (void)info;
  ++((Recorder*)user)->failed;
  return TS_OK;
}
static const TsPassInstrumentCallbacks kRecorderHooks = {rec_enter,  rec_exit,  rec_should_run,
                                                         rec_before, rec_after, rec_failed};

static TsPassInstrument make_recorder(Recorder* r) {
  TsPassInstrument inst = NULL;
  CHECK(TsPassInstrumentCreate("Recorder", &kRecorderHooks, r, count_destroy, &inst) == TS_OK);
  return inst;
}

/* Whether the recorder saw exactly the `n` names of `want`, in order. */
static int saw(const Recorder* r, const char* const* want, int n) {
  if (r->num_names != n) return 0;
  for (int i = 0; i < n; ++i)
    if (strcmp(r->names[i], want[i]) != 0) return 0;
  return 1;
}

/* ---- Passes written in C --------------------------------------------------------------- */

typedef struct {
  int calls, saw_config, saw_current;
  TsStatus fail; /* returned (with a message) instead of rewriting when not TS_OK */
  int silent;    /* fail without setting a message */
} PassState;

/* Module pass: rewrites `multiply(X, 2f)` into `add(X, X)` in the module's text and checks
 * the lent context carries the config set from C and is the current one. */
static TsStatus strength_reduce(TsModule mod, TsPassContext ctx, TsModule* out, void* user) {
  PassState* s = (PassState*)user;
  ++s->calls;
  if (s->fail != TS_OK) return s->silent ? s->fail : fail_with(s->fail, "no luck today");
  GrowingBuffer config = {NULL, 0};
  if (TsPassContextGetConfig(ctx, "testing.immutable_module", append_growing, &config) == TS_OK)
    s->saw_config = config.text && strcmp(config.text, "true") == 0;
  free(config.text);
  TsPassContext current = NULL;
  if (TsPassContextGetCurrent(&current) == TS_OK) s->saw_current = TsPassContextEqual(current, ctx);
  TsPassContextDestroy(current);

  GrowingBuffer text = {NULL, 0};
  TsStatus status = TsModulePrint(mod, append_growing, &text);
  if (status != TS_OK) return status;
  char* mul = strstr(text.text, "multiply(");
  char* end = mul ? strstr(mul, ", 2f)") : NULL;
  if (!mul || !end) { /* nothing to rewrite: the same module */
    free(text.text);
    *out = TsModuleRetain(mod);
    return TS_OK;
  }
  const char* arg = mul + strlen("multiply(");
  int arg_len = (int)(end - arg);
  size_t size = text.length + (size_t)arg_len + 16;
  char* rewritten = (char*)malloc(size);
  snprintf(rewritten, size, "%.*sadd(%.*s, %.*s)%s", (int)(mul - text.text), text.text, arg_len,
           arg, arg_len, arg, end + strlen(", 2f)"));
  status = TsModuleParse(rewritten, (size_t)-1, out);
  free(rewritten);
  free(text.text);
  return status;
}

static TsExpr stashed_prim_func = NULL; /* a PrimFunc kept by drop_prim_funcs */

/* Function pass: counts the graph functions it sees and returns each unchanged (or the
 * stashed PrimFunc, a wrong kind, when `fail` says so). */
static TsStatus count_functions(TsExpr func, TsModule mod, TsPassContext ctx, TsExpr* out,
                                void* user) {
  PassState* s = (PassState*)user;
  (void)mod, (void)ctx;
  ++s->calls;
  if (s->fail == TS_ERROR_TYPE) {
    *out = stashed_prim_func; /* the library owns it now */
    stashed_prim_func = NULL;
    return TS_OK;
  }
  if (s->fail == TS_ERROR_VALUE) return TS_OK; /* no function */
  *out = TsExprRetain(func);
  return TS_OK;
}

/* PrimFunc pass: removes every PrimFunc (returns none), keeping one retained. */
static TsStatus drop_prim_funcs(TsExpr func, TsModule mod, TsPassContext ctx, TsExpr* out,
                                void* user) {
  (void)mod, (void)ctx, (void)out;
  ++((PassState*)user)->calls;
  if (!stashed_prim_func) stashed_prim_func = TsExprRetain(func);
  return TS_OK;
}

/* ---- Running the CNN ----------------------------------------------------------------- */

/* Runs @main of `mod` on fixed inputs; writes the (1, 4, 3, 3) output into `out`. */
static int run_cnn(TsModule mod, float out[36]) {
  static float x[72], w[72], b[4] = {0.1f, -0.2f, 0.3f, -0.4f};
  for (int i = 0; i < 72; ++i) {
    x[i] = (float)((i * 7) % 11 - 5) / 4.0f;
    w[i] = (float)((i * 5) % 9 - 4) / 8.0f;
  }
  int64_t xs[4] = {1, 2, 6, 6}, ws[4] = {4, 2, 3, 3}, bs[1] = {4};
  TsNDArray in[3] = {NULL, NULL, NULL}, result[1] = {NULL};
  const char* names[3] = {"x", "w", "b"};
  TsNDArrayFromBuffer(x, xs, 4, kF32, &in[0]);
  TsNDArrayFromBuffer(w, ws, 4, kF32, &in[1]);
  TsNDArrayFromBuffer(b, bs, 1, kF32, &in[2]);
  size_t n = 0;
  int ok = TsModuleRunMain(mod, names, in, 3, result, 1, &n) == TS_OK && n == 1;
  if (ok) {
    float* data = NULL;
    const int64_t* shape = NULL;
    int32_t ndim = 0;
    ok = TsNDArrayGetInfo(result[0], (void**)&data, &shape, &ndim, NULL) == TS_OK && ndim == 4 &&
         shape[1] == 4 && shape[2] == 3 && shape[3] == 3;
    if (ok) memcpy(out, data, 36 * sizeof(float));
    TsNDArrayDestroy(result[0]);
  }
  for (int i = 0; i < 3; ++i) TsNDArrayDestroy(in[i]);
  return ok;
}

/* ---- Tests ------------------------------------------------------------------------------- */

static void test_custom_passes_in_sequential(void) {
  TsModule mod = NULL, result = NULL;
  CHECK(TsModuleParse(kCnn, (size_t)-1, &mod) == TS_OK);
  if (!mod) return;
  CHECK(TsModuleVerify(mod) == TS_OK);

  PassState reduce = {0, 0, 0, TS_OK}, count = {0, 0, 0, TS_OK}, drop = {0, 0, 0, TS_OK};
  const char* needs_types[] = {"InferType"};
  TsPass passes[5] = {NULL, NULL, NULL, NULL, NULL}, seq = NULL;
  CHECK(TsPassCreateFromRegistry("InferType", NULL, &passes[0]) == TS_OK);
  CHECK(TsModulePassCreate("StrengthReduce", 1, needs_types, 1, strength_reduce, &reduce,
                           count_destroy, &passes[1]) == TS_OK);
  CHECK(TsPassCreateFromRegistry("FoldConstant", NULL, &passes[2]) == TS_OK);
  CHECK(TsFunctionPassCreate("CountFunctions", 2, NULL, 0, 0, count_functions, &count,
                             count_destroy, &passes[3]) == TS_OK);
  CHECK(TsPrimFuncPassCreate("DropPrimFuncs", 0, NULL, 0, drop_prim_funcs, &drop, count_destroy,
                             &passes[4]) == TS_OK);
  CHECK(TsSequentialCreate(passes, 5, "cnn", 0, NULL, 0, &seq) == TS_OK);

  /* Inspection. */
  CHECK(TsPassGetKind(passes[1]) == TS_PASS_MODULE && TsPassGetKind(passes[3]) == TS_PASS_FUNCTION);
  CHECK(TsPassGetKind(passes[4]) == TS_PASS_PRIM_FUNC && TsPassGetKind(seq) == TS_PASS_SEQUENTIAL);
  CHECK(TsPassGetNumPasses(seq) == 5 && TsPassGetNumPasses(passes[1]) == 0);
  TsPass child = NULL;
  CHECK(TsPassGetPass(seq, 3, &child) == TS_OK && TsPassGetKind(child) == TS_PASS_FUNCTION);
  CHECK(TsPassGetPass(seq, 5, &child) == TS_ERROR_VALUE);
  TsPassDestroy(child);
  GrowingBuffer printed = {NULL, 0}, described = {NULL, 0};
  CHECK(TsPassPrint(seq, append_growing, &printed) == TS_OK);
  CHECK(printed.text && strcmp(printed.text,
                               "Sequential{name=cnn}(InferType,StrengthReduce,"
                               "FoldConstant,CountFunctions,DropPrimFuncs)") == 0);
  CHECK(TsPassDescribe(passes[3], append_growing, &described) == TS_OK);
  CHECK(described.text &&
        strcmp(described.text, "Run Function pass: CountFunctions at the optimization level 2") ==
            0);
  free(printed.text);
  free(described.text);
  TsPassInfo info = NULL;
  TsStringRef req = {NULL, 0};
  CHECK(TsPassGetInfo(passes[1], &info) == TS_OK);
  CHECK(ref_is(TsPassInfoGetName(info), "StrengthReduce") && TsPassInfoGetOptLevel(info) == 1);
  CHECK(TsPassInfoGetNumRequired(info) == 1 && TsPassInfoGetRequired(info, 0, &req) == TS_OK &&
        ref_is(req, "InferType"));
  CHECK(TsPassInfoGetRequired(info, 1, &req) == TS_ERROR_VALUE);
  GrowingBuffer info_text = {NULL, 0};
  CHECK(TsPassInfoPrint(info, append_growing, &info_text) == TS_OK);
  CHECK(info_text.text &&
        strcmp(info_text.text,
               "The meta data of the pass - pass name: "
               "StrengthReduce, opt_level: 1, required passes: [InferType]") == 0);
  free(info_text.text);

  /* Run under a context configured from C, with the recording instrument. */
  Recorder rec;
  memset(&rec, 0, sizeof rec);
  TsPassInstrument inst = make_recorder(&rec);
  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreateWithInstruments(3, NULL, 0, NULL, 0, NULL, &inst, 1, &ctx) == TS_OK);
  CHECK(TsPassContextSetConfig(ctx, "testing.immutable_module", "true") == TS_OK);
  CHECK(TsPassContextSetConfig(ctx, "collage.search", "\"dp+refine\"") == TS_OK);
  int enabled = 0;
  CHECK(TsPassContextPassEnabled(ctx, info, &enabled) == TS_OK && enabled == 1);
  CHECK(TsPassRun(seq, mod, ctx, &result) == TS_OK);
  const char* want[] = {"cnn",          "InferType",      "InferType",    "StrengthReduce",
                        "FoldConstant", "CountFunctions", "DropPrimFuncs"};
  CHECK(saw(&rec, want, 7));
  CHECK(rec.enters == 1 && rec.exits == 1 && rec.afters == 7 && rec.failed == 0);
  CHECK(reduce.calls == 1 && reduce.saw_config && reduce.saw_current);
  CHECK(count.calls == 1 && drop.calls == 1);

  /* The rewrite happened, the PrimFunc is gone, and the numbers are the original's. */
  float before[36], after[36];
  CHECK(result && module_has(result, "add(") && !module_has(result, "multiply"));
  CHECK(result && !module_has(result, "primfn") && module_has(mod, "primfn"));
  CHECK(result && TsModuleVerify(result) == TS_OK);
  CHECK(run_cnn(mod, before) && result && run_cnn(result, after));
  int same = 1, positive = 0;
  for (int i = 0; i < 36; ++i) {
    same &= fabsf(before[i] - after[i]) <= 1e-5f * (1 + fabsf(before[i]));
    positive += after[i] > 0;
  }
  CHECK(same && positive > 0);

  /* should_run: the instrument skips FoldConstant unless the context requires it. */
  TsModule again = NULL;
  rec.num_names = 0;
  rec.skip = "FoldConstant";
  CHECK(TsPassRun(seq, mod, ctx, &again) == TS_OK);
  const char* skipped[] = {
      "cnn", "InferType", "InferType", "StrengthReduce", "CountFunctions", "DropPrimFuncs"};
  CHECK(saw(&rec, skipped, 6));
  TsModuleDestroy(again);
  const char *required[] = {"FoldConstant"}, *disabled[] = {"CountFunctions", "DropPrimFuncs"};
  TsPassContext ctx2 = NULL;
  CHECK(TsPassContextCreateWithInstruments(0, required, 1, disabled, 2, NULL, &inst, 1, &ctx2) ==
        TS_OK);
  rec.num_names = 0;
  CHECK(TsPassRun(seq, mod, ctx2, &again) == TS_OK);
  /* opt level 0: StrengthReduce (1) is off; FoldConstant runs though should_run says no. */
  const char* gated[] = {"cnn", "InferType", "FoldConstant"};
  CHECK(saw(&rec, gated, 3));
  CHECK(TsPassContextPassEnabled(ctx2, info, &enabled) == TS_OK && enabled == 0);
  CHECK(count.calls == 2 && drop.calls == 2);
  TsModuleDestroy(again);

  /* A failing callback: its status and message come back, run_after_pass_failed ran. */
  reduce.fail = TS_ERROR_UNSUPPORTED;
  rec.skip = NULL;
  CHECK(TsPassRun(seq, mod, ctx, &again) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("no luck today") && error_has("StrengthReduce"));
  CHECK(rec.failed == 2); /* the pass and the Sequential around it */
  /* Failing without a message of its own: not the last, unrelated message. */
  reduce.silent = 1;
  CHECK(TsPassRun(seq, mod, ctx, &again) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("failed without a message") && !error_has("no luck today"));
  reduce.silent = 0;
  reduce.fail = TS_OK;
  /* A function pass returning nothing, or not a function. */
  count.fail = TS_ERROR_VALUE;
  CHECK(TsPassRun(passes[3], mod, NULL, &again) == TS_ERROR_VALUE);
  CHECK(error_has("CountFunctions"));
  CHECK(stashed_prim_func != NULL);
  count.fail = TS_ERROR_TYPE;
  CHECK(TsPassRun(passes[3], mod, NULL, &again) == TS_ERROR_TYPE);
  CHECK(error_has("graph function"));
  count.fail = TS_OK;
  /* An instrument hook failing. */
  rec.fail_on = "FoldConstant";
  CHECK(TsPassRun(seq, mod, ctx, &again) == TS_ERROR_VALUE);
  CHECK(error_has("instrument says no") && error_has("Recorder"));
  rec.fail_on = NULL;

  TsPassInfoDestroy(info);
  TsPassContextDestroy(ctx2);
  TsPassContextDestroy(ctx);
  TsPassInstrumentDestroy(inst);
  for (int i = 0; i < 5; ++i) TsPassDestroy(passes[i]);
  CHECK(destroyed == 1); /* the instrument; the Sequential still holds the passes */
  TsPassDestroy(seq);
  CHECK(destroyed == 4); /* three passes and the instrument */
  TsModuleDestroy(result);
  TsModuleDestroy(mod);
}

static void test_contexts_and_config(void) {
  TsPassContext current = NULL, ctx = NULL, other = NULL;
  CHECK(TsPassContextGetCurrent(&current) == TS_OK);
  CHECK(TsPassContextGetOptLevel(current) == 2 && TsPassContextGetNumInstruments(current) == 0);
  const char *required[] = {"A"}, *disabled[] = {"B", "C"};
  CHECK(TsPassContextCreate(3, required, 1, disabled, 2, "{\"collage.measure_repeat\": 7}", &ctx) ==
        TS_OK);
  TsStringRef name = {NULL, 0};
  CHECK(TsPassContextGetOptLevel(ctx) == 3 && TsPassContextGetNumRequiredPasses(ctx) == 1);
  CHECK(TsPassContextGetRequiredPass(ctx, 0, &name) == TS_OK && ref_is(name, "A"));
  CHECK(TsPassContextGetNumDisabledPasses(ctx) == 2);
  CHECK(TsPassContextGetDisabledPass(ctx, 1, &name) == TS_OK && ref_is(name, "C"));
  CHECK(TsPassContextGetDisabledPass(ctx, 2, &name) == TS_ERROR_VALUE);

  /* Config: set from C, read back (set values and defaults), and bad keys and values. */
  CHECK(TsPassContextSetConfig(ctx, "collage.launch_penalty_us", "3") == TS_OK); /* int -> float */
  CHECK(TsPassContextSetConfig(ctx, "collage.byoc_fusion_style", "[\"dnnl.NoFusion\"]") == TS_OK);
  GrowingBuffer v = {NULL, 0};
  CHECK(TsPassContextGetConfig(ctx, "collage.launch_penalty_us", append_growing, &v) == TS_OK);
  CHECK(v.text && strcmp(v.text, "3.0") == 0);
  v.length = 0;
  CHECK(TsPassContextGetConfig(ctx, "collage.search", append_growing, &v) == TS_OK);
  CHECK(v.text && strcmp(v.text, "\"dp\"") == 0); /* the default */
  v.length = 0;
  CHECK(TsPassContextGetConfigs(ctx, append_growing, &v) == TS_OK);
  CHECK(v.text && strcmp(v.text,
                         "{\"collage.byoc_fusion_style\":[\"dnnl.NoFusion\"],"
                         "\"collage.launch_penalty_us\":3.0,"
                         "\"collage.measure_repeat\":7}") == 0);
  free(v.text);
  CHECK(TsPassContextSetConfig(ctx, "no.such.key", "1") == TS_ERROR_NOT_FOUND);
  CHECK(error_has("no.such.key") && error_has("collage.enable"));
  CHECK(TsPassContextSetConfig(ctx, "collage.enable", "5") == TS_ERROR_TYPE);
  CHECK(error_has("expects a bool value, got int"));
  CHECK(TsPassContextSetConfig(ctx, "collage.measure_repeat", "0") == TS_ERROR_VALUE);
  CHECK(error_has(">= 1"));
  CHECK(TsPassContextSetConfig(ctx, "collage.enable", "null") == TS_ERROR_VALUE);
  CHECK(TsPassContextSetConfig(ctx, "collage.enable", "{\"a\": 1}") == TS_ERROR_TYPE);
  CHECK(TsPassContextSetConfig(ctx, "collage.enable", "tru") == TS_ERROR_PARSE);
  CHECK(TsPassContextGetConfig(ctx, "no.such.key", append_growing, &v) == TS_ERROR_NOT_FOUND);
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"collage.enable\": null}", &other) ==
        TS_ERROR_VALUE);
  CHECK(TsPassContextCreate(5, NULL, 0, NULL, 0, NULL, &other) == TS_ERROR_VALUE && !other);
  GrowingBuffer configs = {NULL, 0};
  CHECK(TsListConfigs(append_growing, &configs) == TS_OK);
  CHECK(configs.text && strstr(configs.text, "\"collage.enable\":{\"default\":false"));
  free(configs.text);

  /* Entering and leaving: the current context, equality and hashes. */
  CHECK(TsPassContextEnter(ctx) == TS_OK);
  TsPassContext inside = NULL;
  CHECK(TsPassContextGetCurrent(&inside) == TS_OK && TsPassContextEqual(inside, ctx));
  CHECK(TsPassContextHash(inside) == TsPassContextHash(ctx) &&
        !TsPassContextEqual(inside, current));
  CHECK(TsPassContextCreate(1, NULL, 0, NULL, 0, NULL, &other) == TS_OK);
  CHECK(TsPassContextExit(other) == TS_ERROR_VALUE); /* not the innermost */
  CHECK(TsPassContextExit(ctx) == TS_OK);
  TsPassContextDestroy(inside);
  CHECK(TsPassContextGetCurrent(&inside) == TS_OK && TsPassContextEqual(inside, current));
  TsPassContext copy = TsPassContextRetain(ctx);
  CHECK(TsPassContextEqual(copy, ctx) && TsPassContextGetOptLevel(copy) == 3);

  /* Instruments on a context: enter hooks on entering and on override; a failing enter. */
  Recorder a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  TsPassInstrument ia = make_recorder(&a), ib = make_recorder(&b), got = NULL;
  CHECK(TsPassContextOverrideInstruments(other, &ia, 1) == TS_OK && a.enters == 1);
  CHECK(TsPassContextGetNumInstruments(other) == 1);
  CHECK(TsPassContextGetInstrument(other, 0, &got) == TS_OK && TsPassInstrumentEqual(got, ia));
  CHECK(TsPassInstrumentGetUserData(got) == &a && ref_is(TsPassInstrumentGetName(got), "Recorder"));
  CHECK(TsPassContextGetInstrument(other, 1, &got) == TS_ERROR_VALUE);
  CHECK(TsPassContextOverrideInstruments(other, &ib, 1) == TS_OK && a.exits == 1 && b.enters == 1);
  b.fail_enter = 1;
  CHECK(TsPassContextEnter(other) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("enter refused") && error_has("Recorder"));
  CHECK(TsPassContextGetNumInstruments(other) == 0); /* cleared */
  /* A module run with no context runs under the current one. */
  b.fail_enter = 0;
  TsPassContext with_b = NULL;
  CHECK(TsPassContextCreateWithInstruments(2, NULL, 0, NULL, 0, NULL, &ib, 1, &with_b) == TS_OK);
  TsModule mod = NULL, out = NULL;
  TsPass infer = NULL;
  CHECK(TsModuleParse(kCnn, (size_t)-1, &mod) == TS_OK);
  CHECK(TsPipelineParse("InferType", &infer) == TS_OK);
  CHECK(TsPassContextEnter(with_b) == TS_OK);
  b.num_names = 0;
  CHECK(TsPassRun(infer, mod, NULL, &out) == TS_OK);
  TsModuleDestroy(out);
  CHECK(TsPassRun(infer, mod, with_b, &out) == TS_OK); /* already current: not entered again */
  CHECK(TsPassContextExit(with_b) == TS_OK);
  CHECK(b.num_names == 4 && strcmp(b.names[0], "pipeline") == 0);
  CHECK(strcmp(b.names[3], "InferType") == 0 && b.enters == 2 && b.exits == 1);

  TsModuleDestroy(out);
  TsModuleDestroy(mod);
  TsPassDestroy(infer);
  TsPassInstrumentDestroy(got);
  TsPassInstrumentDestroy(ia);
  TsPassInstrumentDestroy(ib);
  TsPassContextDestroy(with_b);
  TsPassContextDestroy(copy);
  TsPassContextDestroy(inside);
  TsPassContextDestroy(other);
  TsPassContextDestroy(ctx);
  TsPassContextDestroy(current);
}

/* A registered pass's factory: a fresh StrengthReduce. */
static PassState factory_state = {0, 0, 0, TS_OK};
static TsStatus make_strength_reduce(TsPass* out, void* user) {
  (void)user;
  return TsModulePassCreate("StrengthReduce", 0, NULL, 0, strength_reduce, &factory_state, NULL,
                            out);
}

static void test_registry(void) {
  TsPass fuse = NULL, bad = NULL, pipeline = NULL;
  CHECK(TsPassCreateFromRegistry("FuseOps", "{\"max_depth\": 4}", &fuse) == TS_OK);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsPassPrint(fuse, append_growing, &text) == TS_OK);
  CHECK(text.text && strcmp(text.text, "FuseOps{max_depth=4}") == 0);
  free(text.text);
  CHECK(TsPassCreateFromRegistry("NoSuchPass", NULL, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("FoldConstant")); /* lists the registered passes */
  CHECK(TsPassCreateFromRegistry("FuseOps", "{\"depth\": 4}", &bad) == TS_ERROR_VALUE);
  CHECK(TsPassCreateFromRegistry("FuseOps", "[1]", &bad) == TS_ERROR_PARSE);

  CHECK(TsPassRegister("CStrengthReduce", "multiply by 2 -> add", make_strength_reduce, NULL,
                       count_destroy) == TS_OK);
  int before = destroyed;
  CHECK(TsPassRegister("CStrengthReduce", "", make_strength_reduce, NULL, count_destroy) ==
        TS_ERROR_VALUE);
  CHECK(destroyed == before + 1); /* a failed registration releases the user data */
  CHECK(TsModulePassCreate("X", 0, NULL, 0, NULL, NULL, count_destroy, &bad) ==
        TS_ERROR_INVALID_ARGUMENT);
  CHECK(destroyed == before + 2);
  GrowingBuffer list = {NULL, 0};
  CHECK(TsListPasses(append_growing, &list) == TS_OK);
  CHECK(list.text && strstr(list.text, "\"name\":\"CStrengthReduce\""));
  CHECK(list.text && strstr(list.text, "\"default\":"));
  free(list.text);

  TsModule mod = NULL, out = NULL;
  CHECK(TsModuleParse(kCnn, (size_t)-1, &mod) == TS_OK);
  CHECK(TsPipelineParse("InferType,CStrengthReduce,FoldConstant", &pipeline) == TS_OK);
  CHECK(TsPassRun(pipeline, mod, NULL, &out) == TS_OK);
  CHECK(factory_state.calls == 1 && out && module_has(out, "add("));
  float a[36], b[36];
  CHECK(run_cnn(mod, a) && out && run_cnn(out, b) && memcmp(a, b, sizeof a) == 0);
  TsModuleDestroy(out);

  /* A Sequential requiring a registered C pass runs it first. */
  const char* req[] = {"CStrengthReduce"};
  TsPass seq = NULL;
  CHECK(TsSequentialCreate(&fuse, 1, NULL, 0, req, 1, &seq) == TS_OK);
  TsPassInfo info = NULL;
  CHECK(TsPassGetInfo(seq, &info) == TS_OK && ref_is(TsPassInfoGetName(info), "sequential"));
  TsPassInfo kept = TsPassInfoRetain(info);
  TsPassInfoDestroy(info);
  CHECK(TsPassInfoGetNumRequired(kept) == 1);
  TsPassInfoDestroy(kept);
  TsPass two[2] = {TsPassRetain(seq), NULL};
  TsPass outer = NULL;
  CHECK(TsSequentialCreate(two, 2, "outer", 0, NULL, 0, &outer) == TS_ERROR_VALUE); /* NULL pass */
  CHECK(TsSequentialCreate(two, 1, "outer", 0, NULL, 0, &outer) == TS_OK);
  CHECK(TsPassRun(outer, mod, NULL, &out) == TS_OK && factory_state.calls == 2);

  TsModuleDestroy(out);
  TsModuleDestroy(mod);
  TsPassDestroy(outer);
  TsPassDestroy(two[0]);
  TsPassDestroy(seq);
  TsPassDestroy(pipeline);
  TsPassDestroy(fuse);
}

static void test_builtin_instruments(void) {
  TsPassInstrument timing = NULL, verifier = NULL, dump = NULL, print = NULL;
  char dir[] = "/tmp/tessera_c_pass_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  CHECK(TsPassTimingInstrumentCreate(&timing) == TS_OK);
  CHECK(TsVerifierInstrumentCreate(&verifier) == TS_OK);
  CHECK(TsDumpIRInstrumentCreate(dir, &dump) == TS_OK);
  const char* after[] = {"NoSuchPassToPrint"};
  CHECK(TsPrintIRInstrumentCreate(0, 0, 0, NULL, 0, after, 1, &print) == TS_OK);
  CHECK(TsPassInstrumentGetUserData(timing) == NULL);
  TsPassInstrument all[4] = {timing, verifier, dump, print};
  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreateWithInstruments(2, NULL, 0, NULL, 0, NULL, all, 4, &ctx) == TS_OK);
  TsModule mod = NULL, out = NULL;
  TsPass pipeline = NULL;
  CHECK(TsModuleParse(kCnn, (size_t)-1, &mod) == TS_OK);
  CHECK(TsPipelineParse("InferType,FoldConstant", &pipeline) == TS_OK);
  CHECK(TsPassRun(pipeline, mod, ctx, &out) == TS_OK);
  GrowingBuffer report = {NULL, 0};
  CHECK(TsPassTimingInstrumentRender(timing, append_growing, &report) == TS_OK);
  CHECK(report.text && strstr(report.text, "pipeline:") && strstr(report.text, "  FoldConstant:"));
  free(report.text);
  CHECK(TsPassTimingInstrumentRender(verifier, append_growing, &report) == TS_ERROR_TYPE);
  /* DumpIR wrote one file per pass run (the pipeline and its two passes). */
  int files = 0;
  DIR* d = opendir(dir);
  struct dirent* e;
  char path[128];
  while (d && (e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    ++files;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  if (d) closedir(d);
  rmdir(dir);
  CHECK(files == 3);

  /* Bad arguments are statuses, never crashes. */
  CHECK(TsPassRun(NULL, mod, NULL, &out) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPassContextSetConfig(NULL, "collage.enable", "true") == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPassInstrumentCreate("x", NULL, NULL, NULL, &print) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPassContextCreateWithInstruments(2, NULL, 0, NULL, 0, NULL, NULL, 1, &ctx) ==
        TS_ERROR_VALUE);
  CHECK(TsPassInfoCreate("P", 1, NULL, 1, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsModuleVerify(NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPassGetKind(NULL) == TS_PASS_MODULE && TsPassGetNumPasses(NULL) == 0);
  CHECK(TsPassInfoGetName(NULL).length == 0 && TsPassContextRetain(NULL) == NULL);
  TsPassInfo info = NULL;
  CHECK(TsPassInfoCreate("P", 1, NULL, 1, &info) == TS_ERROR_VALUE); /* NULL names, count 1 */
  CHECK(TsModuleRetain(NULL) == NULL && TsExprRetain(NULL) == NULL && TsPassRetain(NULL) == NULL);

  TsModuleDestroy(out);
  TsModuleDestroy(mod);
  TsPassDestroy(pipeline);
  TsPassContextDestroy(ctx);
  TsPassInstrument copy = TsPassInstrumentRetain(timing);
  CHECK(TsPassInstrumentEqual(copy, timing) && !TsPassInstrumentEqual(copy, verifier));
  TsPassInstrumentDestroy(copy);
  for (int i = 0; i < 4; ++i) TsPassInstrumentDestroy(all[i]);
}

int main(void) {
  test_custom_passes_in_sequential();
  test_contexts_and_config();
  test_registry();
  test_builtin_instruments();
  /* Every pass and instrument made with a destroy callback released its user data
   * (4 in the first test, 2 instruments, 2 failed creations; not the registered factory). */
  CHECK(destroyed == 8);
  return check_summary();
}
