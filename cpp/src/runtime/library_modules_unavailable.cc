// The library modules a runtime built without oneDNN or OpenBLAS lacks: each entry point
// is a clear unsupported error (compiled only for the missing libraries).
#include "tessera/runtime/library_modules.h"
#include "tessera/support/error.h"

namespace tessera::runtime {

#ifndef TESSERA_WITH_DNNL
bool HasDnnlModules() { return false; }
std::string DnnlVersion() { return "none"; }

Module MakeDnnlModule(LibraryGraph, std::string symbol, int) {
  TS_THROW(kUnsupported) << "dnnl kernel '" << symbol
                         << "': this runtime was built without oneDNN (TESSERA_WITH_DNNL=OFF)";
}

std::vector<DnnlStep> DescribeDnnlPlan(const LibraryGraph&) {
  TS_THROW(kUnsupported) << "this runtime was built without oneDNN (TESSERA_WITH_DNNL=OFF)";
}
#endif

#ifndef TESSERA_WITH_BLAS
bool HasBlasModules() { return false; }

Module MakeBlasModule(LibraryGraph, std::string symbol, int) {
  TS_THROW(kUnsupported) << "blas kernel '" << symbol
                         << "': this runtime was built without OpenBLAS (TESSERA_WITH_BLAS=OFF)";
}

std::string BlasCoreName() { return "none"; }
std::string BlasConfig() { return "none"; }
#endif

}  // namespace tessera::runtime
