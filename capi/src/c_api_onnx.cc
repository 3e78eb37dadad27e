// The C API's ONNX import: TsModuleFromONNX and the list of supported op types.
#include <string>
#include <vector>

#include "c_api_internal.h"
#include "tessera/frontend/onnx.h"

using namespace tessera::capi;

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
    tessera::frontend::OnnxImportOptions options;
    options.params_as_inputs = params_as_inputs != 0;
    for (size_t i = 0; i < num_shapes; ++i) {
      if (!shape_names[i] || ranks[i] < 0 || (ranks[i] > 0 && !shapes[i]))
        TS_THROW(kValue) << "TsModuleFromONNX: shape override " << i
                         << " has a NULL name, a negative rank or NULL dims";
      options.shape_overrides[shape_names[i]] =
          std::vector<int64_t>(shapes[i], shapes[i] + ranks[i]);
    }
    *out = GiveModule(tessera::frontend::FromOnnxFile(path, options));
  });
}

TsStatus TsONNXSupportedOps(TsStringCallback callback, void* user_data) {
  TS_REQUIRE(callback);
  return Guard([&] {
    for (const std::string& op : tessera::frontend::OnnxSupportedOps())
      Emit(op, callback, user_data);
  });
}
