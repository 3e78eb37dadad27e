/* Embedding Tessera from C: parse a model, type-check it with a pipeline, run it with the
 * interpreter, then build it for the native CPU backend and run the compiled executable. */
#include <stdio.h>

#include "tessera/c_api.h"

static void print_chunk(const char* data, size_t length, void* user) {
  (void)user;
  fwrite(data, 1, length, stdout);
}

int main(void) {
  const char* model =
      "def @main(%x: Tensor[(4), float32]) {\n"
      "  %0 = multiply(%x, %x);\n"
      "  nn.relu(%0)\n"
      "}\n";
  TsModule mod = NULL, typed = NULL;
  TsPass pipeline = NULL;
  TsPassContext ctx = NULL;
  if (TsModuleParse(model, (size_t)-1, &mod) != TS_OK ||
      TsPassContextCreate(2, NULL, 0, NULL, 0, "{}", &ctx) != TS_OK ||
      TsPipelineParse("InferType", &pipeline) != TS_OK ||
      TsPassRun(pipeline, mod, ctx, &typed) != TS_OK) {
    fprintf(stderr, "tessera: %s\n", TsGetLastError());
    return 1;
  }
  TsModulePrint(typed, print_chunk, NULL);

  float x[4] = {1, -2, 3, -4};
  int64_t shape[1] = {4};
  TsDType f32 = {2, 32, 1};
  TsNDArray input = NULL, output = NULL;
  const char* names[1] = {"x"};
  size_t num_outputs = 0;
  if (TsNDArrayFromBuffer(x, shape, 1, f32, &input) != TS_OK ||
      TsModuleRunMain(typed, names, &input, 1, &output, 1, &num_outputs) != TS_OK) {
    fprintf(stderr, "tessera: %s\n", TsGetLastError());
    return 1;
  }
  float* y = NULL;
  TsNDArrayGetInfo(output, (void**)&y, NULL, NULL, NULL);
  printf("y = [%g, %g, %g, %g]\n", y[0], y[1], y[2], y[3]);

  /* Compile for the native backend (under the same pass context) and run that. */
  TsTarget target = NULL;
  TsExecutable exe = NULL;
  TsNDArray compiled = NULL;
  if (TsTargetParse("native -num_threads=1", &target) != TS_OK ||
      TsBuild(mod, &target, 1, ctx, &exe) != TS_OK ||
      TsExecutableRun(exe, names, &input, 1, &compiled, 1, &num_outputs) != TS_OK) {
    fprintf(stderr, "tessera: %s\n", TsGetLastError());
    return 1;
  }
  float* z = NULL;
  TsNDArrayGetInfo(compiled, (void**)&z, NULL, NULL, NULL);
  printf("native y = [%g, %g, %g, %g]\n", z[0], z[1], z[2], z[3]);

  TsNDArrayDestroy(compiled);
  TsExecutableDestroy(exe);
  TsTargetDestroy(target);

  TsNDArrayDestroy(output);
  TsNDArrayDestroy(input);
  TsPassDestroy(pipeline);
  TsPassContextDestroy(ctx);
  TsModuleDestroy(typed);
  TsModuleDestroy(mod);
  return 0;
}
