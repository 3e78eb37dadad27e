// Helpers shared by the standard passes.
#include "pass_util.h"

#include "tessera/support/error.h"

namespace tessera {

bool IsKernelOrSkipped(const Expr& expr) {
  auto* f = expr.as<FunctionNode>();
  return f && (GetIntAttr(f, attr::kPrimitive) || f->attrs.Has(attr::kCompiler) ||
               GetIntAttr(f, attr::kSkipOptimization));
}

IRModule MapOptimizableFunctions(const IRModule& mod,
                                 const std::function<Expr(const Function&)>& rewrite) {
  IRModule result = mod;
  for (const auto& [name, base] : mod.functions()) {
    auto* f = base.as<FunctionNode>();
    if (!f || IsKernelOrSkipped(base)) continue;
    Expr out = rewrite(Function(f));
    TS_ICHECK(out.as<FunctionNode>()) << "rewriting @" << name << " did not give a function";
    if (out.get() != f)
      result = result.WithFunction(name, Function(static_cast<const FunctionNode*>(out.get())));
  }
  return result;
}

}  // namespace tessera
