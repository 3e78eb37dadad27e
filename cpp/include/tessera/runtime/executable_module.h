// A runtime module whose one kernel runs a whole Executable: how a partition compiled by
// Tessera itself (an external backend declared from Python and compiled natively) becomes
// a kernel of another program. Saved as the executable's bytes.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/runtime/executable.h"
#include "tessera/runtime/module.h"

namespace tessera::runtime {

/// Exports `symbol`: buffers are @main's parameters in order (tuples flattened), then
/// its flattened outputs, written in place.
class ExecutableModuleNode : public ModuleNode {
 public:
  ExecutableModuleNode(std::shared_ptr<Executable> exe, std::string symbol);
  std::string type_key() const override { return "executable"; }
  KernelFunction GetFunction(const std::string& symbol) override;
  std::vector<std::string> ListFunctions() const override { return {symbol_}; }
  std::string SaveToBytes() const override;
  const Executable& executable() const { return *exe_; }

 private:
  /// The executor for the caller's pool (one per pool: each owns an arena).
  Executor& ExecutorFor(const TsKernelEnv* env);

  std::shared_ptr<Executable> exe_;
  std::string symbol_;
  std::vector<const Slot*> input_slots_;  // @main's parameters' slots, in order
  std::mutex mutex_;
  std::map<void*, std::unique_ptr<Executor>> executors_;
};

/// Reads what ExecutableModuleNode::SaveToBytes wrote; a parse error on damaged bytes.
Module LoadExecutableModule(const std::string& bytes);

}  // namespace tessera::runtime
