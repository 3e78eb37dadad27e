// The interp backend's runtime module: kernels that run PrimFuncs with the reference
// TIR interpreter; saved as the PrimFuncs' text.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/runtime/module.h"
#include "tessera/target/backend_registry.h"

namespace tessera {

/// A runtime module (type_key "interp") holding PrimFuncs by global symbol.
class InterpModuleNode : public runtime::ModuleNode {
 public:
  explicit InterpModuleNode(std::map<std::string, tir::PrimFunc> funcs)
      : funcs_(std::move(funcs)) {}
  std::string type_key() const override { return "interp"; }
  runtime::KernelFunction GetFunction(const std::string& symbol) override;
  std::vector<std::string> ListFunctions() const override;
  /// The PrimFuncs in the text format, each under its symbol.
  std::string SaveToBytes() const override;
  /// Parses what SaveToBytes wrote; throws a parse error on damaged text.
  static runtime::Module LoadFromBytes(const std::string& bytes);

 private:
  std::map<std::string, tir::PrimFunc> funcs_;
};

/// The interp backend's codegen: wraps the PrimFuncs of `lowered` named by `symbols`;
/// throws a not-found error for a symbol no PrimFunc has.
runtime::Module InterpCodegen(const IRModule& lowered, const std::vector<std::string>& symbols,
                              const Target& target);

/// Registers the "interp" backend (codegen, loader, num_threads option).
void RegisterInterpBackend(BackendRegistry& registry);

}  // namespace tessera
