// Graph-level expression builders.
#include "tessera/ir/expr.h"

#include "tessera/support/error.h"

namespace tessera {

const Type& ExprNode::checked_type() const {
  TS_ICHECK(checked_type_.defined()) << "type inference has not run on this expression";
  return checked_type_;
}

Var MakeVar(std::string name_hint, Type type_annotation) {
  return MakeNode<const VarNode>(std::move(name_hint), std::move(type_annotation));
}

GlobalVar MakeGlobalVar(std::string name) {
  return MakeNode<const GlobalVarNode>(std::move(name));
}

Constant MakeConstant(NDArray data) {
  TS_ICHECK(data.defined()) << "constant without data";
  return MakeNode<const ConstantNode>(std::move(data));
}

Call MakeCall(Expr callee, std::vector<Expr> args, Attrs attrs, std::vector<Type> type_args) {
  TS_ICHECK(callee.defined()) << "call without callee";
  for (const auto& a : args) TS_ICHECK(a.defined()) << "call with a null argument";
  return MakeNode<const CallNode>(std::move(callee), std::move(args), std::move(attrs),
                                  std::move(type_args));
}

Tuple MakeTuple(std::vector<Expr> fields) {
  for (const auto& f : fields) TS_ICHECK(f.defined()) << "tuple with a null field";
  return MakeNode<const TupleNode>(std::move(fields));
}

TupleGetItem MakeTupleGetItem(Expr tuple, int index) {
  TS_ICHECK(tuple.defined()) << "tuple projection of null";
  if (index < 0) TS_THROW(kValue) << "tuple index must be non-negative, got " << index;
  return MakeNode<const TupleGetItemNode>(std::move(tuple), index);
}

Let MakeLet(Var var, Expr value, Expr body) {
  TS_ICHECK(var.defined() && value.defined() && body.defined()) << "let with a null part";
  return MakeNode<const LetNode>(std::move(var), std::move(value), std::move(body));
}

Function MakeFunction(std::vector<Var> params, Expr body, Type ret_type, Attrs attrs) {
  TS_ICHECK(body.defined()) << "function without body";
  return MakeNode<const FunctionNode>(std::move(params), std::move(body), std::move(ret_type),
                                      std::move(attrs));
}

Function WithAttr(const Function& func, const std::string& key, AttrValue value) {
  return MakeFunction(func->params, func->body, func->ret_type,
                      func->attrs.With(key, std::move(value)));
}

int64_t GetIntAttr(const BaseFuncNode* func, const char* key) {
  const AttrValue* v = func->attrs.Find(key);
  if (!v) return 0;
  if (v->is_int()) return v->AsInt();
  if (v->is_bool()) return v->AsBool();
  return 0;
}

}  // namespace tessera
