/* Collage from C: TsBuild with several targets under a context with collage.enable, the
 * report as JSON and rendered, outputs checked against the interpreter. */
#include <math.h>

#include "c_test_util.h"
#include "tessera/c_api.h"

static const char* kModel =
    "def @main(%x: Tensor[(4, 16), float32], %w: Tensor[(8, 16), float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = nn.relu(%0);\n"
    "  nn.softmax(%1)\n"
    "}\n";

int main(void) {
  float x[64], w[128];
  for (int i = 0; i < 64; ++i) x[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
  for (int i = 0; i < 128; ++i) w[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  int64_t xs[2] = {4, 16}, ws[2] = {8, 16};
  TsNDArray inputs[2] = {NULL, NULL};
  CHECK(TsNDArrayFromBuffer(x, xs, 2, kF32, &inputs[0]) == TS_OK);
  CHECK(TsNDArrayFromBuffer(w, ws, 2, kF32, &inputs[1]) == TS_OK);
  const char* names[2] = {"x", "w"};

  TsModule mod = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  TsNDArray want[1] = {NULL};
  size_t n = 0;
  CHECK(TsModuleRunMain(mod, names, inputs, 2, want, 1, &n) == TS_OK && n == 1);

  /* Several targets: native plus whatever libraries this build has. */
  TsTarget targets[3] = {NULL, NULL, NULL};
  size_t num_targets = 0;
  CHECK(TsTargetParse("native -num_threads=1", &targets[num_targets++]) == TS_OK);
  if (TsTargetParse("dnnl", &targets[num_targets]) == TS_OK) ++num_targets;
  if (TsTargetParse("blas", &targets[num_targets]) == TS_OK) ++num_targets;

  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0,
                            "{\"collage.enable\": true, \"collage.native_max_depth\": 2, "
                            "\"collage.byoc_max_depth\": 2}",
                            &ctx) == TS_OK);
  TsExecutable exe = NULL;
  CHECK(TsBuild(mod, targets, num_targets, ctx, &exe) == TS_OK);
  if (exe) {
    GrowingBuffer report = {NULL, 0};
    CHECK(TsExecutableGetReport(exe, append_growing, &report) == TS_OK);
    CHECK(report.text && strstr(report.text, "\"estimator\":\"measure\"") != NULL);
    CHECK(report.text && strstr(report.text, "\"guard\"") != NULL);
    GrowingBuffer text = {NULL, 0}, html = {NULL, 0};
    CHECK(TsCollageReportRender(report.text, "text", -1, append_growing, &text) == TS_OK);
    CHECK(text.text && strstr(text.text, "Collage partition") != NULL);
    CHECK(TsCollageReportRender(report.text, "html", 1.0, append_growing, &html) == TS_OK);
    CHECK(html.text && strncmp(html.text, "<!DOCTYPE html>", 15) == 0);
    CHECK(TsCollageReportRender("{not json", "text", -1, append_growing, &text) == TS_ERROR_PARSE);
    CHECK(TsCollageReportRender(report.text, "pdf", -1, append_growing, &text) == TS_ERROR_VALUE);
    free(report.text);
    free(text.text);
    free(html.text);

    TsNDArray got[1] = {NULL};
    CHECK(TsExecutableRun(exe, names, inputs, 2, got, 1, &n) == TS_OK && n == 1);
    float *a = NULL, *b = NULL;
    if (want[0] && got[0]) {
      TsNDArrayGetInfo(want[0], (void**)&a, NULL, NULL, NULL);
      TsNDArrayGetInfo(got[0], (void**)&b, NULL, NULL, NULL);
      int close = 1;
      for (int i = 0; i < 32; ++i) close &= fabsf(a[i] - b[i]) <= 1e-4f * (1.0f + fabsf(a[i]));
      CHECK(close);
    }
    TsNDArrayDestroy(got[0]);
  }
  /* A bad config value is refused when the context is made. */
  TsPassContext bad = NULL;
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0, "{\"collage.search\": \"beam\"}", &bad) ==
        TS_ERROR_VALUE);

  TsExecutableDestroy(exe);
  TsPassContextDestroy(ctx);
  for (size_t i = 0; i < num_targets; ++i) TsTargetDestroy(targets[i]);
  TsNDArrayDestroy(want[0]);
  TsNDArrayDestroy(inputs[0]);
  TsNDArrayDestroy(inputs[1]);
  TsModuleDestroy(mod);
  return check_summary();
}
