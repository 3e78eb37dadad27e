/* Tessera's C API for tensor-level IR: PrimFunc expressions, buffers, statements and PrimFunc
 * builders. */
#ifndef TESSERA_C_API_TIR_H_
#define TESSERA_C_API_TIR_H_

#include "tessera/c_api_ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsPrimExpr_* TsPrimExpr; /**< a tensor-level (TIR) scalar expression */
typedef struct TsBuffer_* TsBuffer;     /**< a TIR buffer */
typedef struct TsStmt_* TsStmt;         /**< a TIR statement */

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_TIR_H_ */
