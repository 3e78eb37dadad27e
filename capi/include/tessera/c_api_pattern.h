/* Tessera's C API for the dataflow pattern language (DFPattern), matching and rewriting,
 * pattern tables and BYOC partitioning. */
#ifndef TESSERA_C_API_PATTERN_H_
#define TESSERA_C_API_PATTERN_H_

#include "tessera/c_api_pass.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TsPattern_* TsPattern; /**< a dataflow pattern */

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_PATTERN_H_ */
