/* A C program linked only against libtessera_runtime: loads the executables the compiler
 * saved (make_runtime_fixtures), runs them and compares with the compiler's outputs; checks
 * which kernel modules ran and that bad files are clear errors.
 * Usage: test_c_runtime DIR NAME... */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_test_util.h"
#include "runtime_fixture.h"

/* The module kind each configuration's program must run its dense and conv on. */
static const char* KindOf(const char* name) {
  if (strcmp(name, "dnnl") == 0) return "dnnl";
  if (strcmp(name, "blas") == 0) return "blas";
  return "native";
}

static void RunOne(const char* dir, const char* name, TsNDArray* inputs) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.tsx", dir, name);
  TsExecutable exe = NULL;
  CHECK(TsExecutableLoad(path, 1, &exe) == TS_OK);
  if (!exe) return;
  /* The inputs' types, as a generic deployment tool reads them. */
  size_t num_inputs = 0;
  CHECK(TsExecutableGetNumInputs(exe, &num_inputs) == TS_OK && num_inputs == kFixtureInputs);
  for (size_t k = 0; k < num_inputs; ++k) {
    const int64_t* shape = NULL;
    int32_t ndim = -1;
    TsDType dtype = {0, 0, 0};
    CHECK(TsExecutableGetInputType(exe, k, &shape, &ndim, &dtype) == TS_OK);
    CHECK(ndim == kFixtureRanks[k] && dtype.code == 2 && dtype.bits == 32);
    for (int32_t d = 0; shape && d < ndim; ++d) CHECK(shape[d] == kFixtureShapes[k][d]);
  }
  CHECK(TsExecutableGetInputType(exe, num_inputs, NULL, NULL, NULL) == TS_ERROR_VALUE);
  /* A NULL entry among the inputs is an invalid argument, like every other NULL. */
  TsNDArray with_null[kFixtureInputs] = {inputs[0], NULL, inputs[2], inputs[3]};
  TsNDArray none = NULL;
  size_t none_count = 0;
  CHECK(TsExecutableRun(exe, kFixtureNames, with_null, kFixtureInputs, &none, 1, &none_count) ==
        TS_ERROR_INVALID_ARGUMENT);
  TsNDArray out = NULL;
  size_t num_out = 0;
  CHECK(TsExecutableRun(exe, kFixtureNames, inputs, kFixtureInputs, &out, 1, &num_out) == TS_OK);
  float expected[kFixtureOutputElems];
  snprintf(path, sizeof path, "%s/%s.out", dir, name);
  FILE* f = fopen(path, "rb");
  CHECK(f && fread(expected, sizeof(float), kFixtureOutputElems, f) == kFixtureOutputElems);
  if (f) fclose(f);
  float* got = NULL;
  const int64_t* shape = NULL;
  int32_t ndim = 0;
  CHECK(num_out == 1 && TsNDArrayGetInfo(out, (void**)&got, &shape, &ndim, NULL) == TS_OK);
  CHECK(ndim == 2 && shape[0] == 2 && shape[1] == 10);
  double worst = 0, nonzero = 0;
  for (int i = 0; got && i < kFixtureOutputElems; ++i) {
    double diff = fabs((double)got[i] - (double)expected[i]);
    if (diff > worst) worst = diff;
    nonzero += got[i] != 0.f;
  }
  CHECK(worst <= 1e-5);
  CHECK(nonzero > 0); /* the comparison is not between two zero tensors */
  GrowingBuffer profile = {NULL, 0};
  CHECK(TsExecutableProfile(exe, kFixtureNames, inputs, kFixtureInputs, 1, append_growing,
                            &profile) == TS_OK);
  CHECK(profile.text && strstr(profile.text, KindOf(name)) != NULL);
  printf("%s: max |diff| %.3g vs the compiler's run; kernels:\n%s", name, worst,
         profile.text ? profile.text : "");
  free(profile.text);

  /* The executable's description: outputs, kernels, memory plan, source, statistics. */
  size_t num_outputs = 0;
  int returns_tuple = -1, has_source = -1;
  CHECK(TsExecutableGetNumOutputs(exe, &num_outputs) == TS_OK && num_outputs == 1);
  const int64_t* out_shape = NULL;
  int32_t out_ndim = 0;
  TsDType out_dtype = {0, 0, 0};
  CHECK(TsExecutableGetOutputType(exe, 0, &out_shape, &out_ndim, &out_dtype) == TS_OK);
  CHECK(out_ndim == 2 && out_shape[0] == 2 && out_shape[1] == 10 && out_dtype.code == 2 &&
        out_dtype.bits == 32);
  CHECK(TsExecutableGetOutputType(exe, 1, NULL, NULL, NULL) == TS_ERROR_VALUE);
  CHECK(TsExecutableReturnsTuple(exe, &returns_tuple) == TS_OK && returns_tuple == 0);
  GrowingBuffer kernels = {NULL, 0};
  CHECK(TsExecutableGetKernels(exe, append_growing, &kernels) == TS_OK && kernels.length > 0);
  free(kernels.text);
  TsMemoryPlan plan = {0, 0, 0, 0};
  CHECK(TsExecutableGetMemoryPlan(exe, &plan) == TS_OK);
  CHECK(plan.num_intermediates >= plan.num_storages &&
        plan.arena_bytes <= plan.total_intermediate_bytes);
  GrowingBuffer source = {NULL, 0};
  CHECK(TsExecutableGetSource(exe, append_growing, &source, &has_source) == TS_OK);
  /* A native module loaded from a file keeps no source: present but empty. */
  CHECK(has_source == 1 && source.length == 0);
  free(source.text);
  TsBenchmarkStats stats = {0, 0, 0, 0, 0};
  CHECK(TsExecutableBenchmarkStats(exe, kFixtureNames, inputs, kFixtureInputs, 1, 3, &stats) ==
        TS_OK);
  CHECK(stats.repeat == 3 && stats.min_ms > 0 && stats.min_ms <= stats.median_ms &&
        stats.median_ms <= stats.p90_ms && stats.mean_ms >= stats.min_ms);
  CHECK(TsExecutableBenchmarkStats(exe, kFixtureNames, inputs, kFixtureInputs, 1, 0, &stats) ==
        TS_ERROR_VALUE);
  GrowingBuffer json = {NULL, 0};
  CHECK(TsExecutableProfileJSON(exe, kFixtureNames, inputs, kFixtureInputs, 1, append_growing,
                                &json) == TS_OK);
  CHECK(json.text && strstr(json.text, "\"rows\"") && strstr(json.text, "\"total_ms\""));
  free(json.text);

  /* .npy files round-trip a tensor. */
  snprintf(path, sizeof path, "%s/%s.npy", dir, name);
  TsNDArray back = NULL;
  CHECK(TsNDArrayWriteNpy(path, out) == TS_OK && TsNDArrayReadNpy(path, &back) == TS_OK);
  float* back_data = NULL;
  CHECK(TsNDArrayGetInfo(back, (void**)&back_data, &shape, &ndim, NULL) == TS_OK && ndim == 2);
  CHECK(back_data && got && memcmp(back_data, got, sizeof(float) * kFixtureOutputElems) == 0);
  GrowingBuffer describe = {NULL, 0};
  CHECK(TsNDArrayDescribe(back, append_growing, &describe) == TS_OK && describe.text &&
        strstr(describe.text, "float32") != NULL);
  free(describe.text);
  TsNDArrayDestroy(back);
  TsNDArrayDestroy(out);
  TsExecutableDestroy(exe);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s DIR NAME...\n", argv[0]);
    return 2;
  }
  /* The version: "MAJOR.MINOR.PATCH", and the C API this header describes. */
  int major = -1, minor = -1, patch = -1;
  CHECK(sscanf(TsGetVersion(), "%d.%d.%d", &major, &minor, &patch) == 3 && major >= 0);
  CHECK(TsGetCApiVersion() == TS_C_API_VERSION);
  float* buffers[kFixtureInputs];
  TsNDArray inputs[kFixtureInputs];
  FixtureInputs(buffers, inputs);
  for (int a = 2; a < argc; ++a) RunOne(argv[1], argv[a], inputs);

  /* Bad files are errors with a status, never a crash. */
  TsExecutable exe = NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/no-such-file.tsx", argv[1]);
  CHECK(TsExecutableLoad(path, 0, &exe) == TS_ERROR_NOT_FOUND && exe == NULL);
  snprintf(path, sizeof path, "%s/damaged.tsx", argv[1]);
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) {
    fputs("TESSERA-EXEC but not really", f);
    fclose(f);
  }
  CHECK(TsExecutableLoad(path, 0, &exe) == TS_ERROR_PARSE && exe == NULL);
  CHECK(error_has("truncated") || error_has("version"));
  snprintf(path, sizeof path, "%s/no-such-file.npy", argv[1]);
  TsNDArray missing = NULL;
  CHECK(TsNDArrayReadNpy(path, &missing) != TS_OK && missing == NULL);
  CHECK(TsNDArrayReadNpy(path, &missing) != TS_OK && error_has("no-such-file"));
  CHECK(TsSetLogLevel("warn") == TS_OK);
  CHECK(TsSetLogLevel("loud") == TS_ERROR_VALUE && error_has("loud"));
  TsSetLastError("from a callback");
  CHECK(strcmp(TsGetLastError(), "from a callback") == 0);

  for (int k = 0; k < kFixtureInputs; ++k) {
    TsNDArrayDestroy(inputs[k]);
    free(buffers[k]);
  }
  printf("test_c_runtime: %d checks passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
