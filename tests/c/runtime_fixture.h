/* The model and inputs shared by the program that compiles the runtime fixtures and the
 * runtime-only program that runs them: conv2d + relu, then dense + bias + relu. */
#ifndef TESSERA_TESTS_C_RUNTIME_FIXTURE_H_
#define TESSERA_TESTS_C_RUNTIME_FIXTURE_H_

#include <math.h>
#include <stdint.h>

#include "c_test_util.h"

static const char* kFixtureModel =
    "def @main(%x: Tensor[(2, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32],\n"
    "          %d: Tensor[(10, 256), float32], %b: Tensor[(10), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]);\n"
    "  %1 = nn.relu(%0);\n"
    "  %2 = reshape(%1, newshape=[2, 256]);\n"
    "  %3 = nn.dense(%2, %d);\n"
    "  %4 = nn.bias_add(%3, %b);\n"
    "  nn.relu(%4)\n"
    "}\n";

enum { kFixtureInputs = 4, kFixtureOutputElems = 20 };
static const char* kFixtureNames[kFixtureInputs] = {"x", "w", "d", "b"};
static const int32_t kFixtureRanks[kFixtureInputs] = {4, 4, 2, 1};
static const int64_t kFixtureShapes[kFixtureInputs][4] = {
    {2, 3, 8, 8}, {4, 3, 3, 3}, {10, 256, 0, 0}, {10, 0, 0, 0}};

/* Deterministic input values: input k, element i. */
static void FixtureFill(int k, float* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) data[i] = (float)sin(0.37 * (double)i + 1.3 * k) * 0.5f;
}

static int64_t FixtureNumel(int k) {
  int64_t n = 1;
  for (int32_t d = 0; d < kFixtureRanks[k]; ++d) n *= kFixtureShapes[k][d];
  return n;
}

/* The inputs as tensors over `buffers`, which this allocates and fills (free them after
 * destroying the tensors). */
static void FixtureInputs(float* buffers[kFixtureInputs], TsNDArray inputs[kFixtureInputs]) {
  for (int k = 0; k < kFixtureInputs; ++k) {
    buffers[k] = (float*)malloc(sizeof(float) * (size_t)FixtureNumel(k));
    FixtureFill(k, buffers[k], FixtureNumel(k));
    CHECK(TsNDArrayFromBuffer(buffers[k], kFixtureShapes[k], kFixtureRanks[k], kF32, &inputs[k]) ==
          TS_OK);
  }
}

#endif /* TESSERA_TESTS_C_RUNTIME_FIXTURE_H_ */
