// Runtime modules: compiled kernels by symbol, with imported modules, serialisable to
// bytes and loadable without the compiler (one loader per module kind).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/kernel_abi.h"

namespace tessera::runtime {

/// A compiled kernel: `buffers` are its PrimFunc's parameters (inputs, then outputs) with
/// the static shapes it was built for; `env` gives it the thread pool. Throws on failure.
using KernelFunction = std::function<void(void* const* buffers, const TsKernelEnv* env)>;

/// One compiled artefact (a loaded shared object, a oneDNN partition, ...).
class ModuleNode {
 public:
  virtual ~ModuleNode() = default;
  /// The kind of module ("native", "interp", "dnnl"); names its loader.
  virtual std::string type_key() const = 0;
  /// The kernel `symbol` defined by this module itself (not its imports), or an empty
  /// function when it has none of that name.
  virtual KernelFunction GetFunction(const std::string& symbol) = 0;
  /// The symbols this module itself defines, sorted.
  virtual std::vector<std::string> ListFunctions() const = 0;
  /// This module (not its imports) as bytes its loader reads back.
  virtual std::string SaveToBytes() const = 0;

  /// Modules whose kernels are reachable through this one.
  std::vector<std::shared_ptr<ModuleNode>> imports;
};
/// Shared handle to a module.
using Module = std::shared_ptr<ModuleNode>;

/// The kernel `symbol` from `mod` or its imports (depth first, the module itself first);
/// throws a not-found error listing the symbols there are.
KernelFunction FindKernel(const Module& mod, const std::string& symbol);

/// Rebuilds a module of one kind from the bytes its SaveToBytes wrote.
using ModuleLoader = std::function<Module(const std::string& bytes)>;
/// Registers the loader for modules of kind `type_key` (replacing an earlier one).
void RegisterModuleLoader(const std::string& type_key, ModuleLoader loader);
/// Loads a module of kind `type_key`; throws a not-found error naming the known kinds.
Module LoadModuleFromBytes(const std::string& type_key, const std::string& bytes);

/// The module tree (the module and its imports, recursively) as one byte string.
std::string SerializeModuleTree(const Module& mod);
/// Reads back what SerializeModuleTree wrote; throws a parse error on damaged bytes.
Module DeserializeModuleTree(const std::string& bytes);

}  // namespace tessera::runtime
