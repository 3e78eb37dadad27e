// The reference interpreter for graph functions: ops by their reference kernels,
// function calls, tuples, lets and call_tir into the tensor-IR interpreter.
#include "tessera/backend/interp/interpreter.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/backend/lower/lower_to_tir.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"
#include "tir_interpreter.h"

namespace tessera {

Value Value::TupleOf(std::vector<Value> fields) {
  Value v;
  v.fields_ = std::move(fields);
  v.is_tuple_ = true;
  return v;
}

const NDArray& Value::tensor() const {
  if (is_tuple_)
    TS_THROW(kType) << "value is a tuple of " << fields_.size() << " field(s), not a tensor";
  return tensor_;
}

const std::vector<Value>& Value::fields() const {
  if (!is_tuple_)
    TS_THROW(kType) << "value is a tensor (" << tensor_.Describe() << "), not a tuple";
  return fields_;
}

std::vector<NDArray> Value::Flatten() const {
  std::vector<NDArray> out;
  // Depth first without recursion over nesting depth.
  std::vector<const Value*> stack = {this};
  while (!stack.empty()) {
    const Value* v = stack.back();
    stack.pop_back();
    if (!v->is_tuple_) {
      out.push_back(v->tensor_);
      continue;
    }
    for (size_t i = v->fields_.size(); i-- > 0;) stack.push_back(&v->fields_[i]);
  }
  return out;
}

namespace {

/// "float32[1, 3]" or "(float32[1], float32[2])".
std::string DescribeType(const Type& type) {
  if (const auto* t = type.as<TensorTypeNode>())
    return DTypeName(t->dtype) + ShapeToString(t->shape);
  if (const auto* t = type.as<TupleTypeNode>()) {
    std::string s = "(";
    for (size_t i = 0; i < t->fields.size(); ++i) s += (i ? ", " : "") + DescribeType(t->fields[i]);
    return s + ")";
  }
  return type.defined() ? TypeToString(type) : "<no type>";
}

std::string DescribeValue(const Value& v) {
  if (!v.is_tuple()) return v.tensor().defined() ? v.tensor().Describe() : "<undefined array>";
  std::string s = "(";
  for (size_t i = 0; i < v.fields().size(); ++i)
    s += (i ? ", " : "") + DescribeValue(v.fields()[i]);
  return s + ")";
}

bool ValueMatches(const Value& v, const Type& type) {
  if (const auto* t = type.as<TensorTypeNode>())
    return !v.is_tuple() && v.tensor().defined() && v.tensor().shape() == t->shape &&
           v.tensor().dtype() == t->dtype;
  if (const auto* t = type.as<TupleTypeNode>()) {
    if (!v.is_tuple() || v.fields().size() != t->fields.size()) return false;
    for (size_t i = 0; i < t->fields.size(); ++i)
      if (!ValueMatches(v.fields()[i], t->fields[i])) return false;
    return true;
  }
  return false;
}

/// The tensor types of `type`, depth first.
void FlattenType(const Type& type, std::vector<const TensorTypeNode*>& out) {
  if (const auto* t = type.as<TensorTypeNode>()) {
    out.push_back(t);
  } else if (const auto* t = type.as<TupleTypeNode>()) {
    for (const Type& f : t->fields) FlattenType(f, out);
  } else {
    TS_THROW(kUnsupported) << "the interpreter cannot produce a value of type "
                           << DescribeType(type);
  }
}

/// Rebuilds the value structure of `type` from flat arrays starting at `pos`.
Value Unflatten(const Type& type, const std::vector<NDArray>& arrays, size_t& pos) {
  if (type.as<TensorTypeNode>()) return Value(arrays.at(pos++));
  std::vector<Value> fields;
  for (const Type& f : type.as<TupleTypeNode>()->fields)
    fields.push_back(Unflatten(f, arrays, pos));
  return Value::TupleOf(std::move(fields));
}

/// A call-depth bound: the IR has no conditionals, so deeper nesting means recursion
/// that cannot terminate. Calls are evaluated without native recursion (activations
/// live on the heap), so the bound is about the program, not the C++ stack.
constexpr int kMaxCallDepth = 1000;

struct Activation;

/// A run-time value inside the interpreter: a Value or a function (closure).
struct RValue {
  Value value;
  const FunctionNode* func = nullptr;
  const Activation* env = nullptr;  ///< captured scope of a nested function literal
  std::string name;                 ///< "@g", "%f" or "a nested function"
};

RValue Val(Value v) {
  RValue r;
  r.value = std::move(v);
  return r;
}

/// One function activation: every node of the body is evaluated once and memoised.
struct Activation {
  std::unordered_map<const ExprNode*, RValue> memo;
  const Activation* parent = nullptr;

  const RValue* LookupVar(const ExprNode* var) const {
    for (const Activation* a = this; a; a = a->parent) {
      auto it = a->memo.find(var);
      if (it != a->memo.end()) return &it->second;
    }
    return nullptr;
  }
};

class GraphInterpreter {
 public:
  explicit GraphInterpreter(const IRModule& typed) : mod_(typed) {}

  /// Runs `fn` on `args` (already checked). Nested calls push heap activations onto an
  /// explicit call stack instead of recursing, so deep call chains cannot overflow the
  /// native stack.
  Value Call(const FunctionNode* fn, const std::string& name, const std::vector<Value>& args) {
    std::vector<CallFrame> calls;
    Enter(calls, fn, name, args, nullptr, nullptr);
    while (true) {
      CallFrame& top = calls.back();
      PendingCall pending;
      if (EvalBody(top, &pending)) {
        Enter(calls, pending.fn, pending.name, pending.args, pending.env, pending.site);
        continue;
      }
      RValue result = top.act->memo.at(top.fn->body.get());
      if (result.func)
        TS_THROW(kUnsupported) << top.name
                               << " returns a function, which the interpreter cannot return";
      const ExprNode* site = top.site;
      calls.pop_back();
      if (calls.empty()) return result.value;
      // The caller's top frame is the call waiting for this result.
      CallFrame& caller = calls.back();
      caller.act->memo[site] = std::move(result);
      caller.stack.pop_back();
    }
  }

 private:
  struct Frame {
    Expr ref;
    int stage;
  };
  /// One function activation on the explicit call stack.
  struct CallFrame {
    const FunctionNode* fn;
    std::string name;
    std::unique_ptr<Activation> act;  ///< heap: closures keep pointers to it
    std::vector<Frame> stack;         ///< pending expression nodes of the body
    const ExprNode* site;             ///< the call node in the caller (null for the entry)
  };
  /// A call of a function found while evaluating a body.
  struct PendingCall {
    const FunctionNode* fn = nullptr;
    std::string name;
    std::vector<Value> args;
    const Activation* env = nullptr;
    const ExprNode* site = nullptr;
  };

  void Enter(std::vector<CallFrame>& calls, const FunctionNode* fn, const std::string& name,
             const std::vector<Value>& args, const Activation* env, const ExprNode* site) {
    if (static_cast<int>(calls.size()) >= kMaxCallDepth) {
      TS_THROW(kUnsupported) << "call depth exceeds " << kMaxCallDepth << " at " << name
                             << ": recursion cannot terminate in a graph without conditionals";
    }
    TS_ICHECK(args.size() == fn->params.size()) << "argument count checked by type inference";
    CallFrame frame{fn, name, std::make_unique<Activation>(), {}, site};
    frame.act->parent = env;
    for (size_t i = 0; i < args.size(); ++i) frame.act->memo[fn->params[i].get()].value = args[i];
    frame.stack.push_back({fn->body, 0});
    calls.push_back(std::move(frame));
  }

  /// Evaluates the body of `cf` until it is done (returns false) or it needs the result
  /// of a function call (returns true with `pending` filled; the call's frame stays on
  /// top of cf.stack until the caller stores the result).
  bool EvalBody(CallFrame& cf, PendingCall* pending);
  RValue EvalLeaf(const Expr& e, Activation& act);
  Value EvalOpCall(const CallNode* call, const OpDef* def, Activation& act);
  Value EvalCallTir(const CallNode* call, Activation& act);
  const Value& ValueOf(const Expr& e, Activation& act, const char* what) {
    const RValue& r = act.memo.at(e.get());
    if (r.func)
      TS_THROW(kUnsupported) << "the interpreter cannot use function " << r.name << " as " << what;
    return r.value;
  }

  const IRModule& mod_;
};

RValue GraphInterpreter::EvalLeaf(const Expr& e, Activation& act) {
  if (const auto* v = e.as<VarNode>()) {
    const RValue* r = act.LookupVar(v);
    if (!r) TS_THROW(kValue) << "variable %" << v->name_hint << " is used but never bound";
    return *r;
  }
  if (const auto* c = e.as<ConstantNode>()) return Val(Value(c->data));
  if (const auto* g = e.as<GlobalVarNode>()) {
    BaseFunc f = mod_.Lookup(g->name);
    const auto* fn = f.as<FunctionNode>();
    if (!fn) TS_THROW(kType) << "PrimFunc @" << g->name << " can only be called through call_tir";
    return RValue{Value(), fn, nullptr, "@" + g->name};
  }
  if (const auto* fn = e.as<FunctionNode>()) return RValue{Value(), fn, &act, "a nested function"};
  if (const auto* op = e.as<OpNode>())
    TS_THROW(kType) << "op '" << op->name << "' is used as a value; ops can only be called";
  TS_THROW(kUnsupported) << "the interpreter cannot evaluate this expression";
}

bool GraphInterpreter::EvalBody(CallFrame& cf, PendingCall* pending) {
  std::vector<Frame>& stack = cf.stack;
  Activation& act = *cf.act;
  while (!stack.empty()) {
    size_t top = stack.size() - 1;
    Expr e = stack[top].ref;
    int stage = stack[top].stage;
    if (stage == 0 && act.memo.count(e.get())) {
      stack.pop_back();
      continue;
    }
    auto push = [&](const Expr& child) {
      if (!act.memo.count(child.get())) stack.push_back({child, 0});
    };
    auto finish = [&](RValue v) {
      act.memo[e.get()] = std::move(v);
      stack.pop_back();
    };
    if (const auto* let = e.as<LetNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        push(let->value);
      } else if (stage == 1) {
        RValue bound = act.memo.at(let->value.get());
        if (bound.func) bound.name = "%" + let->var->name_hint;
        act.memo[let->var.get()] = std::move(bound);
        stack[top].stage = 2;
        push(let->body);
      } else {
        finish(act.memo.at(let->body.get()));
      }
    } else if (const auto* call = e.as<CallNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        const OpNode* op = call->op();
        if (op && op->name == kCallTirOp) {
          if (call->args.size() == 2) push(call->args[1]);
        } else {
          for (size_t i = call->args.size(); i-- > 0;) push(call->args[i]);
          if (!op) push(call->callee);
        }
      } else if (const OpNode* op = call->op()) {
        finish(
            Val(op->name == kCallTirOp ? EvalCallTir(call, act) : EvalOpCall(call, op->def, act)));
      } else {
        const RValue& callee = act.memo.at(call->callee.get());
        if (!callee.func) TS_THROW(kType) << "cannot call a value that is not a function";
        pending->fn = callee.func;
        pending->name = callee.name;
        pending->env = callee.env;
        pending->site = call;
        for (const Expr& a : call->args) pending->args.push_back(ValueOf(a, act, "an argument"));
        return true;  // this frame stays on the stack until the result arrives
      }
    } else if (const auto* tuple = e.as<TupleNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        for (size_t i = tuple->fields.size(); i-- > 0;) push(tuple->fields[i]);
      } else {
        std::vector<Value> fields;
        for (const Expr& f : tuple->fields) fields.push_back(ValueOf(f, act, "a tuple field"));
        finish(Val(Value::TupleOf(std::move(fields))));
      }
    } else if (const auto* get = e.as<TupleGetItemNode>()) {
      if (stage == 0) {
        stack[top].stage = 1;
        push(get->tuple);
      } else {
        const Value& t = ValueOf(get->tuple, act, "a tuple");
        if (get->index < 0 || get->index >= static_cast<int>(t.fields().size()))
          TS_THROW(kType) << "tuple index " << get->index << " is out of range for a tuple of "
                          << t.fields().size() << " field(s)";
        finish(Val(t.fields()[get->index]));
      }
    } else {
      finish(EvalLeaf(e, act));
    }
  }
  return false;
}

Value GraphInterpreter::EvalOpCall(const CallNode* call, const OpDef* def, Activation& act) {
  if (!def->kernel)
    TS_THROW(kUnsupported) << "op '" << def->name
                           << "' has no reference kernel; the interpreter cannot run it";
  std::vector<NDArray> inputs;
  for (const Expr& a : call->args) {
    std::vector<NDArray> flat = ValueOf(a, act, "an op input").Flatten();
    inputs.insert(inputs.end(), flat.begin(), flat.end());
  }
  const Type& out_type = call->checked_type();
  std::vector<NDArray> outs = def->kernel(inputs, call->attrs, out_type);
  std::vector<const TensorTypeNode*> want;
  FlattenType(out_type, want);
  if (outs.size() != want.size())
    TS_THROW(kInternal) << "op '" << def->name << "': reference kernel returned " << outs.size()
                        << " array(s) but its type " << DescribeType(out_type) << " has "
                        << want.size();
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].defined() && ShapeNumElements(want[i]->shape) != 0)
      TS_THROW(kInternal) << "op '" << def->name << "': reference kernel output " << i
                          << " is undefined";
    if (outs[i].shape() != want[i]->shape || outs[i].dtype() != want[i]->dtype)
      TS_THROW(kInternal) << "op '" << def->name << "': reference kernel output " << i << " is "
                          << outs[i].Describe() << " but the inferred type is "
                          << DTypeName(want[i]->dtype) << ShapeToString(want[i]->shape);
  }
  size_t pos = 0;
  return Unflatten(out_type, outs, pos);
}

Value GraphInterpreter::EvalCallTir(const CallNode* call, Activation& act) {
  TS_ICHECK(call->args.size() == 2 && call->args[0].as<GlobalVarNode>())
      << "call_tir shape checked by type inference";
  const std::string& name = call->args[0].as<GlobalVarNode>()->name;
  BaseFunc f = mod_.Lookup(name);
  const auto* pf = f.as<tir::PrimFuncNode>();
  TS_ICHECK(pf) << "call_tir target checked by type inference";
  std::vector<NDArray> buffers = ValueOf(call->args[1], act, "a call_tir input").Flatten();
  const Type& out_type = call->checked_type();
  if (const AttrValue* ext = pf->attrs.Find(kExternFunctionAttr)) {
    // An extern stub (LowerToTIR of a Compiler function): run the graph function it
    // stands for, the reference for what the backend computes.
    std::vector<Value> args;
    for (const NDArray& b : buffers) args.push_back(Value(b));
    return Evaluate(mod_, ext->AsString(), args);
  }
  std::vector<const TensorTypeNode*> outs;
  FlattenType(out_type, outs);
  std::vector<NDArray> results;
  for (const TensorTypeNode* t : outs) {
    results.push_back(NDArray::Zeros(t->shape, t->dtype));
    buffers.push_back(results.back());
  }
  interp::RunPrimFuncNamed(name, pf, buffers);
  size_t pos = 0;
  return Unflatten(out_type, results, pos);
}

}  // namespace

Value Evaluate(const IRModule& mod, const std::string& func_name, const std::vector<Value>& args) {
  IRModule typed = InferTypes(mod);
  Function fn = typed.LookupFunction(func_name);
  if (args.size() != fn->params.size()) {
    std::string names;
    for (size_t i = 0; i < fn->params.size(); ++i)
      names += (i ? ", " : "") + fn->params[i]->name_hint;
    TS_THROW(kValue) << "@" << func_name << " takes " << fn->params.size() << " input(s) (" << names
                     << ") but " << args.size() << " were given";
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& want = fn->params[i]->type_annotation;
    if (!ValueMatches(args[i], want))
      TS_THROW(kType) << "input '" << fn->params[i]->name_hint << "': expected "
                      << DescribeType(want) << " but got " << DescribeValue(args[i]);
  }
  GraphInterpreter interp(typed);
  return interp.Call(fn.get(), "@" + func_name, args);
}

Value RunMain(const IRModule& mod, const std::map<std::string, NDArray>& inputs) {
  Function main = mod.LookupFunction("main");
  std::string names;
  for (size_t i = 0; i < main->params.size(); ++i)
    names += (i ? ", " : "") + main->params[i]->name_hint;
  for (const auto& [name, array] : inputs) {
    bool known = false;
    for (const Var& p : main->params) known = known || p->name_hint == name;
    if (!known)
      TS_THROW(kValue) << "unknown input '" << name << "' for @main (valid: " << names << ")";
  }
  std::vector<Value> args;
  for (const Var& p : main->params) {
    auto it = inputs.find(p->name_hint);
    if (it == inputs.end())
      TS_THROW(kValue) << "missing input '" << p->name_hint << "' for @main (expected: " << names
                       << ")";
    args.push_back(Value(it->second));
  }
  return Evaluate(mod, "main", args);
}

}  // namespace tessera
