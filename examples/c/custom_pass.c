/* The compiler from C beyond parsing text: build a model's IR with the C API, write a pass
 * in C and run it in a pipeline under a pass context with an instrument that records the
 * passes, then build for the native backend and check the result against the interpreter. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessera/c_api.h"

#define TRY(CALL)                                                  \
  do {                                                             \
    if ((CALL) != TS_OK) {                                         \
      fprintf(stderr, "%s failed: %s\n", #CALL, TsGetLastError()); \
      return 1;                                                    \
    }                                                              \
  } while (0)

/* A function pass: counts the calls on the chain from each function's result back to its
 * input (into the int at `user_data`) and keeps the function unchanged. */
static TsStatus count_calls(TsExpr function, TsModule module, TsPassContext context, TsExpr* out,
                            void* user_data) {
  (void)module;
  (void)context;
  TsExpr body = NULL;
  TsExprKind kind;
  if (TsFunctionGetBody(function, &body) != TS_OK) return TS_ERROR_INTERNAL;
  /* Walk the chain of single-argument calls from the result back to the input. */
  while (TsExprGetKind(body, &kind) == TS_OK && kind == TS_EXPR_CALL) {
    ++*(int*)user_data;
    TsExpr arg = NULL;
    TsStatus status = TsCallGetArg(body, 0, &arg);
    TsExprDestroy(body);
    if (status != TS_OK) return status;
    body = arg;
  }
  TsExprDestroy(body);
  *out = TsExprRetain(function); /* unchanged */
  return TS_OK;
}

/* An instrument hook: appends each pass that ran to the text buffer `user_data`. */
static TsStatus record_pass(TsModule module, TsPassInfo info, void* user_data) {
  (void)module;
  TsStringRef name = TsPassInfoGetName(info);
  char* log = (char*)user_data;
  size_t used = strlen(log);
  snprintf(log + used, 512 - used, "%.*s ", (int)name.length, name.data);
  return TS_OK;
}

int main(void) {
  /* main(x: float32[2, 4]) = relu(dense(x, W) + b), W and b constants. */
  TsDType f32;
  TRY(TsDTypeFromName(TsStringRefFromC("float32"), &f32));
  int64_t x_shape[2] = {2, 4}, w_shape[2] = {3, 4}, b_shape[1] = {3};
  float w_data[12], b_data[3] = {0.5f, -1.f, 0.25f};
  for (int i = 0; i < 12; ++i) w_data[i] = (float)(i % 5) - 2.f;
  TsType x_type = NULL;
  TsNDArray w_array = NULL, b_array = NULL;
  TRY(TsTypeTensorCreate(x_shape, 2, f32, &x_type));
  TRY(TsNDArrayFromBuffer(w_data, w_shape, 2, f32, &w_array));
  TRY(TsNDArrayFromBuffer(b_data, b_shape, 1, f32, &b_array));
  TsExpr x = NULL, w = NULL, b = NULL, dense = NULL, biased = NULL, relu = NULL, fn = NULL;
  TRY(TsExprVarCreate(TsStringRefFromC("x"), x_type, &x));
  TRY(TsExprConstantCreate(w_array, &w)); /* copies the data */
  TRY(TsExprConstantCreate(b_array, &b));
  TsExpr dense_args[2] = {x, w};
  TRY(TsExprOpCallCreate(TsStringRefFromC("nn.dense"), dense_args, 2, NULL, 0, NULL, 0, &dense));
  TsExpr bias_args[2] = {dense, b};
  TRY(TsExprOpCallCreate(TsStringRefFromC("nn.bias_add"), bias_args, 2, NULL, 0, NULL, 0, &biased));
  TRY(TsExprOpCallCreate(TsStringRefFromC("nn.relu"), &biased, 1, NULL, 0, NULL, 0, &relu));
  TRY(TsExprFunctionCreate(&x, 1, relu, NULL, NULL, 0, &fn));
  TsModule mod = NULL;
  TRY(TsModuleFromExpr(fn, &mod));

  /* A pipeline: InferType, the C pass, FoldConstant; under a context with an instrument. */
  int calls = 0;
  char log[512] = "";
  TsPass infer = NULL, count = NULL, fold = NULL, pipeline = NULL;
  TRY(TsPassCreateFromRegistry("InferType", NULL, &infer));
  TRY(TsFunctionPassCreate("CountCalls", 0, NULL, 0, 0, count_calls, &calls, NULL, &count));
  TRY(TsPassCreateFromRegistry("FoldConstant", NULL, &fold));
  TsPass passes[3] = {infer, count, fold};
  TRY(TsSequentialCreate(passes, 3, "example", 0, NULL, 0, &pipeline));
  TsPassInstrumentCallbacks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.run_after_pass = record_pass;
  TsPassInstrument recorder = NULL;
  TRY(TsPassInstrumentCreate("recorder", &hooks, log, NULL, &recorder));
  TsPassContext ctx = NULL;
  TRY(TsPassContextCreateWithInstruments(3, NULL, 0, NULL, 0, NULL, &recorder, 1, &ctx));
  TsModule optimized = NULL;
  TRY(TsPassRun(pipeline, mod, ctx, &optimized));
  printf("passes: %s\ncalls in main: %d\n", log, calls);

  /* Build for the native backend and compare with the interpreter on the original. */
  TsTarget target = NULL;
  TsExecutable exe = NULL;
  TRY(TsTargetParse("native -num_threads=1", &target));
  TRY(TsBuild(optimized, &target, 1, ctx, &exe));
  float x_data[8] = {1, -2, 3, -4, 0.5f, 0.25f, -1, 2};
  TsNDArray input = NULL, got = NULL, want = NULL;
  TRY(TsNDArrayFromBuffer(x_data, x_shape, 2, f32, &input));
  const char* names[1] = {"x"};
  size_t n = 0;
  TRY(TsExecutableRun(exe, names, &input, 1, &got, 1, &n));
  TRY(TsModuleRunMain(mod, names, &input, 1, &want, 1, &n));
  float *g = NULL, *r = NULL;
  TRY(TsNDArrayGetInfo(got, (void**)&g, NULL, NULL, NULL));
  TRY(TsNDArrayGetInfo(want, (void**)&r, NULL, NULL, NULL));
  double worst = 0;
  for (int i = 0; i < 6; ++i) worst = fmax(worst, fabs((double)g[i] - (double)r[i]));
  printf("native vs interpreter: max |diff| %g\n", worst);

  TsNDArrayDestroy(got);
  TsNDArrayDestroy(want);
  TsNDArrayDestroy(input);
  TsExecutableDestroy(exe);
  TsTargetDestroy(target);
  TsModuleDestroy(optimized);
  TsPassContextDestroy(ctx);
  TsPassInstrumentDestroy(recorder);
  TsPassDestroy(pipeline);
  TsPassDestroy(fold);
  TsPassDestroy(count);
  TsPassDestroy(infer);
  TsModuleDestroy(mod);
  TsExprDestroy(fn);
  TsExprDestroy(relu);
  TsExprDestroy(biased);
  TsExprDestroy(dense);
  TsExprDestroy(b);
  TsExprDestroy(w);
  TsExprDestroy(x);
  TsNDArrayDestroy(b_array);
  TsNDArrayDestroy(w_array);
  TsTypeDestroy(x_type);
  if (worst > 1e-5 || calls != 3 || !strstr(log, "CountCalls")) {
    fprintf(stderr, "custom_pass: unexpected result\n");
    return 1;
  }
  printf("custom_pass: ok\n");
  return 0;
}
