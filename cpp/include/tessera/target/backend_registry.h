// The backend registry: each backend's name, target options, codegen and module loader.
// Filled on first use by the top-level wiring (cpp/src/registry/builtins.cc).
//
// Vocabulary (C++, C and Python use these words the same way):
// - backend: something that turns IR into kernels; registered here by name ("native",
//   "interp", "dnnl", "blas", or one declared from Python with register_external).
// - target: a backend name plus options, written "native -num_threads=1"; `Target`.
//   A list of targets is what build compiles for; the first one that compiles whole
//   models runs the program (the host).
// - whole-model backend: has a `codegen` for PrimFuncs (native, interp).
// - external backend: has an `external_codegen` for `Compiler="<name>"` partitions only
//   (dnnl, blas, Python-declared ones); the host runs everything else.
// - `-compiler=a,b` on a host target: partition the module for external backends a, b
//   (their pattern tables) before building; `-libs=blas`: the same for library backends
//   whose kernels are library calls. Both name registered external backends.
// - kernel: one compiled function with the kernel ABI, found by symbol in a runtime
//   module (runtime::ModuleNode); module kinds are named like their backends.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/runtime/module.h"
#include "tessera/target/target.h"

namespace tessera {

/// Compiles the PrimFuncs of `lowered` whose global symbol (attr `global_symbol`, else
/// the global name) is in `symbols` into one runtime module.
using Codegen = std::function<runtime::Module(
    const IRModule& lowered, const std::vector<std::string>& symbols, const Target& target)>;

/// Compiles one partition offloaded to an external library: `func` is a graph function
/// with attr `Compiler` naming the backend (typed, its constants inside); the module it
/// returns exports `symbol` with the kernel ABI (buffers: the params, then the outputs).
using ExternalCodegen = std::function<runtime::Module(
    const Function& func, const std::string& symbol, const Target& target)>;

/// One backend: a target kind with its option schema, codegen and loader.
struct Backend {
  std::string name;
  std::string description;
  /// The options `Target`s of this kind accept.
  std::vector<TargetAttrSpec> attrs;
  Codegen codegen;
  /// Compiles `Compiler="<name>"` partitions (empty for backends that only run PrimFuncs).
  ExternalCodegen external_codegen;
  /// Reads back modules of kind `name` (may be empty when they cannot be saved).
  runtime::ModuleLoader loader;
  /// What this backend's kernels depend on besides the IR (compiler or library version
  /// and flags), one line; measured costs are stored under it. Empty: only the name.
  std::function<std::string()> identity;
  /// What its saved kernels depend on where they run (the library they call), one line;
  /// empty for compiled code, which depends only on the CPU.
  std::function<std::string()> runtime_identity;
};

/// The options every CPU backend takes: num_threads (int, 0 = all cores), compiler
/// (external backends to offload to, each a registered backend name) and libs.
std::vector<TargetAttrSpec> CpuTargetAttrs();

/// All known backends by name.
class BackendRegistry {
 public:
  /// The process-wide registry, with the built-in backends registered on first use.
  static BackendRegistry& Global();

  /// Adds `backend` and registers its module loader under its name; throws a value
  /// error when the name is taken.
  void Register(Backend backend);
  /// Registers `backend`, replacing an earlier registration of the name unless that one
  /// is built in (a value error then). Replaced entries stay alive (pointers from Find
  /// remain valid).
  void RegisterOrReplace(Backend backend);
  /// Whether `name` is one of the backends Tessera itself defines (native, interp, dnnl,
  /// blas, whether or not this build has them).
  static bool IsBuiltinName(const std::string& name);
  /// The backend named `name`, or nullptr. Entries are never removed.
  const Backend* Find(const std::string& name) const;
  /// The backend named `name`; throws a not-found error listing the known ones.
  const Backend& Get(const std::string& name) const;
  /// Registered names, sorted.
  std::vector<std::string> Names() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::vector<std::unique_ptr<Backend>> replaced_;
};

/// Registers every built-in backend; defined by the top-level wiring
/// (cpp/src/registry/builtins.cc) and called once by BackendRegistry::Global().
void RegisterBuiltinBackends(BackendRegistry& registry);

/// Whether backend `kind` is registered and compiles whole models (has a codegen), as
/// native does; library backends (dnnl, blas) compile only partitions.
bool CompilesWholeModels(const std::string& kind);

/// The global symbol of PrimFunc `name` in a module: its `global_symbol` attr or `name`.
std::string GlobalSymbolOf(const std::string& name, const BaseFuncNode* func);

/// The PrimFuncs of `lowered` whose symbols are in `symbols`, in that order, for a
/// backend's codegen; throws a not-found error naming `backend` and the symbols there are.
std::vector<std::pair<std::string, tir::PrimFunc>> SelectPrimFuncs(
    const IRModule& lowered, const std::vector<std::string>& symbols, const std::string& backend);

}  // namespace tessera
