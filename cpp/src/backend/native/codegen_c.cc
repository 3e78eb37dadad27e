// GenerateC: C for a list of kernels, as one translation unit or as several for parallel
// compilation, and the host's SIMD width.
#include "tessera/backend/native/codegen_c.h"

#include <unordered_set>
#include <utility>

#include "codegen_internal.h"
#include "tessera/support/error.h"
#include "tessera/support/host_cpu.h"

namespace tessera::native {

int HostVectorBytes() {
  return HostSimdBytes();
}

namespace {

/// The prelude and each kernel's C, in order.
struct CPieces {
  std::string prelude;
  std::vector<std::string> kernels;
};

CPieces GeneratePieces(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                       const CodegenOptions& options) {
  int vector_bytes = options.vector_bytes ? options.vector_bytes : HostVectorBytes();
  if (options.min_parallel_work < 0)
    TS_THROW(kValue) << "native codegen: min_parallel_work must be >= 0, got "
                     << options.min_parallel_work;
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
  CPieces pieces{detail::Prelude(vector_bytes), {}};
  for (size_t i = 0; i < kernels.size(); ++i) {
    // Indices simplified within their loops' ranges: an operand read through a fused
    // transpose or reshape divides by its extents, which the ranges mostly cancel.
    const tir::PrimFuncNode* f = kernels[i].second.get();
    tir::Stmt body = f->body.defined() ? tir::Simplify(f->body) : f->body;
    tir::PrimFunc simplified = tir::MakePrimFunc(f->params, f->num_outputs, body, f->attrs);
    pieces.kernels.push_back("/* kernel '" + names[i] + "' */\n" +
                             detail::KernelEmitter(names[i], simplified.get(), vector_bytes,
                                                   options.min_parallel_work)
                                 .Emit() +
                             "\n");
  }
  return pieces;
}

}  // namespace

std::string GenerateC(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                      const CodegenOptions& options) {
  CPieces pieces = GeneratePieces(kernels, options);
  std::string source = std::move(pieces.prelude);
  for (const std::string& k : pieces.kernels) source += k;
  return source;
}

CUnits GenerateCUnits(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                      const CodegenOptions& options) {
  CPieces pieces = GeneratePieces(kernels, options);
  CUnits out;
  out.source = pieces.prelude;
  std::string unit;
  for (const std::string& k : pieces.kernels) {
    out.source += k;
    unit += k;
    if (unit.size() >= options.unit_bytes)
      out.units.push_back(pieces.prelude + std::exchange(unit, {}));
  }
  if (!unit.empty() || out.units.empty()) out.units.push_back(pieces.prelude + unit);
  return out;
}

}  // namespace tessera::native
