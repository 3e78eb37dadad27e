// Pass instruments: hooks around passes and contexts, and the built-in instruments for
// timing, IR printing (before/after/after-change), dumping and verification.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/module.h"

namespace tessera {

struct PassInfo;

/// Hooks called around passes. The protocol (TVM's, kept so its instruments port over):
/// - entering a context calls EnterPassContext on each instrument in order; if one
///   throws, those already entered get ExitPassContext in reverse order, the context's
///   instruments are cleared and the error propagates;
/// - for each pass run (direct, nested, Sequential itself, or a required dependency):
///   unless the pass is in the context's required_pass, ShouldRun is asked of every
///   instrument (no short-circuit) and the results ANDed; a false result skips the pass
///   with no other hook; then RunBeforePass on all in order, the pass, RunAfterPass on
///   all in order; if the pass throws, RunAfterPassFailed on all, then the error
///   propagates;
/// - leaving a context pops it, then calls ExitPassContext on each in order; if one
///   throws, later ones are skipped, the instruments cleared, and the error propagates.
class PassInstrument {
 public:
  explicit PassInstrument(std::string name) : name_(std::move(name)) {}
  virtual ~PassInstrument() = default;
  /// The instrument's name (for messages).
  const std::string& name() const { return name_; }

  virtual void EnterPassContext() {}
  virtual void ExitPassContext() {}
  virtual bool ShouldRun(const IRModule& mod, const PassInfo& info) { return true; }
  virtual void RunBeforePass(const IRModule& mod, const PassInfo& info) {}
  virtual void RunAfterPass(const IRModule& mod, const PassInfo& info) {}
  virtual void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) {}

 private:
  std::string name_;
};

/// Times every pass as a nested tree (passes inside a Sequential are its children). The
/// data lives on the instrument, so Render() works after the context exits; entering a
/// context again starts a fresh profile.
class PassTimingInstrument : public PassInstrument {
 public:
  PassTimingInstrument();
  ~PassTimingInstrument() override;
  void EnterPassContext() override;
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override;
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override;
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override;
  /// One line per pass, indented by depth: `name: 12.3us [4.5us] (80.1%; 36.6%)` —
  /// total, self time, share of the root and of the parent. Empty when nothing ran.
  std::string Render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// When to print the module around passes.
struct PrintIROptions {
  bool before_all = false;
  bool after_all = false;
  bool after_change = false;               ///< after a pass, only if its structural hash changed
  std::vector<std::string> before_passes;  ///< print before these passes (by name)
  std::vector<std::string> after_passes;   ///< print after these passes (by name)
};

/// Prints the module to a stream (stdout by default) with a header line
/// `// Before Running Pass: <PassInfo>` / `// After Running Pass: <PassInfo>`.
class PrintIRInstrument : public PassInstrument {
 public:
  explicit PrintIRInstrument(PrintIROptions options, std::FILE* out = stdout);
  void EnterPassContext() override;
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override;
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override;
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override;

 private:
  PrintIROptions options_;
  std::FILE* out_;
  std::vector<size_t> hash_stack_;  // structural hash before each running pass
};

/// Writes the module after every pass to `<dir>/<NNN>_<pass>.txt` (numbered in run order).
class DumpIRInstrument : public PassInstrument {
 public:
  explicit DumpIRInstrument(std::string dir);
  void EnterPassContext() override;
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override;

 private:
  std::string dir_;
  int counter_ = 0;
};

/// Checks well-formedness after every pass (see VerifyModule) and throws an error naming
/// the pass that produced ill-formed IR.
class VerifierInstrument : public PassInstrument {
 public:
  VerifierInstrument() : PassInstrument("VerifierInstrument") {}
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override;
};

}  // namespace tessera
