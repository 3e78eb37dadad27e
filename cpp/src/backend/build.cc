// build(): the default pipeline, lowering and code generation into an Executable.
#include "tessera/backend/build.h"

#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/ir/visitor.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/target/backend_registry.h"
#include "tessera/transform/byoc.h"
#include "tessera/transform/pass_context.h"
#include "tessera/transform/pass_registry.h"
#include "tessera/transform/passes.h"

namespace tessera {

Pass BuildPipeline() {
  // Layout planning (opt_level 3) runs once the graph is simplified and before fusion, so
  // the kernels are fused in their planned layouts. (Reached by name: the layout passes
  // live in the layout_plan layer, above this one.)
  return Sequential({InlineFunctionCalls(), InferType(), InlineComposites(), InferType(),
                     SimplifyInference(), FoldConstant(), FoldScaleAxis(), SimplifyExpr(),
                     FoldConstant(), GetPass("AlterOpLayout"), GetPass("PlanLayouts"), FuseOps(),
                     LowerToTIR()},
                    "build");
}

IRModule LowerForBuild(const IRModule& mod) {
  IRModule lowered = BuildPipeline()(mod);
  // Code generation needs tensor IR even when the context disabled LowerToTIR; on a
  // module already lowered this changes nothing.
  return LowerModuleToTIR(lowered);
}

IRModule OffloadToLibraries(const IRModule& mod, const Target& host) {
  // `native -compiler=dnnl` / `-libs=blas`: the classic BYOC flow partitions for each
  // named library, in the order given, before the native pipeline sees the rest.
  IRModule out = mod;
  for (const char* option : {"compiler", "libs"}) {
    if (!host.HasAttr(option)) continue;
    for (const std::string& library : host.GetStringList(option)) out = PartitionFor(out, library);
  }
  return out;
}

IRModule PlanLayoutsForLibraries(const IRModule& mod, const Target& host) {
  bool libraries = false;
  for (const char* option : {"compiler", "libs"})
    libraries |= host.HasAttr(option) && !host.GetStringList(option).empty();
  Pass alter = GetPass("AlterOpLayout"), plan = GetPass("PlanLayouts");
  const PassContext& ctx = PassContext::Current();
  if (!libraries || (!ctx.PassEnabled(alter.info()) && !ctx.PassEnabled(plan.info()))) return mod;
  // The simplifications of the build pipeline first (layout planning wants batch norms
  // folded into the convolutions); the pipeline runs them again after partitioning, on the
  // rest, where they change nothing.
  return Sequential(
      {InlineFunctionCalls(), InferType(), InlineComposites(), InferType(), SimplifyInference(),
       FoldConstant(), FoldScaleAxis(), SimplifyExpr(), FoldConstant(), alter, plan},
      "plan_layouts_for_libraries")(mod);
}

namespace {

/// Whether a graph function of `mod` holds a local function with a Compiler attribute (a
/// partition made by hand, e.g. with PartitionForTesting or collage.rewrite).
bool HasLocalPartitions(const IRModule& mod) {
  bool found = false;
  for (const auto& [name, base] : mod.functions())
    if (const auto* fn = base.as<FunctionNode>())
      PostOrderVisit(fn->body, [&](const Expr& e) {
        if (const auto* local = e.as<FunctionNode>()) found |= local->attrs.Has(attr::kCompiler);
      });
  return found;
}

}  // namespace

std::shared_ptr<runtime::Executable> Build(const IRModule& input,
                                           const std::vector<Target>& targets) {
  if (targets.empty()) TS_THROW(kValue) << "build needs at least one target (e.g. \"native\")";
  // Partitions made by hand become global functions, as the BYOC flow makes them.
  IRModule mod = input;
  // (Reached by name: the pass lives in the collage layer, above this one.)
  if (HasLocalPartitions(mod)) mod = GetPass("OutlineCompilerFunctions")(mod);
  if (PassContext::Current().GetConfigBool("collage.enable")) return BuildWithCollage(mod, targets);
  const Target& host = targets.front();
  const Backend& backend = BackendRegistry::Global().Get(host.kind());
  if (!backend.codegen)
    TS_THROW(kValue) << "target '" << host.ToString() << "' cannot run a whole model: backend '"
                     << backend.name << "' compiles only the partitions offloaded to it";
  // A library given as a target of its own only sets the options of partitions the module
  // already has; without any, it would be silently ignored.
  for (size_t i = 1; i < targets.size(); ++i) {
    if (!BackendRegistry::Global().Find(targets[i].kind())) continue;
    // Only the first target that compiles whole models runs the program; another one
    // would be silently dropped.
    if (CompilesWholeModels(targets[i].kind()))
      TS_THROW(kValue) << "targets '" << host.ToString() << "' and '" << targets[i].ToString()
                       << "' both compile whole models, and only the first would run the "
                          "program: give one (or let Collage choose between them: --collage, "
                          "config collage.enable)";
    bool used = false;
    for (const char* option : {"compiler", "libs"})
      if (host.HasAttr(option))
        for (const std::string& l : host.GetStringList(option)) used |= l == targets[i].kind();
    for (const auto& [name, func] : mod.functions())
      if (const AttrValue* c = func->attrs.Find(attr::kCompiler))
        used |= c->is_string() && c->AsString() == targets[i].kind();
    if (!used)
      TS_THROW(kValue) << "target '" << targets[i].ToString()
                       << "' offers a library, but the module has no partitions for it: write '"
                       << host.ToString() << " -compiler=" << targets[i].kind()
                       << "' to partition for it, or let Collage choose (--collage, config collage.enable)";
  }
  return BuildLowered(LowerForBuild(OffloadToLibraries(PlanLayoutsForLibraries(mod, host), host)),
                      targets);
}

std::shared_ptr<runtime::Executable> BuildLowered(const IRModule& lowered,
                                                  const std::vector<Target>& targets,
                                                  runtime::Module kernels) {
  if (targets.empty()) TS_THROW(kValue) << "build needs at least one target (e.g. \"native\")";
  const Target& host = targets.front();
  const Backend& backend = BackendRegistry::Global().Get(host.kind());
  if (!backend.codegen)
    TS_THROW(kValue) << "target '" << host.ToString() << "' cannot run a whole model: backend '"
                     << backend.name << "' compiles only the partitions offloaded to it";
  std::vector<std::string> symbols;
  std::vector<std::pair<std::string, const tir::PrimFuncNode*>> stubs;
  for (const auto& [name, func] : lowered.functions()) {
    const auto* pf = func.as<tir::PrimFuncNode>();
    if (!pf) continue;
    if (pf->attrs.Has(kExternFunctionAttr))
      stubs.emplace_back(name, pf);
    else
      symbols.push_back(GlobalSymbolOf(name, func.get()));
  }
  LogDebug("build: " + std::to_string(symbols.size()) + " kernel(s) for target '" +
           host.ToString() + "', " + std::to_string(stubs.size()) + " offloaded");
  if (kernels && !stubs.empty())
    TS_THROW(kInternal) << "BuildLowered: given kernels cannot also take offloaded partitions";
  if (!kernels) kernels = backend.codegen(lowered, symbols, host);
  for (const auto& [name, stub] : stubs) {
    std::string fn_name = stub->attrs.Find(kExternFunctionAttr)->AsString();
    const AttrValue* compiler = stub->attrs.Find(attr::kCompiler);
    std::string kind = compiler && compiler->is_string() ? compiler->AsString() : "";
    const Backend* ext = BackendRegistry::Global().Find(kind);
    if (!ext || !ext->external_codegen) {
      std::string have;
      for (const std::string& n : BackendRegistry::Global().Names()) {
        const Backend* b = BackendRegistry::Global().Find(n);
        if (b && b->external_codegen) have += (have.empty() ? "" : ", ") + n;
      }
      TS_THROW(kUnsupported) << "function @" << fn_name << " has Compiler=\"" << kind
                             << "\" but this build has no such external backend (available: "
                             << (have.empty() ? "none" : have)
                             << "; oneDNN and BLAS need TESSERA_WITH_DNNL / TESSERA_WITH_BLAS)";
    }
    // The partition's backend runs it with the host target's options that it also has
    // (threads; the serial threshold of a backend compiled by the native generator).
    Target ext_target(kind);
    for (const char* option : {"num_threads", "min_parallel_work"})
      if (host.HasAttr(option) && ext_target.HasAttr(option))
        ext_target.Set(option, std::to_string(host.GetInt(option)));
    for (const Target& t : targets)
      if (t.kind() == kind) ext_target = t;
    std::string symbol = GlobalSymbolOf(name, stub);
    runtime::Module m;
    try {
      m = ext->external_codegen(lowered.LookupFunction(fn_name), symbol, ext_target);
    } catch (const Error& err) {
      throw Error(err.kind(), "backend '" + kind + "' compiling @" + fn_name + ": " + err.what());
    }
    kernels->imports.push_back(std::move(m));
  }
  auto exe = CreateExecutable(lowered, std::move(kernels));
  // The target's thread count travels with the program (save/load keeps it).
  if (host.HasAttr("num_threads"))
    exe->SetDefaultNumThreads(static_cast<int>(host.GetInt("num_threads")));
  return exe;
}

Target HostTarget(const std::vector<Target>& targets) {
  for (const Target& t : targets)
    if (CompilesWholeModels(t.kind())) return t.Without("compiler").Without("libs");
  return Target("native");
}

std::shared_ptr<runtime::Executable> Build(const IRModule& mod, const std::string& target) {
  return Build(mod, std::vector<Target>{Target::Parse(target)});
}

}  // namespace tessera
