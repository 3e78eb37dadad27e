// GenerateC: one C translation unit for a list of kernels, and the host's SIMD width.
#include "tessera/backend/native/codegen_c.h"

#include <unordered_set>

#include "codegen_internal.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"

namespace tessera::native {

int HostVectorBytes() {
  return HostSimdBytes();
}

std::string GenerateC(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                      const CodegenOptions& options) {
  int vector_bytes = options.vector_bytes ? options.vector_bytes : HostVectorBytes();
  if (vector_bytes != 16 && vector_bytes != 32 && vector_bytes != 64)
    TS_THROW(kValue) << "native codegen: vector_bytes must be 16, 32 or 64, got " << vector_bytes;
  std::vector<std::string> symbols;
  std::unordered_set<std::string> seen;
  for (const auto& [symbol, func] : kernels) {
    if (!func.defined()) TS_THROW(kValue) << "native codegen: kernel '" << symbol << "' is null";
    if (!seen.insert(symbol).second)
      TS_THROW(kValue) << "native codegen: two kernels are named '" << symbol << "'";
    if (func->num_outputs < 0 || static_cast<size_t>(func->num_outputs) > func->params.size())
      TS_THROW(kValue) << "native codegen: kernel '" << symbol << "' has " << func->num_outputs
                       << " outputs but " << func->params.size() << " params";
    symbols.push_back(symbol);
  }
  std::vector<std::string> names = CSymbolNames(symbols);
  std::string source = detail::Prelude(vector_bytes);
  for (size_t i = 0; i < kernels.size(); ++i) {
    source += "/* kernel '" + names[i] + "' */\n";
    source += detail::KernelEmitter(names[i], kernels[i].second.get(), vector_bytes).Emit();
    source += "\n";
  }
  return source;
}

}  // namespace tessera::native
