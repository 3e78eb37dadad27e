/* Tessera's flat C API: the compiler (IR, tensor-level IR, passes, patterns, Collage,
 * build, ONNX, the reference interpreter, layouts) over the runtime's C API (tensors, loading
 * and running executables). One header per concept; this one includes them all. */
#ifndef TESSERA_C_API_H_
#define TESSERA_C_API_H_

#include "tessera/c_runtime_api.h"
#include "tessera/c_api_ir.h"
#include "tessera/c_api_tir.h"
#include "tessera/c_api_pass.h"
#include "tessera/c_api_pattern.h"
#include "tessera/c_api_collage.h"
#include "tessera/c_api_build.h"
#include "tessera/c_api_onnx.h"
#include "tessera/c_api_interp.h"
#include "tessera/c_api_layout.h"

#endif /* TESSERA_C_API_H_ */
