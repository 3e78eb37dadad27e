// build(): the default pipeline, lowering and code generation into an Executable.
#include "tessera/backend/build.h"

#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/passes.h"

namespace tessera {

Pass BuildPipeline() {
  return Sequential({InferTypePass(), SimplifyInference(), FoldConstant(), FoldScaleAxis(),
                     SimplifyExpr(), FoldConstant(), FuseOps(), LowerToTIR()},
                    "build");
}

IRModule LowerForBuild(const IRModule& mod) {
  IRModule lowered = BuildPipeline()(mod);
  // Code generation needs tensor IR even when the context disabled LowerToTIR; on a
  // module already lowered this changes nothing.
  return LowerModuleToTIR(lowered);
}

std::shared_ptr<runtime::Executable> Build(const IRModule& mod,
                                           const std::vector<Target>& targets) {
  if (targets.empty()) TS_THROW(kValue) << "build needs at least one target (e.g. \"native\")";
  const Target& host = targets.front();
  const Backend& backend = BackendRegistry::Global().Get(host.kind());
  if (!backend.codegen)
    TS_THROW(kValue) << "target '" << host.ToString() << "' cannot run a whole model: backend '"
                     << backend.name << "' compiles only the partitions offloaded to it";
  IRModule lowered = LowerForBuild(mod);
  std::vector<std::string> symbols;
  for (const auto& [name, func] : lowered.functions())
    if (func.as<tir::PrimFuncNode>()) symbols.push_back(GlobalSymbolOf(name, func.get()));
  LogDebug("build: " + std::to_string(symbols.size()) + " kernel(s) for target '" +
           host.ToString() + "'");
  runtime::Module kernels = backend.codegen(lowered, symbols, host);
  return runtime::Executable::Create(lowered, std::move(kernels));
}

std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::string& target) {
  return Build(mod, std::vector<Target>{Target::Parse(target)});
}

}  // namespace tessera
