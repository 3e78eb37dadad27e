/* Tessera's C API for ONNX import. */
#ifndef TESSERA_C_API_ONNX_H_
#define TESSERA_C_API_ONNX_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ONNX import --------------------------------------------------------------------- */

/** Imports the ONNX model file at `path` (opsets 11-17). `num_shapes` static input shapes
 *  may be given (`shape_names[i]` gets `shapes[i]` of `ranks[i]` dims; required for inputs
 *  with symbolic dimensions; pass 0 and NULLs for none). With `params_as_inputs` nonzero
 *  the initializers become @main parameters instead of constants. An unreadable file fails
 *  with TS_ERROR_IO, a malformed one with TS_ERROR_PARSE, an op or attribute the importer
 *  does not cover with TS_ERROR_UNSUPPORTED (the message names op type, node and opset). */
TS_CAPI_EXPORT TsStatus TsModuleFromONNX(const char* path, const char* const* shape_names,
                                         const int64_t* const* shapes, const int32_t* ranks,
                                         size_t num_shapes, int params_as_inputs, TsModule* out);
/** TsModuleFromONNX on the `size` bytes of a serialized ModelProto at `data`; errors name
 *  `source` (an empty ref gives "<onnx bytes>"). */
TS_CAPI_EXPORT TsStatus TsModuleFromONNXBytes(const void* data, size_t size, TsStringRef source,
                                              const char* const* shape_names,
                                              const int64_t* const* shapes, const int32_t* ranks,
                                              size_t num_shapes, int params_as_inputs,
                                              TsModule* out);
/** The range of ONNX opsets the importer accepts (inclusive). */
TS_CAPI_EXPORT TsStatus TsONNXSupportedOpsets(int64_t* min_opset, int64_t* max_opset);
/** 1 when the library was built with the ONNX importer, else 0 (every import then fails
 *  with TS_ERROR_UNSUPPORTED). Never fails. */
TS_CAPI_EXPORT int TsONNXImporterAvailable(void);
/** Calls `callback` once per ONNX op type the importer converts, sorted (none when the
 *  library was built without ONNX support). */
TS_CAPI_EXPORT TsStatus TsONNXSupportedOps(TsStringCallback callback, void* user_data);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_ONNX_H_ */
