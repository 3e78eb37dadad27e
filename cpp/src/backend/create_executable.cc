// CreateExecutable: a lowered @main flattened into the runtime's Program (kernel calls in
// dataflow order over tensor slots).
#include <unordered_map>

#include "tessera/backend/build.h"
#include "tessera/ir/tir.h"
#include "tessera/support/error.h"
#include "tessera/target/backend_registry.h"
#include "tessera/ir/infer_type.h"

namespace tessera {

using runtime::Instruction;
using runtime::Slot;
using runtime::SlotKind;

namespace {

/// The value of one expression: a tensor slot or a tuple of layouts.
struct Layout {
  int slot = -1;
  std::vector<Layout> fields;
};

void Flatten(const Layout& layout, std::vector<int>& out) {
  // Explicit stack: tuples may nest deeply.
  std::vector<const Layout*> stack{&layout};
  while (!stack.empty()) {
    const Layout* l = stack.back();
    stack.pop_back();
    if (l->slot >= 0) {
      out.push_back(l->slot);
      continue;
    }
    for (auto it = l->fields.rbegin(); it != l->fields.rend(); ++it) stack.push_back(&*it);
  }
}

std::string Describe(const Expr& e) {
  if (const auto* call = e.as<CallNode>()) {
    if (const OpNode* op = call->op()) return "a call of op '" + op->name + "'";
    if (const auto* gv = call->callee.as<GlobalVarNode>())
      return "a call of @" + gv->name + " (only call_tir calls are supported)";
    return "a call of a local function";
  }
  if (e.as<LetNode>()) return "a let binding";
  if (e.as<FunctionNode>()) return "a nested function";
  if (const auto* gv = e.as<GlobalVarNode>()) return "a reference to @" + gv->name;
  if (e.as<OpNode>()) return "an op used as a value";
  return "this expression";
}

class Builder {
 public:
  Builder(const Function& main, const std::map<std::string, std::string>& symbol_of,
          const std::map<std::string, int64_t>& concat_axis_of)
      : main_(main), symbol_of_(symbol_of), concat_axis_of_(concat_axis_of) {}

  std::vector<Slot> slots;
  std::vector<Instruction> program;
  /// Per call: the axis its kernel only concatenates along (attr::kConcatAxis), else -1.
  std::vector<int64_t> concat_axis;
  std::vector<NDArray> constants;
  std::vector<int> outputs;
  int num_output_buffers = 0;

  void Run() {
    for (size_t i = 0; i < main_->params.size(); ++i) {
      const Var& p = main_->params[i];
      const auto* tt = p->type_annotation.as<TensorTypeNode>();
      if (!tt)
        TS_THROW(kUnsupported) << "executor: parameter %" << p->name_hint
                               << " of @main must be a tensor";
      params_[p.get()] = static_cast<int>(i);
      int s = NewSlot(SlotKind::kInput, tt->shape, tt->dtype);
      slots[s].index = static_cast<int>(i);
      layouts_[p.get()] = Layout{s, {}};
    }
    Visit(main_->body);
    Flatten(layouts_.at(main_->body.get()), outputs);
    // Kernel results that leave @main get fresh arrays per run, not arena storage.
    for (int s : outputs)
      if (slots[s].kind == SlotKind::kIntermediate) {
        slots[s].kind = SlotKind::kOutput;
        slots[s].index = num_output_buffers++;
      }
  }

 private:
  int NewSlot(SlotKind kind, const std::vector<int64_t>& shape, DType dtype) {
    Slot s;
    s.kind = kind;
    s.shape = shape;
    s.dtype = dtype;
    s.bytes = static_cast<size_t>(ShapeNumElements(shape)) * DTypeBytes(dtype);
    slots.push_back(std::move(s));
    return static_cast<int>(slots.size() - 1);
  }

  std::vector<Expr> Children(const Expr& e) {
    if (const auto* call = e.as<CallNode>()) {
      CheckCallTir(call);
      return {call->args[1]};
    }
    if (const auto* t = e.as<TupleNode>()) return t->fields;
    if (const auto* g = e.as<TupleGetItemNode>()) return {g->tuple};
    if (const auto* v = e.as<VarNode>()) {
      if (!params_.count(v))
        TS_THROW(kUnsupported) << "executor: variable %" << v->name_hint
                               << " is not a parameter of @main (let bindings are not supported)";
      return {};
    }
    if (e.as<ConstantNode>()) return {};
    TS_THROW(kUnsupported) << "executor: @main contains " << Describe(e)
                           << "; a lowered @main may only hold params, constants, call_tir, "
                              "tuples and tuple projections";
  }

  void CheckCallTir(const CallNode* call) {
    const OpNode* op = call->op();
    if (!op || op->name != "call_tir")
      TS_THROW(kUnsupported) << "executor: @main contains " << Describe(Expr(call))
                             << "; a lowered @main may only call kernels with call_tir";
    if (call->args.size() != 2 || !call->args[0].as<GlobalVarNode>() ||
        call->type_args.size() != 1 || !call->type_args[0].defined())
      TS_THROW(kType) << "executor: call_tir needs (@func, (args...), out_type)";
  }

  void Visit(const Expr& root) {
    std::vector<std::pair<Expr, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [e, expanded] = stack.back();
      stack.pop_back();
      if (layouts_.count(e.get())) continue;
      if (!expanded) {
        stack.push_back({e, true});
        std::vector<Expr> kids = Children(e);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
          if (!layouts_.count(it->get())) stack.push_back({*it, false});
        continue;
      }
      layouts_[e.get()] = Make(e);
    }
  }

  Layout Make(const Expr& e) {
    if (const auto* c = e.as<ConstantNode>()) {
      int s = NewSlot(SlotKind::kConstant, c->data.shape(), c->data.dtype());
      slots[s].index = static_cast<int>(constants.size());
      constants.push_back(c->data);
      return Layout{s, {}};
    }
    if (const auto* t = e.as<TupleNode>()) {
      Layout l;
      for (const Expr& f : t->fields) l.fields.push_back(layouts_.at(f.get()));
      return l;
    }
    if (const auto* g = e.as<TupleGetItemNode>()) {
      const Layout& t = layouts_.at(g->tuple.get());
      if (t.slot >= 0 || g->index < 0 || g->index >= static_cast<int>(t.fields.size()))
        TS_THROW(kType) << "executor: tuple index " << g->index << " is out of range";
      return t.fields[g->index];
    }
    const auto* call = e.as<CallNode>();
    TS_ICHECK(call) << "unexpected node";
    const std::string& name = call->args[0].as<GlobalVarNode>()->name;
    auto sym = symbol_of_.find(name);
    if (sym == symbol_of_.end())
      TS_THROW(kType) << "executor: call_tir target @" << name
                      << " is not a PrimFunc of the module";
    Instruction ins;
    ins.symbol = sym->second;
    Flatten(layouts_.at(call->args[1].get()), ins.args);
    const Type& out = call->type_args[0];
    std::vector<Type> outs;
    if (const auto* tt = out.as<TupleTypeNode>())
      outs = tt->fields;
    else
      outs = {out};
    Layout result;
    for (const Type& t : outs) {
      const auto* tt = t.as<TensorTypeNode>();
      if (!tt) TS_THROW(kUnsupported) << "executor: call_tir @" << name << " has a nested out_type";
      int s = NewSlot(SlotKind::kIntermediate, tt->shape, tt->dtype);
      ins.args.push_back(s);
      result.fields.push_back(Layout{s, {}});
    }
    ins.num_outputs = static_cast<int>(outs.size());
    program.push_back(std::move(ins));
    auto axis = concat_axis_of_.find(name);
    concat_axis.push_back(axis == concat_axis_of_.end() ? -1 : axis->second);
    if (!out.as<TupleTypeNode>()) return result.fields[0];
    return result;
  }

  const Function& main_;
  const std::map<std::string, std::string>& symbol_of_;
  const std::map<std::string, int64_t>& concat_axis_of_;
  std::unordered_map<const VarNode*, int> params_;
  std::unordered_map<const ExprNode*, Layout> layouts_;
};

/// Concatenations that need not run: when a call only concatenates, along an axis with
/// nothing but extent-1 axes before it, intermediates that no other call reads, each input
/// is a contiguous part of the output. Its producers then write their results in place
/// (Slot::view_of) and the call is dropped: SqueezeNet's fire modules copied 5% of the
/// network's time, and on two threads each thread read the half of its input the other wrote.
void PlaceConcatInputsInPlace(std::vector<Slot>& slots, std::vector<Instruction>& program,
                              const std::vector<int64_t>& concat_axis) {
  std::vector<int> reads(slots.size(), 0);
  for (const Instruction& ins : program)
    for (size_t a = 0; a + ins.num_outputs < ins.args.size(); ++a) reads[ins.args[a]] += 1;
  auto free_intermediate = [&](int s) {
    return slots[s].kind == SlotKind::kIntermediate && slots[s].view_of < 0;
  };
  std::vector<bool> is_whole(slots.size(), false), drop(program.size(), false);
  for (size_t k = 0; k < program.size(); ++k) {
    const Instruction& ins = program[k];
    if (concat_axis[k] < 0 || ins.num_outputs != 1) continue;
    int out = ins.args.back();
    const Slot& whole = slots[out];
    bool ok = free_intermediate(out) && !is_whole[out] && ins.args.size() >= 2;
    for (int64_t d = 0; ok && d < concat_axis[k] && d < int64_t(whole.shape.size()); ++d)
      ok = whole.shape[d] == 1;
    // The inputs' shapes must join into the output's (the attr promises the kernel's body;
    // the slots are checked here too).
    size_t offset = 0;
    int64_t joined = 0;
    const size_t axis = static_cast<size_t>(concat_axis[k]);
    std::vector<size_t> offsets;
    for (size_t a = 0; ok && a + 1 < ins.args.size(); ++a) {
      const Slot& in = slots[ins.args[a]];
      ok = free_intermediate(ins.args[a]) && !is_whole[ins.args[a]] && reads[ins.args[a]] == 1 &&
           in.dtype == whole.dtype && offset % 64 == 0 && in.shape.size() == whole.shape.size() &&
           axis < in.shape.size();
      for (size_t d = 0; ok && d < in.shape.size(); ++d)
        ok = d == axis || in.shape[d] == whole.shape[d];
      if (!ok) break;
      joined += in.shape[axis];
      offsets.push_back(offset);
      offset += in.bytes;
    }
    if (!ok || joined != whole.shape[axis] || offset != whole.bytes) continue;
    for (size_t a = 0; a + 1 < ins.args.size(); ++a) {
      slots[ins.args[a]].view_of = out;
      slots[ins.args[a]].view_offset = offsets[a];
    }
    is_whole[out] = true;
    drop[k] = true;
  }
  std::vector<Instruction> kept;
  for (size_t k = 0; k < program.size(); ++k)
    if (!drop[k]) kept.push_back(std::move(program[k]));
  program = std::move(kept);
}

}  // namespace

std::shared_ptr<runtime::Executable> CreateExecutable(const IRModule& lowered,
                                                      runtime::Module kernels) {
  if (!kernels) TS_THROW(kValue) << "executor: no runtime module with the kernels";
  Function main = lowered.LookupFunction("main");
  // Checks every call_tir against its PrimFunc before the program trusts the shapes.
  InferTypes(lowered);
  std::map<std::string, std::string> symbol_of;
  std::map<std::string, int64_t> concat_axis_of;
  for (const auto& [name, func] : lowered.functions())
    if (const auto* pf = func.as<tir::PrimFuncNode>()) {
      symbol_of[name] = GlobalSymbolOf(name, func.get());
      if (const AttrValue* axis = pf->attrs.Find(attr::kConcatAxis); axis && axis->is_int())
        concat_axis_of[name] = axis->AsInt();
    }
  Builder b(main, symbol_of, concat_axis_of);
  b.Run();
  PlaceConcatInputsInPlace(b.slots, b.program, b.concat_axis);
  runtime::Program program;
  for (const Var& p : main->params) program.input_names.push_back(p->name_hint);
  program.slots = std::move(b.slots);
  program.instructions = std::move(b.program);
  program.constants = std::move(b.constants);
  program.output_slots = std::move(b.outputs);
  Type ret = main->ret_type.defined() ? main->ret_type : main->body->checked_type_or_null();
  program.returns_tuple = ret.defined() && ret.as<TupleTypeNode>() != nullptr;
  return runtime::Executable::Create(std::move(program), std::move(kernels));
}

runtime::ExecutorOptions ExecutorOptionsFor(const Target& target) {
  runtime::ExecutorOptions options;
  if (target.HasAttr("num_threads"))
    options.num_threads = static_cast<int>(target.GetInt("num_threads"));
  return options;
}

}  // namespace tessera
