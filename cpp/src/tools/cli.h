// Private to the CLI: subcommand entry points and shared helpers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <memory>

#include "tessera/ir/module.h"
#include "tessera/support/error.h"
#include "tessera/target/target.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_instrument.h"

namespace tessera::cli {

/// `tessera opt`: prints the type-inferred module (text or JSON).
int RunOpt(const std::vector<std::string>& args);
/// `tessera run`: runs @main on .npy inputs (interpreter, a target, or a compiled file).
int RunRun(const std::vector<std::string>& args);
/// `tessera compile`: builds a module for a target and saves the executable.
int RunCompile(const std::vector<std::string>& args);
/// `tessera collage candidates`: lists the candidate partitions of each target's spec.
int RunCollage(const std::vector<std::string>& args);
/// `tessera collage explain`: builds with Collage and explains the choice.
int RunCollageExplain(const std::vector<std::string>& args);
/// `tessera collage db`: stats, list, clear, export and import of the cost database.
int RunCollageDb(const std::vector<std::string>& args);
/// `tessera bench`: latency (median/p90) and per-kernel profile of a model on a target.
int RunBench(const std::vector<std::string>& args);

/// `tessera viz`: draws a model's dataflow, kernels and partitions (SVG, HTML or DOT).
int RunViz(const std::vector<std::string>& args);
/// `tessera --version`: the version, the backends and whether ONNX import is built in.
int RunVersion(const std::vector<std::string>& args);
/// `tessera targets`: the registered backends with their target options.
int RunTargets(const std::vector<std::string>& args);

/// Reads a whole file ("-" = standard input); throws an I/O error naming the path.
std::string ReadFileOrStdin(const std::string& path);
class ArgList;
/// Loads a module from an ONNX model (by the .onnx extension or protobuf content), text
/// IR or JSON (by content: JSON starts with '{'). `shapes` (from --shape) fix ONNX input
/// shapes (symbolic dimensions); they are an error for other formats.
IRModule LoadModule(const std::string& path,
                    const std::map<std::string, std::vector<int64_t>>& shapes = {});
/// The repeatable `--shape NAME=D1,D2,...` options of `args`; a value error names a bad one.
std::map<std::string, std::vector<int64_t>> ShapesFromArgs(const ArgList& args);
/// Help line of --shape.
extern const char* kShapeHelp;
/// Shows `message` as the current stage of long work on stderr when it is a terminal
/// (overwriting the previous one); an empty message clears the line. No-op otherwise.
void Progress(const std::string& message);
/// Writes `text` to `path` ("-" = standard output).
void WriteTextFile(const std::string& path, const std::string& text);

/// Remembers the first (innermost) pass that fails and the module it was given.
class ReproducerInstrument : public PassInstrument {
 public:
  ReproducerInstrument() : PassInstrument("CrashReproducer") {}
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override;
  /// True once a pass has failed.
  bool failed() const { return failed_; }
  /// The module the failing pass was given.
  const IRModule& module() const { return module_; }
  /// The failing pass's name.
  const std::string& pass_name() const { return pass_name_; }

 private:
  bool failed_ = false;
  IRModule module_;
  std::string pass_name_;
};
/// Help line of --crash-reproducer.
extern const char* kReproducerHelp;
/// Writes the reproducer of `repro`'s failure to `path`: `error` and the replay command as
/// comments, the arguments that replay it (the failing pass, with its options when it is
/// found inside `pipeline`, and the context options of `args`), then the module.
void WriteReproducer(const std::string& path, const ReproducerInstrument& repro,
                     const Pass* pipeline, const ArgList& args, const std::string& error);
/// The arguments a reproducer file records (none for other files or "-").
std::vector<std::string> ReproducerArgs(const std::string& path);

/// Options ContextFromArgs reads, for ArgList's option lists.
#define CONTEXT_OPTIONS "--opt-level", "--required-pass", "--disable-pass", "--config"
/// Help lines for CONTEXT_OPTIONS.
extern const char* kContextHelp;

/// A wrong command line (unknown option, missing value): the CLI exits with status 2.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ErrorKind::kValue, message) {}
};

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

/// The PassContext CONTEXT_OPTIONS describe, with `instruments`; unknown pass names,
/// bad levels and bad config values are value errors.
/// `collage` true sets collage.enable, and a Collage search shows its progress on stderr.
PassContext ContextFromArgs(const ArgList& args,
                            std::vector<std::shared_ptr<PassInstrument>> instruments = {},
                            bool collage = false);

/// The targets of the repeatable `--target` option (default: native).
std::vector<Target> TargetsFromArgs(const ArgList& args);
/// "native, dnnl".
std::string TargetsText(const std::vector<Target>& targets);

}  // namespace tessera::cli
