/* Tessera's C API for Collage: partition rules and candidates, the partition pass,
 * estimators, reports, the cost database and fingerprints. */
#ifndef TESSERA_C_API_COLLAGE_H_
#define TESSERA_C_API_COLLAGE_H_

#include "tessera/c_api_pass.h"

#ifdef __cplusplus
extern "C" {
#endif



#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_API_COLLAGE_H_ */
