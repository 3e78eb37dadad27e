/* Embeds Tessera through the C API only: parse, pipeline under a config, run, errors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessera/c_api.h"

static int passed = 0, failed = 0;

#define CHECK(COND)                                                                            \
  do {                                                                                         \
    if (COND) {                                                                                \
      ++passed;                                                                                \
    } else {                                                                                   \
      ++failed;                                                                                \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #COND, \
              TsGetLastError());                                                               \
    }                                                                                          \
  } while (0)

/* Appends library text into a fixed buffer. */
typedef struct {
  char text[65536];
  size_t length;
} Buffer;

static void append(const char* data, size_t length, void* user) {
  Buffer* b = (Buffer*)user;
  if (b->length + length >= sizeof(b->text)) length = sizeof(b->text) - 1 - b->length;
  memcpy(b->text + b->length, data, length);
  b->length += length;
  b->text[b->length] = '\0';
}

static const char* kModel =
    "def @main(%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32]) {\n"
    "  %0 = add(%x, %b);\n"
    "  nn.relu(%0)\n"
    "}\n";

static const TsDType kF32 = {2, 32, 1};

static void test_parse_pipeline_run(void) {
  TsModule mod = NULL, typed = NULL, again = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  if (!mod) return;

  Buffer printed = {{0}, 0};
  CHECK(TsModulePrint(mod, append, &printed) == TS_OK);
  CHECK(strstr(printed.text, "nn.relu") != NULL);
  CHECK(TsModuleParse(printed.text, printed.length, &again) == TS_OK);
  CHECK(TsModuleStructuralEqual(mod, again) == 1);

  Buffer json = {{0}, 0};
  TsModule from_json = NULL;
  CHECK(TsModuleToJSON(mod, append, &json) == TS_OK);
  CHECK(TsModuleFromJSON(json.text, json.length, &from_json) == TS_OK);
  CHECK(TsModuleStructuralEqual(mod, from_json) == 1);

  TsPassContext ctx = NULL;
  const char* disabled[] = {"PrintIR"};
  CHECK(TsPassContextCreate(3, NULL, 0, disabled, 1, "{\"testing.immutable_module\": true}",
                            &ctx) == TS_OK);
  TsPass pipeline = NULL;
  CHECK(TsPipelineParse("InferType,PrintIR", &pipeline) == TS_OK);
  Buffer text = {{0}, 0};
  CHECK(TsPassPrint(pipeline, append, &text) == TS_OK);
  CHECK(strcmp(text.text, "InferType,PrintIR") == 0);
  CHECK(TsPassRun(pipeline, mod, ctx, &typed) == TS_OK);

  float x[6] = {-1, 2, -3, 4, -5, 6};
  float b[3] = {0.5f, 0.5f, 0.5f};
  int64_t xs[2] = {2, 3}, bs[1] = {3};
  TsTensor inputs[2] = {NULL, NULL};
  CHECK(TsTensorFromBuffer(x, xs, 2, kF32, &inputs[0]) == TS_OK);
  CHECK(TsTensorFromBuffer(b, bs, 1, kF32, &inputs[1]) == TS_OK);
  const char* names[2] = {"x", "b"};
  TsTensor out[1] = {NULL};
  size_t num_out = 0;
  CHECK(TsModuleRunMain(typed ? typed : mod, names, inputs, 2, out, 1, &num_out) == TS_OK);
  CHECK(num_out == 1);
  if (num_out == 1) {
    float* data = NULL;
    const int64_t* shape = NULL;
    int32_t ndim = 0;
    TsDType dtype;
    CHECK(TsTensorGetInfo(out[0], (void**)&data, &shape, &ndim, &dtype) == TS_OK);
    CHECK(ndim == 2 && shape[0] == 2 && shape[1] == 3 && dtype.code == 2 && dtype.bits == 32);
    const float want[6] = {0, 2.5f, 0, 4.5f, 0, 6.5f};
    int ok = 1;
    for (int i = 0; i < 6; ++i) ok &= fabsf(data[i] - want[i]) < 1e-6f;
    CHECK(ok);
    TsTensorDestroy(out[0]);
  }

  /* Wrong shape: a status and a message naming the input. */
  int64_t bad_shape[2] = {3, 2};
  TsTensor bad = NULL;
  CHECK(TsTensorFromBuffer(x, bad_shape, 2, kF32, &bad) == TS_OK);
  TsTensor bad_inputs[2] = {bad, inputs[1]};
  CHECK(TsModuleRunMain(mod, names, bad_inputs, 2, out, 1, &num_out) != TS_OK);
  CHECK(strstr(TsGetLastError(), "'x'") != NULL);
  /* Missing input. */
  CHECK(TsModuleRunMain(mod, names, inputs, 1, out, 1, &num_out) != TS_OK);
  CHECK(strstr(TsGetLastError(), "b") != NULL);

  TsTensorDestroy(bad);
  TsTensorDestroy(inputs[0]);
  TsTensorDestroy(inputs[1]);
  TsPassDestroy(pipeline);
  TsPassContextDestroy(ctx);
  TsModuleDestroy(from_json);
  TsModuleDestroy(again);
  TsModuleDestroy(typed);
  TsModuleDestroy(mod);
}

static void test_bad_input(void) {
  TsModule mod = NULL;
  CHECK(TsModuleParse("def @main(%x: Tensor[(2), float32]) { nn.relu(%x", (size_t)-1, &mod) ==
        TS_ERROR_PARSE);
  CHECK(mod == NULL);
  CHECK(strlen(TsGetLastError()) > 0);
  CHECK(TsModuleParse("def @main(%x: Tensor[(2), float32]) { nn.frob(%x) }", (size_t)-1, &mod) !=
        TS_OK);
  CHECK(strstr(TsGetLastError(), "nn.frob") != NULL);
  CHECK(TsModuleFromJSON("{not json", (size_t)-1, &mod) == TS_ERROR_PARSE);

  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"no.such.key\": 1}", &ctx) ==
        TS_ERROR_NOT_FOUND);
  CHECK(strstr(TsGetLastError(), "collage.enable") != NULL); /* lists the valid keys */
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"collage.enable\": 3}", &ctx) == TS_ERROR_TYPE);
  CHECK(strstr(TsGetLastError(), "bool") != NULL);
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"collage.enable\": true}", &ctx) == TS_OK);
  TsPassContextDestroy(ctx);

  TsPass pass = NULL;
  CHECK(TsPipelineParse("InferType,NoSuchPass", &pass) != TS_OK);
  CHECK(strstr(TsGetLastError(), "NoSuchPass") != NULL);
  CHECK(TsModuleParse(NULL, 0, &mod) == TS_ERROR_INVALID_ARGUMENT);

  Buffer configs = {{0}, 0};
  CHECK(TsListConfigs(append, &configs) == TS_OK);
  CHECK(strstr(configs.text, "\"collage.enable\"") != NULL);
  Buffer passes = {{0}, 0};
  CHECK(TsListPasses(append, &passes) == TS_OK);
  CHECK(strstr(passes.text, "\"InferType\"") != NULL);
}

int main(void) {
  test_parse_pipeline_run();
  test_bad_input();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
