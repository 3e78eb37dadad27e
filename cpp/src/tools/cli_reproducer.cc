// --crash-reproducer FILE: when a pass fails, the module it got and how it ran are written
// to FILE so that `tessera opt FILE` replays the failure.
#include <fstream>
#include <optional>
#include <sstream>

#include "cli.h"
#include "tessera/ir/printer.h"
#include "tessera/support/error.h"
#include "tessera/transform/pass_registry.h"

namespace tessera::cli {

namespace {

constexpr char kArgMarker[] = "// tessera-reproducer-arg: ";

/// The pass named `name` inside `root` (depth first), for its options; none if absent.
std::optional<Pass> FindPass(const Pass& root, const std::string& name) {
  std::vector<Pass> children = SequentialPasses(root);
  if (root.info().name == name && children.empty()) return root;
  for (const Pass& child : children)
    if (std::optional<Pass> found = FindPass(child, name)) return found;
  return std::nullopt;
}

}  // namespace

const char* kReproducerHelp =
    "  --crash-reproducer FILE  when a pass fails, write the module it was given and the\n"
    "                        arguments that replay the failure to FILE (tessera opt FILE)\n";

void ReproducerInstrument::RunAfterPassFailed(const IRModule& mod, const PassInfo& info) {
  // The innermost failing pass reports first; the Sequentials around it follow.
  if (failed_) return;
  failed_ = true;
  module_ = mod;
  pass_name_ = info.name;
}

void WriteReproducer(const std::string& path, const ReproducerInstrument& repro,
                     const Pass* pipeline, const ArgList& args, const std::string& error) {
  std::string pass_text = repro.pass_name();
  if (pipeline)
    if (std::optional<Pass> leaf = FindPass(*pipeline, repro.pass_name()))
      pass_text = PrintPipeline(*leaf);
  std::vector<std::string> replay = {"--passes", pass_text};
  for (const char* option : {"--opt-level", "--required-pass", "--disable-pass", "--config"})
    for (const std::string& value : args.GetAll(option)) replay.insert(replay.end(), {option, value});

  std::ostringstream out;
  out << "// Tessera crash reproducer: pass " << repro.pass_name() << " failed on this module.\n";
  std::istringstream message(error);
  for (std::string line; std::getline(message, line);) out << "//   " << line << "\n";
  out << "// Replay: tessera opt " << path << "\n";
  for (const std::string& a : replay) {
    if (a.find('\n') != std::string::npos)
      TS_THROW(kValue) << "--crash-reproducer: argument '" << a << "' spans lines";
    out << kArgMarker << a << "\n";
  }
  out << PrintModule(repro.module());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << out.str();
  if (!file) TS_THROW(kIO) << "--crash-reproducer: cannot write '" << path << "'";
}

std::vector<std::string> ReproducerArgs(const std::string& path) {
  std::vector<std::string> args;
  if (path == "-") return args;
  std::ifstream file(path, std::ios::binary);
  const size_t marker = sizeof(kArgMarker) - 1;
  for (std::string line; std::getline(file, line) && line.rfind("//", 0) == 0;)
    if (line.compare(0, marker, kArgMarker) == 0) args.push_back(line.substr(marker));
  return args;
}

}  // namespace tessera::cli
