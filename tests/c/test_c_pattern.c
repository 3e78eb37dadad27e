/* The pattern C API: building and printing patterns, matching, rewriting with C callbacks,
 * partitioning, pattern tables registered from C, BYOC partitioning for them, building and
 * running the partitioned module against the interpreter, and bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_test_util.h"

/* dense -> bias_add -> relu -> relu; the double relu is what the rewrites remove. */
#define PARAMS \
  "(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(3), float32])"
#define DENSE_BIAS "  %0 = nn.dense(%x, %w);\n  %1 = nn.bias_add(%0, %b);\n"
static const char* kModel =
    "def @main" PARAMS " {\n" DENSE_BIAS "  %2 = nn.relu(%1);\n  nn.relu(%2)\n}";
static const char* kSingleRelu = "def @main" PARAMS " {\n" DENSE_BIAS "  nn.relu(%1)\n}";
/* The same computation inside a local function: its literal is the callee of a call, so a
 * pattern can bind it and hand the test a function expression. */
static const char* kLocal =
    "def @main" PARAMS
    " {\n  %f = fn (%p: Tensor[(2, 4), float32], %q: Tensor[(3, 4), float32], "
    "%r: Tensor[(3), float32]) {\n    %0 = nn.dense(%p, %q);\n    %1 = nn.bias_add(%0, %r);\n"
    "    %2 = nn.relu(%1);\n    %3 = nn.relu(%2);\n    (%3, %p)\n  };\n"
    "  %4 = %f(%x, %w, %b);\n  %4.0\n}";

static TsPattern op(const char* name) {
  TsPattern p = NULL;
  CHECK(TsPatternIsOp(name, &p) == TS_OK);
  return p;
}
static TsPattern any(void) {
  TsPattern p = NULL;
  CHECK(TsPatternWildcard(&p) == TS_OK);
  return p;
}
/* callee(args...): a call pattern; consumes nothing (the caller destroys its inputs). */
static TsPattern call(TsPattern callee, TsPattern a, TsPattern b) {
  TsPattern args[2] = {a, b}, p = NULL;
  CHECK(TsPatternCall(callee, args, b ? 2 : 1, &p) == TS_OK);
  return p;
}
/* 1 when the pattern's text contains `needle`. */
static int pattern_has(TsPattern p, const char* needle) {
  GrowingBuffer b = {NULL, 0};
  int has = TsPatternPrint(p, append_growing, &b) == TS_OK && strstr(b.text, needle);
  free(b.text);
  return has;
}
static int matches(TsPattern p, TsExpr e) {
  int m = -1;
  CHECK(TsPatternMatch(p, e, &m) == TS_OK);
  return m;
}
/* matches(), then releases `p` (a pattern made for this one match). */
static int matches_once(TsPattern p, TsExpr e) {
  int m = matches(p, e);
  TsPatternDestroy(p);
  return m;
}
/* 1 when a pattern table `name` is registered (dnnl's exists only in builds with oneDNN). */
static int has_table(const char* name) {
  GrowingBuffer names = {NULL, 0};
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", name);
  int found = TsListPatternTables(append_growing, &names) == TS_OK && names.text &&
              strstr(names.text, quoted) != NULL;
  free(names.text);
  return found;
}
static TsModule parse(const char* text) {
  TsModule m = NULL;
  CHECK(TsModuleParse(text, (size_t)-1, &m) == TS_OK);
  return m;
}

/* ---- Running: @main's result for fixed inputs, by the interpreter or an executable ---- */
static float kX[8] = {1, -2, 3, -4, 5, 6, -7, 8};
static float kW[12] = {0.5f, -1, 2, 0.25f, -0.5f, 1, 1, -1, 1.5f, 0, -2, 0.5f};
static float kB[3] = {0.1f, -3, 0.2f};

static int run(TsModule mod, TsExecutable exe, float out6[6]) {
  int64_t xs[2] = {2, 4}, ws[2] = {3, 4}, bs[1] = {3};
  TsNDArray in[3] = {NULL, NULL, NULL}, out[1] = {NULL};
  const char* names[3] = {"x", "w", "b"};
  size_t n = 0;
  int ok = TsNDArrayFromBuffer(kX, xs, 2, kF32, &in[0]) == TS_OK &&
           TsNDArrayFromBuffer(kW, ws, 2, kF32, &in[1]) == TS_OK &&
           TsNDArrayFromBuffer(kB, bs, 1, kF32, &in[2]) == TS_OK;
  if (ok && mod) ok = TsModuleRunMain(mod, names, in, 3, out, 1, &n) == TS_OK && n == 1;
  if (ok && exe) ok = TsExecutableRun(exe, names, in, 3, out, 1, &n) == TS_OK && n == 1;
  if (ok) {
    float* data = NULL;
    ok = TsNDArrayGetInfo(out[0], (void**)&data, NULL, NULL, NULL) == TS_OK;
    if (ok) memcpy(out6, data, 6 * sizeof(float));
  }
  TsNDArrayDestroy(out[0]);
  for (int i = 0; i < 3; ++i) TsNDArrayDestroy(in[i]);
  return ok;
}
static int same(const float* a, const float* b) {
  for (int i = 0; i < 6; ++i)
    if (fabsf(a[i] - b[i]) > 1e-4f) return 0;
  return 1;
}

/* ---- Callbacks --------------------------------------------------------------------- */
static int destroyed = 0;
static void count_destroy(void* user) {
  (void)user;
  ++destroyed;
}

/* Keeps the first function bound to `callee` (the local function literal). */
typedef struct {
  TsPattern callee;
  TsExpr func;
} Grab;
static TsStatus grab_callee(TsExpr pre, TsExpr post, TsPatternBindings bindings, TsExpr* out,
                            void* user) {
  Grab* g = (Grab*)user;
  (void)pre, (void)post, (void)out; /* *out stays NULL: unchanged */
  if (!g->func) CHECK(TsPatternBindingsLookup(bindings, g->callee, &g->func) == TS_OK);
  return TS_OK;
}

/* relu(relu(x)) -> relu(x): returns what `inner` matched; keeps the matched root and x. */
typedef struct {
  TsPattern outer, inner, x;
  TsExpr root, input;
  int calls;
} DropRelu;
static TsStatus drop_relu(TsExpr pre, TsExpr post, TsPatternBindings bindings, TsExpr* out,
                          void* user) {
  DropRelu* d = (DropRelu*)user;
  size_t n = 0;
  TsExpr root = NULL;
  (void)post;
  ++d->calls;
  CHECK(TsPatternBindingsGetNumEntries(bindings, &n) == TS_OK && n == 4); /* 2 calls, op, x */
  CHECK(TsPatternBindingsLookup(bindings, d->outer, &root) == TS_OK && root == pre);
  TsExprDestroy(root);
  if (!d->root) {
    CHECK(TsPatternBindingsLookup(bindings, d->outer, &d->root) == TS_OK);
    CHECK(TsPatternBindingsLookup(bindings, d->x, &d->input) == TS_OK);
  }
  return TsPatternBindingsLookup(bindings, d->inner, out);
}
static DropRelu drop_relu_rule(TsPattern relu) {
  DropRelu d = {NULL, NULL, any(), NULL, NULL, 0};
  d.inner = call(relu, d.x, NULL);
  d.outer = call(relu, d.inner, NULL);
  return d;
}
static void drop_relu_free(DropRelu* d) {
  TsExprDestroy(d->root);
  TsExprDestroy(d->input);
  TsPatternDestroy(d->x);
  TsPatternDestroy(d->inner);
  TsPatternDestroy(d->outer);
}

/* Counts, among the calls of a function's body, those whose callee matches `ops[i]`
 * (counts[i]) and those whose callee is none of them (others: function literals). */
typedef struct {
  TsPattern callee;
  TsPattern ops[3];
  int counts[3], others;
} Census;
static TsStatus census(TsExpr pre, TsExpr post, TsPatternBindings bindings, TsExpr* out,
                       void* user) {
  Census* c = (Census*)user;
  TsExpr callee = NULL;
  int hit = 0;
  (void)pre, (void)post, (void)out;
  CHECK(TsPatternBindingsLookup(bindings, c->callee, &callee) == TS_OK);
  for (int i = 0; i < 3; ++i)
    if (matches(c->ops[i], callee)) ++c->counts[i], hit = 1;
  if (!hit) ++c->others;
  TsExprDestroy(callee);
  return TS_OK;
}
static void run_census(Census* c, TsExpr func) {
  TsPattern pattern = NULL;
  TsExpr same_func = NULL;
  memset(c->counts, 0, sizeof c->counts);
  c->others = 0;
  CHECK(TsPatternCallAnyArgs(c->callee, &pattern) == TS_OK);
  TsPatternCallback cb = {pattern, census, c, NULL, 0};
  CHECK(TsPatternRewrite(&cb, 1, func, NULL, &same_func) == TS_OK);
  TsExprDestroy(same_func);
  TsPatternDestroy(pattern);
}

/* Accepts (or, with `reject`, refuses) matches rooted at a bias_add, counting calls. */
typedef struct {
  TsPattern bias_add;
  int calls, reject;
} Check;
static TsStatus check_root(TsExpr root, int* accepted, void* user) {
  Check* c = (Check*)user;
  ++c->calls;
  CHECK(matches(c->bias_add, root) == 1);
  *accepted = !c->reject;
  return TS_OK;
}
static TsStatus failing_predicate(TsExpr root, int* accepted, void* user) {
  (void)root, (void)accepted, (void)user;
  return fail_with(TS_ERROR_VALUE, "the predicate refuses to decide");
}
static TsStatus failing_rewrite(TsExpr pre, TsExpr post, TsPatternBindings b, TsExpr* out,
                                void* u) {
  (void)pre, (void)post, (void)b, (void)out, (void)u;
  return fail_with(TS_ERROR_UNSUPPORTED, "the rewrite gives up");
}

/* The C of a relu partition of six floats (the test knows its shapes). */
static int c_sources = 0;
static TsStatus relu_source(TsExpr partition, const char* c_name, TsStringCallback emit,
                            void* emit_data, void* user) {
  char text[512];
  (void)partition, (void)user;
  ++c_sources;
  snprintf(text, sizeof text,
           "int32_t %s(void* const* buffers, const TsKernelEnv* env) {\n"
           "  const float* in = (const float*)buffers[0];\n  float* out = (float*)buffers[1];\n"
           "  for (int i = 0; i < 6; ++i) out[i] = in[i] > 0 ? in[i] : 0;\n"
           "  return (void)env, 0;\n}\n",
           c_name);
  emit(text, strlen(text), emit_data);
  return TS_OK;
}

#define DESTROY_ALL(PATTERNS)                                          \
  for (size_t i_ = 0; i_ < sizeof PATTERNS / sizeof PATTERNS[0]; ++i_) \
  TsPatternDestroy(PATTERNS[i_])

/* ---- Tests ------------------------------------------------------------------------- */

static void test_build_and_print(void) {
  TsPattern relu = op("nn.relu"), x = any(), relu_x = call(relu, x, NULL);
  TsPattern var = NULL, cst = NULL, tup = NULL, item = NULL, alt = NULL, any_args = NULL;
  TsPattern shaped = NULL, typed = NULL, attr = NULL, dom = NULL;
  CHECK(pattern_has(relu_x, "is_op(\"nn.relu\")(wildcard())"));

  CHECK(TsPatternIsVar("x", &var) == TS_OK);
  CHECK(TsPatternIsConstant(&cst) == TS_OK);
  TsPattern fields[2] = {relu_x, var};
  CHECK(TsPatternIsTuple(fields, 2, &tup) == TS_OK);
  CHECK(TsPatternIsTupleGetItem(tup, 1, &item) == TS_OK);
  CHECK(TsPatternAlt(relu_x, cst, &alt) == TS_OK);
  CHECK(TsPatternCallAnyArgs(relu, &any_args) == TS_OK);
  int64_t shape[2] = {2, 3};
  CHECK(TsPatternHasShape(alt, shape, 2, &shaped) == TS_OK);
  CHECK(TsPatternHasDType(shaped, "float32", &typed) == TS_OK);
  CHECK(TsPatternHasAttr(any_args, NULL, 0, &attr) == TS_OK);
  CHECK(TsPatternDominates(cst, x, relu_x, &dom) == TS_OK);

  CHECK(pattern_has(item, "is_tuple_get_item(is_tuple([") && pattern_has(item, "is_var(\"x\")") &&
        pattern_has(item, ", 1)"));
  CHECK(pattern_has(typed, "|") && pattern_has(typed, "is_constant()") &&
        pattern_has(typed, "has_shape([2, 3])") && pattern_has(typed, "has_dtype(\"float32\")"));
  CHECK(pattern_has(dom, "dominates("));

  /* Bad input: NULLs, unknown ops and dtypes, bad indices, wrong kinds of node. */
  TsPattern bad = NULL;
  CHECK(TsPatternWildcard(NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPatternIsOp("nn.no_such_op", &bad) == TS_ERROR_NOT_FOUND && bad == NULL);
  CHECK(error_has("nn.no_such_op"));
  CHECK(TsPatternHasDType(relu_x, "float99", &bad) == TS_ERROR_VALUE);
  CHECK(TsPatternIsTupleGetItem(tup, -2, &bad) == TS_ERROR_VALUE);
  TsPattern holes[2] = {relu_x, NULL};
  CHECK(TsPatternCall(relu, holes, 2, &bad) == TS_ERROR_VALUE);
  CHECK(TsPatternIsTuple(NULL, 1, &bad) == TS_ERROR_VALUE);
  CHECK(TsPatternHasShape(relu_x, NULL, 2, &bad) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPatternHasType(relu_x, NULL, &bad) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPatternHasType(relu_x, (TsType)relu, &bad) == TS_ERROR_TYPE); /* a pattern, not a type */
  CHECK(TsPatternHasAttr(relu_x, NULL, 1, &bad) == TS_ERROR_VALUE);
  CHECK(TsPatternDominates(cst, NULL, relu_x, &bad) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(bad == NULL);

  TsPattern all[] = {relu, x, relu_x, var, cst, tup, item, alt, any_args, shaped, typed, attr, dom};
  DESTROY_ALL(all);
  TsPatternDestroy(NULL);
}

static void test_match_rewrite_partition(void) {
  TsModule parsed = parse(kLocal), mod = NULL, after = NULL;
  CHECK(TsModuleInferTypes(parsed, &mod) == TS_OK);
  TsModuleDestroy(parsed);
  if (!mod) return;

  /* A rewrite pass binding the local function literal hands the test a typed function. */
  Grab grab = {any(), NULL};
  TsPattern call_any = NULL;
  TsPass pass = NULL;
  CHECK(TsPatternCallAnyArgs(grab.callee, &call_any) == TS_OK);
  TsPatternCallback cb = {call_any, grab_callee, &grab, count_destroy, 0};
  destroyed = 0;
  CHECK(TsPatternRewritePassCreate("GrabCallee", &cb, 1, &pass) == TS_OK);
  TsPatternDestroy(call_any);
  CHECK(TsPassRun(pass, mod, NULL, &after) == TS_OK);
  CHECK(after && TsModuleStructuralEqual(mod, after) == 1);
  TsPassDestroy(pass);
  CHECK(destroyed == 1); /* the pass released its user data */
  TsModuleDestroy(after);
  TsExpr func = grab.func;
  CHECK(func != NULL);
  if (!func) return; /* (leaks after a failure) */

  /* Census before: one dense, one bias_add, two relus, no other callee. */
  Census c = {grab.callee, {op("nn.dense"), op("nn.bias_add"), op("nn.relu")}, {0}, 0};
  run_census(&c, func);
  CHECK(c.counts[0] == 1 && c.counts[1] == 1 && c.counts[2] == 2 && c.others == 0);

  /* Rewrite relu(relu(x)) -> relu(x) with a C callback. */
  DropRelu d = drop_relu_rule(c.ops[2]);
  TsPatternCallback drop = {d.outer, drop_relu, &d, NULL, 1};
  TsExpr rewritten = NULL;
  CHECK(TsPatternRewrite(&drop, 1, func, mod, &rewritten) == TS_OK);
  CHECK(d.calls == 1 && d.root && d.input && rewritten && rewritten != func);
  run_census(&c, rewritten);
  CHECK(c.counts[0] == 1 && c.counts[1] == 1 && c.counts[2] == 1 && c.others == 0);

  /* Matching the kept expressions: d.root is relu(relu(bias_add)), d.input the bias_add. */
  TsPattern w1 = any(), w2 = any(), w3 = any();
  TsPattern dense_call = call(c.ops[0], w1, w2), bias = call(c.ops[1], dense_call, w3);
  CHECK(matches(bias, d.input) == 1 && matches(bias, d.root) == 0);
  CHECK(matches(d.outer, d.root) == 1 && matches(d.inner, d.root) == 1);
  TsPattern p = NULL, p2 = NULL;
  int64_t good[2] = {2, 3}, wrong[2] = {3, 2};
  CHECK(TsPatternHasShape(bias, good, 2, &p) == TS_OK && matches_once(p, d.input) == 1);
  CHECK(TsPatternHasShape(bias, wrong, 2, &p) == TS_OK && matches_once(p, d.input) == 0);
  CHECK(TsPatternHasDType(bias, "float64", &p) == TS_OK && matches_once(p, d.input) == 0);
  TsNamedAttribute absent = {TsStringRefFromC("no_such_attr"), NULL};
  CHECK(TsPatternHasAttr(bias, &absent, 1, &p) == TS_OK && matches_once(p, d.input) == 0);
  CHECK(TsPatternIsExpr(d.input, &p) == TS_OK && matches(p, d.input) == 1 &&
        matches(p, d.root) == 0);
  CHECK(TsPatternCall(c.ops[2], &p, 1, &p2) == TS_OK && matches_once(p2, d.root) == 0);
  TsPatternDestroy(p);

  /* A dominator pattern inside the function: dense -> anything -> the outer relu. */
  TsPattern w4 = any(), path = any(), relu_any = call(c.ops[2], w4, NULL), dom = NULL;
  TsPatternBindings b = NULL;
  CHECK(TsPatternDominates(dense_call, path, relu_any, &dom) == TS_OK);
  CHECK(TsPatternMatchIn(dom, d.root, func, &b) == TS_OK && b != NULL);
  if (b) {
    size_t n = 0;
    TsExpr e = NULL, dense_expr = NULL;
    TsPattern q = NULL;
    CHECK(TsPatternBindingsGetNumEntries(b, &n) == TS_OK && n >= 3);
    CHECK(TsPatternBindingsLookup(b, dense_call, &dense_expr) == TS_OK);
    CHECK(dense_expr && matches(dense_call, dense_expr) == 1);
    CHECK(TsPatternBindingsLookup(b, relu_any, &e) == TS_OK && e == d.root);
    TsExprDestroy(e);
    for (size_t i = 0; i < n; ++i) {
      CHECK(TsPatternBindingsGetEntry(b, i, &q, &e) == TS_OK && q && e);
      TsPatternDestroy(q);
      TsExprDestroy(e);
    }
    CHECK(TsPatternBindingsGetEntry(b, n, &q, &e) == TS_ERROR_VALUE);
    CHECK(TsPatternBindingsLookup(b, bias, &e) == TS_ERROR_NOT_FOUND);
    TsExprDestroy(dense_expr);
    TsPatternBindingsDestroy(b);
  }
  b = (TsPatternBindings)1;
  CHECK(TsPatternMatchIn(bias, d.root, func, &b) == TS_OK && b == NULL); /* no match */
  CHECK(TsPatternMatchIn(dom, d.root, d.input, &b) == TS_ERROR_TYPE);    /* not a function */
  CHECK(TsPatternMatch((TsPattern)d.root, d.root, &(int){0}) == TS_ERROR_TYPE);

  /* Partition dense -> bias_add into a Composite function, asking a C predicate. */
  Check check = {bias, 0, 1};
  TsExpr part = NULL;
  CHECK(TsPatternPartition(bias, rewritten, "ctest.dense", check_root, &check, &part) == TS_OK);
  CHECK(check.calls == 1);
  run_census(&c, part); /* refused: unchanged */
  CHECK(c.counts[0] == 1 && c.counts[1] == 1 && c.others == 0);
  TsExprDestroy(part);
  check.reject = 0;
  CHECK(TsPatternPartition(bias, rewritten, "ctest.dense", check_root, &check, &part) == TS_OK);
  CHECK(check.calls == 2);
  run_census(&c, part); /* dense and bias_add moved into a called function literal */
  CHECK(c.counts[0] == 0 && c.counts[1] == 0 && c.counts[2] == 1 && c.others == 1);
  TsExprDestroy(part);
  part = NULL;
  CHECK(TsPatternPartition(bias, rewritten, "x", failing_predicate, NULL, &part) == TS_ERROR_VALUE);
  CHECK(error_has("the predicate refuses to decide") && part == NULL);

  /* Failing callbacks and bad returns become errors of their kind. */
  TsPatternCallback fail = {d.outer, failing_rewrite, NULL, NULL, 0};
  TsExpr none = NULL;
  CHECK(TsPatternRewrite(&fail, 1, func, NULL, &none) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("the rewrite gives up") && none == NULL);
  fail.callback = NULL;
  CHECK(TsPatternRewrite(&fail, 1, func, NULL, &none) == TS_ERROR_VALUE);
  CHECK(TsPatternRewritePassCreate("Bad", &fail, 1, &pass) == TS_ERROR_VALUE);
  CHECK(TsPatternRewrite(&drop, 1, d.root, NULL, &none) == TS_ERROR_TYPE); /* not a function */

  TsExprDestroy(func);
  TsExprDestroy(rewritten);
  drop_relu_free(&d);
  TsPattern pats[] = {grab.callee, c.ops[0],   c.ops[1], c.ops[2], w1,   w2, w3,
                      w4,          dense_call, bias,     relu_any, path, dom};
  DESTROY_ALL(pats);
  TsModuleDestroy(mod);
}

static void test_rewrite_pass_on_module(void) {
  TsModule mod = parse(kModel), want = parse(kSingleRelu), out = NULL;
  TsPattern relu = op("nn.relu");
  DropRelu d = drop_relu_rule(relu);
  TsPatternCallback cb = {d.outer, drop_relu, &d, count_destroy, 1};
  TsPass pass = NULL;
  destroyed = 0;
  CHECK(TsPatternRewritePassCreate("DropDoubleRelu", &cb, 1, &pass) == TS_OK);
  CHECK(TsPassRun(pass, mod, NULL, &out) == TS_OK);
  CHECK(out && TsModuleStructuralEqual(out, want) == 1);
  float a[6], b[6];
  CHECK(run(mod, NULL, a) && run(out, NULL, b) && same(a, b));
  TsPassDestroy(pass);
  CHECK(destroyed == 1 && d.calls == 1);

  /* The dnnl table and op predicates, on typed calls (typed by require_type; d.root: the outer
   * relu, d.input: the bias_add, which dnnl.dense_bias matches). */
  /* (A build without oneDNN has no dnnl table.) */
  int supported = -1;
  if (has_table("dnnl")) {
    TsPatternTable dnnl = NULL;
    TsStringRef label = {NULL, 0};
    TsPattern entry = NULL;
    size_t n = 0;
    CHECK(TsPatternTableGet("dnnl", &dnnl) == TS_OK && d.root);
    CHECK(TsPatternTableGetNumEntries(dnnl, &n) == TS_OK && n > 10);
    int found = 0, accepted = -1;
    for (size_t i = 0; i < n && !found && d.root; ++i) {
      CHECK(TsPatternTableGetEntry(dnnl, i, &label, &entry, NULL) == TS_OK);
      if (matches(entry, d.input)) {
        found = 1;
        CHECK(label.length > 5 && memcmp(label.data, "dnnl.", 5) == 0);
        CHECK(TsPatternTableCheck(dnnl, i, d.input, &accepted) == TS_OK && accepted == 1);
      }
      TsPatternDestroy(entry);
    }
    CHECK(found == 1);
    CHECK(TsPatternTableCheck(dnnl, n, d.root, &accepted) == TS_ERROR_VALUE);
    TsPatternTableDestroy(dnnl);
    GrowingBuffer ops = {NULL, 0};
    CHECK(TsListSupportedOps("dnnl", append_growing, &ops) == TS_OK);
    CHECK(ops.text && ops.text[0] == '[' && strstr(ops.text, "\"nn.relu\""));
    free(ops.text);
    CHECK(TsCallIsSupportedBy(d.root, "dnnl", &supported) == TS_OK && supported == 1);
  }
  CHECK(TsCallIsSupportedBy(d.root, "ctable", &supported) == TS_OK && supported == 0);

  drop_relu_free(&d);
  TsPatternDestroy(relu);
  TsModuleDestroy(mod);
  TsModuleDestroy(want);
  TsModuleDestroy(out);
}

/* Runs `pass` (then releases it) on `mod`: 1 when the result's text has `a` and `b`. */
static int pass_gives(TsPass pass, TsModule mod, const char* a, const char* b) {
  TsModule out = NULL;
  int ok = TsPassRun(pass, mod, NULL, &out) == TS_OK && module_has(out, a) && module_has(out, b);
  TsModuleDestroy(out);
  TsPassDestroy(pass);
  return ok;
}

/* Partitions `mod` for `compiler`, builds it for `targets` and checks it against the
 * interpreter on the original; returns 1 when all went well. */
static int partition_build_run(TsModule mod, const char* compiler, const char* const* targets,
                               size_t num_targets) {
  TsModule part = NULL;
  TsTarget t[2] = {NULL, NULL};
  TsExecutable exe = NULL;
  float want[6], got[6];
  char expect[64];
  snprintf(expect, sizeof expect, "Compiler=\"%s\"", compiler);
  int ok = TsModulePartitionFor(mod, compiler, &part) == TS_OK && module_has(part, expect);
  for (size_t i = 0; ok && i < num_targets; ++i) ok = TsTargetParse(targets[i], &t[i]) == TS_OK;
  ok = ok && TsBuild(part, t, num_targets, NULL, &exe) == TS_OK;
  ok = ok && run(mod, NULL, want) && run(NULL, exe, got) && same(want, got);
  if (!ok) fprintf(stderr, "partition_build_run(%s): %s\n", compiler, TsGetLastError());
  TsExecutableDestroy(exe);
  for (size_t i = 0; i < num_targets; ++i) TsTargetDestroy(t[i]);
  TsModuleDestroy(part);
  return ok;
}

static void test_tables_and_byoc(void) {
  TsModule mod = parse(kModel);
  TsPattern dense_op = op("nn.dense"), bias_op = op("nn.bias_add"), relu_op = op("nn.relu");
  TsPattern w1 = any(), w2 = any(), w3 = any(), w4 = any();
  TsPattern dense = call(dense_op, w1, w2), bias = call(bias_op, dense, w3);
  TsPattern relu = call(relu_op, w4, NULL);
  Check check = {bias, 0, 0};

  /* A table from C: dense+bias with a predicate, relu without. */
  TsPatternTableEntry entries[2] = {{"dense_bias", bias, check_root, &check, count_destroy},
                                    {"relu", relu, NULL, NULL, NULL}};
  TsPatternTable table = NULL, got = NULL;
  destroyed = 0;
  CHECK(TsPatternTableCreate(entries, 2, &table) == TS_OK);
  CHECK(TsPatternTableRegister("ctable", table) == TS_OK);
  GrowingBuffer names = {NULL, 0};
  CHECK(TsListPatternTables(append_growing, &names) == TS_OK);
  CHECK(names.text && strstr(names.text, "\"ctable\""));
  free(names.text);
  CHECK(TsPatternTableGet("ctable", &got) == TS_OK);
  size_t n = 0;
  TsStringRef label = {NULL, 0};
  TsPattern entry = NULL;
  int has_pred = -1;
  CHECK(TsPatternTableGetNumEntries(got, &n) == TS_OK && n == 2);
  CHECK(TsPatternTableGetEntry(got, 0, &label, &entry, &has_pred) == TS_OK);
  CHECK(ref_is(label, "ctable.dense_bias"));
  CHECK(entry == bias && has_pred == 1);
  TsPatternDestroy(entry);
  CHECK(TsPatternTableGetEntry(got, 1, &label, NULL, &has_pred) == TS_OK && has_pred == 0);
  CHECK(TsPatternTableGetEntry(got, 2, &label, NULL, NULL) == TS_ERROR_VALUE);
  TsPatternTableDestroy(got);

  /* The BYOC passes one by one with the table. */
  const char* ctable[1] = {"ctable"};
  TsPass pass = NULL;
  CHECK(TsMergeCompositePassCreate(table, &pass) == TS_OK);
  CHECK(pass_gives(pass, mod, "Composite=\"dense_bias\"", "Composite=\"relu\""));
  CHECK(check.calls >= 1);
  CHECK(TsMergeCompositeCompilersPassCreate(ctable, 1, &pass) == TS_OK);
  CHECK(pass_gives(pass, mod, "Composite=\"ctable.dense_bias\"", "Composite="));
  TsPass steps[4] = {NULL, NULL, NULL, NULL};
  CHECK(TsMergeCompositeCompilersPassCreate(ctable, 1, &steps[0]) == TS_OK);
  CHECK(TsAnnotateTargetPassCreate(ctable, 1, 1, &steps[1]) == TS_OK);
  CHECK(TsMergeCompilerRegionsPassCreate(&steps[2]) == TS_OK);
  CHECK(TsPartitionGraphPassCreate(&steps[3]) == TS_OK);
  TsModule cur = mod, next = NULL;
  for (int i = 0; i < 4; ++i) {
    GrowingBuffer name = {NULL, 0};
    CHECK(TsPassPrint(steps[i], append_growing, &name) == TS_OK && name.text);
    free(name.text);
    CHECK(TsPassRun(steps[i], cur, NULL, &next) == TS_OK);
    if (cur != mod) TsModuleDestroy(cur);
    cur = next ? next : mod;
    TsPassDestroy(steps[i]);
  }
  CHECK(module_has(cur, "Compiler=\"ctable\"") && module_has(cur, "@ctable_main_0("));
  if (cur != mod) TsModuleDestroy(cur);

  /* External backends from the table: compiled natively, or from C the test writes. */
  const char* native[1] = {"native"};
  CHECK(TsExternalBackendRegister("cnative", table, NULL, NULL, NULL) == TS_OK);
  CHECK(partition_build_run(mod, "cnative", native, 1));
  TsPatternTableEntry relu_only = {"relu", relu, NULL, NULL, NULL};
  TsPatternTable relu_table = NULL;
  CHECK(TsPatternTableCreate(&relu_only, 1, &relu_table) == TS_OK);
  CHECK(TsExternalBackendRegister("csrc", relu_table, relu_source, &c_sources, count_destroy) ==
        TS_OK);
  CHECK(partition_build_run(mod, "csrc", native, 1) && c_sources == 1);
  int before = destroyed; /* a replaced backend stays alive (executables may use it) */
  CHECK(TsExternalBackendRegister("csrc", relu_table, relu_source, NULL, NULL) == TS_OK);
  CHECK(destroyed == before);

  /* oneDNN when this build has it. */
  GrowingBuffer targets = {NULL, 0};
  CHECK(TsListTargets(append_growing, &targets) == TS_OK);
  if (targets.text && strstr(targets.text, "\"dnnl\"")) {
    const char* with_dnnl[2] = {"native", "dnnl"};
    CHECK(partition_build_run(mod, "dnnl", with_dnnl, 2));
    printf("dnnl: partitioned, built and checked against the interpreter\n");
  }
  free(targets.text);

  /* Bad input. */
  TsPatternTable bad = NULL;
  TsPatternTableEntry holes[1] = {{"x", NULL, check_root, &check, count_destroy}};
  before = destroyed;
  CHECK(TsPatternTableCreate(holes, 1, &bad) == TS_ERROR_INVALID_ARGUMENT && bad == NULL);
  CHECK(TsPatternTableGet("no_such_table", &bad) == TS_ERROR_NOT_FOUND);
  CHECK(TsPatternTableRegister("dnnl", table) == TS_ERROR_VALUE);
  CHECK(TsExternalBackendRegister("native", relu_table, relu_source, &check, count_destroy) ==
        TS_ERROR_VALUE);
  CHECK(TsExternalBackendRegister("a.b", relu_table, NULL, NULL, NULL) == TS_ERROR_VALUE);
  CHECK(destroyed == before); /* refused: the caller still owns its user data */
  TsModule none = NULL;
  CHECK(TsModulePartitionFor(mod, "no_such_compiler", &none) == TS_ERROR_NOT_FOUND && !none);
  const char* with_null[2] = {"ctable", NULL};
  CHECK(TsMergeCompositeCompilersPassCreate(with_null, 2, &pass) == TS_ERROR_VALUE);
  const char* unknown[1] = {"no_such_compiler"};
  CHECK(TsMergeCompositeCompilersPassCreate(unknown, 1, &pass) == TS_ERROR_NOT_FOUND);
  CHECK(TsAnnotateTargetPassCreate(NULL, 1, 1, &pass) == TS_ERROR_VALUE);
  CHECK(TsMergeCompilerRegionsPassCreate(NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsCallIsSupportedBy((TsExpr)mod, "dnnl", &(int){0}) == TS_ERROR_TYPE);
  CHECK(TsListSupportedOps(NULL, append_growing, NULL) == TS_ERROR_INVALID_ARGUMENT);

  TsPattern pats[] = {dense_op, bias_op, relu_op, w1, w2, w3, w4, dense, bias, relu};
  DESTROY_ALL(pats);
  TsPatternTableDestroy(relu_table);
  before = destroyed;
  TsPatternTableDestroy(table); /* the registry and backend still hold the predicate */
  CHECK(destroyed == before);
  TsPatternTableDestroy(NULL);
  TsModuleDestroy(mod);
}

int main(void) {
  test_build_and_print();
  test_match_rewrite_partition();
  test_rewrite_pass_on_module();
  test_tables_and_byoc();
  return check_summary();
}
