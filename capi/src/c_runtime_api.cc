// The runtime's flat C API: every entry point catches, maps errors to status codes and
// stores the message in a thread-local last-error string. Part of libtessera_runtime.
#include "tessera/c_runtime_api.h"

#include <cstring>
#include <map>
#include <string>

#include "c_runtime_internal.h"
#include "tessera/runtime/native_module.h"
#include "tessera/runtime/npy.h"
#include "tessera/support/logging.h"
#include "tessera/support/version.h"

using namespace tessera::capi;
using tessera::runtime::Executable;
using tessera::runtime::Executor;
using tessera::runtime::ExecutorOptions;

namespace {

std::vector<int64_t> ShapeFromC(const int64_t* shape, int32_t ndim) {
  if (ndim < 0) TS_THROW(kValue) << "negative rank " << ndim;
  if (ndim > 0 && !shape) TS_THROW(kValue) << "shape is NULL for rank " << ndim;
  std::vector<int64_t> out(shape, shape + ndim);
  for (int64_t d : out)
    if (d < 0) TS_THROW(kValue) << "negative dimension in shape " << tessera::ShapeToString(out);
  return out;
}

}  // namespace

namespace tessera::capi {

namespace {
thread_local std::string last_error;
thread_local uint64_t error_serial = 0;
}  // namespace

TsStatus StatusOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse:
      return TS_ERROR_PARSE;
    case ErrorKind::kType:
      return TS_ERROR_TYPE;
    case ErrorKind::kValue:
      return TS_ERROR_VALUE;
    case ErrorKind::kNotFound:
      return TS_ERROR_NOT_FOUND;
    case ErrorKind::kUnsupported:
      return TS_ERROR_UNSUPPORTED;
    case ErrorKind::kIO:
      return TS_ERROR_IO;
    case ErrorKind::kInternal:
      return TS_ERROR_INTERNAL;
  }
  return TS_ERROR_INTERNAL;
}

TsStatus Fail(TsStatus status, std::string message) {
  last_error = std::move(message);
  ++error_serial;
  return status;
}

uint64_t ErrorSerial() {
  return error_serial;
}

const char* LastError() {
  return last_error.c_str();
}

DType DTypeFromC(TsDType d, const char* where) {
  std::string prefix = where ? std::string(where) + ": " : std::string();
  if (d.lanes != 1)
    TS_THROW(kUnsupported) << prefix << "vector dtypes (lanes=" << d.lanes << ") are not supported";
  switch (d.code) {
    case 0:
      if (d.bits == 8) return DType::kInt8;
      if (d.bits == 32) return DType::kInt32;
      if (d.bits == 64) return DType::kInt64;
      break;
    case 1:
      if (d.bits == 8) return DType::kUInt8;
      break;
    case 2:
      if (d.bits == 16) return DType::kFloat16;
      if (d.bits == 32) return DType::kFloat32;
      if (d.bits == 64) return DType::kFloat64;
      break;
    case 4:
      if (d.bits == 16) return DType::kBFloat16;
      break;
    case 6:
      if (d.bits == 8) return DType::kBool;
      break;
  }
  TS_THROW(kUnsupported) << prefix << "unsupported dtype (code " << int{d.code} << ", bits "
                         << int{d.bits} << ")";
}

TsDType DTypeToC(DType d) {
  switch (d) {
    case DType::kInt8:
      return {0, 8, 1};
    case DType::kInt32:
      return {0, 32, 1};
    case DType::kInt64:
      return {0, 64, 1};
    case DType::kUInt8:
      return {1, 8, 1};
    case DType::kFloat16:
      return {2, 16, 1};
    case DType::kFloat32:
      return {2, 32, 1};
    case DType::kFloat64:
      return {2, 64, 1};
    case DType::kBFloat16:
      return {4, 16, 1};
    case DType::kBool:
      return {6, 8, 1};
  }
  return {2, 32, 1};
}

TsExecutable MakeExecutable(std::shared_ptr<Executable> exe, ExecutorOptions options) {
  auto handle = std::make_unique<TsExecutable_>();
  handle->executor = std::make_unique<Executor>(exe, std::move(options));
  handle->exe = std::move(exe);
  return handle.release();
}

std::map<std::string, NDArray> NamedInputs(const char* const* names, const TsNDArray* inputs,
                                           size_t num_inputs) {
  std::map<std::string, NDArray> named;
  for (size_t i = 0; i < num_inputs; ++i) {
    if (!names[i] || !inputs[i]) TS_THROW(kValue) << "input " << i << " has a NULL name or tensor";
    if (!named.emplace(names[i], inputs[i]->array).second)
      TS_THROW(kValue) << "input '" << names[i] << "' is given twice";
  }
  return named;
}

void StoreOutputs(std::vector<NDArray> results, const TsNDArray* inputs, size_t num_inputs,
                  TsNDArray* outputs, size_t max_outputs, size_t* num_outputs) {
  if (results.size() > max_outputs)
    TS_THROW(kValue) << "@main returns " << results.size()
                     << (results.size() == 1 ? " array" : " arrays") << " but `max_outputs` is "
                     << max_outputs;
  for (size_t i = 0; i < results.size(); ++i) {
    // An output that is an input (e.g. @main returns a parameter) would alias caller
    // memory the caller may free; hand back a copy instead.
    bool aliases = false;
    for (size_t k = 0; k < num_inputs; ++k) aliases |= results[i].data() == inputs[k]->array.data();
    outputs[i] = new TsNDArray_{aliases ? results[i].Copy() : results[i]};
  }
  *num_outputs = results.size();
}

}  // namespace tessera::capi

extern "C" {

const char* TsGetVersion(void) {
  return tessera::Version();
}

int32_t TsGetCApiVersion(void) {
  return TS_C_API_VERSION;
}

void TsSetLastError(const char* message) {
  tessera::capi::Fail(TS_OK, message ? message : "");
}

const char* TsGetLastError(void) {
  return tessera::capi::LastError();
}

const char* TsStatusName(TsStatus status) {
  switch (status) {
    case TS_OK:
      return "ok";
    case TS_ERROR_PARSE:
      return "parse error";
    case TS_ERROR_TYPE:
      return "type error";
    case TS_ERROR_VALUE:
      return "value error";
    case TS_ERROR_NOT_FOUND:
      return "not found";
    case TS_ERROR_UNSUPPORTED:
      return "unsupported";
    case TS_ERROR_IO:
      return "I/O error";
    case TS_ERROR_INTERNAL:
      return "internal error";
    case TS_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case TS_STATUS_MIN_ENUM:
    case TS_STATUS_MAX_ENUM:
      break;
  }
  return "unknown status";
}

TsStatus TsNDArrayFromBuffer(void* data, const int64_t* shape, int32_t ndim, TsDType dtype,
                             TsNDArray* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    std::vector<int64_t> dims = ShapeFromC(shape, ndim);
    if (!data && tessera::ShapeNumElements(dims) > 0)
      TS_THROW(kValue) << "data is NULL for a non-empty tensor";
    *out = new TsNDArray_{tessera::NDArray::FromBorrowed(data, dims, DTypeFromC(dtype))};
  });
}

TsStatus TsNDArrayCreate(const int64_t* shape, int32_t ndim, TsDType dtype, TsNDArray* out) {
  TS_REQUIRE(out);
  return Guard([&] {
    *out = new TsNDArray_{tessera::NDArray::Zeros(ShapeFromC(shape, ndim), DTypeFromC(dtype))};
  });
}

TsStatus TsNDArrayGetInfo(TsNDArray tensor, void** data, const int64_t** shape, int32_t* ndim,
                          TsDType* dtype) {
  TS_REQUIRE(tensor);
  return Guard([&] {
    if (data) *data = tensor->array.data();
    if (shape) *shape = tensor->array.shape().data();
    if (ndim) *ndim = tensor->array.ndim();
    if (dtype) *dtype = DTypeToC(tensor->array.dtype());
  });
}

void TsNDArrayDestroy(TsNDArray tensor) {
  delete tensor;
}

TsStatus TsNDArrayFromDLPack(DLManagedTensor* managed, TsNDArray* out) {
  TS_REQUIRE(managed);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsNDArray_{tessera::NDArray::FromDLPack(managed)}; });
}

TsStatus TsNDArrayToDLPack(TsNDArray tensor, DLManagedTensor** out) {
  TS_REQUIRE(tensor);
  TS_REQUIRE(out);
  return Guard([&] { *out = tensor->array.ToDLPack(); });
}

TsStatus TsExecutableSave(TsExecutable executable, const char* path) {
  TS_REQUIRE(executable);
  TS_REQUIRE(path);
  return Guard([&] { executable->exe->Save(path); });
}

TsStatus TsExecutableLoad(const char* path, int num_threads, TsExecutable* out) {
  TS_REQUIRE(path);
  TS_REQUIRE(out);
  return Guard([&] {
    if (num_threads < 0)
      TS_THROW(kValue) << "TsExecutableLoad: num_threads must be >= 0 (0 = all cores), got "
                       << num_threads;
    ExecutorOptions options;
    options.num_threads = num_threads;
    *out = MakeExecutable(Executable::Load(path), std::move(options));
  });
}

TsStatus TsExecutableGetInputNames(TsExecutable executable, TsStringCallback callback,
                                   void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const std::string& name : executable->exe->input_names()) Emit(name, callback, user_data);
  });
}

TsStatus TsExecutableGetNumInputs(TsExecutable executable, size_t* num_inputs) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_inputs);
  return Guard([&] { *num_inputs = executable->exe->input_names().size(); });
}

TsStatus TsExecutableGetInputType(TsExecutable executable, size_t index, const int64_t** shape,
                                  int32_t* ndim, TsDType* dtype) {
  TS_REQUIRE(executable);
  return Guard([&] {
    size_t n = executable->exe->input_names().size();
    if (index >= n) TS_THROW(kValue) << "TsExecutableGetInputType: input " << index << " of " << n;
    for (const tessera::runtime::Slot& s : executable->exe->slots()) {
      if (s.kind != tessera::runtime::SlotKind::kInput || s.index != static_cast<int>(index))
        continue;
      if (shape) *shape = s.shape.data();
      if (ndim) *ndim = static_cast<int32_t>(s.shape.size());
      if (dtype) *dtype = DTypeToC(s.dtype);
    }
  });
}

TsStatus TsExecutableGetOutputType(TsExecutable executable, size_t index, const int64_t** shape,
                                   int32_t* ndim, TsDType* dtype) {
  TS_REQUIRE(executable);
  return Guard([&] {
    const std::vector<int>& outputs = executable->exe->output_slots();
    if (index >= outputs.size())
      TS_THROW(kValue) << "TsExecutableGetOutputType: output " << index << " of " << outputs.size();
    const tessera::runtime::Slot& s = executable->exe->slots()[outputs[index]];
    if (shape) *shape = s.shape.data();
    if (ndim) *ndim = static_cast<int32_t>(s.shape.size());
    if (dtype) *dtype = DTypeToC(s.dtype);
  });
}

TsStatus TsExecutableGetNumThreads(TsExecutable executable, int* num_threads) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_threads);
  return Guard([&] { *num_threads = executable->executor->pool().num_threads(); });
}

TsStatus TsExecutableRun(TsExecutable executable, const char* const* input_names,
                         const TsNDArray* inputs, size_t num_inputs, TsNDArray* outputs,
                         size_t max_outputs, size_t* num_outputs) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_outputs);
  TS_REQUIRE_INPUTS();
  if (max_outputs) TS_REQUIRE(outputs);
  return Guard([&] {
    std::vector<tessera::NDArray> results =
        executable->executor->Run(NamedInputs(input_names, inputs, num_inputs));
    StoreOutputs(std::move(results), inputs, num_inputs, outputs, max_outputs, num_outputs);
  });
}

TsStatus TsExecutableBenchmark(TsExecutable executable, const char* const* input_names,
                               const TsNDArray* inputs, size_t num_inputs, int warmup, int repeat,
                               double* median_ms, double* p90_ms, double* min_ms) {
  TS_REQUIRE(executable);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    if (warmup < 0 || repeat < 1)
      TS_THROW(kValue) << "TsExecutableBenchmark: needs warmup >= 0 and repeat >= 1, got warmup="
                       << warmup << ", repeat=" << repeat;
    tessera::runtime::BenchmarkResult r = executable->executor->Benchmark(
        NamedInputs(input_names, inputs, num_inputs), warmup, repeat);
    if (median_ms) *median_ms = r.median_ms;
    if (p90_ms) *p90_ms = r.p90_ms;
    if (min_ms) *min_ms = r.min_ms;
  });
}

TsStatus TsExecutableProfile(TsExecutable executable, const char* const* input_names,
                             const TsNDArray* inputs, size_t num_inputs, int repeat,
                             TsStringCallback callback, void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    tessera::runtime::ProfileReport report =
        executable->executor->Profile(NamedInputs(input_names, inputs, num_inputs), repeat);
    Emit(report.table, callback, user_data);
  });
}

TsStatus TsExecutableBenchmarkStats(TsExecutable executable, const char* const* input_names,
                                    const TsNDArray* inputs, size_t num_inputs, int warmup,
                                    int repeat, TsBenchmarkStats* out) {
  TS_REQUIRE(executable);
  TS_REQUIRE(out);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    if (warmup < 0 || repeat < 1)
      TS_THROW(kValue) << "TsExecutableBenchmarkStats: needs warmup >= 0 and repeat >= 1, got "
                       << "warmup=" << warmup << ", repeat=" << repeat;
    tessera::runtime::BenchmarkResult r = executable->executor->Benchmark(
        NamedInputs(input_names, inputs, num_inputs), warmup, repeat);
    *out = TsBenchmarkStats{r.median_ms, r.p90_ms, r.min_ms, r.mean_ms, r.repeat};
  });
}

TsStatus TsExecutableProfileJSON(TsExecutable executable, const char* const* input_names,
                                 const TsNDArray* inputs, size_t num_inputs, int repeat,
                                 TsStringCallback callback, void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  TS_REQUIRE_INPUTS();
  return Guard([&] {
    if (repeat < 1)
      TS_THROW(kValue) << "TsExecutableProfileJSON: needs repeat >= 1, got " << repeat;
    tessera::runtime::ProfileReport report =
        executable->executor->Profile(NamedInputs(input_names, inputs, num_inputs), repeat);
    nlohmann::json rows = nlohmann::json::array();
    for (const tessera::runtime::ProfileRow& row : report.rows)
      rows.push_back({{"symbol", row.symbol},
                      {"backend", row.module_kind},
                      {"calls", row.calls},
                      {"total_ms", row.total_ms},
                      {"mean_ms", row.mean_ms},
                      {"share", row.share}});
    nlohmann::json out = {{"rows", rows}, {"total_ms", report.total_ms}, {"table", report.table}};
    Emit(out.dump(), callback, user_data);
  });
}

TsStatus TsExecutableGetNumOutputs(TsExecutable executable, size_t* num_outputs) {
  TS_REQUIRE(executable);
  TS_REQUIRE(num_outputs);
  return Guard([&] { *num_outputs = executable->exe->output_slots().size(); });
}

TsStatus TsExecutableReturnsTuple(TsExecutable executable, int* returns_tuple) {
  TS_REQUIRE(executable);
  TS_REQUIRE(returns_tuple);
  return Guard([&] { *returns_tuple = executable->exe->returns_tuple() ? 1 : 0; });
}

TsStatus TsExecutableGetKernels(TsExecutable executable, TsStringCallback callback,
                                void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const auto& instruction : executable->exe->instructions())
      Emit(instruction.symbol, callback, user_data);
  });
}

TsStatus TsExecutableGetMemoryPlan(TsExecutable executable, TsMemoryPlan* out) {
  TS_REQUIRE(executable);
  TS_REQUIRE(out);
  return Guard([&] {
    const tessera::runtime::MemoryPlanStats& p = executable->exe->memory_plan();
    *out = TsMemoryPlan{p.arena_bytes, p.num_storages, p.num_intermediates,
                        p.total_intermediate_bytes};
  });
}

TsStatus TsExecutableGetSource(TsExecutable executable, TsStringCallback callback, void* user_data,
                               int* has_source) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  TS_REQUIRE(has_source);
  return Guard([&] {
    const auto* native =
        dynamic_cast<const tessera::runtime::NativeModuleNode*>(executable->exe->module().get());
    *has_source = native ? 1 : 0;
    if (native) Emit(native->source(), callback, user_data);
  });
}

TsStatus TsSetLogLevel(const char* level) {
  TS_REQUIRE(level);
  return Guard([&] { tessera::SetLogLevel(level); });
}

TsStatus TsNDArrayDescribe(TsNDArray tensor, TsStringCallback callback, void* user_data) {
  TS_REQUIRE(tensor);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(tensor->array.Describe(), callback, user_data); });
}

TsStatus TsNDArrayReadNpy(const char* path, TsNDArray* out) {
  TS_REQUIRE(path);
  TS_REQUIRE(out);
  return Guard([&] { *out = new TsNDArray_{tessera::ReadNpy(path)}; });
}

TsStatus TsNDArrayWriteNpy(const char* path, TsNDArray tensor) {
  TS_REQUIRE(path);
  TS_REQUIRE(tensor);
  return Guard([&] { tessera::WriteNpy(path, tensor->array); });
}

TsStatus TsExecutableGetReport(TsExecutable executable, TsStringCallback callback,
                               void* user_data) {
  TS_REQUIRE(executable);
  TS_REQUIRE(callback);
  return Guard([&] { Emit(executable->exe->collage_report(), callback, user_data); });
}

void TsExecutableDestroy(TsExecutable executable) {
  delete executable;
}

}  // extern "C"
