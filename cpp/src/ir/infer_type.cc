// Type inference over a module: graph functions, op calls, call_tir into PrimFuncs.
#include "tessera/ir/infer_type.h"
#include "tessera/ir/visitor.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {
namespace {

std::string Show(const Type& t) {
  return t.defined() ? TypeToString(t) : "<no type>";
}

/// The type call_tir produces for a PrimFunc: one output is a tensor, several a tuple.
Type PrimFuncOutputType(const tir::PrimFuncNode* f) {
  std::vector<Type> outs;
  for (size_t i = f->params.size() - f->num_outputs; i < f->params.size(); ++i)
    outs.push_back(MakeTensorType(f->params[i]->shape, f->params[i]->dtype));
  if (outs.size() == 1) return outs[0];
  return MakeTupleType(std::move(outs));
}

class ModuleTyper;
/// Whether `fn`'s parameters are all annotated.
bool ParamsAnnotated(const FunctionNode* fn) {
  for (const Var& p : fn->params)
    if (!p->type_annotation.defined()) return false;
  return true;
}

/// Infers one graph function (or a standalone expression) iteratively. Every node is
/// typed once; the post-order of the composite nodes is kept for the rebuild.
class BodyTyper {
 public:
  BodyTyper(ModuleTyper& owner, std::string context, std::string func_name)
      : owner_(owner), ctx_(std::move(context)), func_name_(std::move(func_name)) {}

  /// Types `root` and every node under it.
  Type Infer(const Expr& root);
  /// `root` rebuilt so that every Function carries its ret_type; sharing is kept.
  Expr Rebuild(const Expr& root);

 private:
  struct Frame {
    Expr ref;
    int stage;
  };

  [[noreturn]] void Fail(ErrorKind kind, const std::string& msg) const {
    throw Error(kind, ctx_ + ": " + msg);
  }
  const Type& TypeOf(const Expr& e) const {
    auto it = memo_.find(e.get());
    TS_ICHECK(it != memo_.end()) << "child typed after its parent";
    return it->second;
  }
  /// Fails unless every tensor in `t` has an element count and byte size that fit int64
  /// (sizes derived from checked types then never overflow in planning or codegen).
  void CheckSize(const Type& t, const std::string& what) const {
    if (const auto* tt = t.as<TupleTypeNode>()) {
      for (const Type& f : tt->fields) CheckSize(f, what);
    } else if (const auto* tensor = t.as<TensorTypeNode>()) {
      try {
        ShapeNumBytes(tensor->shape, tensor->dtype);
      } catch (const Error& err) {
        Fail(ErrorKind::kType, what + " is too large: " + err.what());
      }
    }
  }
  void Record(const Expr& e, Type t) {
    e->set_checked_type(t);
    memo_[e.get()] = std::move(t);
  }
  void BindParams(const FunctionNode* fn, bool is_root);
  Type LeafType(const Expr& e);
  Type FunctionType(const FunctionNode* fn, bool is_root);
  Type CallType(const CallNode* call);
  Type OpCallType(const CallNode* call, const OpDef* def);
  Type CallTirType(const CallNode* call);
  const tir::PrimFuncNode* CallTirTarget(const CallNode* call);
  std::string CalleeName(const Expr& callee) const;
  const FunctionNode* CalleeFunction(const Expr& callee) const;
  /// Whether `callee` is a global graph function that waits for a call to type it.
  bool WaitingGlobal(const Expr& callee) const;
  /// The nested function `callee` names when it still waits for a call to type it.
  const FunctionNode* DeferredCallee(const Expr& callee) const {
    if (const auto* v = callee.as<VarNode>()) {
      auto it = deferred_.find(v);
      return it == deferred_.end() || memo_.count(it->second) ? nullptr : it->second;
    }
    const auto* fn = callee.as<FunctionNode>();
    return fn && !ParamsAnnotated(fn) && !memo_.count(fn) ? fn : nullptr;
  }

  ModuleTyper& owner_;
  std::string ctx_;        // "in @main"
  std::string func_name_;  // "main"; empty for a standalone expression
  const ExprNode* root_ = nullptr;
  std::unordered_map<const ExprNode*, Type> memo_;
  std::unordered_map<const VarNode*, const FunctionNode*> let_functions_;
  std::vector<Expr> composites_;  // post-order of non-leaf nodes
  // Nested functions with unannotated parameters are typed at their first call, from the
  // argument types: the let variable naming one waits in `deferred_` until then.
  std::unordered_map<const VarNode*, const FunctionNode*> deferred_;
  std::unordered_map<const FunctionNode*, const VarNode*> deferred_var_;
  std::unordered_map<const VarNode*, Type> param_hints_;

 public:
  /// Whether some parameter had no annotation and got its type from a call.
  bool inferred_params() const { return !param_hints_.empty(); }
};


/// Infers the globals of a module on demand (callees before callers).
class ModuleTyper {
 public:
  explicit ModuleTyper(const IRModule& mod) : mod_(mod) {}

  /// Whether global `name` is a graph function with an unannotated parameter not typed yet.
  bool Waiting(const std::string& name) const {
    if (done_.count(name) || annotated_.count(name)) return false;
    const FunctionNode* fn = FindFunction(name);
    if (!fn) return false;
    for (const Var& p : fn->params)
      if (!p->type_annotation.defined()) return true;
    return false;
  }

  /// Gives the unannotated parameters of global `name` the types of its first call's
  /// arguments `args`: the function is replaced by one with annotated parameters.
  void HintGlobal(const std::string& name, std::vector<Type> args, const std::string& ctx) {
    const FunctionNode* fn = FindFunction(name);
    TS_ICHECK(fn) << "hint for @" << name << ", which is not a graph function";
    if (args.size() != fn->params.size())
      throw Error(ErrorKind::kType, ctx + ": @" + name + " takes " + std::to_string(fn->params.size()) +
                                        " argument(s) but " + std::to_string(args.size()) +
                                        " were given");
    std::vector<Var> params;
    std::unordered_map<const VarNode*, Expr> bind;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const Var& p = fn->params[i];
      params.push_back(p->type_annotation.defined() ? p : MakeVar(p->name_hint, args[i]));
      if (!params.back().same_as(p)) bind[p.get()] = params.back();
    }
    annotated_[name] = MakeFunction(params, Substitute(fn->body, bind), fn->ret_type, fn->attrs);
    retype_ = true;
  }

  /// The FuncType of global `name`, inferring that function first when needed.
  Type GlobalType(const std::string& name, const std::string& ctx) {
    if (auto it = done_.find(name); it != done_.end()) return it->second;
    BaseFunc base = mod_.Find(name);
    if (auto it = annotated_.find(name); it != annotated_.end()) base = it->second;
    if (!base.defined())
      throw Error(ErrorKind::kNotFound, ctx + ": unknown global function @" + name);
    if (const auto* pf = base.as<tir::PrimFuncNode>()) {
      CheckPrimFunc(name, pf);
      std::vector<Type> ins;
      for (size_t i = 0; i + pf->num_outputs < pf->params.size(); ++i)
        ins.push_back(MakeTensorType(pf->params[i]->shape, pf->params[i]->dtype));
      Type t = MakeFuncType(std::move(ins), PrimFuncOutputType(pf));
      pf->set_checked_type(t);
      return done_[name] = t;
    }
    const auto* fn = base.as<FunctionNode>();
    TS_ICHECK(fn) << "module entry @" << name << " is neither a Function nor a PrimFunc";
    if (std::find(stack_.begin(), stack_.end(), name) != stack_.end()) {
      // A recursive reference is typed by its declaration alone.
      bool declared = fn->ret_type.defined();
      for (const Var& p : fn->params) declared = declared && p->type_annotation.defined();
      if (declared) {
        std::vector<Type> args;
        for (const Var& p : fn->params) args.push_back(p->type_annotation);
        return MakeFuncType(std::move(args), fn->ret_type);
      }
      std::string cycle;
      auto start = std::find(stack_.begin(), stack_.end(), name);
      for (auto it = start; it != stack_.end(); ++it) cycle += "@" + *it + " -> ";
      throw Error(ErrorKind::kType, ctx + ": recursive call to @" + name +
                                        " needs a declared return type (cycle: " + cycle + "@" +
                                        name + ")");
    }
    stack_.push_back(name);
    BodyTyper typer(*this, "in @" + name, name);
    Type t = typer.Infer(base);
    Expr rebuilt = typer.Rebuild(base);
    retype_ = retype_ || typer.inferred_params();
    stack_.pop_back();
    rebuilt_[name] = BaseFunc(rebuilt.as<BaseFuncNode>());
    return done_[name] = t;
  }

  /// Infers every function and returns the module with rebuilt functions.
  IRModule Run() {
    // Globals with unannotated parameters wait for their first call (from a function
    // typed later in this loop); one no call reaches is an error.
    for (const auto& [name, func] : mod_.functions())
      if (!Waiting(name)) GlobalType(name, "in @" + name);
    for (const auto& [name, func] : mod_.functions()) GlobalType(name, "in @" + name);
    IRModule out = mod_;
    for (const auto& [name, func] : mod_.functions()) {
      auto it = rebuilt_.find(name);
      if (it != rebuilt_.end() && !it->second.same_as(func))
        out = out.WithFunction(name, it->second);
    }
    // Parameters annotated from calls are new variables: type the result once more, so
    // every node of it carries its type.
    return retype_ ? ModuleTyper(out).Run() : out;
  }

  /// The PrimFunc named `name`, or null.
  const tir::PrimFuncNode* FindPrimFunc(const std::string& name) const {
    BaseFunc f = mod_.Find(name);
    return f.as<tir::PrimFuncNode>();
  }
  /// The graph function named `name`, or null.
  const FunctionNode* FindFunction(const std::string& name) const {
    BaseFunc f = mod_.Find(name);
    return f.as<FunctionNode>();
  }

 private:
  static void CheckPrimFunc(const std::string& name, const tir::PrimFuncNode* pf) {
    if (pf->num_outputs < 0 || static_cast<size_t>(pf->num_outputs) > pf->params.size())
      TS_THROW(kType) << "PrimFunc @" << name << " declares " << pf->num_outputs
                      << " output(s) but has " << pf->params.size() << " buffer parameter(s)";
    if (!pf->body.defined()) TS_THROW(kType) << "PrimFunc @" << name << " has no body";
    for (const auto& b : pf->params)
      if (!b.defined()) TS_THROW(kType) << "PrimFunc @" << name << " has a null buffer parameter";
  }

  const IRModule& mod_;
  std::map<std::string, Type> done_;
  std::map<std::string, BaseFunc> rebuilt_;
  std::map<std::string, Function> annotated_;  // typed from a first call (HintGlobal)
  std::vector<std::string> stack_;  // functions being inferred, outermost first
  bool retype_ = false;              // some parameter was annotated from a call
};

bool BodyTyper::WaitingGlobal(const Expr& callee) const {
  const auto* g = callee.as<GlobalVarNode>();
  return g && owner_.Waiting(g->name);
}

void BodyTyper::BindParams(const FunctionNode* fn, bool is_root) {
  for (const Var& p : fn->params) {
    if (!p->type_annotation.defined() && !is_root) {
      auto hint = param_hints_.find(p.get());
      if (hint != param_hints_.end()) {
        Record(p, hint->second);
        continue;
      }
    }
    if (!p->type_annotation.defined()) {
      if (is_root && !func_name_.empty())
        Fail(ErrorKind::kType, "parameter %" + p->name_hint + " of @" + func_name_ +
                                   " has no type annotation (nor a call to infer it from)");
      Fail(ErrorKind::kType, "parameter %" + p->name_hint +
                                 " of a nested function has no type annotation (nor a call "
                                 "to infer it from)");
    }
    CheckSize(p->type_annotation, "parameter %" + p->name_hint);
    Record(p, p->type_annotation);
  }
}

Type BodyTyper::LeafType(const Expr& e) {
  if (const auto* v = e.as<VarNode>()) {
    if (auto it = deferred_.find(v); it != deferred_.end()) {
      std::string param;
      for (const Var& p : it->second->params)
        if (!p->type_annotation.defined() && param.empty()) param = p->name_hint;
      Fail(ErrorKind::kType, "parameter %" + param +
                                 " of a nested function has no type annotation (nor a call to "
                                 "infer it from before %" + v->name_hint + " is used as a value)");
    }
    if (!v->type_annotation.defined())
      Fail(ErrorKind::kType,
           "variable %" + v->name_hint +
               " has no type: it is neither annotated nor bound by an enclosing let");
    return v->type_annotation;
  }
  if (const auto* g = e.as<GlobalVarNode>()) return owner_.GlobalType(g->name, ctx_);
  if (const auto* c = e.as<ConstantNode>()) {
    if (!c->data.defined()) Fail(ErrorKind::kType, "constant without data");
    return MakeTensorType(c->data.shape(), c->data.dtype());
  }
  if (const auto* op = e.as<OpNode>())
    Fail(ErrorKind::kType, "op '" + op->name + "' is used as a value; ops can only be called");
  if (e.as<tir::PrimFuncNode>())
    Fail(ErrorKind::kType,
         "a PrimFunc cannot appear inside a graph function; add it to the module and call it "
         "with call_tir");
  TS_THROW(kInternal) << "unexpected leaf node in type inference";
}

Type BodyTyper::Infer(const Expr& root) {
  root_ = root.get();
  std::vector<Frame> stack;
  stack.push_back({root, 0});
  while (!stack.empty()) {
    size_t top = stack.size() - 1;
    Expr e = stack[top].ref;
    int stage = stack[top].stage;
    if (stage == 0 && memo_.count(e.get())) {
      stack.pop_back();
      continue;
    }
    auto push = [&](const Expr& child) {
      if (!memo_.count(child.get())) stack.push_back({child, 0});
    };
    auto finish = [&](Type t) {
      Record(e, std::move(t));
      composites_.push_back(e);
      stack.pop_back();
    };
    if (const auto* let = e.as<LetNode>()) {
      const auto* value_fn = let->value.as<FunctionNode>();
      if (stage == 0 && value_fn && !ParamsAnnotated(value_fn) && !memo_.count(value_fn)) {
        // Typed at its first call (below); the body comes first.
        deferred_[let->var.get()] = value_fn;
        deferred_var_[value_fn] = let->var.get();
        let_functions_[let->var.get()] = value_fn;
        stack[top].stage = 2;
        push(let->body);
      } else if (stage == 0) {
        stack[top].stage = 1;
        push(let->value);
      } else if (stage == 1) {
        const Type& vt = TypeOf(let->value);
        const Type& ann = let->var->type_annotation;
        if (ann.defined() && !TypeEqual(ann, vt))
          Fail(ErrorKind::kType, "let %" + let->var->name_hint + " is annotated " + Show(ann) +
                                     " but bound to a value of type " + Show(vt));
        Record(let->var, ann.defined() ? ann : vt);
        if (const auto* f = let->value.as<FunctionNode>()) let_functions_[let->var.get()] = f;
        stack[top].stage = 2;
        push(let->body);
      } else {
        finish(TypeOf(let->body));
      }
      continue;
    }
    if (const auto* fn = e.as<FunctionNode>()) {
      if (stage == 0) {
        BindParams(fn, e.get() == root_);
        stack[top].stage = 1;
        push(fn->body);
      } else {
        Type t = FunctionType(fn, e.get() == root_);
        if (auto it = deferred_var_.find(fn); it != deferred_var_.end()) {
          memo_[it->second] = t;
          deferred_.erase(it->second);
        }
        finish(std::move(t));
      }
      continue;
    }
    if (const auto* call = e.as<CallNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        // call_tir's target is checked before its arguments are typed: typing a graph
        // function there would report recursion instead of the real mistake.
        if (call->op() && call->op()->name == kCallTirOp) CallTirTarget(call);
        for (size_t i = call->args.size(); i-- > 0;) push(call->args[i]);
        if (!call->op() && !DeferredCallee(call->callee) && !WaitingGlobal(call->callee))
          push(call->callee);
      } else if (stage == 1 && WaitingGlobal(call->callee)) {
        // A global with unannotated parameters is typed at its first call, like a nested
        // function: the arguments give the parameters their types.
        std::vector<Type> args;
        for (const Expr& a : call->args) args.push_back(TypeOf(a));
        owner_.HintGlobal(call->callee.as<GlobalVarNode>()->name, std::move(args), ctx_);
        stack[top].stage = 2;
        push(call->callee);
      } else if (const FunctionNode* fn = DeferredCallee(call->callee)) {
        // The arguments are typed: they give the parameters their types.
        if (fn->params.size() != call->args.size())
          Fail(ErrorKind::kType, CalleeName(call->callee) + " takes " +
                                     std::to_string(fn->params.size()) + " argument(s) but " +
                                     std::to_string(call->args.size()) + " were given");
        for (size_t i = 0; i < fn->params.size(); ++i)
          if (!fn->params[i]->type_annotation.defined())
            param_hints_[fn->params[i].get()] = TypeOf(call->args[i]);
        if (const auto* v = call->callee.as<VarNode>()) deferred_var_[fn] = v;
        stack.push_back({Expr(fn), 0});  // then this call again, at stage 1
      } else {
        finish(CallType(call));
      }
      continue;
    }
    if (const auto* tuple = e.as<TupleNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        for (size_t i = tuple->fields.size(); i-- > 0;) push(tuple->fields[i]);
      } else {
        std::vector<Type> fields;
        for (const Expr& f : tuple->fields) fields.push_back(TypeOf(f));
        finish(MakeTupleType(std::move(fields)));
      }
      continue;
    }
    if (const auto* get = e.as<TupleGetItemNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        push(get->tuple);
      } else {
        const auto* tt = TypeOf(get->tuple).as<TupleTypeNode>();
        if (!tt)
          Fail(ErrorKind::kType, "tuple projection ." + std::to_string(get->index) +
                                     " of a value of non-tuple type " + Show(TypeOf(get->tuple)));
        if (get->index < 0 || get->index >= static_cast<int>(tt->fields.size()))
          Fail(ErrorKind::kType, "tuple index " + std::to_string(get->index) +
                                     " is out of range for a tuple of " +
                                     std::to_string(tt->fields.size()) + " field(s)");
        finish(tt->fields[get->index]);
      }
      continue;
    }
    // Leaves are recorded but never rebuilt.
    Record(e, LeafType(e));
    stack.pop_back();
  }
  return TypeOf(root);
}

Type BodyTyper::FunctionType(const FunctionNode* fn, bool is_root) {
  const Type& body = TypeOf(fn->body);
  if (fn->ret_type.defined() && !TypeEqual(fn->ret_type, body)) {
    std::string who = is_root && !func_name_.empty() ? "@" + func_name_ : "a nested function";
    Fail(ErrorKind::kType, who + " declares return type " + Show(fn->ret_type) +
                               " but its body has type " + Show(body));
  }
  std::vector<Type> args;
  for (const Var& p : fn->params) args.push_back(TypeOf(p));
  return MakeFuncType(std::move(args), body);
}

std::string BodyTyper::CalleeName(const Expr& callee) const {
  if (const auto* g = callee.as<GlobalVarNode>()) return "@" + g->name;
  if (const auto* v = callee.as<VarNode>()) return "%" + v->name_hint;
  if (callee.as<FunctionNode>()) return "a nested function";
  return "an expression";
}

const FunctionNode* BodyTyper::CalleeFunction(const Expr& callee) const {
  if (const auto* g = callee.as<GlobalVarNode>()) return owner_.FindFunction(g->name);
  if (const auto* f = callee.as<FunctionNode>()) return f;
  if (const auto* v = callee.as<VarNode>()) {
    auto it = let_functions_.find(v);
    if (it != let_functions_.end()) return it->second;
  }
  return nullptr;
}

Type BodyTyper::CallType(const CallNode* call) {
  if (const OpNode* op = call->op()) {
    if (op->name == kCallTirOp) return CallTirType(call);
    return OpCallType(call, op->def);
  }
  std::string name = CalleeName(call->callee);
  const auto* ft = TypeOf(call->callee).as<FuncTypeNode>();
  if (!ft)
    Fail(ErrorKind::kType, "cannot call " + name + ": it has type " + Show(TypeOf(call->callee)) +
                               ", not a function type");
  if (call->callee.as<GlobalVarNode>() &&
      owner_.FindPrimFunc(call->callee.as<GlobalVarNode>()->name))
    Fail(ErrorKind::kType, name + " is a PrimFunc; call it with call_tir");
  if (call->args.size() != ft->arg_types.size())
    Fail(ErrorKind::kType, name + " takes " + std::to_string(ft->arg_types.size()) +
                               " argument(s) but " + std::to_string(call->args.size()) +
                               " were given");
  const FunctionNode* fn = CalleeFunction(call->callee);
  for (size_t i = 0; i < call->args.size(); ++i) {
    const Type& got = TypeOf(call->args[i]);
    if (TypeEqual(got, ft->arg_types[i])) continue;
    std::string param =
        fn && i < fn->params.size() ? "%" + fn->params[i]->name_hint : "#" + std::to_string(i);
    Fail(ErrorKind::kType, "argument " + std::to_string(i) + " of call to " + name +
                               " (parameter " + param + "): expected " + Show(ft->arg_types[i]) +
                               " but got " + Show(got));
  }
  return ft->ret_type;
}

Type BodyTyper::OpCallType(const CallNode* call, const OpDef* def) {
  std::string prefix = "op '" + def->name + "': ";
  size_t arity = def->inputs.size();
  if (def->variadic ? call->args.size() < arity : call->args.size() != arity)
    Fail(ErrorKind::kType, prefix + "takes " + (def->variadic ? "at least " : "") +
                               std::to_string(arity) + " input(s), got " +
                               std::to_string(call->args.size()));
  if (!def->type_rel) Fail(ErrorKind::kUnsupported, prefix + "has no type relation");
  std::vector<Type> args;
  for (const Expr& a : call->args) args.push_back(TypeOf(a));
  Type out;
  try {
    out = def->type_rel(args, call->attrs, call->type_args);
  } catch (const Error& err) {
    Fail(err.kind(), prefix + err.what());
  }
  if (!out.defined()) Fail(ErrorKind::kInternal, prefix + "type relation returned no type");
  CheckSize(out, prefix + "its result");
  return out;
}

const tir::PrimFuncNode* BodyTyper::CallTirTarget(const CallNode* call) {
  if (call->args.size() != 2)
    Fail(ErrorKind::kType,
         "call_tir takes 2 arguments (@func, (args...)), got " + std::to_string(call->args.size()));
  const auto* gv = call->args[0].as<GlobalVarNode>();
  if (!gv) Fail(ErrorKind::kType, "call_tir's first argument must be a global PrimFunc");
  const tir::PrimFuncNode* pf = owner_.FindPrimFunc(gv->name);
  if (!pf) Fail(ErrorKind::kType, "call_tir target @" + gv->name + " is not a PrimFunc");
  return pf;
}

Type BodyTyper::CallTirType(const CallNode* call) {
  const tir::PrimFuncNode* pf = CallTirTarget(call);
  const auto* gv = call->args[0].as<GlobalVarNode>();
  std::string prefix = "call_tir @" + gv->name + ": ";
  if (call->type_args.size() != 1 || !call->type_args[0].defined())
    Fail(ErrorKind::kType,
         prefix + "needs exactly one output type, got " + std::to_string(call->type_args.size()));
  const Type& args_type = TypeOf(call->args[1]);
  std::vector<Type> given;
  if (const auto* tt = args_type.as<TupleTypeNode>()) {
    given = tt->fields;
  } else if (args_type.as<TensorTypeNode>()) {
    given = {args_type};
  } else {
    Fail(ErrorKind::kType, prefix + "arguments must be a tuple of tensors, got " + Show(args_type));
  }
  size_t num_inputs = pf->params.size() - pf->num_outputs;
  if (given.size() != num_inputs) {
    std::string names;
    for (size_t i = 0; i < num_inputs; ++i) names += (i ? ", " : "") + pf->params[i]->name;
    Fail(ErrorKind::kType, prefix + "expects " + std::to_string(num_inputs) + " input buffer(s) (" +
                               names + ") but got " + std::to_string(given.size()) +
                               " argument(s)");
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    const auto& b = pf->params[i];
    Type want = MakeTensorType(b->shape, b->dtype);
    if (!TypeEqual(want, given[i]))
      Fail(ErrorKind::kType, prefix + "input buffer '" + b->name + "' is " + Show(want) +
                                 " but argument " + std::to_string(i) + " has type " +
                                 Show(given[i]));
  }
  const Type& out = call->type_args[0];
  std::vector<Type> outs;
  if (pf->num_outputs == 1) {
    outs = {out};
  } else if (const auto* tt = out.as<TupleTypeNode>()) {
    outs = tt->fields;
  }
  if (outs.size() != static_cast<size_t>(pf->num_outputs))
    Fail(ErrorKind::kType, prefix + "out_type " + Show(out) + " does not match the " +
                               std::to_string(pf->num_outputs) + " output buffer(s)");
  for (size_t i = 0; i < outs.size(); ++i) {
    const auto& b = pf->params[num_inputs + i];
    Type want = MakeTensorType(b->shape, b->dtype);
    if (!TypeEqual(want, outs[i]))
      Fail(ErrorKind::kType, prefix + "output buffer '" + b->name + "' is " + Show(want) +
                                 " but out_type gives " + Show(outs[i]));
  }
  return out;
}

Expr BodyTyper::Rebuild(const Expr& root) {
  std::unordered_map<const ExprNode*, Expr> changed;
  auto map = [&](const Expr& e) -> Expr {
    auto it = changed.find(e.get());
    return it == changed.end() ? e : it->second;
  };
  for (const Expr& e : composites_) {
    Expr out;
    if (const auto* call = e.as<CallNode>()) {
      bool diff = false;
      std::vector<Expr> args;
      for (const Expr& a : call->args) {
        args.push_back(map(a));
        diff = diff || !args.back().same_as(a);
      }
      Expr callee = map(call->callee);
      if (diff || !callee.same_as(call->callee))
        out = MakeCall(callee, std::move(args), call->attrs, call->type_args);
    } else if (const auto* tuple = e.as<TupleNode>()) {
      bool diff = false;
      std::vector<Expr> fields;
      for (const Expr& f : tuple->fields) {
        fields.push_back(map(f));
        diff = diff || !fields.back().same_as(f);
      }
      if (diff) out = MakeTuple(std::move(fields));
    } else if (const auto* get = e.as<TupleGetItemNode>()) {
      Expr t = map(get->tuple);
      if (!t.same_as(get->tuple)) out = MakeTupleGetItem(t, get->index);
    } else if (const auto* let = e.as<LetNode>()) {
      Expr value = map(let->value), body = map(let->body);
      if (!value.same_as(let->value) || !body.same_as(let->body))
        out = MakeLet(let->var, value, body);
    } else if (const auto* fn = e.as<FunctionNode>()) {
      Expr body = map(fn->body);
      // Parameters typed from a call get their type as an annotation.
      std::vector<Var> params = fn->params;
      std::unordered_map<const VarNode*, Expr> annotated;
      for (Var& p : params) {
        auto hint = param_hints_.find(p.get());
        if (p->type_annotation.defined() || hint == param_hints_.end()) continue;
        Var q = MakeVar(p->name_hint, hint->second);
        annotated[p.get()] = q;
        p = q;
      }
      if (!annotated.empty()) body = Substitute(body, annotated);
      if (!annotated.empty() || !body.same_as(fn->body) || !fn->ret_type.defined()) {
        Type ret = fn->ret_type.defined() ? fn->ret_type : TypeOf(fn->body);
        out = MakeFunction(params, body, ret, fn->attrs);
      }
    }
    if (out.defined()) {
      out->set_checked_type(e->checked_type_or_null());
      changed[e.get()] = out;
    }
  }
  return map(root);
}

}  // namespace

IRModule InferTypes(const IRModule& mod) {
  return ModuleTyper(mod).Run();
}

Type InferExprType(const Expr& expr, const IRModule& mod) {
  if (!expr.defined()) TS_THROW(kValue) << "cannot infer the type of a null expression";
  ModuleTyper owner(mod);
  BodyTyper typer(owner, "in expression", "");
  return typer.Infer(expr);
}

}  // namespace tessera
