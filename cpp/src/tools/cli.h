// Private to the CLI: subcommand entry points and shared helpers.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/module.h"

namespace tessera::cli {

/// `tessera opt`: prints the type-inferred module (text or JSON).
int RunOpt(const std::vector<std::string>& args);
/// `tessera run`: evaluates @main on .npy inputs.
int RunRun(const std::vector<std::string>& args);

/// Reads a whole file ("-" = standard input); throws an I/O error naming the path.
std::string ReadFileOrStdin(const std::string& path);
/// Loads a module from text IR or JSON (by content: JSON starts with '{').
IRModule LoadModule(const std::string& path);
/// Writes `text` to `path` ("-" = standard output).
void WriteTextFile(const std::string& path, const std::string& text);

/// Minimal argument scanner: positionals plus `--flag` and `--key value` options.
class ArgList {
 public:
  ArgList(const std::vector<std::string>& args, const std::vector<std::string>& flags,
          const std::vector<std::string>& options, const char* command);
  bool Has(const std::string& flag) const;
  /// The last value of option `key`, or `fallback`.
  std::string Get(const std::string& key, const std::string& fallback = "") const;
  /// Every value of a repeatable option, in order.
  std::vector<std::string> GetAll(const std::string& key) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::vector<std::string> positionals_;
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace tessera::cli
