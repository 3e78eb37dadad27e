// LowerToTIR: rewrites graph functions so they only call PrimFuncs (call_tir), lowering
// each distinct Primitive function (or lone op call) once.
#include "tessera/backend/lower/lower_to_tir.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "schedule_dense.h"
#include "tessera/backend/lower/lower_primitive.h"
#include "tessera/backend/lower/schedule_default.h"
#include "tessera/ir/infer_type.h"
#include "tessera/ir/op.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

bool IsLowerablePrimitive(const FunctionNode* fn) {
  return fn && GetIntAttr(fn, attr::kPrimitive) != 0 && !fn->attrs.Has(attr::kCompiler);
}

/// Appends the tensor types of `t` (tuples flattened, in order) to `out`.
void FlattenTensorTypes(const Type& t, std::vector<const TensorTypeNode*>& out,
                        const std::string& what) {
  if (const auto* tt = t.as<TensorTypeNode>()) {
    out.push_back(tt);
  } else if (const auto* tup = t.as<TupleTypeNode>()) {
    for (const Type& f : tup->fields) FlattenTensorTypes(f, out, what);
  } else {
    TS_THROW(kUnsupported) << what << " must be tensors or tuples of tensors, got "
                           << (t.defined() ? TypeToString(t) : "<no type>");
  }
}

/// A lowered call site's function: the PrimFunc it calls and the constants it passes.
struct Kernel {
  Function func;
  size_t hash;
  std::string name;
  std::vector<Constant> constants;
};

/// A distinct PrimFunc, as lowered under its base name (so the symbol does not stop two
/// equal bodies from comparing equal), and the unique symbol it was emitted under.
struct SharedPrimFunc {
  tir::PrimFunc canonical;
  size_t hash;
  std::string name;
};

class ModuleLowerer {
 public:
  explicit ModuleLowerer(IRModule mod) : mod_(std::move(mod)) {
    for (const auto& [name, f] : mod_.functions()) names_.insert(name);
  }

  IRModule Run();

 private:
  Expr RewriteBody(const Expr& body);
  std::vector<Expr> Children(const Expr& e) const;
  Expr RewriteNode(const Expr& e, const std::unordered_map<const ExprNode*, Expr>& memo);
  /// call_tir of the PrimFunc for `prim` on `args` (already rewritten).
  Expr LowerCall(const Function& prim, const std::vector<Expr>& args, const Type& out_type);
  /// call_tir of the extern stub standing for the Compiler function @name on `args`.
  Expr LowerExternCall(const std::string& name, const FunctionNode* fn,
                       const std::vector<Expr>& args, const Type& out_type);
  /// The global Compiler function `call` calls, or nullptr; sets `name` to its name.
  const FunctionNode* CompilerCallee(const CallNode* call, std::string* name) const;
  const FunctionNode* PrimitiveCallee(const CallNode* call) const;
  std::string UniqueName(const std::string& base);

  IRModule mod_;
  std::unordered_set<std::string> names_;
  std::vector<Kernel> kernels_;
  std::vector<SharedPrimFunc> shared_;
  std::vector<std::pair<std::string, tir::PrimFunc>> prim_funcs_;
  std::unordered_map<const ExprNode*, Expr> let_functions_;
  std::unordered_map<std::string, std::string> extern_stubs_;  // Compiler fn -> stub name
};

const FunctionNode* ModuleLowerer::CompilerCallee(const CallNode* call, std::string* name) const {
  if (const auto* gv = call->callee.as<GlobalVarNode>()) {
    BaseFunc f = mod_.Find(gv->name);
    const auto* fn = f.defined() ? f.as<FunctionNode>() : nullptr;
    if (!fn || !fn->attrs.Has(attr::kCompiler)) return nullptr;
    *name = gv->name;
    return fn;
  }
  // Local Compiler functions (not what PartitionGraph makes) are left as they are.
  return nullptr;
}

// A parameter's type: its annotation, else what type inference found. (Arguments that
// were already lowered carry no checked type, so the callee's side is the one to read.)
Type ParamType(const Var& p) {
  return p->type_annotation.defined() ? p->type_annotation : p->checked_type();
}

Expr ModuleLowerer::LowerExternCall(const std::string& name, const FunctionNode* fn,
                                    const std::vector<Expr>& args, const Type& out_type) {
  auto it = extern_stubs_.find(name);
  if (it == extern_stubs_.end()) {
    // A body-less PrimFunc: its buffers give call_tir and the executor the kernel's
    // signature; the backend named by `Compiler` supplies the code at build time.
    std::vector<const TensorTypeNode*> ins, outs;
    for (const Var& p : fn->params)
      FlattenTensorTypes(ParamType(p), ins, "parameters of Compiler function @" + name);
    FlattenTensorTypes(out_type, outs, "results of Compiler function @" + name);
    std::vector<tir::Buffer> buffers;
    for (size_t i = 0; i < ins.size(); ++i)
      buffers.push_back(tir::MakeBuffer("in" + std::to_string(i), ins[i]->shape, ins[i]->dtype));
    for (size_t i = 0; i < outs.size(); ++i)
      buffers.push_back(tir::MakeBuffer("out" + std::to_string(i), outs[i]->shape, outs[i]->dtype));
    const AttrValue* sym = fn->attrs.Find(attr::kGlobalSymbol);
    Attrs attrs;
    attrs.Set(attr::kGlobalSymbol, AttrValue(sym && sym->is_string() ? sym->AsString() : name));
    attrs.Set(attr::kCompiler, *fn->attrs.Find(attr::kCompiler));
    attrs.Set(kExternFunctionAttr, AttrValue(name));
    std::string stub = UniqueName(name + "_extern");
    prim_funcs_.emplace_back(
        stub, tir::MakePrimFunc(std::move(buffers), static_cast<int>(outs.size()), tir::MakeSeq({}),
                                std::move(attrs)));
    it = extern_stubs_.emplace(name, stub).first;
  }
  std::vector<Expr> flat;
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto* tup = args[i].as<TupleNode>()) {
      flat.insert(flat.end(), tup->fields.begin(), tup->fields.end());
    } else if (const auto* tt = ParamType(fn->params[i]).as<TupleTypeNode>()) {
      for (size_t k = 0; k < tt->fields.size(); ++k)
        flat.push_back(MakeTupleGetItem(args[i], static_cast<int>(k)));
    } else {
      flat.push_back(args[i]);
    }
  }
  return MakeOpCall(kCallTirOp, {MakeGlobalVar(it->second), MakeTuple(flat)}, {}, {out_type});
}

std::string ModuleLowerer::UniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

const FunctionNode* ModuleLowerer::PrimitiveCallee(const CallNode* call) const {
  if (const auto* fn = call->callee.as<FunctionNode>())
    return IsLowerablePrimitive(fn) ? fn : nullptr;
  if (const auto* gv = call->callee.as<GlobalVarNode>()) {
    BaseFunc f = mod_.Find(gv->name);
    const auto* fn = f.defined() ? f.as<FunctionNode>() : nullptr;
    return IsLowerablePrimitive(fn) ? fn : nullptr;
  }
  if (call->callee.as<VarNode>()) {
    auto it = let_functions_.find(call->callee.get());
    if (it != let_functions_.end()) return it->second.as<FunctionNode>();
  }
  return nullptr;
}

std::vector<Expr> ModuleLowerer::Children(const Expr& e) const {
  if (const auto* fn = e.as<FunctionNode>()) {
    // Kernels are lowered whole at their call sites; backend functions stay as they are.
    bool kernel = GetIntAttr(fn, attr::kPrimitive) != 0 || fn->attrs.Has(attr::kCompiler);
    return kernel ? std::vector<Expr>{} : ExprChildren(e);
  }
  if (const auto* l = e.as<LetNode>()) {
    if (IsLowerablePrimitive(l->value.as<FunctionNode>())) return {l->body};
    return ExprChildren(e);
  }
  if (const auto* c = e.as<CallNode>()) {
    std::string name;
    if (PrimitiveCallee(c) || c->op() || CompilerCallee(c, &name)) return c->args;
  }
  return ExprChildren(e);
}

/// `prim` with every constant argument that is the weight of a conv2d, a dense or a matmul bound
/// into its body, and the arguments left. The op's template then packs those weights once
/// at compile time instead of on every call; the packed copy is a constant buffer of the
/// PrimFunc, so layers of one shape still share it (LowerCall compares PrimFuncs).
std::pair<Function, std::vector<Expr>> BindConstantWeights(const Function& prim,
                                                           const std::vector<Expr>& args) {
  std::unordered_set<const VarNode*> weights;
  PostOrderVisit(prim->body, [&](const Expr& e) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op() || call->args.size() < 2) return;
    const std::string& op = call->op()->name;
    // Only the conv2d and GEMM templates pack constant weights; binding others would just
    // stop layers of one shape from sharing a kernel.
    bool packs = op == "nn.conv2d";
    if (op == "nn.dense" || op == "nn.matmul") {
      // The GEMM template packs float32 weights wherever it runs its blocked nest: from
      // kGemmPackRows rows on, and for a matmul also whenever its weights are [k, n] or its
      // left operand is transposed (fewer rows of a k-contiguous product take dot
      // products that read [n, k] weights as they are).
      const auto* t = e->checked_type_or_null().as<TensorTypeNode>();
      int64_t rows = 1;
      if (t)
        for (size_t d = 0; d + 1 < t->shape.size(); ++d) rows *= t->shape[d];
      bool blocked = rows >= lower::kGemmPackRows;
      if (op == "nn.matmul")
        blocked = blocked || !call->attrs.GetBool("transpose_b") ||
                  call->attrs.GetBool("transpose_a");
      packs = t && t->dtype == DType::kFloat32 && blocked;
    }
    if (packs)
      if (const auto* v = call->args[1].as<VarNode>()) weights.insert(v);
  });
  std::unordered_map<const VarNode*, Expr> bind;
  std::vector<Var> params;
  std::vector<Expr> kept;
  for (size_t i = 0; i < prim->params.size() && i < args.size(); ++i) {
    const auto* c = args[i].as<ConstantNode>();
    if (c && c->data.ndim() > 0 && weights.count(prim->params[i].get())) {
      bind[prim->params[i].get()] = args[i];
    } else {
      params.push_back(prim->params[i]);
      kept.push_back(args[i]);
    }
  }
  if (bind.empty()) return {prim, args};
  return {
      MakeFunction(std::move(params), Substitute(prim->body, bind), prim->ret_type, prim->attrs),
      std::move(kept)};
}

/// The axis (from 0) along which `prim` only concatenates its parameters, in order; -1 when
/// it computes anything else.
int64_t PureConcatAxis(const Function& prim) {
  const auto* call = prim->body.as<CallNode>();
  const OpNode* op = call ? call->op() : nullptr;
  const auto* out = prim->body->checked_type_or_null().as<TensorTypeNode>();
  if (!op || op->name != "concatenate" || call->args.size() != 1 || !out) return -1;
  std::vector<const ExprNode*> fields, params;
  if (const auto* t = call->args[0].as<TupleNode>()) {
    for (const Expr& f : t->fields) fields.push_back(f.get());
  } else {
    fields.push_back(call->args[0].get());
  }
  for (const Var& p : prim->params) params.push_back(p.get());
  if (fields != params) return -1;
  int64_t axis = call->attrs.GetInt("axis"), ndim = static_cast<int64_t>(out->shape.size());
  if (axis < 0) axis += ndim;
  return axis >= 0 && axis < ndim ? axis : -1;
}

Expr ModuleLowerer::LowerCall(const Function& original, const std::vector<Expr>& original_args,
                              const Type& out_type) {
  auto [prim, args] = BindConstantWeights(original, original_args);
  size_t hash = StructuralHash(Expr(prim));
  const Kernel* kernel = nullptr;
  for (const Kernel& k : kernels_)
    if (k.hash == hash && StructuralEqual(Expr(k.func), Expr(prim), true)) kernel = &k;
  if (!kernel) {
    // Layers of one shape lower to one PrimFunc: their weights (packed at compile time)
    // are constants passed as buffers, so the kernel is compiled once and each call site
    // passes its own constants.
    std::string base = lower::KernelName(prim);
    lower::LoweredPrimitive lowered = lower::LowerPrimitiveWithConstants(prim, base);
    tir::PrimFunc func = lower::ScheduleDefault(lowered.func);
    if (int64_t axis = PureConcatAxis(prim); axis >= 0) {
      Attrs attrs = func->attrs;
      attrs.Set(attr::kConcatAxis, AttrValue(axis));
      func = tir::MakePrimFunc(func->params, func->num_outputs, func->body, attrs);
    }
    size_t func_hash = StructuralHash(Expr(func));
    const SharedPrimFunc* shared = nullptr;
    for (const SharedPrimFunc& s : shared_)
      if (s.hash == func_hash && StructuralEqual(Expr(s.canonical), Expr(func))) shared = &s;
    if (!shared) {
      std::string name = UniqueName(base);
      tir::PrimFunc named = func;
      if (name != base) {
        Attrs attrs = func->attrs;
        attrs.Set(attr::kGlobalSymbol, name);
        named = tir::MakePrimFunc(func->params, func->num_outputs, func->body, attrs);
      }
      prim_funcs_.emplace_back(name, named);
      shared_.push_back({func, func_hash, name});
      shared = &shared_.back();
    }
    kernels_.push_back({prim, hash, shared->name, lowered.constants});
    kernel = &kernels_.back();
  }
  std::vector<Expr> flat;
  for (size_t i = 0; i < prim->params.size(); ++i) {
    const Var& p = prim->params[i];
    Type t = p->type_annotation.defined() ? p->type_annotation : p->checked_type();
    if (const auto* tt = t.as<TupleTypeNode>()) {
      if (const auto* tup = args[i].as<TupleNode>()) {
        flat.insert(flat.end(), tup->fields.begin(), tup->fields.end());
      } else {
        for (size_t k = 0; k < tt->fields.size(); ++k)
          flat.push_back(MakeTupleGetItem(args[i], static_cast<int>(k)));
      }
    } else {
      flat.push_back(args[i]);
    }
  }
  for (const Constant& c : kernel->constants) flat.push_back(c);
  return MakeOpCall(kCallTirOp, {MakeGlobalVar(kernel->name), MakeTuple(flat)}, {}, {out_type});
}

Expr ModuleLowerer::RewriteNode(const Expr& e,
                                const std::unordered_map<const ExprNode*, Expr>& memo) {
  auto mapped = [&](const Expr& x) {
    auto it = memo.find(x.get());
    return it == memo.end() ? x : it->second;
  };
  if (const auto* l = e.as<LetNode>()) {
    if (IsLowerablePrimitive(l->value.as<FunctionNode>())) return mapped(l->body);
  }
  if (const auto* c = e.as<CallNode>()) {
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(mapped(a));
    if (const FunctionNode* fn = PrimitiveCallee(c))
      return LowerCall(Function(fn), args, c->checked_type());
    std::string extern_name;
    if (const FunctionNode* fn = CompilerCallee(c, &extern_name)) {
      // Passes that rebuild the caller (FuseOps around an offloaded call) may leave the
      // call untyped; the partition's declared result type is the same type.
      Type out = c->checked_type_or_null();
      if (!out.defined()) out = fn->ret_type.defined() ? fn->ret_type : fn->body->checked_type();
      return LowerExternCall(extern_name, fn, args, out);
    }
    if (c->op() && c->op()->name != kCallTirOp) {
      // A lone op: lowered as a one-op Primitive function.
      std::vector<Var> params;
      std::vector<Expr> pargs;
      for (size_t i = 0; i < c->args.size(); ++i) {
        Var p = MakeVar("p" + std::to_string(i), c->args[i]->checked_type());
        params.push_back(p);
        pargs.push_back(p);
      }
      Function prim = MakeFunction(params, MakeCall(c->callee, pargs, c->attrs, c->type_args),
                                   c->checked_type(), Attrs{{attr::kPrimitive, int64_t{1}}});
      InferExprType(prim);
      return LowerCall(prim, args, c->checked_type());
    }
    if (c->op()) return MakeCall(c->callee, args, c->attrs, c->type_args);
  }
  if (Children(e).empty()) return e;
  std::vector<Expr> kids = ExprChildren(e);
  for (Expr& k : kids) k = mapped(k);
  return WithChildren(e, kids);
}

Expr ModuleLowerer::RewriteBody(const Expr& body) {
  std::unordered_map<const ExprNode*, Expr> memo;
  std::unordered_set<const ExprNode*> done;
  std::vector<std::pair<Expr, bool>> stack{{body, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (done.count(e.get())) continue;
    if (expanded) {
      memo[e.get()] = RewriteNode(e, memo);
      done.insert(e.get());
      continue;
    }
    if (const auto* l = e.as<LetNode>())
      if (IsLowerablePrimitive(l->value.as<FunctionNode>()))
        let_functions_[l->var.get()] = l->value;
    stack.push_back({e, true});
    std::vector<Expr> kids = Children(e);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      if (!done.count(it->get())) stack.push_back({*it, false});
  }
  return memo.at(body.get());
}

IRModule ModuleLowerer::Run() {
  IRModule out = mod_;
  for (const auto& [name, base] : mod_.functions()) {
    const auto* fn = base.as<FunctionNode>();
    if (!fn || GetIntAttr(fn, attr::kPrimitive) != 0 || fn->attrs.Has(attr::kCompiler)) continue;
    Expr body = RewriteBody(fn->body);
    if (body.same_as(fn->body)) continue;
    out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
  }
  for (const auto& [name, pf] : prim_funcs_) out = out.WithFunction(name, pf);
  // Drop Primitive functions nothing references any more.
  std::unordered_set<std::string> referenced;
  for (const auto& [name, base] : out.functions())
    if (const auto* fn = base.as<FunctionNode>())
      PostOrderVisit(fn->body, [&](const Expr& x) {
        if (const auto* gv = x.as<GlobalVarNode>()) referenced.insert(gv->name);
      });
  for (const auto& [name, base] : mod_.functions())
    if (IsLowerablePrimitive(base.as<FunctionNode>()) && !referenced.count(name))
      out = out.WithoutFunction(name);
  return InferTypes(out);
}

}  // namespace

IRModule LowerModuleToTIR(const IRModule& mod) {
  return ModuleLowerer(InferTypes(mod)).Run();
}

Pass LowerToTIR() {
  return CreateModulePass([](IRModule mod, const PassContext&) { return LowerModuleToTIR(mod); },
                          PassInfo{"LowerToTIR", 0, {}});
}

void AppendLoweringPasses(std::vector<PassRegistration>& passes) {
  passes.push_back({"LowerToTIR",
                    "lower Primitive functions and lone op calls to scheduled PrimFuncs "
                    "called through call_tir",
                    {},
                    [](const Attrs&) { return LowerToTIR(); }});
}

}  // namespace tessera
