/* Tensor-level IR through the C API: build two PrimFuncs (a matmul whose reduction is a
 * block with an init, and an elementwise function with a branch, select, cast, intrinsic,
 * scratch allocation and sequence), inspect every field, print them, run them inside a
 * module with the interpreter and compiled for "interp" and "native", and check that bad
 * input is a clear error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_util.h"
#include "tessera/c_api.h"

static const TsDType kI32 = {0, 32, 1};

/* ---- Handles built by the helpers, released at the end ------------------------------- */

typedef struct {
  int kind; /* 0 expression, 1 statement, 2 buffer */
  void* handle;
} Owned;
static Owned owned[512];
static size_t num_owned = 0;

static void own(int kind, void* handle) {
  if (handle && num_owned < sizeof(owned) / sizeof(owned[0]))
    owned[num_owned++] = (Owned){kind, handle};
}
static TsPrimExpr E(TsPrimExpr e) {
  own(0, e);
  return e;
}
static TsStmt S(TsStmt s) {
  own(1, s);
  return s;
}
static TsBuffer B(TsBuffer b) {
  own(2, b);
  return b;
}

static void release_all(void) {
  for (size_t i = 0; i < num_owned; ++i) {
    if (owned[i].kind == 0) TsPrimExprDestroy((TsPrimExpr)owned[i].handle);
    if (owned[i].kind == 1) TsStmtDestroy((TsStmt)owned[i].handle);
    if (owned[i].kind == 2) TsBufferDestroy((TsBuffer)owned[i].handle);
  }
  memset(owned, 0, sizeof(owned)); /* so a leak checker sees any node still referenced */
  num_owned = 0;
}

/* ---- Builders that check and own what they make --------------------------------------- */

static TsPrimExpr var(const char* name) {
  TsPrimExpr v = NULL;
  CHECK(TsPrimExprVarCreate(TsStringRefFromC(name), kI32, &v) == TS_OK);
  return E(v);
}
static TsPrimExpr ci(int64_t value) {
  TsPrimExpr e = NULL;
  CHECK(TsPrimExprIntImmCreate(value, kI32, &e) == TS_OK);
  return E(e);
}
static TsPrimExpr cf(double value) {
  TsPrimExpr e = NULL;
  CHECK(TsPrimExprFloatImmCreate(value, kF32, &e) == TS_OK);
  return E(e);
}
static TsPrimExpr bin(TsBinaryOp op, TsPrimExpr a, TsPrimExpr b) {
  TsPrimExpr e = NULL;
  CHECK(TsPrimExprBinaryCreate(op, a, b, &e) == TS_OK);
  return E(e);
}
static TsPrimExpr load(TsBuffer buffer, TsPrimExpr i, TsPrimExpr j) {
  TsPrimExpr indices[2] = {i, j}, e = NULL;
  CHECK(TsPrimExprBufferLoadCreate(buffer, indices, j ? 2 : 1, &e) == TS_OK);
  return E(e);
}
static TsStmt store(TsBuffer buffer, TsPrimExpr value, TsPrimExpr i, TsPrimExpr j) {
  TsPrimExpr indices[2] = {i, j};
  TsStmt s = NULL;
  CHECK(TsStmtBufferStoreCreate(buffer, value, indices, j ? 2 : 1, &s) == TS_OK);
  return S(s);
}
static TsStmt loop(TsPrimExpr v, int64_t extent, TsForKind kind, TsStmt body) {
  TsStmt s = NULL;
  CHECK(TsStmtForCreate(v, ci(0), ci(extent), kind, body, &s) == TS_OK);
  return S(s);
}
static TsBuffer buffer(const char* name, int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  TsBuffer b = NULL;
  CHECK(TsBufferCreate(TsStringRefFromC(name), shape, d1 ? 2 : 1, kF32, &b) == TS_OK);
  return B(b);
}

/* ---- Getter shorthands (new references, owned) --------------------------------------- */

static TsStmt for_body(TsStmt s) {
  TsStmt b = NULL;
  CHECK(TsStmtForGetBody(s, &b) == TS_OK);
  return S(b);
}
static int64_t int_value(TsPrimExpr e) {
  int64_t v = -999;
  CHECK(TsPrimExprIntImmGetValue(e, &v) == TS_OK);
  return v;
}
static TsPrimExprKind expr_kind(TsPrimExpr e) {
  TsPrimExprKind k = (TsPrimExprKind)-1;
  CHECK(TsPrimExprGetKind(e, &k) == TS_OK);
  return k;
}
static TsStmtKind stmt_kind(TsStmt s) {
  TsStmtKind k = (TsStmtKind)-1;
  CHECK(TsStmtGetKind(s, &k) == TS_OK);
  return k;
}
/* ---- The matmul: C[i, j] = sum_k A[i, k] * B[k, j] as a reduction block --------------- */

static TsBuffer mm_a, mm_b, mm_c;
static TsPrimExpr mm_i, mm_vk, mm_k;

static TsExpr build_matmul(void) {
  mm_a = buffer("A", 2, 3), mm_b = buffer("B", 3, 2), mm_c = buffer("C", 2, 2);
  mm_i = var("i");
  TsPrimExpr j = var("j");
  mm_k = var("k");
  TsPrimExpr vi = var("vi"), vj = var("vj");
  mm_vk = var("vk");
  TsIterVar ivs[3] = {{vi, {ci(0), ci(2)}, TS_ITER_SPATIAL, mm_i},
                      {vj, {ci(0), ci(2)}, TS_ITER_SPATIAL, j},
                      {mm_vk, {ci(0), ci(3)}, TS_ITER_REDUCE, mm_k}};
  TsRange a_ranges[2] = {{vi, ci(1)}, {mm_vk, ci(1)}}, b_ranges[2] = {{mm_vk, ci(1)}, {vj, ci(1)}};
  TsRange c_ranges[2] = {{vi, ci(1)}, {vj, ci(1)}};
  TsBufferRegion reads[2] = {{mm_a, a_ranges, 2}, {mm_b, b_ranges, 2}};
  TsBufferRegion writes[1] = {{mm_c, c_ranges, 2}};
  TsStmt init = store(mm_c, cf(0.0), vi, vj);
  TsPrimExpr product = bin(TS_BINARY_MUL, load(mm_a, vi, mm_vk), load(mm_b, mm_vk, vj));
  TsStmt update = store(mm_c, bin(TS_BINARY_ADD, load(mm_c, vi, vj), product), vi, vj);
  TsStmt block = NULL;
  CHECK(TsStmtBlockCreate(TsStringRefFromC("C"), ivs, 3, reads, 2, writes, 1, init, update,
                          &block) == TS_OK);
  TsStmt body = loop(mm_i, 2, TS_FOR_PARALLEL,
                     loop(j, 2, TS_FOR_SERIAL, loop(mm_k, 3, TS_FOR_UNROLLED, S(block))));
  TsBuffer params[3] = {mm_a, mm_b, mm_c};
  TsExpr func = NULL;
  CHECK(TsPrimFuncCreate(params, 3, body, 1, NULL, 0, &func) == TS_OK);
  return func;
}

static void check_matmul_structure(TsExpr func) {
  size_t n = 0;
  int outputs = 0;
  CHECK(TsPrimFuncGetNumParams(func, &n) == TS_OK && n == 3);
  CHECK(TsPrimFuncGetNumOutputs(func, &outputs) == TS_OK && outputs == 1);
  TsBuffer a = NULL;
  CHECK(TsPrimFuncGetParam(func, 0, &a) == TS_OK && B(a) == mm_a);
  TsStringRef name = {0};
  const int64_t* shape = NULL;
  TsDType dtype = {0};
  CHECK(TsBufferGetName(a, &name) == TS_OK && ref_is(name, "A"));
  CHECK(TsBufferGetShape(a, &shape, &n) == TS_OK && n == 2 && shape[0] == 2 && shape[1] == 3);
  CHECK(TsBufferGetDType(a, &dtype) == TS_OK && dtype.code == 2 && dtype.bits == 32);

  TsStmt outer = NULL;
  CHECK(TsPrimFuncGetBody(func, &outer) == TS_OK && stmt_kind(S(outer)) == TS_STMT_FOR);
  TsForKind kind = TS_FOR_SERIAL;
  TsPrimExpr lv = NULL, mn = NULL, ext = NULL;
  CHECK(TsStmtForGetKind(outer, &kind) == TS_OK && kind == TS_FOR_PARALLEL);
  CHECK(TsStmtForGetLoopVar(outer, &lv) == TS_OK && E(lv) == mm_i);
  CHECK(TsStmtForGetMin(outer, &mn) == TS_OK && int_value(E(mn)) == 0);
  CHECK(TsStmtForGetExtent(outer, &ext) == TS_OK && int_value(E(ext)) == 2);
  CHECK(TsPrimExprVarGetName(lv, &name) == TS_OK && ref_is(name, "i"));
  TsStmt block = for_body(for_body(for_body(outer)));
  CHECK(stmt_kind(block) == TS_STMT_BLOCK);

  CHECK(TsStmtBlockGetName(block, &name) == TS_OK && ref_is(name, "C"));
  CHECK(TsStmtBlockGetNumIterVars(block, &n) == TS_OK && n == 3);
  TsIterVar iv = {0};
  CHECK(TsStmtBlockGetIterVar(block, 2, &iv) == TS_OK);
  CHECK(iv.var == mm_vk && iv.binding == mm_k && iv.kind == TS_ITER_REDUCE);
  CHECK(int_value(iv.dom.extent) == 3);
  E(iv.var), E(iv.binding), E(iv.dom.min), E(iv.dom.extent);
  CHECK(TsStmtBlockGetNumReads(block, &n) == TS_OK && n == 2);
  CHECK(TsStmtBlockGetNumWrites(block, &n) == TS_OK && n == 1);
  TsBuffer region_buffer = NULL;
  CHECK(TsStmtBlockGetRead(block, 0, &region_buffer, &n) == TS_OK && n == 2);
  CHECK(B(region_buffer) == mm_a);
  CHECK(TsStmtBlockGetWrite(block, 0, &region_buffer, NULL) == TS_OK && B(region_buffer) == mm_c);
  TsRange range = {0};
  CHECK(TsStmtBlockGetReadRange(block, 0, 1, &range) == TS_OK);
  CHECK(E(range.min) == mm_vk && int_value(E(range.extent)) == 1);
  CHECK(TsStmtBlockGetWriteRange(block, 0, 0, &range) == TS_OK);
  CHECK(expr_kind(E(range.min)) == TS_PRIM_EXPR_VAR && E(range.extent) != NULL);

  TsStmt init = NULL, body = NULL;
  CHECK(TsStmtBlockGetInit(block, &init) == TS_OK && stmt_kind(S(init)) == TS_STMT_BUFFER_STORE);
  CHECK(TsStmtBlockGetBody(block, &body) == TS_OK && stmt_kind(S(body)) == TS_STMT_BUFFER_STORE);
  TsBuffer stored = NULL;
  TsPrimExpr value = NULL, rhs = NULL, lhs = NULL, index = NULL;
  CHECK(TsStmtBufferStoreGetBuffer(body, &stored) == TS_OK && B(stored) == mm_c);
  CHECK(TsStmtBufferStoreGetNumIndices(body, &n) == TS_OK && n == 2);
  CHECK(TsStmtBufferStoreGetIndex(body, 1, &index) == TS_OK &&
        expr_kind(E(index)) == TS_PRIM_EXPR_VAR);
  CHECK(TsStmtBufferStoreGetValue(body, &value) == TS_OK);
  TsBinaryOp op = TS_BINARY_OR;
  CHECK(TsPrimExprBinaryGetOp(E(value), &op) == TS_OK && op == TS_BINARY_ADD);
  CHECK(TsPrimExprBinaryGetB(value, &rhs) == TS_OK && expr_kind(E(rhs)) == TS_PRIM_EXPR_BINARY);
  CHECK(TsPrimExprBinaryGetA(rhs, &lhs) == TS_OK && expr_kind(E(lhs)) == TS_PRIM_EXPR_BUFFER_LOAD);
  CHECK(TsPrimExprBufferLoadGetBuffer(lhs, &stored) == TS_OK && B(stored) == mm_a);
  CHECK(TsPrimExprBufferLoadGetNumIndices(lhs, &n) == TS_OK && n == 2);
  CHECK(TsPrimExprBufferLoadGetIndex(lhs, 1, &index) == TS_OK && E(index) == mm_vk);
  CHECK(TsPrimExprGetDType(value, &dtype) == TS_OK && dtype.code == 2 && dtype.bits == 32);

  GrowingBuffer text = {NULL, 0};
  CHECK(TsPrimExprPrint(value, append_growing, &text) == TS_OK);
  CHECK(text.text && strcmp(text.text, "%C[%vi, %vj] + %A[%vi, %vk] * %B[%vk, %vj]") == 0);
  free(text.text);
  text = (GrowingBuffer){NULL, 0};
  CHECK(TsStmtPrint(outer, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "for %i: int32 in 0 +: 2 parallel") != NULL);
  CHECK(text.text && strstr(text.text, "init {") != NULL);
  free(text.text);
}

/* ---- The elementwise function: b[i] = i < 3 ? select(a[i] > 0, exp(a[i]), 0)
 *                                             : float(i // 2) + max(a[i], -1) ------------ */

static TsExpr build_mix(TsStmt* seq_out) {
  TsBuffer a = buffer("a", 6, 0), b = buffer("b", 6, 0), t = buffer("t", 1, 0);
  TsPrimExpr i = var("i"), zero = ci(0), ai = load(a, i, NULL);
  TsPrimExpr args[1] = {ai}, exp_a = NULL, not_late = NULL, sel = NULL, half = NULL;
  CHECK(TsPrimExprIntrinsicCreate(TsStringRefFromC("exp"), args, 1, &exp_a) == TS_OK);
  CHECK(TsPrimExprSelectCreate(bin(TS_BINARY_GT, ai, cf(0.0)), E(exp_a), cf(0.0), &sel) == TS_OK);
  CHECK(TsPrimExprNotCreate(bin(TS_BINARY_GE, i, ci(3)), &not_late) == TS_OK);
  CHECK(TsPrimExprCastCreate(kF32, bin(TS_BINARY_FLOOR_DIV, i, ci(2)), &half) == TS_OK);
  TsPrimExpr late = bin(TS_BINARY_ADD, E(half), bin(TS_BINARY_MAX, ai, cf(-1.0)));
  TsStmt branch = NULL, seq = NULL, alloc = NULL;
  CHECK(TsStmtIfThenElseCreate(E(not_late), store(t, E(sel), zero, NULL),
                               store(t, late, zero, NULL), &branch) == TS_OK);
  TsStmt parts[2] = {S(branch), store(b, load(t, zero, NULL), i, NULL)};
  CHECK(TsStmtSeqCreate(parts, 2, &seq) == TS_OK);
  CHECK(TsStmtAllocateCreate(t, S(seq), &alloc) == TS_OK);
  *seq_out = seq;
  TsBuffer params[2] = {a, b};
  TsExpr func = NULL;
  CHECK(TsPrimFuncCreate(params, 2, loop(i, 6, TS_FOR_SERIAL, S(alloc)), 1, NULL, 0, &func) ==
        TS_OK);
  return func;
}

static void check_mix_structure(TsExpr func, TsStmt seq) {
  TsStmt outer = NULL;
  CHECK(TsPrimFuncGetBody(func, &outer) == TS_OK);
  TsStmt alloc = for_body(S(outer));
  CHECK(stmt_kind(alloc) == TS_STMT_ALLOCATE);
  TsBuffer t = NULL;
  TsStmt body = NULL, branch = NULL, else_case = NULL, then_case = NULL, single = NULL;
  TsStringRef name = {0};
  CHECK(TsStmtAllocateGetBuffer(alloc, &t) == TS_OK && TsBufferGetName(B(t), &name) == TS_OK);
  CHECK(ref_is(name, "t"));
  CHECK(TsStmtAllocateGetBody(alloc, &body) == TS_OK && S(body) == seq);
  size_t n = 0;
  CHECK(TsStmtSeqGetNumStmts(seq, &n) == TS_OK && n == 2);
  CHECK(TsStmtSeqGetStmt(seq, 0, &branch) == TS_OK && stmt_kind(S(branch)) == TS_STMT_IF_THEN_ELSE);
  CHECK(TsStmtIfThenElseGetThen(branch, &then_case) == TS_OK && S(then_case) != NULL);
  CHECK(TsStmtIfThenElseGetElse(branch, &else_case) == TS_OK && S(else_case) != NULL);

  TsPrimExpr cond = NULL, inner = NULL, value = NULL, part = NULL;
  CHECK(TsStmtIfThenElseGetCondition(branch, &cond) == TS_OK);
  CHECK(expr_kind(E(cond)) == TS_PRIM_EXPR_NOT);
  TsDType dtype = {0};
  CHECK(TsPrimExprGetDType(cond, &dtype) == TS_OK && dtype.code == 6 && dtype.bits == 8);
  CHECK(TsPrimExprNotGetA(cond, &inner) == TS_OK && expr_kind(E(inner)) == TS_PRIM_EXPR_BINARY);
  TsBinaryOp op = TS_BINARY_ADD;
  CHECK(TsPrimExprBinaryGetOp(inner, &op) == TS_OK && op == TS_BINARY_GE);
  CHECK(strcmp(TsBinaryOpGetName(op), ">=") == 0);

  CHECK(TsStmtBufferStoreGetValue(then_case, &value) == TS_OK);
  CHECK(expr_kind(E(value)) == TS_PRIM_EXPR_SELECT);
  CHECK(TsPrimExprSelectGetCondition(value, &part) == TS_OK &&
        expr_kind(E(part)) == TS_PRIM_EXPR_BINARY);
  CHECK(TsPrimExprSelectGetFalseValue(value, &part) == TS_OK &&
        expr_kind(E(part)) == TS_PRIM_EXPR_FLOAT_IMM);
  double f = 1;
  CHECK(TsPrimExprFloatImmGetValue(part, &f) == TS_OK && f == 0.0);
  CHECK(TsPrimExprSelectGetTrueValue(value, &part) == TS_OK &&
        expr_kind(E(part)) == TS_PRIM_EXPR_INTRINSIC);
  CHECK(TsPrimExprIntrinsicGetName(part, &name) == TS_OK && ref_is(name, "exp"));
  CHECK(TsPrimExprIntrinsicGetNumArgs(part, &n) == TS_OK && n == 1);
  CHECK(TsPrimExprIntrinsicGetArg(part, 0, &inner) == TS_OK &&
        expr_kind(E(inner)) == TS_PRIM_EXPR_BUFFER_LOAD);

  CHECK(TsStmtBufferStoreGetValue(else_case, &value) == TS_OK);
  CHECK(TsPrimExprBinaryGetA(E(value), &part) == TS_OK && expr_kind(E(part)) == TS_PRIM_EXPR_CAST);
  CHECK(TsPrimExprGetDType(part, &dtype) == TS_OK && dtype.code == 2);
  CHECK(TsPrimExprCastGetValue(part, &inner) == TS_OK &&
        TsPrimExprBinaryGetOp(E(inner), &op) == TS_OK);
  CHECK(op == TS_BINARY_FLOOR_DIV && strcmp(TsBinaryOpGetName(op), "floordiv") == 0);

  /* A sequence of one statement is that statement; nested sequences are flattened. */
  TsStmt parts[2] = {branch, seq};
  CHECK(TsStmtSeqCreate(parts, 1, &single) == TS_OK && S(single) == branch);
  CHECK(TsStmtSeqCreate(parts, 2, &single) == TS_OK &&
        TsStmtSeqGetNumStmts(S(single), &n) == TS_OK);
  CHECK(n == 3);
}

/* ---- Running inside a module ------------------------------------------------------------ */

static void append_printed(GrowingBuffer* out, TsExpr func, const char* name) {
  GrowingBuffer text = {NULL, 0};
  CHECK(TsPrimFuncPrint(func, TsStringRefFromC(name), append_growing, &text) == TS_OK);
  if (!text.text) return;
  const char* after_header = strchr(text.text, '\n'); /* one #[version] line per module */
  if (after_header) append_growing(after_header, strlen(after_header), out);
  free(text.text);
}

static const char* kMain =
    "#[version = \"0.0.5\"]\n"
    "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3, 2), float32], "
    "%z: Tensor[(6), float32]) {\n"
    "  (call_tir(@matmul, (%x, %y), Tensor[(2, 2), float32]), "
    "call_tir(@mix, (%z,), Tensor[(6), float32]))\n"
    "}\n";

static float x[6] = {1, 2, 3, -1, 0.5f, 2}, y[6] = {1, -2, 0.5f, 1, 3, 0};
static float z[6] = {-1, 0.5f, 2, -3, 0.25f, 4};

static void check_outputs(TsNDArray* out, size_t num_out, const char* where) {
  CHECK(num_out == 2);
  if (num_out != 2) return;
  float *c = NULL, *w = NULL;
  CHECK(TsNDArrayGetInfo(out[0], (void**)&c, NULL, NULL, NULL) == TS_OK);
  CHECK(TsNDArrayGetInfo(out[1], (void**)&w, NULL, NULL, NULL) == TS_OK);
  int bad = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float want = 0;
      for (int k = 0; k < 3; ++k) want += x[i * 3 + k] * y[k * 2 + j];
      if (fabsf(c[i * 2 + j] - want) > 1e-5f) ++bad;
    }
  for (int i = 0; i < 6; ++i) {
    float want = i < 3 ? (z[i] > 0 ? expf(z[i]) : 0.0f) : (float)(i / 2) + fmaxf(z[i], -1.0f);
    if (fabsf(w[i] - want) > 1e-5f * (1 + fabsf(want))) ++bad;
  }
  if (bad) fprintf(stderr, "%s: %d wrong values\n", where, bad);
  CHECK(bad == 0);
}

static void run_in_module(TsExpr matmul, TsExpr mix) {
  GrowingBuffer text = {NULL, 0};
  append_growing(kMain, strlen(kMain), &text);
  append_printed(&text, matmul, "matmul");
  append_printed(&text, mix, "mix");
  TsModule mod = NULL;
  CHECK(TsModuleParse(text.text, text.length, &mod) == TS_OK);
  free(text.text);
  if (!mod) return;

  int64_t xs[2] = {2, 3}, ys[2] = {3, 2}, zs[1] = {6};
  TsNDArray inputs[3] = {NULL, NULL, NULL}, out[2] = {NULL, NULL};
  CHECK(TsNDArrayFromBuffer(x, xs, 2, kF32, &inputs[0]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(y, ys, 2, kF32, &inputs[1]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(z, zs, 1, kF32, &inputs[2]) == TS_OK);
  const char* names[3] = {"x", "y", "z"};
  size_t num_out = 0;
  CHECK(TsModuleRunMain(mod, names, inputs, 3, out, 2, &num_out) == TS_OK);
  check_outputs(out, num_out, "interpreter");
  for (size_t i = 0; i < num_out; ++i) TsNDArrayDestroy(out[i]);

  const char* targets[2] = {"interp", "native -num_threads=1"};
  for (int t = 0; t < 2; ++t) {
    TsTarget target = NULL;
    TsExecutable exe = NULL;
    num_out = 0;
    CHECK(TsTargetParse(targets[t], &target) == TS_OK);
    CHECK(TsBuild(mod, &target, 1, NULL, &exe) == TS_OK);
    if (exe) {
      CHECK(TsExecutableRun(exe, names, inputs, 3, out, 2, &num_out) == TS_OK);
      check_outputs(out, num_out, targets[t]);
      for (size_t i = 0; i < num_out; ++i) TsNDArrayDestroy(out[i]);
    }
    TsExecutableDestroy(exe);
    TsTargetDestroy(target);
  }
  for (int i = 0; i < 3; ++i) TsNDArrayDestroy(inputs[i]);
  TsModuleDestroy(mod);
}

static void check_with_body_and_script(TsExpr matmul) {
  TsStmt body = NULL, serial = NULL, inner = NULL;
  TsPrimExpr lv = NULL, mn = NULL, ext = NULL;
  CHECK(TsPrimFuncGetBody(matmul, &body) == TS_OK);
  CHECK(TsStmtForGetLoopVar(S(body), &lv) == TS_OK && TsStmtForGetMin(body, &mn) == TS_OK);
  CHECK(TsStmtForGetExtent(body, &ext) == TS_OK && TsStmtForGetBody(body, &inner) == TS_OK);
  CHECK(TsStmtForCreate(E(lv), E(mn), E(ext), TS_FOR_SERIAL, S(inner), &serial) == TS_OK);
  TsExpr edited = NULL;
  CHECK(TsPrimFuncWithBody(matmul, S(serial), &edited) == TS_OK);
  TsBuffer param = NULL;
  CHECK(TsPrimFuncGetParam(edited, 2, &param) == TS_OK && B(param) == mm_c);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsPrimFuncPrint(edited, TsStringRefFromC(""), append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "primfn @func(%A: Buffer[(2, 3), float32]") != NULL);
  CHECK(text.text && strstr(text.text, "for %i: int32 in 0 +: 2 serial") != NULL);
  CHECK(text.text && strstr(text.text, "block \"C\"") != NULL);
  /* The printed text is a module the parser reads back and prints the same. */
  TsModule mod = NULL;
  CHECK(text.text && TsModuleParse(text.text, text.length, &mod) == TS_OK);
  GrowingBuffer again = {NULL, 0};
  CHECK(mod && TsModulePrint(mod, append_growing, &again) == TS_OK);
  CHECK(again.text && text.text && strcmp(again.text, text.text) == 0);
  free(text.text);
  free(again.text);
  TsModuleDestroy(mod);
  TsExprDestroy(edited);
}

/* ---- Bad input ---------------------------------------------------------------------------- */

static void check_errors(TsExpr matmul, TsStmt seq) {
  TsPrimExpr e = NULL, i = var("i");
  TsStmt s = NULL;
  TsBuffer a = buffer("a", 4, 0);
  TsExpr f = NULL;
  size_t n = 0;

  CHECK(TsPrimExprBinaryCreate(TS_BINARY_ADD, i, cf(1.0), &e) == TS_ERROR_TYPE);
  CHECK(error_has("int32") && error_has("float32"));
  CHECK(TsPrimExprBinaryCreate((TsBinaryOp)99, i, i, &e) == TS_ERROR_VALUE &&
        error_has("TsBinaryOp"));
  CHECK(TsPrimExprBinaryCreate(TS_BINARY_ADD, NULL, i, &e) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPrimExprBinaryCreate(TS_BINARY_ADD, i, (TsPrimExpr)seq, &e) == TS_ERROR_TYPE);
  CHECK(error_has("TsPrimExprBinaryCreate: b is a sequence, expected a scalar expression"));
  CHECK(TsPrimExprIntImmCreate(1, kF32, &e) == TS_ERROR_TYPE);
  CHECK(TsPrimExprFloatImmCreate(1, kI32, &e) == TS_ERROR_TYPE);
  TsDType bad_dtype = {2, 7, 1};
  CHECK(TsPrimExprVarCreate(TsStringRefFromC("v"), bad_dtype, &e) == TS_ERROR_UNSUPPORTED);
  TsPrimExpr one[1] = {cf(1.0)};
  CHECK(TsPrimExprIntrinsicCreate(TsStringRefFromC("nope"), one, 1, &e) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("unknown intrinsic 'nope'") && error_has("sqrt"));
  CHECK(TsPrimExprIntrinsicCreate(TsStringRefFromC("pow"), one, 1, &e) == TS_ERROR_TYPE);
  CHECK(TsPrimExprNotCreate(i, &e) == TS_ERROR_TYPE);
  CHECK(TsPrimExprSelectCreate(i, i, i, &e) == TS_ERROR_TYPE);
  TsPrimExpr two[2] = {i, NULL};
  CHECK(TsPrimExprBufferLoadCreate(a, two, 2, &e) == TS_ERROR_VALUE && error_has("index 1"));
  CHECK(TsPrimExprBufferLoadCreate(a, NULL, 1, &e) == TS_ERROR_VALUE);
  two[1] = i;
  CHECK(TsPrimExprBufferLoadCreate(a, two, 2, &e) == TS_ERROR_TYPE && error_has("rank 1"));
  int64_t negative[1] = {-2};
  TsBuffer nb = NULL;
  CHECK(TsBufferCreate(TsStringRefFromC("n"), negative, 1, kF32, &nb) == TS_ERROR_TYPE);
  CHECK(TsBufferCreate(TsStringRefFromC("n"), NULL, 1, kF32, &nb) == TS_ERROR_INVALID_ARGUMENT);

  CHECK(TsStmtBufferStoreCreate(a, i, &i, 1, &s) == TS_ERROR_TYPE &&
        error_has("int32 into float32"));
  TsStmt ok_store = store(a, cf(1.0), i, NULL);
  CHECK(TsStmtForCreate(ci(0), ci(0), ci(4), TS_FOR_SERIAL, ok_store, &s) == TS_ERROR_TYPE);
  CHECK(error_has("TsStmtForCreate: loop_var is an integer literal, expected a variable"));
  CHECK(TsStmtForCreate(i, ci(0), ci(4), (TsForKind)7, ok_store, &s) == TS_ERROR_VALUE);
  CHECK(TsStmtForCreate(i, ci(0), ci(4), TS_FOR_SERIAL, NULL, &s) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsStmtSeqCreate(NULL, 2, &s) == TS_ERROR_VALUE);
  CHECK(TsStmtPrefetchCreate(a, NULL, 0, &s) == TS_ERROR_TYPE && error_has("rank 1 with 0"));
  TsStmt hint = NULL;
  CHECK(TsStmtPrefetchCreate(a, &i, 1, &hint) == TS_OK);
  TsStmtKind hint_kind;
  size_t hint_indices = 0;
  TsBuffer hint_buffer = NULL;
  CHECK(TsStmtGetKind(hint, &hint_kind) == TS_OK && hint_kind == TS_STMT_PREFETCH);
  CHECK(TsStmtPrefetchGetNumIndices(hint, &hint_indices) == TS_OK && hint_indices == 1);
  CHECK(TsStmtPrefetchGetBuffer(hint, &hint_buffer) == TS_OK);
  TsBufferDestroy(hint_buffer);
  CHECK(TsStmtBufferStoreGetNumIndices(hint, &hint_indices) == TS_ERROR_TYPE &&
        error_has("a prefetch"));
  TsStmtDestroy(hint);
  CHECK(TsStmtIfThenElseCreate(i, ok_store, NULL, &s) == TS_ERROR_TYPE && error_has("bool"));
  CHECK(TsStmtAllocateCreate(a, NULL, &s) == TS_ERROR_INVALID_ARGUMENT);
  TsStmt uninit = NULL;
  int fill = -1;
  CHECK(TsStmtAllocateCreateWithFill(a, ok_store, 0, &uninit) == TS_OK);
  CHECK(TsStmtAllocateGetZeroFill(uninit, &fill) == TS_OK && fill == 0);
  TsStmtDestroy(uninit);
  TsIterVar iv = {i, {ci(0), ci(4)}, TS_ITER_SPATIAL, NULL};
  CHECK(TsStmtBlockCreate(TsStringRefFromC("b"), &iv, 1, NULL, 0, NULL, 0, NULL, ok_store, &s) ==
        TS_ERROR_VALUE);
  CHECK(error_has("iteration variable 0"));
  iv.binding = i;
  iv.kind = (TsIterKind)5;
  CHECK(TsStmtBlockCreate(TsStringRefFromC("b"), &iv, 1, NULL, 0, NULL, 0, NULL, ok_store, &s) ==
        TS_ERROR_VALUE);
  TsBufferRegion region = {a, NULL, 1};
  CHECK(TsStmtBlockCreate(TsStringRefFromC("b"), NULL, 0, &region, 1, NULL, 0, NULL, ok_store,
                          &s) == TS_ERROR_VALUE &&
        error_has("read 0"));

  TsForKind kind = TS_FOR_SERIAL;
  CHECK(TsForKindFromName(TsStringRefFromC("fast"), &kind) == TS_ERROR_VALUE);
  CHECK(error_has("unknown loop kind 'fast' (valid: serial, parallel, vectorized, unrolled)"));
  CHECK(TsForKindFromName(TsStringRefFromC("vectorized"), &kind) == TS_OK &&
        kind == TS_FOR_VECTORIZED);
  CHECK(strcmp(TsForKindGetName(TS_FOR_UNROLLED), "unrolled") == 0);
  CHECK(TsForKindGetName((TsForKind)9) == NULL && TsBinaryOpGetName((TsBinaryOp)-1) == NULL);

  TsBuffer params[1] = {a};
  CHECK(TsPrimFuncCreate(params, 1, ok_store, 2, NULL, 0, &f) == TS_ERROR_VALUE);
  CHECK(error_has("num_outputs must be from 1 to the 1 buffer(s), got 2"));
  CHECK(TsPrimFuncCreate(params, 1, ok_store, 0, NULL, 0, &f) == TS_ERROR_VALUE);
  CHECK(TsPrimFuncCreate(params, 1, ok_store, 1, NULL, 1, &f) == TS_ERROR_VALUE);
  CHECK(TsPrimFuncCreate(params, 1, NULL, 1, NULL, 0, &f) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPrimFuncCreate(NULL, 1, ok_store, 1, NULL, 0, &f) == TS_ERROR_VALUE);
  CHECK(f == NULL);

  /* Getters: wrong kinds, indices out of range, NULL handles. */
  CHECK(TsStmtForGetBody(ok_store, &s) == TS_ERROR_TYPE);
  CHECK(error_has("TsStmtForGetBody: stmt is a buffer store, expected a loop"));
  CHECK(TsPrimExprBinaryGetOp(i, NULL) == TS_ERROR_INVALID_ARGUMENT);
  TsBinaryOp op;
  CHECK(TsPrimExprBinaryGetOp(i, &op) == TS_ERROR_TYPE && error_has("is a variable"));
  CHECK(TsPrimExprGetKind(NULL, &(TsPrimExprKind){0}) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPrimFuncGetBody((TsExpr)seq, &s) == TS_ERROR_TYPE && error_has("expected a PrimFunc"));
  CHECK(TsPrimFuncGetParam(matmul, 3, &a) == TS_ERROR_VALUE);
  CHECK(error_has("TsPrimFuncGetParam: param index 3 is out of range (size 3)"));
  CHECK(TsStmtSeqGetStmt(seq, 5, &s) == TS_ERROR_VALUE);
  CHECK(TsStmtBufferStoreGetIndex(ok_store, 1, &e) == TS_ERROR_VALUE);
  CHECK(TsPrimExprBufferLoadGetIndex(load(a, i, NULL), 1, &e) == TS_ERROR_VALUE);
  TsStmt body = NULL, block = NULL;
  CHECK(TsPrimFuncGetBody(matmul, &body) == TS_OK);
  block = for_body(for_body(for_body(S(body))));
  TsRange range;
  CHECK(TsStmtBlockGetReadRange(block, 0, 2, &range) == TS_ERROR_VALUE &&
        error_has("range index 2"));
  CHECK(TsStmtBlockGetWrite(block, 1, NULL, &n) == TS_ERROR_VALUE && error_has("write index 1"));
  CHECK(TsStmtBlockGetIterVar(block, 3, &iv) == TS_ERROR_VALUE);
  CHECK(TsPrimFuncWithBody(matmul, NULL, &f) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsPrimFuncPrint(matmul, TsStringRefFromC("m"), NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(e == NULL && nb == NULL);
  TsPrimExprDestroy(NULL);
  TsStmtDestroy(NULL);
  TsBufferDestroy(NULL);
  TsExprDestroy(NULL);
}

int main(void) {
  TsStmt mix_seq = NULL;
  TsExpr matmul = build_matmul();
  TsExpr mix = build_mix(&mix_seq);
  if (matmul && mix && mix_seq) {
    check_matmul_structure(matmul);
    check_mix_structure(mix, mix_seq);
    check_with_body_and_script(matmul);
    run_in_module(matmul, mix);
    check_errors(matmul, mix_seq);
  }
  TsExprDestroy(matmul);
  TsExprDestroy(mix);
  release_all();
  mm_a = mm_b = mm_c = NULL;
  mm_i = mm_vk = mm_k = NULL;
  return check_summary();
}
