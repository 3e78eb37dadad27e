/* Embeds Tessera through the C API only: parse, pipeline under a config, run, build,
 * save/load, benchmark, profile, errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dlpack/dlpack.h>

#include "c_test_util.h"
#include "tessera/c_api.h"

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
  TsNDArray inputs[2] = {NULL, NULL};
  CHECK(TsNDArrayFromBuffer(x, xs, 2, kF32, &inputs[0]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(b, bs, 1, kF32, &inputs[1]) == TS_OK);
  const char* names[2] = {"x", "b"};
  TsNDArray out[1] = {NULL};
  size_t num_out = 0;
  CHECK(TsModuleRunMain(typed ? typed : mod, names, inputs, 2, out, 1, &num_out) == TS_OK);
  CHECK(num_out == 1);
  if (num_out == 1) {
    float* data = NULL;
    const int64_t* shape = NULL;
    int32_t ndim = 0;
    TsDType dtype;
    CHECK(TsNDArrayGetInfo(out[0], (void**)&data, &shape, &ndim, &dtype) == TS_OK);
    CHECK(ndim == 2 && shape[0] == 2 && shape[1] == 3 && dtype.code == 2 && dtype.bits == 32);
    const float want[6] = {0, 2.5f, 0, 4.5f, 0, 6.5f};
    int ok = 1;
    for (int i = 0; i < 6; ++i) ok &= fabsf(data[i] - want[i]) < 1e-6f;
    CHECK(ok);
    TsNDArrayDestroy(out[0]);
  }

  /* Wrong shape: a status and a message naming the input. */
  int64_t bad_shape[2] = {3, 2};
  TsNDArray bad = NULL;
  CHECK(TsNDArrayFromBuffer(x, bad_shape, 2, kF32, &bad) == TS_OK);
  TsNDArray bad_inputs[2] = {bad, inputs[1]};
  CHECK(TsModuleRunMain(mod, names, bad_inputs, 2, out, 1, &num_out) != TS_OK);
  CHECK(error_has("'x'"));
  /* Missing input. */
  CHECK(TsModuleRunMain(mod, names, inputs, 1, out, 1, &num_out) != TS_OK);
  CHECK(error_has("b"));

  TsNDArrayDestroy(bad);
  TsNDArrayDestroy(inputs[0]);
  TsNDArrayDestroy(inputs[1]);
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
  CHECK(error_has("nn.frob"));
  CHECK(TsModuleFromJSON("{not json", (size_t)-1, &mod) == TS_ERROR_PARSE);

  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"no.such.key\": 1}", &ctx) ==
        TS_ERROR_NOT_FOUND);
  CHECK(error_has("collage.enable")); /* lists the valid keys */
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"collage.enable\": 3}", &ctx) == TS_ERROR_TYPE);
  CHECK(error_has("bool"));
  CHECK(TsPassContextCreate(2, NULL, 0, NULL, 0, "{\"collage.enable\": true}", &ctx) == TS_OK);
  TsPassContextDestroy(ctx);

  TsPass pass = NULL;
  CHECK(TsPipelineParse("InferType,NoSuchPass", &pass) != TS_OK);
  CHECK(error_has("NoSuchPass"));
  CHECK(TsModuleParse(NULL, 0, &mod) == TS_ERROR_INVALID_ARGUMENT);

  Buffer configs = {{0}, 0};
  CHECK(TsListConfigs(append, &configs) == TS_OK);
  CHECK(strstr(configs.text, "\"collage.enable\"") != NULL);
  Buffer passes = {{0}, 0};
  CHECK(TsListPasses(append, &passes) == TS_OK);
  CHECK(strstr(passes.text, "\"InferType\"") != NULL);
}

static const char* kDenseModel =
    "def @main(%x: Tensor[(2, 4), float32], %w: Tensor[(3, 4), float32],\n"
    "          %b: Tensor[(3), float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = add(%0, %b);\n"
    "  nn.relu(%1)\n"
    "}\n";

/* Inputs of kDenseModel over static buffers. */
static float dense_x[8] = {1, -2, 3, 0.5f, -1, 2, 0.25f, 4};
static float dense_w[12] = {0.5f, 1, -1, 2, -0.5f, 0.25f, 1, -1, 1, 1, 1, 1};
static float dense_b[3] = {0.1f, -0.2f, 0.3f};
static const char* dense_names[3] = {"x", "w", "b"};

static void make_dense_inputs(TsNDArray inputs[3]) {
  int64_t xs[2] = {2, 4}, ws[2] = {3, 4}, bs[1] = {3};
  CHECK(TsNDArrayFromBuffer(dense_x, xs, 2, kF32, &inputs[0]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(dense_w, ws, 2, kF32, &inputs[1]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(dense_b, bs, 1, kF32, &inputs[2]) == TS_OK);
}

/* relu(x * w^T + b), computed in plain C. */
static void dense_reference(float out[6]) {
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      float acc = dense_b[j];
      for (int k = 0; k < 4; ++k) acc += dense_x[i * 4 + k] * dense_w[j * 4 + k];
      out[i * 3 + j] = acc > 0 ? acc : 0;
    }
}

/* Runs `exe` on the dense inputs and copies its single (2, 3) float output to `out`. */
static int run_dense(TsExecutable exe, TsNDArray inputs[3], float out[6]) {
  TsNDArray result[1] = {NULL};
  size_t n = 0;
  if (TsExecutableRun(exe, dense_names, inputs, 3, result, 1, &n) != TS_OK || n != 1) return 0;
  float* data = NULL;
  const int64_t* shape = NULL;
  int32_t ndim = 0;
  int ok = TsNDArrayGetInfo(result[0], (void**)&data, &shape, &ndim, NULL) == TS_OK && ndim == 2 &&
           shape[0] == 2 && shape[1] == 3;
  if (ok) memcpy(out, data, 6 * sizeof(float));
  TsNDArrayDestroy(result[0]);
  return ok;
}

static int close_to(const float* a, const float* b, int n) {
  for (int i = 0; i < n; ++i)
    if (fabsf(a[i] - b[i]) > 1e-5f * (1 + fabsf(b[i]))) return 0;
  return 1;
}

/* Writes a fresh temporary file name into `path` (the file exists, empty). */
static void temp_path(char path[64]) {
  strcpy(path, "/tmp/tessera_c_api_XXXXXX");
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
}

static void test_build_save_load(void) {
  TsModule mod = NULL;
  CHECK(TsModuleParse(kDenseModel, (size_t)-1, &mod) == TS_OK);
  if (!mod) return;
  TsNDArray inputs[3] = {NULL, NULL, NULL};
  make_dense_inputs(inputs);
  float want[6];
  dense_reference(want);

  /* The interpreter agrees with the C reference. */
  TsNDArray interp_out[1] = {NULL};
  size_t n = 0;
  CHECK(TsModuleRunMain(mod, dense_names, inputs, 3, interp_out, 1, &n) == TS_OK && n == 1);
  float* interp_data = NULL;
  if (n == 1) TsNDArrayGetInfo(interp_out[0], (void**)&interp_data, NULL, NULL, NULL);
  CHECK(interp_data && close_to(interp_data, want, 6));

  /* Targets print canonically. */
  TsTarget native = NULL, interp = NULL;
  CHECK(TsTargetParse("native -num_threads=2", &native) == TS_OK);
  CHECK(TsTargetParse("interp", &interp) == TS_OK);
  Buffer printed = {{0}, 0};
  CHECK(TsTargetPrint(native, append, &printed) == TS_OK);
  CHECK(strcmp(printed.text, "native -num_threads=2") == 0);
  /* Kind and options: the value given, else the kind's default; unknown is not found. */
  TsStringRef kind = {NULL, 0};
  CHECK(TsTargetGetKind(native, &kind) == TS_OK && kind.length == 6 &&
        memcmp(kind.data, "native", 6) == 0);
  TsAttribute option = NULL;
  int64_t option_threads = -1;
  CHECK(TsTargetGetOption(native, "num_threads", &option) == TS_OK &&
        TsAttributeGetInt(option, &option_threads) == TS_OK && option_threads == 2);
  TsAttributeDestroy(option);
  TsTarget plain = NULL;
  CHECK(TsTargetParse("native", &plain) == TS_OK);
  CHECK(TsTargetGetOption(plain, "num_threads", &option) == TS_OK &&
        TsAttributeGetInt(option, &option_threads) == TS_OK && option_threads == 0);
  TsAttributeDestroy(option);
  option = NULL;
  CHECK(TsTargetGetOption(plain, "no_such", &option) == TS_ERROR_NOT_FOUND && option == NULL);
  TsTargetDestroy(plain);

  /* Build for native under a pass context with a config. */
  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0, "{\"testing.immutable_module\": true}", &ctx) ==
        TS_OK);
  TsExecutable exe = NULL;
  CHECK(TsBuild(mod, &native, 1, ctx, &exe) == TS_OK);
  if (!exe) goto cleanup;
  Buffer names = {{0}, 0};
  CHECK(TsExecutableGetInputNames(exe, append, &names) == TS_OK);
  CHECK(strcmp(names.text, "xwb") == 0);
  int threads = 0;
  CHECK(TsExecutableGetNumThreads(exe, &threads) == TS_OK && threads == 2); /* from the target */
  float got[6] = {0};
  CHECK(run_dense(exe, inputs, got));
  CHECK(close_to(got, want, 6));
  CHECK(interp_data && close_to(got, interp_data, 6));

  /* Save, load, run again: identical bytes. */
  char path[64];
  temp_path(path);
  CHECK(TsExecutableSave(exe, path) == TS_OK);
  TsExecutable loaded = NULL;
  CHECK(TsExecutableLoad(path, 1, &loaded) == TS_OK);
  if (loaded) {
    CHECK(TsExecutableGetNumThreads(loaded, &threads) == TS_OK && threads == 1); /* argument */
    float again[6] = {0};
    CHECK(run_dense(loaded, inputs, again));
    CHECK(memcmp(again, got, sizeof(got)) == 0);
    TsExecutableDestroy(loaded);
  }

  /* Benchmark and profile. */
  double median = -1, p90 = -1, min = -1;
  CHECK(TsExecutableBenchmark(exe, dense_names, inputs, 3, 1, 5, &median, &p90, &min) == TS_OK);
  CHECK(median > 0 && p90 >= median && min > 0 && min <= median);
  Buffer profile = {{0}, 0};
  CHECK(TsExecutableProfile(exe, dense_names, inputs, 3, 3, append, &profile) == TS_OK);
  CHECK(strstr(profile.text, "fused_nn_dense_add_nn_relu") != NULL);
  CHECK(strstr(profile.text, "native") != NULL);
  CHECK(TsExecutableBenchmark(exe, dense_names, inputs, 3, 0, 0, &median, NULL, NULL) ==
        TS_ERROR_VALUE);

  /* The build obeys its pass context: with FuseOps disabled every op is its own kernel. */
  TsPassContext unfused_ctx = NULL;
  const char* disabled[] = {"FuseOps"};
  CHECK(TsPassContextCreate(3, NULL, 0, disabled, 1, "{\"testing.immutable_module\": true}",
                            &unfused_ctx) == TS_OK);
  TsExecutable unfused = NULL;
  CHECK(TsBuild(mod, &native, 1, unfused_ctx, &unfused) == TS_OK);
  if (unfused) {
    Buffer kernels = {{0}, 0};
    CHECK(TsExecutableProfile(unfused, dense_names, inputs, 3, 1, append, &kernels) == TS_OK);
    CHECK(strstr(kernels.text, "fused_nn_relu") != NULL);
    CHECK(strstr(kernels.text, "fused_nn_dense_add_nn_relu") == NULL);
    float separate[6] = {0};
    CHECK(run_dense(unfused, inputs, separate));
    CHECK(close_to(separate, want, 6));
    TsExecutableDestroy(unfused);
  }
  TsPassContextDestroy(unfused_ctx);

  /* Built for interp (no context: the current one): the same values. */
  TsExecutable interp_exe = NULL;
  CHECK(TsBuild(mod, &interp, 1, NULL, &interp_exe) == TS_OK);
  if (interp_exe) {
    float via_interp[6] = {0};
    CHECK(run_dense(interp_exe, inputs, via_interp));
    CHECK(close_to(via_interp, got, 6));
    TsExecutableDestroy(interp_exe);
  }

  /* Wrong input name, wrong shape, missing input. */
  TsNDArray out[1] = {NULL};
  const char* wrong_names[3] = {"x", "q", "b"};
  CHECK(TsExecutableRun(exe, wrong_names, inputs, 3, out, 1, &n) == TS_ERROR_VALUE);
  CHECK(error_has("q") && error_has("w"));
  int64_t bad_shape[2] = {4, 2};
  TsNDArray bad_inputs[3] = {NULL, inputs[1], inputs[2]};
  CHECK(TsNDArrayFromBuffer(dense_x, bad_shape, 2, kF32, &bad_inputs[0]) == TS_OK);
  CHECK(TsExecutableRun(exe, dense_names, bad_inputs, 3, out, 1, &n) == TS_ERROR_TYPE);
  CHECK(error_has("'x'"));
  TsNDArrayDestroy(bad_inputs[0]);
  CHECK(TsExecutableRun(exe, dense_names, inputs, 2, out, 1, &n) == TS_ERROR_VALUE);
  CHECK(error_has("b"));
  CHECK(TsExecutableRun(exe, dense_names, inputs, 3, out, 0, &n) == TS_ERROR_VALUE);

  /* Load: a missing file, a damaged file, a file that is not an executable. */
  TsExecutable bad = NULL;
  CHECK(TsExecutableLoad("/nonexistent/tessera.exe", 0, &bad) == TS_ERROR_NOT_FOUND);
  CHECK(error_has("/nonexistent/tessera.exe"));
  FILE* f = fopen(path, "rb");
  static char bytes[1 << 20];
  size_t size = f ? fread(bytes, 1, sizeof(bytes), f) : 0;
  if (f) fclose(f);
  CHECK(size > 64);
  bytes[size / 2] ^= 0x5a;
  f = fopen(path, "wb");
  if (f) {
    fwrite(bytes, 1, size, f);
    fclose(f);
  }
  CHECK(TsExecutableLoad(path, 0, &bad) == TS_ERROR_PARSE);
  CHECK(error_has("damaged"));
  f = fopen(path, "wb");
  if (f) {
    fputs("hello", f);
    fclose(f);
  }
  CHECK(TsExecutableLoad(path, 0, &bad) == TS_ERROR_PARSE);
  CHECK(bad == NULL);
  remove(path);

  TsExecutableDestroy(exe);
cleanup:
  TsPassContextDestroy(ctx);
  TsTargetDestroy(native);
  TsTargetDestroy(interp);
  TsNDArrayDestroy(interp_out[0]);
  for (int i = 0; i < 3; ++i) TsNDArrayDestroy(inputs[i]);
  TsModuleDestroy(mod);
}

static void test_target_errors(void) {
  TsTarget t = NULL;
  CHECK(TsTargetParse("cuda", &t) == TS_ERROR_VALUE);
  CHECK(error_has("cuda") && error_has("native"));
  CHECK(TsTargetParse("native -fast=1", &t) == TS_ERROR_VALUE);
  CHECK(error_has("fast") && error_has("num_threads"));
  CHECK(TsTargetParse("native -num_threads=many", &t) == TS_ERROR_VALUE);
  CHECK(error_has("int"));
  CHECK(t == NULL);

  Buffer targets = {{0}, 0};
  CHECK(TsListTargets(append, &targets) == TS_OK);
  CHECK(strstr(targets.text, "\"native\"") != NULL && strstr(targets.text, "\"interp\"") != NULL);
  CHECK(strstr(targets.text, "\"num_threads\"") != NULL);

  /* NULL handles and pointers. */
  TsExecutable exe = NULL;
  size_t n = 0;
  CHECK(TsTargetParse(NULL, &t) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(error_has("text"));
  CHECK(TsTargetParse("native", NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsTargetPrint(NULL, append, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsListTargets(NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsBuild(NULL, NULL, 0, NULL, &exe) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(error_has("module"));
  TsModule mod = NULL;
  CHECK(TsModuleParse(kDenseModel, (size_t)-1, &mod) == TS_OK);
  CHECK(TsBuild(mod, NULL, 0, NULL, &exe) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(error_has("targets"));
  TsTarget none[1] = {NULL};
  CHECK(TsBuild(mod, none, 0, NULL, &exe) == TS_ERROR_VALUE);
  CHECK(TsBuild(mod, none, 1, NULL, &exe) == TS_ERROR_VALUE);
  CHECK(exe == NULL);
  TsModuleDestroy(mod);
  CHECK(TsExecutableSave(NULL, "/tmp/x") == TS_ERROR_INVALID_ARGUMENT);
  CHECK(error_has("executable"));
  CHECK(TsExecutableLoad(NULL, 0, &exe) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(error_has("path"));
  CHECK(TsExecutableLoad("/tmp/x", -1, &exe) == TS_ERROR_VALUE);
  CHECK(TsExecutableRun(NULL, NULL, NULL, 0, NULL, 0, &n) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExecutableBenchmark(NULL, NULL, NULL, 0, 1, 1, NULL, NULL, NULL) ==
        TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExecutableProfile(NULL, NULL, NULL, 0, 1, append, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExecutableGetInputNames(NULL, append, NULL) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsExecutableGetNumThreads(NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);
  TsExecutableDestroy(NULL);
  TsTargetDestroy(NULL);
}

/* A DLManagedTensor over caller memory whose deleter counts its calls. */
static int deleter_calls = 0;
static void count_deleter(DLManagedTensor* self) {
  (void)self;
  ++deleter_calls;
}

static DLManagedTensor dl_tensor(void* data, int64_t* shape, int ndim, uint64_t byte_offset) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = ndim;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 32;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.byte_offset = byte_offset;
  m.deleter = count_deleter;
  return m;
}

static void test_dlpack(void) {
  TsModule mod = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  if (!mod) return;
  /* Import: x starts one float into the buffer (byte_offset), b has explicit strides. */
  float xbuf[7] = {99, -1, 2, -3, 4, -5, 6};
  float b[3] = {0.5f, 0.5f, 0.5f};
  int64_t xs[2] = {2, 3}, bs[1] = {3}, bstrides[1] = {1};
  DLManagedTensor xm = dl_tensor(xbuf, xs, 2, sizeof(float));
  DLManagedTensor bm = dl_tensor(b, bs, 1, 0);
  bm.dl_tensor.strides = bstrides;
  TsNDArray inputs[2] = {NULL, NULL};
  deleter_calls = 0;
  CHECK(TsNDArrayFromDLPack(&xm, &inputs[0]) == TS_OK);
  CHECK(TsNDArrayFromDLPack(&bm, &inputs[1]) == TS_OK);
  void* xdata = NULL;
  CHECK(TsNDArrayGetInfo(inputs[0], &xdata, NULL, NULL, NULL) == TS_OK);
  CHECK(xdata == (void*)&xbuf[1]); /* zero-copy */
  const char* names[2] = {"x", "b"};
  TsNDArray out[1] = {NULL};
  size_t num_out = 0;
  CHECK(TsModuleRunMain(mod, names, inputs, 2, out, 1, &num_out) == TS_OK);
  if (num_out == 1) {
    /* Export the result and read it through DLPack alone. */
    DLManagedTensor* exported = NULL;
    CHECK(TsNDArrayToDLPack(out[0], &exported) == TS_OK);
    TsNDArrayDestroy(out[0]); /* the export keeps the memory alive */
    if (exported) {
      const DLTensor* t = &exported->dl_tensor;
      CHECK(t->device.device_type == kDLCPU && t->ndim == 2 && t->shape[0] == 2 &&
            t->shape[1] == 3 && t->strides[0] == 3 && t->strides[1] == 1);
      CHECK(t->dtype.code == kDLFloat && t->dtype.bits == 32 && t->dtype.lanes == 1);
      const float want[6] = {0, 2.5f, 0, 4.5f, 0, 6.5f};
      const float* y = (const float*)((const char*)t->data + t->byte_offset);
      int ok = 1;
      for (int i = 0; i < 6; ++i) ok &= fabsf(y[i] - want[i]) < 1e-6f;
      CHECK(ok);
      exported->deleter(exported);
    }
  }
  CHECK(deleter_calls == 0); /* the inputs are still alive */
  TsNDArrayDestroy(inputs[0]);
  TsNDArrayDestroy(inputs[1]);
  CHECK(deleter_calls == 2); /* once each */

  /* Refused tensors stay with the caller: no deleter call, a message naming the problem. */
  float data[6] = {0};
  int64_t shape[2] = {2, 3}, strides[2] = {1, 2};
  TsNDArray t = NULL;
  DLManagedTensor gpu = dl_tensor(data, shape, 2, 0);
  gpu.dl_tensor.device.device_type = kDLCUDA;
  CHECK(TsNDArrayFromDLPack(&gpu, &t) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("CUDA"));
  DLManagedTensor strided = dl_tensor(data, shape, 2, 0);
  strided.dl_tensor.strides = strides;
  CHECK(TsNDArrayFromDLPack(&strided, &t) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("strides [1, 2]"));
  DLManagedTensor vec = dl_tensor(data, shape, 2, 0);
  vec.dl_tensor.dtype.lanes = 2;
  CHECK(TsNDArrayFromDLPack(&vec, &t) == TS_ERROR_TYPE);
  CHECK(error_has("lanes"));
  DLManagedTensor cplx = dl_tensor(data, shape, 2, 0);
  cplx.dl_tensor.dtype.code = kDLComplex;
  cplx.dl_tensor.dtype.bits = 64;
  CHECK(TsNDArrayFromDLPack(&cplx, &t) == TS_ERROR_TYPE);
  CHECK(error_has("complex64"));
  CHECK(t == NULL && deleter_calls == 2);
  CHECK(TsNDArrayFromDLPack(NULL, &t) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsNDArrayToDLPack(NULL, NULL) == TS_ERROR_INVALID_ARGUMENT);

  /* Round trip through DLPack: the same memory, freed by the last owner. */
  TsNDArray owned = NULL, back = NULL;
  DLManagedTensor* managed = NULL;
  CHECK(TsNDArrayCreate(shape, 2, kF32, &owned) == TS_OK);
  CHECK(TsNDArrayToDLPack(owned, &managed) == TS_OK);
  CHECK(TsNDArrayFromDLPack(managed, &back) == TS_OK);
  void *a = NULL, *c = NULL;
  TsNDArrayGetInfo(owned, &a, NULL, NULL, NULL);
  TsNDArrayGetInfo(back, &c, NULL, NULL, NULL);
  CHECK(a != NULL && a == c);
  TsNDArrayDestroy(owned);
  ((float*)c)[5] = 1.0f; /* still alive through `back` (ASan checks this) */
  TsNDArrayDestroy(back);
  TsModuleDestroy(mod);
}

/* Imports tests/data/onnx/relu_add.onnx (y = relu(x + [-1, 0, 1]), x: [batch, 3]) with a
 * static batch, runs it, and checks the ONNX errors. */
static void test_onnx_import(void) {
  const char* path = TESSERA_TEST_DATA_DIR "/onnx/relu_add.onnx";
  const char* names[1] = {"x"};
  const int64_t dims[2] = {2, 3};
  const int64_t* shapes[1] = {dims};
  const int32_t ranks[1] = {2};
  TsModule mod = NULL;
  Buffer ops = {{0}, 0};
  CHECK(TsONNXSupportedOps(append, &ops) == TS_OK);
  if (ops.length == 0) {
    /* Built without ONNX (TESSERA_WITH_ONNX=OFF): every import is a clear unsupported error. */
    CHECK(TsModuleFromONNX(path, names, shapes, ranks, 1, 0, &mod) == TS_ERROR_UNSUPPORTED);
    CHECK(error_has("without ONNX"));
    printf("test_c_api: this build has no ONNX importer; import checks skipped\n");
    return;
  }
  CHECK(strstr(ops.text, "Conv") != NULL && strstr(ops.text, "Relu") != NULL);
  /* The batch is symbolic: without a shape the import is unsupported and says so. */
  CHECK(TsModuleFromONNX(path, NULL, NULL, NULL, 0, 0, &mod) == TS_ERROR_UNSUPPORTED);
  CHECK(error_has("batch"));
  CHECK(TsModuleFromONNX(path, names, shapes, ranks, 1, 0, &mod) == TS_OK);
  if (mod) {
    float x[6] = {0.5f, -2.0f, 0.25f, 3.0f, 1.0f, -4.0f};
    float want[6] = {0.0f, 0.0f, 1.25f, 2.0f, 1.0f, 0.0f};
    TsNDArray in = NULL, out[1] = {NULL};
    size_t n = 0;
    CHECK(TsNDArrayFromBuffer(x, dims, 2, kF32, &in) == TS_OK);
    CHECK(TsModuleRunMain(mod, names, &in, 1, out, 1, &n) == TS_OK);
    if (n == 1 && out[0]) {
      void* data = NULL;
      const int64_t* shape = NULL;
      int32_t ndim = 0;
      TsDType dt;
      CHECK(TsNDArrayGetInfo(out[0], &data, &shape, &ndim, &dt) == TS_OK);
      int ok = ndim == 2 && shape[0] == 2 && shape[1] == 3;
      for (int i = 0; ok && i < 6; ++i) ok = fabsf(((float*)data)[i] - want[i]) < 1e-6f;
      CHECK(ok);
      TsNDArrayDestroy(out[0]);
    }
    TsNDArrayDestroy(in);
    TsModuleDestroy(mod);
  }
  mod = NULL;
  /* params_as_inputs: the initializer becomes a second parameter. */
  CHECK(TsModuleFromONNX(path, names, shapes, ranks, 1, 1, &mod) == TS_OK);
  if (mod) {
    Buffer text = {{0}, 0};
    CHECK(TsModulePrint(mod, append, &text) == TS_OK);
    CHECK(strstr(text.text, "%bias") != NULL);
    TsModuleDestroy(mod);
  }
  CHECK(TsModuleFromONNX("/nonexistent/model.onnx", NULL, NULL, NULL, 0, 0, &mod) == TS_ERROR_IO);
  char garbage_path[] = "/tmp/tessera_c_api_garbageXXXXXX";
  int fd = mkstemp(garbage_path);
  if (fd >= 0) {
    CHECK(write(fd, "\xff\xff\xff garbage", 12) == 12);
    close(fd);
    CHECK(TsModuleFromONNX(garbage_path, NULL, NULL, NULL, 0, 0, &mod) == TS_ERROR_PARSE);
    unlink(garbage_path);
  }
  CHECK(TsModuleFromONNX(NULL, NULL, NULL, NULL, 0, 0, &mod) == TS_ERROR_INVALID_ARGUMENT);
  CHECK(TsModuleFromONNX(path, NULL, NULL, NULL, 1, 0, &mod) == TS_ERROR_INVALID_ARGUMENT);
}

int main(void) {
  test_parse_pipeline_run();
  test_bad_input();
  test_build_save_load();
  test_target_errors();
  test_dlpack();
  test_onnx_import();
  return check_summary();
}
