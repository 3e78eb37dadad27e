// The C API's ONNX import: TsModuleFromONNX and the list of supported op types.
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/frontend/onnx.h"

using namespace tessera::capi;

namespace {

/// Import options from the C API's parallel shape-override arrays.
tessera::frontend::OnnxImportOptions OptionsOf(const char* fn, const char* const* shape_names,
                                               const int64_t* const* shapes, const int32_t* ranks,
                                               size_t num_shapes, int params_as_inputs) {
  tessera::frontend::OnnxImportOptions options;
  options.params_as_inputs = params_as_inputs != 0;
  for (size_t i = 0; i < num_shapes; ++i) {
    if (!shape_names[i] || ranks[i] < 0 || (ranks[i] > 0 && !shapes[i]))
      TS_THROW(kValue) << fn << ": shape override " << i
                       << " has a NULL name, a negative rank or NULL dims";
    options.shape_overrides[shape_names[i]] = std::vector<int64_t>(shapes[i], shapes[i] + ranks[i]);
  }
  return options;
}

}  // namespace

TsStatus TsModuleFromONNX(const char* path, const char* const* shape_names,
                          const int64_t* const* shapes, const int32_t* ranks, size_t num_shapes,
                          int params_as_inputs, TsModule* out) {
  TS_REQUIRE(path);
  TS_REQUIRE(out);
  if (num_shapes > 0) {
    TS_REQUIRE(shape_names);
    TS_REQUIRE(shapes);
    TS_REQUIRE(ranks);
  }
  return Guard([&] {
    *out = GiveModule(tessera::frontend::FromOnnxFile(
        path,
        OptionsOf("TsModuleFromONNX", shape_names, shapes, ranks, num_shapes, params_as_inputs)));
  });
}

TsStatus TsModuleFromONNXBytes(const void* data, size_t size, TsStringRef source,
                               const char* const* shape_names, const int64_t* const* shapes,
                               const int32_t* ranks, size_t num_shapes, int params_as_inputs,
                               TsModule* out) {
  if (size) TS_REQUIRE(data);
  if (source.length) TS_REQUIRE(source.data);
  TS_REQUIRE(out);
  if (num_shapes > 0) {
    TS_REQUIRE(shape_names);
    TS_REQUIRE(shapes);
    TS_REQUIRE(ranks);
  }
  return Guard([&] {
    std::string bytes(static_cast<const char*>(data), size);
    std::string name = source.length ? std::string(source.data, source.length) : "<onnx bytes>";
    *out = GiveModule(
        tessera::frontend::FromOnnxBytes(bytes,
                                         OptionsOf("TsModuleFromONNXBytes", shape_names, shapes,
                                                   ranks, num_shapes, params_as_inputs),
                                         name));
  });
}

TsStatus TsONNXSupportedOpsets(int64_t* min_opset, int64_t* max_opset) {
  TS_REQUIRE(min_opset);
  TS_REQUIRE(max_opset);
  return Guard([&] {
    auto [lo, hi] = tessera::frontend::OnnxSupportedOpsetRange();
    *min_opset = lo;
    *max_opset = hi;
  });
}

int TsONNXImporterAvailable(void) {
  return tessera::frontend::OnnxImporterAvailable() ? 1 : 0;
}

TsStatus TsONNXSupportedOps(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const std::string& op : tessera::frontend::OnnxSupportedOps())
      Emit(op, callback, user_data);
  });
}
