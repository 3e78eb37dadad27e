// FoldConstant: evaluates constant sub-graphs with the reference interpreter.
#include "fold_util.h"
#include "pass_util.h"
#include "tessera/backend/interp/interpreter.h"
#include "tessera/ir/visitor.h"
#include "tessera/op/op.h"
#include "tessera/transform/infer_type.h"
#include "tessera/transform/passes.h"

namespace tessera {

bool IsConstantValue(const Expr& expr) {
  if (expr.as<ConstantNode>()) return true;
  if (auto* t = expr.as<TupleNode>()) {
    for (const Expr& f : t->fields)
      if (!IsConstantValue(f)) return false;
    return true;
  }
  return false;
}

static Expr ValueToExpr(const Value& value) {
  if (!value.is_tuple()) return MakeConstant(value.tensor());
  std::vector<Expr> fields;
  for (const Value& v : value.fields()) fields.push_back(ValueToExpr(v));
  return MakeTuple(fields);
}

Expr TryEvaluateConstantCall(const Expr& expr) {
  auto* call = expr.as<CallNode>();
  if (!call || !call->op() || call->op()->name == kCallTirOp || !call->op()->def->kernel)
    return nullptr;
  for (const Expr& a : call->args)
    if (!IsConstantValue(a)) return nullptr;
  IRModule mod = IRModule::FromExpr(MakeFunction({}, expr));
  return ValueToExpr(Evaluate(mod, "main", {}));
}

namespace {

class ConstantFolder : public ExprMutator {
 protected:
  bool SkipChildren(const Expr& e) override {
    // Kernel bodies (and Composite groups inside them) are left for their backend.
    return IsKernelOrSkipped(e) ||
           (e.as<FunctionNode>() && e.as<FunctionNode>()->attrs.Has(attr::kComposite));
  }
  Expr Rewrite(const Expr&, const Expr& rebuilt) override {
    if (auto* g = rebuilt.as<TupleGetItemNode>()) {
      if (auto* t = g->tuple.as<TupleNode>();
          t && IsConstantValue(g->tuple) && g->index < static_cast<int>(t->fields.size()))
        return t->fields[g->index];
      return rebuilt;
    }
    if (Expr folded = TryEvaluateConstantCall(rebuilt)) return folded;
    return rebuilt;
  }
};

}  // namespace

Pass FoldConstant() {
  return CreateFunctionPass(
      [](Function func, const IRModule&, const PassContext&) {
        Expr out = ConstantFolder().Mutate(func);
        return Function(static_cast<const FunctionNode*>(out.get()));
      },
      PassInfo{"FoldConstant", 2, {}});
}

}  // namespace tessera
