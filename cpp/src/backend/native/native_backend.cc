// The native backend's registration (target options, codegen) and BuildNativeModule.
#include "tessera/backend/native/native_backend.h"

#include "tessera/backend/native/codegen_c.h"
#include "tessera/backend/native/compiler.h"
#include "tessera/backend/native/native_module.h"
#include "tessera/target/backend_registry.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_context.h"

namespace tessera {

namespace native {

runtime::Module BuildNativeModule(const std::vector<std::pair<std::string, tir::PrimFunc>>& kernels,
                                  const CompileOptions& options, const CodegenOptions& codegen) {
  CUnits c = GenerateCUnits(kernels, codegen);
  std::vector<std::string> symbols;
  for (const auto& entry : kernels) symbols.push_back(entry.first);
  std::vector<std::string> cnames = CSymbolNames(symbols);
  std::vector<std::pair<std::string, std::string>> table;
  for (size_t i = 0; i < symbols.size(); ++i) table.emplace_back(symbols[i], cnames[i]);
  std::string object = CompileSharedObject(c.units, options);
  return std::make_shared<runtime::NativeModuleNode>(std::move(object), std::move(table),
                                                     std::move(c.source));
}

}  // namespace native

namespace {

/// The revision of the kernels the native backend generates (lowering templates and C
/// generation). It is part of the backend's identity, so the Collage cost database times
/// kernels again after a change that makes them faster or slower (the costs are keyed by
/// the candidates' IR, which such a change leaves as it was): bump it with such a change.
/// 2: shared sub-expressions computed once, one-exp sigmoid and softmax, constant dense
/// weights packed at compile time, the spinning thread pool. 3: Winograd F(2x2, 3x3)
/// convolutions, masked AVX-512 loop tails, weight prefetches in chunked convolutions,
/// work buffers without zero fill. 4: constant matmul weights packed at compile time, packed
/// panels prefetched by their first tile, power(x, 2) as x * x, small parallel loops run on
/// the calling thread (-min_parallel_work), exact GELU through erfc, exp without selects and
/// one-instruction vector min / max. 5: exp's final scaling by AVX-512's SCALEF. 6: vector
/// loops streaming over large buffers prefetch ahead. 7: indices simplified within their
/// loops' ranges; GEMM tasks pack their own panel of a run-time operand. 8: parallel loops
/// run their chunks' iterations in reverse on the runs that ask (TsKernelEnv.reverse).
constexpr int kNativeCodeRevision = 8;

}  // namespace

TargetAttrSpec MinParallelWorkAttr() {
  TargetAttrSpec spec{"min_parallel_work", TargetAttrType::kInt,
                      AttrValue(int64_t{native::kMinParallelWork}),
                      "parallel loops with fewer element stores run on one thread (0: all use "
                      "the pool)",
                      nullptr};
  spec.validate = [](const AttrValue& v) {
    if (v.AsInt() < 0)
      TS_THROW(kValue) << "option -min_parallel_work must be >= 0, got " << v.AsInt();
  };
  return spec;
}

void RegisterNativeBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "native";
  b.description = "C for this CPU, compiled with the system compiler (-O3 -march=native)";
  b.attrs = CpuTargetAttrs();
  b.attrs.push_back(MinParallelWorkAttr());
  b.codegen = [](const IRModule& lowered, const std::vector<std::string>& symbols,
                 const Target& target) {
    native::CodegenOptions codegen;
    codegen.min_parallel_work = target.GetInt("min_parallel_work");
    return native::BuildNativeModule(SelectPrimFuncs(lowered, symbols, "native"), {}, codegen);
  };
  b.identity = [] {
    std::string id = native::CompilerIdentity();
    id = id.substr(0, id.find('\n'));  // "gcc (Debian 12.2.0-14) 12.2.0"
    for (const std::string& f : native::NativeCompileFlags()) id += " " + f;
    id += " codegen-r" + std::to_string(kNativeCodeRevision);
    // A config key that changes the generated kernels changes what a cost measured.
    if (!PassContext::Current().GetConfigBool("native.winograd")) id += " direct-conv";
    return id;
  };
  registry.Register(std::move(b));
}

}  // namespace tessera
