/* Collage's search from C: estimators written in C decide the plan of the Collage pass and
 * of TsBuild, progress callbacks, the estimator registry, mock and measuring estimators,
 * reports, the cost database in a temporary file, fingerprints, an external backend as a
 * Collage target; bad input (unknown estimator, damaged database, ...). */
#include <math.h>
#include <unistd.h>

#include "c_test_util.h"
#include "tessera/c_api.h"

static const char* kModel =
    "def @main(%x: Tensor[(4, 16), float32], %w: Tensor[(8, 16), float32], %b: Tensor[(8), "
    "float32]) {\n"
    "  %0 = nn.dense(%x, %w);\n"
    "  %1 = add(%0, %b);\n"
    "  nn.relu(%1)\n"
    "}\n";

/* A C estimator: a kernel costs 1us ("flat": fewest kernels win) or 1us per op squared
 * ("square": single ops win); "fail_fused" refuses kernels of several ops. */
typedef struct {
  const char* mode;
  int calls, destroyed;
} Estimator;

static size_t count_of(const char* text, const char* what) {
  size_t n = 0;
  for (const char* p = text; (p = strstr(p, what)) != NULL; p += strlen(what)) ++n;
  return n;
}

static TsStatus estimate(TsModule mod, TsTarget target, double* seconds, void* user) {
  Estimator* e = (Estimator*)user;
  ++e->calls;
  GrowingBuffer text = {NULL, 0}, t = {NULL, 0};
  if (TsModulePrint(mod, append_growing, &text) != TS_OK) return TS_ERROR_INTERNAL;
  TsTargetPrint(target, append_growing, &t);
  size_t ops = count_of(text.text, "nn.dense(") + count_of(text.text, "add(") +
               count_of(text.text, "nn.relu(");
  int native = t.text && strncmp(t.text, "native", 6) == 0;
  free(text.text);
  free(t.text);
  if (!native || ops == 0) return fail_with(TS_ERROR_INTERNAL, "unexpected candidate");
  if (strcmp(e->mode, "fail_fused") == 0 && ops > 1)
    return fail_with(TS_ERROR_VALUE, "fused kernels are not wanted");
  *seconds = strcmp(e->mode, "flat") == 0 ? 1e-6 : 1e-6 * (double)(ops * ops);
  return TS_OK;
}

static void destroy_estimator(void* user) {
  ((Estimator*)user)->destroyed++;
}

typedef struct {
  size_t calls, last_done, last_total;
  int destroyed, fail;
} Progress;

static TsStatus progress(size_t done, size_t total, void* user) {
  Progress* p = (Progress*)user;
  ++p->calls;
  p->last_done = done;
  p->last_total = total;
  if (p->fail) return fail_with(TS_ERROR_VALUE, "stop here");
  return TS_OK;
}

static void destroy_progress(void* user) {
  ((Progress*)user)->destroyed++;
}

/* Runs the Collage pass with `estimator`; returns the report JSON (to free) or NULL. */
static char* partition_report(TsModule mod, TsTarget target, TsCostEstimator estimator,
                              Progress* prog, TsStatus* status) {
  TsPass pass = NULL;
  TsModule out = NULL;
  GrowingBuffer report = {NULL, 0};
  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0, "{\"collage.cost_db\": \"\"}", &ctx) == TS_OK);
  CHECK(TsCollagePartitionPassCreate(&target, 1, estimator, prog ? progress : NULL, prog,
                                     prog ? destroy_progress : NULL, &pass) == TS_OK);
  *status = TsPassRun(pass, mod, ctx, &out);
  if (*status == TS_OK) CHECK(TsCollageGetReport(out, append_growing, &report) == TS_OK);
  TsModuleDestroy(out);
  TsPassDestroy(pass);
  TsPassContextDestroy(ctx);
  return report.text;
}

/* Writes `text` to `path`. */
static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static TsStatus no_source(TsExpr partition, const char* c_name, TsStringCallback write,
                          void* write_data, void* user) {
  (void)partition, (void)c_name, (void)write, (void)write_data, (void)user;
  return TS_ERROR_INTERNAL;
}

int main(void) {
  TsModule mod = NULL, typed = NULL;
  CHECK(TsModuleParse(kModel, (size_t)-1, &mod) == TS_OK);
  CHECK(TsModuleInferTypes(mod, &typed) == TS_OK);
  TsTarget native = NULL;
  CHECK(TsTargetParse("native -num_threads=1", &native) == TS_OK);
  TsStatus status = TS_OK;

  /* The C estimator's costs decide the plan: one fused kernel, or three single ones. */
  Estimator flat = {"flat", 0, 0}, square = {"square", 0, 0}, fail = {"fail_fused", 0, 0};
  TsCostEstimator est_flat = NULL, est_square = NULL, est_fail = NULL;
  CHECK(TsCostEstimatorCreate("c_flat", estimate, &flat, destroy_estimator, &est_flat) == TS_OK);
  CHECK(TsCostEstimatorCreate(NULL, estimate, &square, destroy_estimator, &est_square) == TS_OK);
  CHECK(TsCostEstimatorCreate("c_fail", estimate, &fail, destroy_estimator, &est_fail) == TS_OK);
  Progress prog = {0, 0, 0, 0, 0};
  char* report = partition_report(typed, native, est_flat, &prog, &status);
  CHECK(status == TS_OK && report != NULL);
  CHECK(flat.calls == 6); /* dense, add, relu, dense+add, add+relu, dense+add+relu */
  CHECK(prog.destroyed == 1 && prog.calls >= 1 && prog.last_done == prog.last_total);
  CHECK(report && count_of(report, "\"rule\":") == 1 && strstr(report, "\"estimator\":\"c_flat\""));
  if (report) {
    GrowingBuffer text = {NULL, 0};
    CHECK(TsCollageReportRender(report, "text", -1, append_growing, &text) == TS_OK);
    CHECK(text.text && strstr(text.text, "nn.dense+add+nn.relu") != NULL);
    free(text.text);
  }
  free(report);
  report = partition_report(typed, native, est_square, NULL, &status);
  CHECK(status == TS_OK && square.calls == 6);
  CHECK(report && count_of(report, "\"rule\":") == 3 && strstr(report, "\"estimator\":\"custom\""));
  free(report);
  /* A failing estimate makes its candidate invalid; the search goes on without it. */
  report = partition_report(typed, native, est_fail, NULL, &status);
  CHECK(status == TS_OK && fail.calls == 6 && report && count_of(report, "\"rule\":") == 3);
  free(report);
  /* A failing progress callback stops the search with its error. */
  Progress stop = {0, 0, 0, 0, 1};
  report = partition_report(typed, native, est_flat, &stop, &status);
  CHECK(status == TS_ERROR_VALUE && error_has("stop here") && report == NULL);
  CHECK(stop.destroyed == 1);

  /* Calling an estimator directly; its name and launch penalty. */
  double seconds = 0;
  CHECK(TsCostEstimatorEstimate(est_square, typed, native, &seconds) == TS_OK &&
        fabs(seconds - 9e-6) < 1e-12);
  CHECK(TsCostEstimatorEstimate(est_fail, typed, native, &seconds) == TS_ERROR_VALUE &&
        error_has("cost estimator 'c_fail'"));
  CHECK(TsCostEstimatorGetLaunchPenalty(est_flat, native, &seconds) == TS_OK && seconds == 0);
  GrowingBuffer name = {NULL, 0};
  CHECK(TsCostEstimatorGetName(est_flat, append_growing, &name) == TS_OK && name.text &&
        strcmp(name.text, "c_flat") == 0);
  free(name.text);

  /* Registered under a name, the estimator decides inside TsBuild (the module as written). */
  CHECK(TsCostEstimatorRegister("c_square", est_square) == TS_OK);
  CHECK(TsCostEstimatorRegister("measure", est_square) == TS_ERROR_VALUE);
  CHECK(TsCostEstimatorRegister("c_null", NULL) == TS_ERROR_VALUE);
  GrowingBuffer names = {NULL, 0};
  CHECK(TsListCostEstimators(append_growing, &names) == TS_OK);
  CHECK(names.text && strstr(names.text, "\"c_square\"") && strstr(names.text, "\"measure\""));
  free(names.text);
  Progress thread_progress = {0, 0, 0, 0, 0};
  CHECK(TsCollageSetProgress(progress, &thread_progress, destroy_progress) == TS_OK);
  TsPassContext ctx = NULL;
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0,
                            "{\"collage.enable\": true, \"collage.estimator\": \"c_square\", "
                            "\"collage.cost_db\": \"\"}",
                            &ctx) == TS_OK);
  int before = square.calls;
  TsExecutable exe = NULL;
  CHECK(TsBuild(mod, &native, 1, ctx, &exe) == TS_OK);
  CHECK(square.calls == before + 6 && thread_progress.calls >= 1);
  GrowingBuffer exe_report = {NULL, 0};
  CHECK(exe && TsExecutableGetReport(exe, append_growing, &exe_report) == TS_OK);
  CHECK(exe_report.text && count_of(exe_report.text, "\"rule\":") == 3);
  free(exe_report.text);
  TsExecutableDestroy(exe);
  TsPassContextDestroy(ctx);
  CHECK(TsCollageSetProgress(NULL, NULL, NULL) == TS_OK && thread_progress.destroyed == 1);
  /* An unknown estimator name. */
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0,
                            "{\"collage.enable\": true, \"collage.estimator\": \"no_such\"}",
                            &ctx) == TS_OK);
  exe = NULL;
  CHECK(TsBuild(mod, &native, 1, ctx, &exe) == TS_ERROR_NOT_FOUND && error_has("no_such"));
  TsExecutableDestroy(exe);
  TsPassContextDestroy(ctx);
  TsPass pass = NULL;
  CHECK(TsCollagePartitionPassCreate(&native, 0, NULL, NULL, NULL, NULL, &pass) == TS_ERROR_VALUE);
  CHECK(TsCollageGetReport(mod, append_growing, &name) == TS_ERROR_NOT_FOUND);

  /* The mock estimator: costs per target kind, counted. */
  const char* kinds[1] = {"native"};
  double costs[1] = {1.0};
  TsCostEstimator mock = NULL, measuring = NULL;
  CHECK(TsCostEstimatorMockCreate(kinds, costs, 1, 0, &mock) == TS_OK);
  report = partition_report(typed, native, mock, NULL, &status);
  size_t num_estimates = 0;
  CHECK(status == TS_OK && report && strstr(report, "\"estimator\":\"mock\""));
  CHECK(TsCostEstimatorMockGetNumEstimates(mock, &num_estimates) == TS_OK && num_estimates == 6);
  CHECK(TsCostEstimatorMockGetNumEstimates(est_flat, &num_estimates) == TS_ERROR_TYPE);
  free(report);
  CHECK(TsCostEstimatorMeasuringCreate(3, 1, 50.0, "local", 1, 10.0, &measuring) == TS_OK);
  GrowingBuffer mname = {NULL, 0};
  CHECK(TsCostEstimatorGetName(measuring, append_growing, &mname) == TS_OK && mname.text &&
        strcmp(mname.text, "measure") == 0);
  free(mname.text);
  TsCostEstimator bad_estimator = NULL;
  CHECK(TsCostEstimatorMeasuringCreate(3, 1, 50.0, "ftp://nowhere", 1, 10.0, &bad_estimator) ==
        TS_ERROR_VALUE);
  CHECK(TsCostEstimatorCreate("x", NULL, NULL, NULL, &bad_estimator) == TS_ERROR_INVALID_ARGUMENT);

  /* The cost database: a measuring build fills a temporary one. */
  char db_path[64], export_path[64], junk_path[64];
  snprintf(db_path, sizeof db_path, "/tmp/ts_c_collage_%d.db", (int)getpid());
  snprintf(export_path, sizeof export_path, "/tmp/ts_c_collage_%d.jsonl", (int)getpid());
  snprintf(junk_path, sizeof junk_path, "/tmp/ts_c_collage_%d.junk", (int)getpid());
  char config[256];
  snprintf(config, sizeof config,
           "{\"collage.enable\": true, \"collage.cost_db\": \"%s\", \"collage.measure_repeat\": 1, "
           "\"collage.native_max_depth\": 1}",
           db_path);
  CHECK(TsPassContextCreate(3, NULL, 0, NULL, 0, config, &ctx) == TS_OK);
  exe = NULL;
  CHECK(TsBuild(mod, &native, 1, ctx, &exe) == TS_OK);
  TsExecutableDestroy(exe);
  TsPassContextDestroy(ctx);
  TsCostDatabase db = NULL;
  CHECK(TsCostDatabaseOpen(db_path, &db) == TS_OK);
  TsStringRef path = TsCostDatabaseGetPath(db);
  CHECK(path.length == strlen(db_path) && memcmp(path.data, db_path, path.length) == 0);
  GrowingBuffer stats = {NULL, 0};
  CHECK(TsCostDatabaseGetStats(db, append_growing, &stats) == TS_OK);
  CHECK(stats.text && strstr(stats.text, "\"by_fingerprint\"") && strstr(stats.text, "\"kernel\""));
  free(stats.text);
  TsCostRecordList records = NULL;
  CHECK(TsCostDatabaseListRecords(db, &records) == TS_OK);
  size_t num_records = TsCostRecordListGetNumRecords(records);
  CHECK(num_records >= 3); /* dense, add, relu (and the launch penalty, the program) */
  TsCostRecord record;
  size_t kernels = 0;
  for (size_t i = 0; i < num_records; ++i) {
    CHECK(TsCostRecordListGetRecord(records, i, &record) == TS_OK);
    if (record.kind.length == 6 && memcmp(record.kind.data, "kernel", 6) == 0) {
      ++kernels;
      CHECK(record.cost > 0 && record.cost < 1.0 && record.repeats >= 1 &&
            record.hash.length == 64);
      CHECK(record.fingerprint.length == 16 && record.measured_at > 0 &&
            record.workload.length > 0);
    }
  }
  CHECK(kernels >= 3);
  CHECK(TsCostRecordListGetRecord(records, num_records, &record) == TS_ERROR_VALUE);
  TsCostRecordListDestroy(records);
  size_t exported = 0, removed = 0, added = 0;
  CHECK(TsCostDatabaseExport(db, export_path, &exported) == TS_OK && exported == num_records);
  CHECK(TsCostDatabaseClear(db, &removed) == TS_OK && removed == num_records);
  CHECK(TsCostDatabaseListRecords(db, &records) == TS_OK &&
        TsCostRecordListGetNumRecords(records) == 0);
  TsCostRecordListDestroy(records);
  CHECK(TsCostDatabaseImport(db, export_path, &added) == TS_OK && added == num_records);
  CHECK(TsCostDatabaseImport(db, export_path, &added) == TS_OK && added == 0);
  write_file(junk_path, "{\"hash\": 12}\n");
  CHECK(TsCostDatabaseImport(db, junk_path, &added) == TS_ERROR_PARSE);
  CHECK(TsCostDatabaseImport(db, "/tmp/ts_c_collage_missing.jsonl", &added) == TS_ERROR_NOT_FOUND);
  TsCostDatabaseDestroy(db);
  /* A file that is not a database is refused and left alone. */
  write_file(junk_path, "this is not an SQLite database, not at all, it is plain text\n");
  db = NULL;
  CHECK(TsCostDatabaseOpen(junk_path, &db) == TS_ERROR_IO && db == NULL);
  CHECK(TsCostDatabaseOpen("/nonexistent_dir/x/costs.db", &db) == TS_ERROR_IO);
  unlink(db_path);
  unlink(export_path);
  unlink(junk_path);

  /* Fingerprints. */
  GrowingBuffer machine = {NULL, 0}, runner = {NULL, 0}, hash = {NULL, 0};
  CHECK(TsCollageMachineFingerprint(&native, 1, append_growing, &machine) == TS_OK);
  CHECK(machine.text && strchr(machine.text, '\n') != NULL);
  CHECK(TsCollageRunnerFingerprint("native -num_threads=1", append_growing, &runner) == TS_OK);
  CHECK(runner.text && machine.text &&
        strncmp(machine.text, runner.text, strlen(runner.text)) == 0);
  CHECK(TsCollageFingerprintHash(machine.text ? machine.text : "", append_growing, &hash) == TS_OK);
  CHECK(hash.length == 16 && strspn(hash.text, "0123456789abcdef") == 16);
  free(machine.text);
  free(runner.text);
  free(hash.text);
  TsTarget no_targets[1] = {NULL};
  CHECK(TsCollageMachineFingerprint(no_targets, 1, append_growing, &machine) == TS_ERROR_VALUE);

  /* An external backend (TsExternalBackendRegister, c_api_pattern.h) is a Collage target:
   * its relu pattern becomes a candidate kernel of its own. */
  TsPattern relu_op = NULL, relu = NULL;
  CHECK(TsPatternIsOp("nn.relu", &relu_op) == TS_OK);
  CHECK(TsPatternCallAnyArgs(relu_op, &relu) == TS_OK);
  TsPatternTableEntry entry = {"relu", relu, NULL, NULL, NULL};
  TsPatternTable table = NULL;
  CHECK(TsPatternTableCreate(&entry, 1, &table) == TS_OK);
  CHECK(TsExternalBackendRegister("c_api_ext", table, NULL, NULL, NULL) == TS_OK);
  TsTarget ext = NULL;
  CHECK(TsTargetParse("native -num_threads=1 -compiler=c_api_ext", &ext) == TS_OK);
  const char* ext_kinds[2] = {"native", "c_api_ext"};
  double ext_costs[2] = {1.0, 0.1}; /* the backend's relu is cheaper */
  TsCostEstimator ext_mock = NULL;
  CHECK(TsCostEstimatorMockCreate(ext_kinds, ext_costs, 2, 0, &ext_mock) == TS_OK);
  report = partition_report(typed, ext, ext_mock, NULL, &status);
  CHECK(status == TS_OK && report && strstr(report, "\"backend\":\"c_api_ext\"") != NULL);
  free(report);
  TsCostEstimatorDestroy(ext_mock);
  TsTargetDestroy(ext);
  /* Bad input; a refused registration leaves the caller its user data. */
  Estimator source_data = {"", 0, 0};
  TsPatternTableEntry not_a_pattern = {"relu", (TsPattern)typed, NULL, &source_data,
                                       destroy_estimator};
  TsPatternTable bad_table = NULL;
  CHECK(TsPatternTableCreate(&not_a_pattern, 1, &bad_table) == TS_ERROR_TYPE && !bad_table);
  CHECK(TsPatternTableCreate(NULL, 0, &bad_table) == TS_OK);
  CHECK(TsExternalBackendRegister("c_api_ext", bad_table, no_source, &source_data,
                                  destroy_estimator) == TS_ERROR_VALUE);
  CHECK(error_has("at least one") && source_data.destroyed == 0);
  CHECK(TsExternalBackendRegister("native", table, NULL, NULL, NULL) == TS_ERROR_VALUE);
  CHECK(TsExternalBackendRegister("c api", table, NULL, NULL, NULL) == TS_ERROR_VALUE);
  CHECK(TsExternalBackendRegister("c_api_ext", NULL, NULL, NULL, NULL) ==
        TS_ERROR_INVALID_ARGUMENT);
  TsPatternTableDestroy(bad_table);
  TsPatternTableDestroy(table);
  TsPatternDestroy(relu);
  TsPatternDestroy(relu_op);

  TsCostEstimatorDestroy(est_flat);
  TsCostEstimatorDestroy(est_fail);
  TsCostEstimatorDestroy(est_square); /* still registered: its user data lives on */
  CHECK(flat.destroyed == 1 && fail.destroyed == 1 && square.destroyed == 0);
  TsCostEstimatorDestroy(mock);
  TsCostEstimatorDestroy(measuring);
  TsTargetDestroy(native);
  TsModuleDestroy(typed);
  TsModuleDestroy(mod);
  return check_summary();
}
