// LowerPrimitive: walks a Primitive function's body in dataflow order (iteratively),
// composes injective ops lazily, and gives every reduction its destination and fused
// elementwise epilogue before emitting it.
#include "tessera/backend/lower/lower_primitive.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "lower_util.h"
#include "tessera/backend/lower/compute.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera::lower {

namespace {

using tir::PrimExpr;

/// A value in the body: a tensor or a flat tuple of tensors.
struct Val {
  std::vector<TensorExpr> fields;
  bool is_tuple = false;
};

/// Body nodes in post-order (operands first), each once, with how often each is used.
struct DataflowOrder {
  std::vector<Expr> nodes;
  std::unordered_map<const ExprNode*, int> uses;
};

std::vector<Expr> Operands(const Expr& e) {
  if (const auto* c = e.as<CallNode>()) {
    std::vector<Expr> ops;
    if (!c->op()) ops.push_back(c->callee);
    ops.insert(ops.end(), c->args.begin(), c->args.end());
    return ops;
  }
  if (const auto* t = e.as<TupleNode>()) return t->fields;
  if (const auto* g = e.as<TupleGetItemNode>()) return {g->tuple};
  if (const auto* l = e.as<LetNode>()) return {l->value, l->body};
  return {};
}

DataflowOrder Order(const Expr& root) {
  DataflowOrder order;
  std::unordered_map<const ExprNode*, bool> done;
  std::vector<std::pair<Expr, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [e, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      if (!done[e.get()]) {
        done[e.get()] = true;
        order.nodes.push_back(e);
      }
      continue;
    }
    if (done.count(e.get())) continue;
    stack.push_back({e, true});
    std::vector<Expr> ops = Operands(e);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it)
      if (!done.count(it->get())) stack.push_back({*it, false});
  }
  for (const Expr& e : order.nodes)
    for (const Expr& o : Operands(e)) ++order.uses[o.get()];
  ++order.uses[root.get()];
  return order;
}

std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "p" + out;
  return out;
}

std::vector<TensorType> FlatTensorTypes(const Type& t, const std::string& what) {
  if (const auto* tt = t.as<TensorTypeNode>()) return {MakeTensorType(tt->shape, tt->dtype)};
  std::vector<TensorType> out;
  if (const auto* tup = t.as<TupleTypeNode>()) {
    for (const Type& f : tup->fields) {
      const auto* ft = f.as<TensorTypeNode>();
      if (!ft) TS_THROW(kUnsupported) << what << ": nested tuple types are not supported";
      out.push_back(MakeTensorType(ft->shape, ft->dtype));
    }
    return out;
  }
  TS_THROW(kUnsupported) << what << ": expected a tensor or a tuple of tensors, got "
                         << TypeToString(t);
}

TensorExpr ScalarConstant(const NDArray& a) {
  PrimExpr v =
      IsFloat(a.dtype()) ? Const(a.GetFloat(0), a.dtype()) : tir::IntImm(a.GetInt(0), a.dtype());
  return Broadcast(v, {});
}

/// Ops inlined into one expression before the chain is written to a scratch buffer.
constexpr int kMaxInlineDepth = 64;
/// Expression nodes of one inlined chain before it is written to a scratch buffer.
constexpr size_t kMaxInlineSize = 400;

bool IsEpilogueKind(const OpDef* def) {
  return def->pattern == OpPatternKind::kElemwise || def->pattern == OpPatternKind::kBroadcast;
}

class PrimitiveLowerer {
 public:
  PrimitiveLowerer(Function func, std::string name)
      : func_(std::move(func)), name_(std::move(name)) {}
  LoweredPrimitive Run();

 private:
  void Visit(const Expr& e);
  void VisitCall(const Expr& e, const CallNode* call);
  std::vector<TensorExpr> ApplyRule(const CallNode* call);
  Val& ValOf(const Expr& e);
  /// Emits the pending reduction headed by `head` into `dest` (new scratch when null).
  void Flush(const ExprNode* head, tir::Buffer dest = {});
  bool LoadsOnlyAtOwnIndex(const TensorExpr& t, const tir::Buffer& stand_in) const;

  Function func_;
  std::string name_;
  LowerContext ctx_;
  DataflowOrder order_;
  std::unordered_map<const ExprNode*, Val> vals_;
  std::unordered_map<const ExprNode*, Expr> let_values_;
  std::unordered_map<const ExprNode*, std::shared_ptr<LowerContext::Pending>> heads_;
  std::vector<tir::Buffer> inputs_;
  std::vector<Constant> constants_;
};

Val& PrimitiveLowerer::ValOf(const Expr& e) {
  auto it = vals_.find(e.get());
  TS_ICHECK(it != vals_.end()) << "LowerPrimitive @" << name_ << ": operand not yet lowered";
  return it->second;
}

bool PrimitiveLowerer::LoadsOnlyAtOwnIndex(const TensorExpr& t, const tir::Buffer& stand_in) const {
  std::vector<tir::Var> vars = MakeVars("e", t.shape.size());
  PrimExpr v = t.at(AsIndices(vars));
  bool ok = true;
  ForEachLoad(v, [&](const tir::BufferLoadNode* load) {
    if (!load->buffer.same_as(stand_in)) return;
    for (size_t d = 0; d < vars.size(); ++d) {
      // A broadcast operand indexes its extent-1 axes with 0, which is the same element.
      const auto* imm = load->indices[d].as<tir::IntImmNode>();
      bool unit = t.shape[d] == 1 && imm && imm->value == 0;
      ok = ok && (load->indices[d].same_as(vars[d]) || unit);
    }
  });
  return ok;
}

void PrimitiveLowerer::Flush(const ExprNode* head, tir::Buffer dest) {
  auto it = heads_.find(head);
  if (it == heads_.end()) return;
  auto pending = it->second;
  heads_.erase(it);
  TensorExpr epilogue = vals_.at(head).fields[0];
  if (!dest.defined()) dest = ctx_.AllocScratch("T", epilogue.shape, epilogue.dtype);
  ctx_.EmitPending(pending, epilogue, dest);
  vals_[head] = Val{{FromBuffer(dest)}, false};
}

std::vector<TensorExpr> PrimitiveLowerer::ApplyRule(const CallNode* call) {
  const OpDef* def = call->op()->def;
  const ComputeRule* rule = ComputeRegistry::Global().Find(def->name);
  if (!rule) TS_THROW(kUnsupported) << "no compute rule for op '" << def->name << "'";
  std::vector<TensorExpr> inputs;
  for (const Expr& a : call->args)
    for (const TensorExpr& t : ValOf(a).fields) inputs.push_back(t);
  return (*rule)(ctx_, inputs, call->attrs, call->checked_type());
}

void PrimitiveLowerer::VisitCall(const Expr& e, const CallNode* call) {
  if (!call->op())
    TS_THROW(kUnsupported) << "LowerPrimitive @" << name_
                           << ": calls of functions inside a Primitive function are not supported";
  const OpDef* def = call->op()->def;
  if (def->name == kCallTirOp)
    TS_THROW(kUnsupported) << "LowerPrimitive @" << name_
                           << ": call_tir inside a Primitive function";
  // Which pending reductions feed this call, and may it become their epilogue?
  std::vector<const ExprNode*> pending_args;
  for (const Expr& a : call->args)
    if (heads_.count(a.get())) pending_args.push_back(a.get());
  const auto* out_t = call->checked_type().as<TensorTypeNode>();
  const ExprNode* candidate = nullptr;
  if (pending_args.size() == 1 && IsEpilogueKind(def) && out_t) {
    const ExprNode* h = pending_args[0];
    const TensorExpr& ht = vals_.at(h).fields[0];
    if (order_.uses[h] == 1 && out_t->shape == ht.shape && out_t->dtype == ht.dtype) candidate = h;
  }
  for (const ExprNode* h : pending_args)
    if (h != candidate) Flush(h);
  std::vector<TensorExpr> results = ApplyRule(call);
  if (candidate) {
    if (results.size() == 1 &&
        LoadsOnlyAtOwnIndex(results[0], LowerContext::StandInOf(heads_.at(candidate)))) {
      heads_[e.get()] = heads_.at(candidate);
      heads_.erase(candidate);
    } else {
      Flush(candidate);
      results = ApplyRule(call);
    }
  }
  auto created = ctx_.TakePending();
  if (!created.empty()) {
    TS_ICHECK(created.size() == 1 && results.size() == 1)
        << "compute rule of '" << def->name << "' left more than its result pending";
    heads_[e.get()] = created[0];
  }
  // Bound inlining: chains too deep (recursion) or too large (operands referenced more
  // than once, as in relu's select, grow the tree geometrically) go to scratch buffers.
  int depth = 0;
  for (const Expr& a : call->args)
    for (const TensorExpr& t : ValOf(a).fields) depth = std::max(depth, t.depth);
  for (TensorExpr& r : results) r.depth = created.empty() ? std::max(r.depth, depth + 1) : 0;
  vals_[e.get()] = Val{std::move(results), call->checked_type().as<TupleTypeNode>() != nullptr};
  Val& v = vals_[e.get()];
  auto too_big = [](const TensorExpr& t) {
    if (t.depth > kMaxInlineDepth) return true;
    if (t.depth == 0) return false;
    PrimExpr probe = t.at(AsIndices(MakeVars("s", t.shape.size())));
    return ExprSize(probe, kMaxInlineSize) > kMaxInlineSize;
  };
  if (heads_.count(e.get())) {
    if (created.empty() && too_big(v.fields[0])) Flush(e.get());
    return;
  }
  for (TensorExpr& r : v.fields)
    if (too_big(r)) r = ctx_.Materialize(r, "T");
}

void PrimitiveLowerer::Visit(const Expr& e) {
  if (const auto* var = e.as<VarNode>()) {
    auto it = let_values_.find(var);
    if (it != let_values_.end()) {
      Flush(it->second.get());  // a let-bound reduction is read through its variable
      vals_[e.get()] = ValOf(it->second);
    }
    TS_ICHECK(vals_.count(e.get()))
        << "LowerPrimitive @" << name_ << ": free variable %" << var->name_hint;
    return;
  }
  if (const auto* c = e.as<ConstantNode>()) {
    if (c->data.ndim() == 0) {
      vals_[e.get()] = Val{{ScalarConstant(c->data)}, false};
    } else {
      tir::Buffer b = tir::MakeBuffer(ctx_.FreshName("c" + std::to_string(constants_.size())),
                                      c->data.shape(), c->data.dtype());
      constants_.push_back(Constant(c));
      inputs_.push_back(b);
      TensorExpr value = FromBuffer(b);
      value.constant = c->data;
      vals_[e.get()] = Val{{value}, false};
    }
    return;
  }
  if (const auto* call = e.as<CallNode>()) return VisitCall(e, call);
  if (const auto* t = e.as<TupleNode>()) {
    Val v;
    v.is_tuple = true;
    bool is_root = e.same_as(func_->body);
    for (const Expr& f : t->fields) {
      if (!is_root) Flush(f.get());
      Val& fv = ValOf(f);
      if (fv.is_tuple) TS_THROW(kUnsupported) << "LowerPrimitive @" << name_ << ": nested tuples";
      v.fields.push_back(fv.fields[0]);
    }
    vals_[e.get()] = std::move(v);
    return;
  }
  if (const auto* g = e.as<TupleGetItemNode>()) {
    Val& tv = ValOf(g->tuple);
    TS_ICHECK(g->index >= 0 && g->index < static_cast<int>(tv.fields.size()))
        << "LowerPrimitive @" << name_ << ": tuple index out of range";
    vals_[e.get()] = Val{{tv.fields[g->index]}, false};
    return;
  }
  if (const auto* l = e.as<LetNode>()) {
    vals_[e.get()] = ValOf(l->body);
    return;
  }
  TS_THROW(kUnsupported) << "LowerPrimitive @" << name_ << ": unsupported expression in the body";
}

LoweredPrimitive PrimitiveLowerer::Run() {
  if (!func_->body->checked_type_or_null().defined()) InferExprType(func_);
  for (const Var& p : func_->params) {
    Type t = p->type_annotation.defined() ? p->type_annotation : p->checked_type();
    std::vector<TensorType> fields = FlatTensorTypes(t, "parameter %" + p->name_hint);
    Val v;
    v.is_tuple = t.as<TupleTypeNode>() != nullptr;
    for (size_t k = 0; k < fields.size(); ++k) {
      std::string bname = Sanitize(p->name_hint) + (v.is_tuple ? "_" + std::to_string(k) : "");
      tir::Buffer b = tir::MakeBuffer(ctx_.FreshName(bname), fields[k]->shape, fields[k]->dtype);
      inputs_.push_back(b);
      v.fields.push_back(FromBuffer(b));
    }
    vals_[p.get()] = std::move(v);
  }
  // Let-bound variables read their value (the walk visits the value first).
  std::vector<Expr> stack{func_->body};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (const auto* l = e.as<LetNode>()) {
      let_values_[l->var.get()] = l->value;
      stack.push_back(l->body);
    }
  }
  order_ = Order(func_->body);
  for (const Expr& e : order_.nodes) Visit(e);

  // Outputs: pending reductions at the root write the output buffers directly.
  const Expr& root = func_->body;
  Type ret = root->checked_type();
  std::vector<TensorType> out_types = FlatTensorTypes(ret, "result");
  std::vector<tir::Buffer> outputs;
  for (size_t k = 0; k < out_types.size(); ++k)
    outputs.push_back(tir::MakeBuffer(
        ctx_.FreshName(out_types.size() == 1 ? "T_out" : "T_out" + std::to_string(k)),
        out_types[k]->shape, out_types[k]->dtype));
  std::vector<Expr> sources(outputs.size());
  Expr body = root;
  while (const auto* l = body.as<LetNode>()) body = l->body;
  if (const auto* t = body.as<TupleNode>())
    for (size_t k = 0; k < t->fields.size() && k < sources.size(); ++k) sources[k] = t->fields[k];
  else if (outputs.size() == 1)
    sources[0] = body;
  std::vector<bool> written(outputs.size(), false);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!sources[k].defined() || !heads_.count(sources[k].get())) continue;
    Flush(sources[k].get(), outputs[k]);
    written[k] = true;
  }
  for (const Expr& e : order_.nodes) Flush(e.get());  // in dataflow order: deterministic
  Val& rv = ValOf(body);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (written[k]) continue;
    TensorExpr value = sources[k].defined() ? ValOf(sources[k]).fields[0] : rv.fields[k];
    ctx_.StoreInto(value, outputs[k], "T_out");
  }
  // Constants the templates computed at compile time are further kernel inputs.
  for (auto& [buffer, data] : ctx_.TakeConstants()) {
    inputs_.push_back(buffer);
    constants_.push_back(MakeConstant(std::move(data)));
  }
  tir::Stmt body_stmt = ctx_.Finish();
  // Constants nothing reads any more (a conv weight replaced by its packed copy) are
  // dropped, so the executable does not carry them twice.
  std::unordered_set<const tir::BufferNode*> read = ReadBuffers(body_stmt);
  size_t first_constant = inputs_.size() - constants_.size();
  std::vector<tir::Buffer> kept_inputs(inputs_.begin(), inputs_.begin() + first_constant);
  std::vector<Constant> kept_constants;
  for (size_t c = 0; c < constants_.size(); ++c)
    if (read.count(inputs_[first_constant + c].get())) {
      kept_inputs.push_back(inputs_[first_constant + c]);
      kept_constants.push_back(constants_[c]);
    }
  inputs_ = std::move(kept_inputs);
  constants_ = std::move(kept_constants);
  std::vector<tir::Buffer> params = inputs_;
  params.insert(params.end(), outputs.begin(), outputs.end());
  Attrs attrs;
  attrs.Set(attr::kGlobalSymbol, name_);
  // Destination passing gives every kernel call distinct buffers (the executor's memory
  // plan never lets an output share an input's storage): the code generator may assume
  // no aliasing, which keeps reduction accumulators in registers.
  attrs.Set("tir.noalias", true);
  LoweredPrimitive result;
  result.func = tir::MakePrimFunc(params, static_cast<int>(outputs.size()), body_stmt, attrs);
  result.constants = constants_;
  return result;
}

}  // namespace

LoweredPrimitive LowerPrimitiveWithConstants(const Function& func, const std::string& name) {
  if (!func.defined()) TS_THROW(kValue) << "LowerPrimitive: null function";
  return PrimitiveLowerer(func, name).Run();
}

tir::PrimFunc LowerPrimitive(const Function& func, const std::string& name) {
  LoweredPrimitive lowered = LowerPrimitiveWithConstants(func, name);
  if (!lowered.constants.empty())
    TS_THROW(kValue) << "LowerPrimitive @" << name << ": the body holds "
                     << lowered.constants.size()
                     << " non-scalar constant(s); use LowerPrimitiveWithConstants";
  return lowered.func;
}

std::string KernelName(const Function& func) {
  std::string name = "fused";
  size_t ops = 0;
  for (const Expr& e : Order(func->body).nodes) {
    const auto* call = e.as<CallNode>();
    if (!call || !call->op()) continue;
    if (++ops > 6) {  // keep names readable for long fused chains
      name += "_etc";
      break;
    }
    name += "_" + Sanitize(call->op()->name);
  }
  return name;
}

}  // namespace tessera::lower
