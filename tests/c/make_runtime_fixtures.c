/* Compiles the fixture model with the compiler's C API for each configuration named on
 * the command line (native, dnnl, blas), saves DIR/NAME.tsx and the outputs for the
 * fixture inputs as raw float32 in DIR/NAME.out, for test_c_runtime to compare against.
 * Usage: make_runtime_fixtures DIR NAME... */
#include <stdio.h>
#include <string.h>

#include "c_test_util.h"
#include "runtime_fixture.h"
#include "tessera/c_api.h"

static const char* TargetOf(const char* name) {
  if (strcmp(name, "native") == 0) return "native -num_threads=1";
  if (strcmp(name, "dnnl") == 0) return "native -num_threads=1 -compiler=dnnl";
  if (strcmp(name, "blas") == 0) return "native -num_threads=1 -libs=blas";
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s DIR NAME...\n", argv[0]);
    return 2;
  }
  TsModule mod = NULL;
  CHECK(TsModuleParse(kFixtureModel, (size_t)-1, &mod) == TS_OK);
  float* buffers[kFixtureInputs];
  TsNDArray inputs[kFixtureInputs];
  FixtureInputs(buffers, inputs);
  for (int a = 2; a < argc; ++a) {
    const char* target_text = TargetOf(argv[a]);
    if (!target_text) {
      fprintf(stderr, "unknown configuration '%s'\n", argv[a]);
      return 2;
    }
    TsTarget target = NULL;
    TsExecutable exe = NULL;
    CHECK(TsTargetParse(target_text, &target) == TS_OK);
    CHECK(TsBuild(mod, &target, 1, NULL, &exe) == TS_OK);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tsx", argv[1], argv[a]);
    CHECK(TsExecutableSave(exe, path) == TS_OK);
    TsNDArray out = NULL;
    size_t num_out = 0;
    CHECK(TsExecutableRun(exe, kFixtureNames, inputs, kFixtureInputs, &out, 1, &num_out) == TS_OK);
    void* data = NULL;
    CHECK(num_out == 1 && TsNDArrayGetInfo(out, &data, NULL, NULL, NULL) == TS_OK);
    snprintf(path, sizeof path, "%s/%s.out", argv[1], argv[a]);
    FILE* f = fopen(path, "wb");
    CHECK(f && fwrite(data, sizeof(float), kFixtureOutputElems, f) == kFixtureOutputElems);
    if (f) fclose(f);
    TsNDArrayDestroy(out);
    TsExecutableDestroy(exe);
    TsTargetDestroy(target);
  }
  for (int k = 0; k < kFixtureInputs; ++k) {
    TsNDArrayDestroy(inputs[k]);
    free(buffers[k]);
  }
  TsModuleDestroy(mod);
  printf("make_runtime_fixtures: %d checks passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
