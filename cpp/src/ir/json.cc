// PENDING-HELPER placeholder; replaced wholesale by its owner.
#include "tessera/ir/json.h"
#include "tessera/support/error.h"

namespace tessera {

std::string ModuleToJson(const IRModule&, int) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }
IRModule ModuleFromJson(std::string_view) { TS_THROW(kInternal) << "PENDING-HELPER: " << __func__; }

}  // namespace tessera
