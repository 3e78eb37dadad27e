// The one list of built-in pattern tables: one registration line per backend.
#include "tessera/pattern/pattern_table.h"

namespace tessera {

void RegisterDnnlPatternTable(PatternTableRegistry& registry);  // backend/dnnl/dnnl_patterns.cc
void RegisterBlasPatternTable(PatternTableRegistry& registry);  // backend/blas/blas_patterns.cc

void RegisterBuiltinPatternTables(PatternTableRegistry& registry) {
  RegisterDnnlPatternTable(registry);
  RegisterBlasPatternTable(registry);
}

}  // namespace tessera
