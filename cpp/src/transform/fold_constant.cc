// FoldConstant: evaluates op calls on constants with the ops' reference kernels.
#include "builtin_passes.h"
#include "fold_util.h"
#include "pass_util.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
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

namespace {

/// The constant tensors of a constant value (a constant or nested tuples of them), flat.
void FlattenConstants(const Expr& e, std::vector<NDArray>& out) {
  if (const auto* c = e.as<ConstantNode>()) {
    out.push_back(c->data);
    return;
  }
  for (const Expr& f : e.as<TupleNode>()->fields) FlattenConstants(f, out);
}

/// The kernel's flat results as an expression of `type` (constants, tuples for tuples).
Expr Unflatten(const Type& type, const std::vector<NDArray>& outs, size_t& pos,
               const std::string& op) {
  if (const auto* tt = type.as<TupleTypeNode>()) {
    std::vector<Expr> fields;
    for (const Type& f : tt->fields) fields.push_back(Unflatten(f, outs, pos, op));
    return MakeTuple(fields);
  }
  const auto* t = type.as<TensorTypeNode>();
  if (t && pos < outs.size() && !outs[pos].defined() && ShapeNumElements(t->shape) == 0) {
    ++pos;  // kernels may leave empty results undefined
    return MakeConstant(NDArray::Empty(t->shape, t->dtype));
  }
  if (!t || pos >= outs.size() || outs[pos].shape() != t->shape || outs[pos].dtype() != t->dtype)
    TS_THROW(kInternal) << "FoldConstant: op '" << op
                        << "': its reference kernel's results do not match its type";
  return MakeConstant(outs[pos++]);
}

}  // namespace

Expr TryEvaluateConstantCall(const Expr& expr) {
  auto* call = expr.as<CallNode>();
  if (!call || !call->op() || call->op()->name == kCallTirOp || !call->op()->def->kernel)
    return nullptr;
  for (const Expr& a : call->args)
    if (!IsConstantValue(a)) return nullptr;
  // Typed on its own (the arguments are constants), so the kernel gets its result type.
  Expr body = InferTypes(IRModule::FromExpr(MakeFunction({}, expr))).LookupFunction("main")->body;
  const auto* typed = body.as<CallNode>();
  TS_ICHECK(typed) << "FoldConstant: typing a call gave another expression";
  std::vector<NDArray> inputs;
  for (const Expr& a : typed->args) FlattenConstants(a, inputs);
  const Type& out_type = typed->checked_type();
  std::vector<NDArray> outs = call->op()->def->kernel(inputs, typed->attrs, out_type);
  size_t pos = 0;
  Expr folded = Unflatten(out_type, outs, pos, call->op()->name);
  if (pos != outs.size())
    TS_THROW(kInternal) << "FoldConstant: op '" << call->op()->name
                        << "': its reference kernel returned extra results";
  return folded;
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

PassRegistration FoldConstantRegistration() {
  return {"FoldConstant", "evaluate constant sub-graphs", {}, [](const Attrs&) {
            return FoldConstant();
          }};
}

}  // namespace tessera
