// The "native" runtime module: a shared object of C kernels built by the system
// compiler, loaded with dlopen, serialisable as its symbols plus the object bytes.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/runtime/module.h"

namespace tessera::runtime {

class LoadedLibrary;

/// A loaded shared object and the kernels it exports.
class NativeModuleNode : public ModuleNode {
 public:
  /// Loads `shared_object` (bytes of a .so); `symbols` pairs each kernel symbol with the
  /// C function exporting it. Throws when the object cannot be loaded or a function is
  /// missing. `source` is the C it was compiled from (may be empty).
  NativeModuleNode(std::string shared_object,
                   std::vector<std::pair<std::string, std::string>> symbols,
                   std::string source = "");
  ~NativeModuleNode() override;

  std::string type_key() const override { return "native"; }
  /// The kernel; calling it throws when the kernel returns a non-zero status.
  KernelFunction GetFunction(const std::string& symbol) override;
  std::vector<std::string> ListFunctions() const override;
  /// The symbol table and the shared-object bytes.
  std::string SaveToBytes() const override;

  /// The generated C source (empty for a module loaded from bytes).
  const std::string& source() const { return source_; }
  /// The shared-object bytes.
  const std::string& shared_object() const { return shared_object_; }

 private:
  std::string shared_object_;
  std::vector<std::pair<std::string, std::string>> symbols_;  // sorted by symbol
  std::string source_;
  std::shared_ptr<LoadedLibrary> library_;
  std::vector<void*> functions_;  // parallel to symbols_
};

/// Rebuilds a native module from NativeModuleNode::SaveToBytes output; throws a parse
/// error on damaged bytes.
Module LoadNativeModule(const std::string& bytes);

}  // namespace tessera::runtime
