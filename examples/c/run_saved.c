/* Deploying with the runtime alone: loads an executable the compiler saved, runs it on
 * inputs of ones (float32 inputs; zeros otherwise) and prints the first output's first
 * value and the latency. Links only libtessera_runtime (tessera/c_runtime_api.h).
 * Usage: run_saved MODEL.tsx */
#include <stdio.h>
#include <stdlib.h>

#include "tessera/c_runtime_api.h"

static void print_name(const char* data, size_t length, void* user) {
  const char*** next = (const char***)user;
  char* copy = (char*)malloc(length + 1);
  for (size_t i = 0; i < length; ++i) copy[i] = data[i];
  copy[length] = '\0';
  *(*next)++ = copy;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL.tsx\n", argv[0]);
    return 2;
  }
  TsExecutable exe = NULL;
  size_t n = 0;
  if (TsExecutableLoad(argv[1], 1, &exe) != TS_OK || TsExecutableGetNumInputs(exe, &n) != TS_OK) {
    fprintf(stderr, "run_saved: %s\n", TsGetLastError());
    return 1;
  }
  const char** names = (const char**)calloc(n ? n : 1, sizeof(char*));
  const char** next = names;
  TsNDArray* inputs = (TsNDArray*)calloc(n ? n : 1, sizeof(TsNDArray));
  TsExecutableGetInputNames(exe, print_name, &next);
  for (size_t i = 0; i < n; ++i) {
    const int64_t* shape = NULL;
    int32_t ndim = 0;
    TsDType dtype;
    void* data = NULL;
    int64_t numel = 1;
    if (TsExecutableGetInputType(exe, i, &shape, &ndim, &dtype) != TS_OK ||
        TsNDArrayCreate(shape, ndim, dtype, &inputs[i]) != TS_OK ||
        TsNDArrayGetInfo(inputs[i], &data, NULL, NULL, NULL) != TS_OK) {
      fprintf(stderr, "run_saved: %s\n", TsGetLastError());
      return 1;
    }
    for (int32_t d = 0; d < ndim; ++d) numel *= shape[d];
    if (dtype.code == 2 && dtype.bits == 32)
      for (int64_t k = 0; k < numel; ++k) ((float*)data)[k] = 1.0f;
  }
  enum { kMaxOutputs = 64 };
  TsNDArray out[kMaxOutputs];
  size_t num_out = 0;
  double median_ms = 0;
  if (TsExecutableRun(exe, names, inputs, n, out, kMaxOutputs, &num_out) != TS_OK ||
      TsExecutableBenchmark(exe, names, inputs, n, 2, 10, &median_ms, NULL, NULL) != TS_OK) {
    fprintf(stderr, "run_saved: %s\n", TsGetLastError());
    return 1;
  }
  const int64_t* shape = NULL;
  int32_t ndim = 0;
  void* data = NULL;
  TsDType dtype;
  TsNDArrayGetInfo(out[0], &data, &shape, &ndim, &dtype);
  int64_t numel = 1;
  for (int32_t d = 0; d < ndim; ++d) numel *= shape[d];
  double first = 0;
  if (numel > 0 && dtype.code == 2 && dtype.bits == 32) first = ((float*)data)[0];
  if (numel > 0 && dtype.code == 0 && dtype.bits == 32) first = ((int32_t*)data)[0];
  if (numel > 0 && dtype.code == 0 && dtype.bits == 64) first = (double)((int64_t*)data)[0];
  printf("output 0: rank %d, first value %g; median %.3f ms\n", ndim, first, median_ms);
  for (size_t i = 0; i < num_out; ++i) TsNDArrayDestroy(out[i]);
  for (size_t i = 0; i < n; ++i) {
    TsNDArrayDestroy(inputs[i]);
    free((void*)names[i]);
  }
  free(names);
  free(inputs);
  TsExecutableDestroy(exe);
  return 0;
}
