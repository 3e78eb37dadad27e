// The interp runtime module: PrimFuncs run by the TIR interpreter behind the kernel ABI.
#include "tessera/backend/interp/interp_module.h"

#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/parser.h"
#include "tessera/ir/printer.h"
#include "tessera/support/error.h"

namespace tessera {

runtime::KernelFunction InterpModuleNode::GetFunction(const std::string& symbol) {
  auto it = funcs_.find(symbol);
  if (it == funcs_.end()) return nullptr;
  tir::PrimFunc func = it->second;
  return [func](void* const* buffers, const TsKernelEnv*) {
    // The buffers are the runtime's memory: wrap them, never copy.
    std::vector<NDArray> arrays;
    arrays.reserve(func->params.size());
    for (size_t i = 0; i < func->params.size(); ++i)
      arrays.push_back(
          NDArray::FromBorrowed(buffers[i], func->params[i]->shape, func->params[i]->dtype));
    RunPrimFunc(func, arrays);
  };
}

std::vector<std::string> InterpModuleNode::ListFunctions() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : funcs_) names.push_back(name);
  return names;
}

std::string InterpModuleNode::SaveToBytes() const {
  IRModule mod;
  for (const auto& [symbol, func] : funcs_) mod = mod.WithFunction(symbol, func);
  return PrintModule(mod);
}

runtime::Module InterpModuleNode::LoadFromBytes(const std::string& bytes) {
  IRModule mod = ParseModule(bytes, "<interp module>");
  std::map<std::string, tir::PrimFunc> funcs;
  for (const auto& [name, func] : mod.functions()) {
    const auto* pf = func.as<tir::PrimFuncNode>();
    if (!pf)
      TS_THROW(kParse) << "interp module bytes hold @" << name << ", which is not a PrimFunc";
    funcs[name] = tir::PrimFunc(pf);
  }
  return std::make_shared<InterpModuleNode>(std::move(funcs));
}

runtime::Module InterpCodegen(const IRModule& lowered, const std::vector<std::string>& symbols,
                              const Target&) {
  std::map<std::string, tir::PrimFunc> chosen;
  for (auto& [symbol, func] : SelectPrimFuncs(lowered, symbols, "interp"))
    chosen.emplace(symbol, std::move(func));
  return std::make_shared<InterpModuleNode>(std::move(chosen));
}

namespace {
// Interpreted kernels are IR: programs holding them load wherever the compiler library is
// loaded, before (or without) any use of the backend registry.
[[maybe_unused]] const bool kInterpLoaderRegistered =
    (runtime::RegisterModuleLoader("interp", InterpModuleNode::LoadFromBytes), true);
}  // namespace

void RegisterInterpBackend(BackendRegistry& registry) {
  Backend b;
  b.name = "interp";
  b.description = "the reference interpreter: runs PrimFuncs with the TIR interpreter";
  b.attrs.push_back({"num_threads", TargetAttrType::kInt, AttrValue(int64_t{0}),
                     "threads of the executor's pool (0 = all cores)", nullptr});
  b.codegen = InterpCodegen;
  b.loader = InterpModuleNode::LoadFromBytes;
  registry.Register(std::move(b));
}

}  // namespace tessera
