// Pass kinds (module, function, PrimFunc, Sequential) and the instrumented call.
#include "tessera/transform/pass.h"

#include <chrono>
#include <cstdio>

#include "builtin_passes.h"

#include "tessera/ir/printer.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/support/error.h"
#include "tessera/support/logging.h"
#include "tessera/ir/infer_type.h"
#include "tessera/transform/pass_instrument.h"
#include "tessera/transform/pass_registry.h"

namespace tessera {

std::string PassInfo::ToString() const {
  std::string req;
  for (const auto& r : required) req += (req.empty() ? "" : ", ") + r;
  return "The meta data of the pass - pass name: " + name +
         ", opt_level: " + std::to_string(opt_level) + ", required passes: [" + req + "]";
}

const char* PassKindName(PassKind kind) {
  switch (kind) {
    case PassKind::kModule:
      return "module";
    case PassKind::kFunction:
      return "function";
    case PassKind::kPrimFunc:
      return "prim_func";
    case PassKind::kSequential:
      return "sequential";
  }
  return "module";
}

std::string PassNode::Describe() const {
  return "Run Module pass: " + info().name + " at the optimization level " +
         std::to_string(info().opt_level);
}

IRModule Pass::operator()(const IRModule& mod) const {
  return (*this)(mod, PassContext::Current());
}

IRModule Pass::operator()(const IRModule& mod, const PassContext& ctx) const {
  TS_ICHECK(node_.defined()) << "calling an undefined pass";
  const PassInfo& pass_info = info();
  if (!ctx.InstrumentShouldRun(mod, pass_info)) return mod;
  ctx.InstrumentBeforePass(mod, pass_info);
  // --log-level debug shows every pass that runs, innermost first, with its time.
  bool log = LogDebugEnabled();
  auto start = log ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  IRModule result;
  try {
    bool check_immutable = ctx.GetConfigBool("testing.immutable_module");
    size_t before_hash = check_immutable ? StructuralHash(mod) : 0;
    result = node_->Transform(mod, ctx);
    if (!result.get()) TS_THROW(kValue) << "pass '" << pass_info.name << "' returned a null module";
    // A failed check is a failure of this pass, so instruments see RunAfterPassFailed.
    if (check_immutable && StructuralHash(mod) != before_hash)
      TS_THROW(kInternal) << "pass '" << pass_info.name << "' modified its input module in place";
  } catch (...) {
    ctx.InstrumentAfterPassFailed(mod, pass_info);
    throw;
  }
  if (log) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f ms", ms);
    LogDebug("pass " + pass_info.name + ": " + buf);
  }
  ctx.InstrumentAfterPass(result, pass_info);
  return result;
}

namespace {

class ModulePassNode : public PassNode {
 public:
  ModulePassNode(std::function<IRModule(IRModule, const PassContext&)> fn, PassInfo info)
      : fn_(std::move(fn)), info_(std::move(info)) {}
  const PassInfo& info() const override { return info_; }
  IRModule Transform(const IRModule& mod, const PassContext& ctx) const override {
    return fn_(mod, ctx);
  }

 private:
  std::function<IRModule(IRModule, const PassContext&)> fn_;
  PassInfo info_;
};

class FunctionPassNode : public PassNode {
 public:
  FunctionPassNode(std::function<Function(Function, const IRModule&, const PassContext&)> fn,
                   PassInfo info, bool include_all)
      : fn_(std::move(fn)), info_(std::move(info)), include_all_(include_all) {}
  const PassInfo& info() const override { return info_; }
  PassKind kind() const override { return PassKind::kFunction; }
  std::string Describe() const override {
    return "Run Function pass: " + info_.name + " at the optimization level " +
           std::to_string(info_.opt_level);
  }
  IRModule Transform(const IRModule& mod, const PassContext& ctx) const override {
    IRModule result = mod;
    bool changed = false;
    for (const auto& [name, base] : mod.functions()) {
      const auto* func = base.as<FunctionNode>();
      if (!func || (!include_all_ && SkipFunction(func))) continue;
      Function updated = fn_(Function(func), mod, ctx);
      if (!updated)
        TS_THROW(kValue) << "function pass '" << info_.name << "' returned null for @" << name;
      if (updated.get() == func) continue;
      result = result.WithFunction(name, updated);
      changed = true;
    }
    // Keep the input's identity when nothing changed, so callers can detect no-ops.
    return changed ? result : mod;
  }

 private:
  static bool SkipFunction(const FunctionNode* func) {
    return func->attrs.Has(attr::kCompiler) || GetIntAttr(func, attr::kSkipOptimization) ||
           GetIntAttr(func, attr::kPrimitive);
  }
  std::function<Function(Function, const IRModule&, const PassContext&)> fn_;
  PassInfo info_;
  bool include_all_;
};

class PrimFuncPassNode : public PassNode {
 public:
  PrimFuncPassNode(
      std::function<tir::PrimFunc(tir::PrimFunc, const IRModule&, const PassContext&)> fn,
      PassInfo info)
      : fn_(std::move(fn)), info_(std::move(info)) {}
  const PassInfo& info() const override { return info_; }
  PassKind kind() const override { return PassKind::kPrimFunc; }
  std::string Describe() const override {
    return "Run PrimFunc pass: " + info_.name + " at the optimization level " +
           std::to_string(info_.opt_level);
  }
  IRModule Transform(const IRModule& mod, const PassContext& ctx) const override {
    IRModule result = mod;
    bool changed = false;
    for (const auto& [name, base] : mod.functions()) {
      const auto* func = base.as<tir::PrimFuncNode>();
      if (!func) continue;
      tir::PrimFunc updated = fn_(tir::PrimFunc(func), mod, ctx);
      if (updated.get() == func) continue;
      result = updated ? result.WithFunction(name, updated) : result.WithoutFunction(name);
      changed = true;
    }
    return changed ? result : mod;
  }

 private:
  std::function<tir::PrimFunc(tir::PrimFunc, const IRModule&, const PassContext&)> fn_;
  PassInfo info_;
};

class SequentialNode : public PassNode {
 public:
  SequentialNode(std::vector<Pass> passes, PassInfo info)
      : passes_(std::move(passes)), info_(std::move(info)) {}
  const PassInfo& info() const override { return info_; }
  PassKind kind() const override { return PassKind::kSequential; }
  std::string Describe() const override {
    return "Run Sequential pass: " + info_.name + " at the optimization level " +
           std::to_string(info_.opt_level);
  }
  IRModule Transform(const IRModule& mod, const PassContext& ctx) const override {
    IRModule current = mod;
    for (const Pass& pass : passes_) {
      if (!ctx.PassEnabled(pass.info())) continue;
      // Dependencies run every time, through the full instrumented call (as in TVM), so
      // instruments see them; they are not gated by opt_level.
      for (const std::string& dep : pass.info().required)
        current = Dependency(pass, dep)(current, ctx);
      current = pass(current, ctx);
    }
    return current;
  }
  std::string ToPipelineString() const override {
    std::string opts;
    if (info_.name != "sequential") opts += "name=" + info_.name;
    if (info_.opt_level != 0)
      opts += std::string(opts.empty() ? "" : ",") + "opt_level=" + std::to_string(info_.opt_level);
    std::string out = "Sequential" + (opts.empty() ? "" : "{" + opts + "}") + "(";
    for (size_t i = 0; i < passes_.size(); ++i)
      out += (i ? "," : "") + passes_[i].ToPipelineString();
    return out + ")";
  }
  const std::vector<Pass>& passes() const { return passes_; }

 private:
  /// Registered pass `dep` required by `pass`; an unknown name says who required it.
  static Pass Dependency(const Pass& pass, const std::string& dep) {
    try {
      return GetPass(dep);
    } catch (const Error& e) {
      throw Error(e.kind(),
                  "pass '" + pass.info().name + "' requires pass '" + dep + "': " + e.what());
    }
  }

  std::vector<Pass> passes_;
  PassInfo info_;
};

class PrintIRNode : public PassNode {
 public:
  PrintIRNode(std::string header, bool show_meta_data)
      : header_(std::move(header)), show_meta_data_(show_meta_data), info_{"PrintIR", 0, {}} {}
  const PassInfo& info() const override { return info_; }
  IRModule Transform(const IRModule& mod, const PassContext&) const override {
    PrintOptions options;
    options.show_meta_data = show_meta_data_;
    std::fprintf(stderr, "PrintIR(%s):\n%s", header_.c_str(), PrintModule(mod, options).c_str());
    return mod;
  }

 private:
  std::string header_;
  bool show_meta_data_;
  PassInfo info_;
};

}  // namespace

Pass CreateModulePass(std::function<IRModule(IRModule, const PassContext&)> fn, PassInfo info) {
  return Pass(MakeNode<const ModulePassNode>(std::move(fn), std::move(info)));
}

Pass CreateFunctionPass(std::function<Function(Function, const IRModule&, const PassContext&)> fn,
                        PassInfo info, bool include_all) {
  return Pass(MakeNode<const FunctionPassNode>(std::move(fn), std::move(info), include_all));
}

Pass CreatePrimFuncPass(
    std::function<tir::PrimFunc(tir::PrimFunc, const IRModule&, const PassContext&)> fn,
    PassInfo info) {
  return Pass(MakeNode<const PrimFuncPassNode>(std::move(fn), std::move(info)));
}

Pass Sequential(std::vector<Pass> passes, std::string name, int opt_level,
                std::vector<std::string> required) {
  for (const auto& p : passes)
    if (!p.defined()) TS_THROW(kValue) << "Sequential '" << name << "' given an undefined pass";
  return Pass(MakeNode<const SequentialNode>(
      std::move(passes), PassInfo{std::move(name), opt_level, std::move(required)}));
}

bool IsSequential(const Pass& pass) {
  return pass.kind() == PassKind::kSequential;
}

std::vector<Pass> SequentialPasses(const Pass& pass) {
  if (const auto* seq = dynamic_cast<const SequentialNode*>(pass.get())) return seq->passes();
  return {};
}

Pass PrintIR(std::string header, bool show_meta_data) {
  return Pass(MakeNode<const PrintIRNode>(std::move(header), show_meta_data));
}

Pass InferType() {
  return CreateModulePass([](IRModule mod, const PassContext&) { return InferTypes(mod); },
                          PassInfo{"InferType", 0, {}});
}

PassRegistration InferTypeRegistration() {
  return {"InferType", "infer and check the types of every function", {}, [](const Attrs&) {
            return InferType();
          }};
}

PassRegistration PrintIRRegistration() {
  return {
      "PrintIR",
      "print the module to stderr",
      {{"header", AttrValue::Kind::kString, AttrValue(""), "header line text"},
       {"show_meta_data", AttrValue::Kind::kBool, AttrValue(false), "print constants' data"}},
      [](const Attrs& o) { return PrintIR(o.GetString("header"), o.GetBool("show_meta_data")); }};
}

}  // namespace tessera
