// Helpers shared by the standard passes.
#include "pass_util.h"

#include <sstream>

#include "tessera/ir/visitor.h"
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

std::vector<std::string> SplitCompilerNames(const std::string& text, const char* what) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) TS_THROW(kValue) << what << ": empty compiler name in '" << text << "'";
    out.push_back(item);
  }
  if (out.empty()) TS_THROW(kValue) << what << " needs at least one compiler name";
  return out;
}

const TensorTypeNode* TensorTypeOf(const Expr& e) {
  const Type& t = e->checked_type_or_null();
  return t ? t.as<TensorTypeNode>() : nullptr;
}

bool SameTensorType(const Expr& a, const Expr& b) {
  const auto* x = TensorTypeOf(a);
  const auto* y = TensorTypeOf(b);
  return x && y && x->shape == y->shape && x->dtype == y->dtype;
}

UseCounts CountUses(const Expr& func) {
  UseCounts uses;
  PostOrderVisit(func, [&](const Expr& e) {
    for (const Expr& child : ExprChildren(e))
      if (child) ++uses[child.get()];
  });
  return uses;
}

int Uses(const UseCounts& uses, const Expr& e) {
  auto it = uses.find(e.get());
  return it == uses.end() ? 0 : it->second;
}

}  // namespace tessera
