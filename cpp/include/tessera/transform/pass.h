// Passes: IRModule -> IRModule transformations under a PassContext, and Sequential.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"
#include "tessera/transform/pass_context.h"

namespace tessera {

/// A pass's metadata. `required` passes are run (by name, from the registry) before this
/// one whenever a Sequential runs it.
struct PassInfo {
  std::string name;
  int opt_level = 0;
  std::vector<std::string> required;
  /// "The meta data of the pass - pass name: X, opt_level: N, required passes: [A, B]".
  std::string ToString() const;
};

/// The implementation side of a pass. Subclass it for new kinds of passes; most users
/// use the factories below.
/// What a pass transforms: the whole module, each graph function, each PrimFunc, or (a
/// Sequential) nothing itself but its list of passes.
enum class PassKind { kModule, kFunction, kPrimFunc, kSequential };
/// "module", "function", "prim_func" or "sequential".
const char* PassKindName(PassKind kind);

class PassNode : public Object {
 public:
  PassNode() : Object(TypeIndex::kOther) {}
  /// Metadata; its name is what required/disabled lists and instruments see.
  virtual const PassInfo& info() const = 0;
  /// What the pass transforms (module passes unless overridden).
  virtual PassKind kind() const { return PassKind::kModule; }
  /// The transformation itself (instruments are handled by Pass::operator()).
  virtual IRModule Transform(const IRModule& mod, const PassContext& ctx) const = 0;
  /// The pass in textual-pipeline syntax, e.g. `FuseOps{max_depth=4}`.
  virtual std::string ToPipelineString() const { return info().name; }
  /// "Run Module pass: <name> at the optimization level <n>" (or Function/Sequential).
  virtual std::string Describe() const;
};

/// An immutable pass handle. Calling it runs the instrument protocol and the pass,
/// whatever the opt level (only Sequential gates its children).
class Pass {
 public:
  Pass() = default;
  explicit Pass(Ref<const PassNode> node) : node_(std::move(node)) {}
  /// Runs under PassContext::Current().
  IRModule operator()(const IRModule& mod) const;
  /// Runs under `ctx`.
  IRModule operator()(const IRModule& mod, const PassContext& ctx) const;
  const PassInfo& info() const { return node_->info(); }
  /// What the pass transforms.
  PassKind kind() const { return node_->kind(); }
  std::string ToPipelineString() const { return node_->ToPipelineString(); }
  std::string Describe() const { return node_->Describe(); }
  const PassNode* get() const { return node_.get(); }
  bool defined() const { return node_.defined(); }

 private:
  Ref<const PassNode> node_;
};

/// A module-level pass from a callback.
Pass CreateModulePass(std::function<IRModule(IRModule, const PassContext&)> fn, PassInfo info);

/// A function-level pass: `fn` runs on each graph Function of the module (in module
/// order) and returns its replacement. Functions with `Compiler`, `SkipOptimization` or
/// `Primitive` attributes are skipped unless `include_all` is set. If no function
/// changes, the input module itself is returned.
Pass CreateFunctionPass(std::function<Function(Function, const IRModule&, const PassContext&)> fn,
                        PassInfo info, bool include_all = false);

/// A PrimFunc-level pass: `fn` runs on each PrimFunc; returning null removes it.
Pass CreatePrimFuncPass(
    std::function<tir::PrimFunc(tir::PrimFunc, const IRModule&, const PassContext&)> fn,
    PassInfo info);

/// Runs `passes` in order: for each child, if the context enables it (disabled, then
/// required, then opt_level), its required passes run first (from the registry), then
/// the child. Default opt_level 0, so a nested Sequential is never silently skipped.
Pass Sequential(std::vector<Pass> passes, std::string name = "sequential", int opt_level = 0,
                std::vector<std::string> required = {});

/// The passes of a Sequential (empty for other passes).
std::vector<Pass> SequentialPasses(const Pass& pass);

/// A pass printing the module to stderr with `header`; changes nothing (opt_level 0).
Pass PrintIR(std::string header = "", bool show_meta_data = false);

/// Infers types (the InferType pass; InferTypes in ir/infer_type.h does the work).
Pass InferType();

/// Checks a module is well formed: every variable used is bound, types infer (no
/// mismatches), PrimFuncs load and store only their params or allocated buffers with the
/// right ranks and use only bound loop/block variables. Throws a value error naming the
/// function and the problem.
void VerifyModule(const IRModule& mod);

}  // namespace tessera
