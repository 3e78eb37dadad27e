/* The interpreter's values from C (tensors and tuples, any function evaluated, @main with its
 * result's structure), lowering for build, and ONNX import from bytes. */
#include <math.h>

#include "c_test_util.h"
#include "tessera/c_api.h"

static const char* kModel =
    "def @pair(%a: Tensor[(2), float32], %b: Tensor[(2), float32]) {\n"
    "  (add(%a, %b), multiply(%a, %b))\n"
    "}\n"
    "def @main(%x: Tensor[(2), float32]) {\n"
    "  %0 = @pair(%x, %x);\n"
    "  (%0.0, nn.relu(%0.1))\n"
    "}\n";

static float At(TsValue tuple, size_t field, int index) {
  TsValue v = NULL;
  TsNDArray t = NULL;
  float* data = NULL;
  float out = NAN;
  if (TsValueGetField(tuple, field, &v) == TS_OK && TsValueGetNDArray(v, &t) == TS_OK &&
      TsNDArrayGetInfo(t, (void**)&data, NULL, NULL, NULL) == TS_OK)
    out = data[index];
  TsNDArrayDestroy(t);
  TsValueDestroy(v);
  return out;
}

static void test_values(TsModule mod) {
  static const TsDType f32 = {2, 32, 1};
  float a[2] = {1.f, -2.f}, b[2] = {3.f, 4.f};
  int64_t shape[1] = {2};
  TsNDArray ta = NULL, tb = NULL;
  CHECK(TsNDArrayFromBuffer(a, shape, 1, f32, &ta) == TS_OK);
  CHECK(TsNDArrayFromBuffer(b, shape, 1, f32, &tb) == TS_OK);
  TsValue args[2] = {NULL, NULL};
  CHECK(TsValueFromNDArray(ta, &args[0]) == TS_OK && TsValueFromNDArray(tb, &args[1]) == TS_OK);
  TsValueKind kind = TS_VALUE_TUPLE;
  CHECK(TsValueGetKind(args[0], &kind) == TS_OK && kind == TS_VALUE_TENSOR);

  /* Any function, with its tuple result kept. */
  TsValue result = NULL;
  CHECK(TsModuleEvaluate(mod, TsStringRefFromC("pair"), args, 2, &result) == TS_OK);
  size_t n = 0;
  CHECK(TsValueGetKind(result, &kind) == TS_OK && kind == TS_VALUE_TUPLE);
  CHECK(TsValueGetNumFields(result, &n) == TS_OK && n == 2);
  CHECK(At(result, 0, 0) == 4.f && At(result, 0, 1) == 2.f);
  CHECK(At(result, 1, 0) == 3.f && At(result, 1, 1) == -8.f);
  TsValue missing = NULL;
  CHECK(TsValueGetField(result, 2, &missing) == TS_ERROR_VALUE && missing == NULL);
  TsNDArray not_tensor = NULL;
  CHECK(TsValueGetNDArray(result, &not_tensor) == TS_ERROR_TYPE);
  CHECK(TsValueGetNumFields(args[0], &n) == TS_ERROR_TYPE);
  TsValueDestroy(result);

  /* A tuple argument built in C: evaluating with the wrong arity is an error. */
  TsValue tuple = NULL;
  CHECK(TsValueTupleCreate(args, 2, &tuple) == TS_OK);
  CHECK(TsModuleEvaluate(mod, TsStringRefFromC("pair"), &tuple, 1, &result) != TS_OK);
  CHECK(TsModuleEvaluate(mod, TsStringRefFromC("nope"), args, 2, &result) == TS_ERROR_NOT_FOUND);
  TsValue with_null[2] = {args[0], NULL};
  CHECK(TsValueTupleCreate(with_null, 2, &result) == TS_ERROR_VALUE);
  TsValueDestroy(tuple);

  /* @main by input name, keeping its tuple. */
  const char* names[1] = {"x"};
  CHECK(TsModuleRunMainValue(mod, names, &ta, 1, &result) == TS_OK);
  CHECK(TsValueGetNumFields(result, &n) == TS_OK && n == 2);
  CHECK(At(result, 0, 1) == -4.f && At(result, 1, 0) == 1.f && At(result, 1, 1) == 4.f);
  TsValueDestroy(result);
  const char* wrong[1] = {"y"};
  CHECK(TsModuleRunMainValue(mod, wrong, &ta, 1, &result) != TS_OK);

  TsValueDestroy(args[0]);
  TsValueDestroy(args[1]);
  TsNDArrayDestroy(ta);
  TsNDArrayDestroy(tb);
}

static void test_lower(TsModule mod) {
  TsModule lowered = NULL;
  CHECK(TsModuleLowerForBuild(mod, &lowered) == TS_OK);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsModulePrint(lowered, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "call_tir") != NULL);
  free(text.text);
  TsModuleDestroy(lowered);
  CHECK(TsModuleLowerForBuild(NULL, &lowered) == TS_ERROR_INVALID_ARGUMENT);
}

static void test_onnx_bytes(void) {
  int64_t lo = 0, hi = 0;
  CHECK(TsONNXSupportedOpsets(&lo, &hi) == TS_OK && lo >= 1 && lo <= hi);
  if (!TsONNXImporterAvailable()) return;
  FILE* f = fopen(TESSERA_TEST_DATA_DIR "/onnx/relu_add.onnx", "rb");
  CHECK(f != NULL);
  if (!f) return;
  char bytes[65536];
  size_t size = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  const char* names[1] = {"x"};
  int64_t dims[2] = {4, 3};
  const int64_t* shapes[1] = {dims};
  int32_t ranks[1] = {2};
  TsModule mod = NULL;
  CHECK(TsModuleFromONNXBytes(bytes, size, TsStringRefFromC("relu_add"), names, shapes, ranks, 1, 0,
                              &mod) == TS_OK);
  GrowingBuffer text = {NULL, 0};
  CHECK(TsModulePrint(mod, append_growing, &text) == TS_OK);
  CHECK(text.text && strstr(text.text, "Tensor[(4, 3), float32]") != NULL);
  free(text.text);
  TsModuleDestroy(mod);
  mod = NULL;
  CHECK(TsModuleFromONNXBytes("garbage", 7, TsStringRefFromC("junk.onnx"), NULL, NULL, NULL, 0, 0,
                              &mod) == TS_ERROR_PARSE &&
        mod == NULL);
  CHECK(strstr(TsGetLastError(), "junk.onnx") != NULL);
}

int main(void) {
  TsModule mod = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  test_values(mod);
  test_lower(mod);
  test_onnx_bytes();
  TsModuleDestroy(mod);
  printf("test_c_interp: %d checks passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
