// The IR Collage hands estimators and emits: a candidate as a one-kernel module, and
// inline Compiler functions outlined into shared globals with their constants inside.
#include <unordered_map>

#include "tessera/collage/collage_partition.h"
#include "tessera/collage/sub_graph.h"
#include "tessera/ir/structural_equal.h"
#include "tessera/ir/visitor.h"
#include "tessera/support/error.h"
#include "tessera/ir/infer_type.h"

namespace tessera::collage {

namespace {

bool IsTensorConstant(const Expr& e) {
  const auto* c = e.as<ConstantNode>();
  return c && c->data.ndim() > 0;
}

/// `fn` with the parameters whose arguments are tensor constants bound to them, and the
/// arguments left.
std::pair<Function, std::vector<Expr>> BindConstantArgs(const Function& fn,
                                                        const std::vector<Expr>& args) {
  std::unordered_map<const VarNode*, Expr> bind;
  std::vector<Var> params;
  std::vector<Expr> kept;
  for (size_t i = 0; i < fn->params.size() && i < args.size(); ++i) {
    if (IsTensorConstant(args[i])) {
      bind[fn->params[i].get()] = args[i];
    } else {
      params.push_back(fn->params[i]);
      kept.push_back(args[i]);
    }
  }
  if (bind.empty()) return {fn, args};
  return {MakeFunction(std::move(params), Substitute(fn->body, bind), fn->ret_type, fn->attrs),
          std::move(kept)};
}

class Outliner : public ExprMutator {
 public:
  Outliner(IRModule& mod, NameSupply& names, std::vector<std::pair<Function, std::string>>& globals,
           std::map<std::string, std::string>* renamed)
      : mod_(mod), names_(names), globals_(globals), renamed_(renamed) {}

 protected:
  bool SkipChildren(const Expr& expr) override { return expr.as<FunctionNode>() != nullptr; }

  Expr Rewrite(const Expr& original, const Expr& rebuilt) override {
    const auto* call = rebuilt.as<CallNode>();
    const auto* fn = call ? call->callee.as<FunctionNode>() : nullptr;
    if (!fn || !fn->attrs.Has(attr::kCompiler)) return rebuilt;
    auto [bound, args] = BindConstantArgs(Function(fn), call->args);
    const AttrValue* requested = bound->attrs.Find(attr::kGlobalSymbol);
    std::string wanted = requested && requested->is_string() ? requested->AsString() : "";
    Attrs attrs = bound->attrs;
    attrs.Erase(attr::kGlobalSymbol);
    Function key = MakeFunction(bound->params, bound->body, bound->ret_type, attrs);
    std::string name;
    for (const auto& [f, n] : globals_)
      if (StructuralEqual(Expr(f), Expr(key))) name = n;
    if (name.empty()) {
      name = wanted;
      if (name.empty() || mod_.Contains(name))
        name = names_.Fresh({attrs.Get(attr::kCompiler).AsString()});
      attrs.Set(attr::kPrimitive, AttrValue(int64_t{1}));
      attrs.Set(attr::kGlobalSymbol, AttrValue(name));
      mod_ = mod_.WithFunction(name, MakeFunction(bound->params, bound->body, bound->ret_type, attrs));
      globals_.emplace_back(key, name);
    }
    if (renamed_ && !wanted.empty()) (*renamed_)[wanted] = name;
    Expr out = MakeCall(MakeGlobalVar(name), args, call->attrs, call->type_args);
    out->set_checked_type(original->checked_type_or_null());
    return out;
  }

 private:
  IRModule& mod_;
  NameSupply& names_;
  std::vector<std::pair<Function, std::string>>& globals_;
  std::map<std::string, std::string>* renamed_;
};

}  // namespace

IRModule OutlineCompilerFunctions(const IRModule& mod, NameSupply& names,
                                  std::map<std::string, std::string>* renamed) {
  IRModule out = mod;
  std::vector<std::pair<Function, std::string>> globals;
  for (const auto& [name, base] : mod.functions()) {
    const auto* fn = base.as<FunctionNode>();
    if (!fn || GetIntAttr(fn, attr::kPrimitive) != 0 || fn->attrs.Has(attr::kCompiler)) continue;
    Outliner outliner(out, names, globals, renamed);
    Expr body = outliner.Mutate(fn->body);
    if (!body.same_as(fn->body))
      out = out.WithFunction(name, MakeFunction(fn->params, body, fn->ret_type, fn->attrs));
  }
  return InferTypes(out);
}

IRModule CandidateModule(const DataflowGraph& graph, const CandidatePartition& candidate) {
  const SubGraph& sg = candidate.sub_graph;
  SubGraph kernel = sg;
  Attrs attrs{{attr::kPrimitive, AttrValue(int64_t{1})}};
  const auto& nested = sg.nested_sub_graphs();
  if (nested.size() == 1 && nested[0].sub_graph.inside() == sg.inside() &&
      nested[0].attrs.Has(attr::kPrimitive)) {
    kernel = nested[0].sub_graph;  // the rule made it a kernel (e.g. Compiler=dnnl)
    attrs = nested[0].attrs;
  }
  ExtractedFunction ex = Extract(graph, kernel, attrs);
  std::vector<Var> params;
  std::vector<Expr> args;
  auto fresh = [&](const Type& t) {
    Var v = MakeVar("x" + std::to_string(params.size()), t);
    params.push_back(v);
    return v;
  };
  for (size_t a : ex.args) {
    const Expr& e = graph.expr(a);
    if (IsTensorConstant(e)) {
      args.push_back(e);
      continue;
    }
    Type t = e->checked_type();
    if (const auto* tt = t.as<TupleTypeNode>()) {
      // Executors take tensors: a tuple input becomes one parameter per field.
      std::vector<Expr> fields;
      for (const Type& f : tt->fields) {
        if (!f.as<TensorTypeNode>())
          TS_THROW(kUnsupported) << "collage: a candidate input of type " << TypeToString(t)
                                 << " (nested tuples) cannot be measured";
        fields.push_back(fresh(f));
      }
      args.push_back(MakeTuple(std::move(fields)));
    } else {
      args.push_back(fresh(t));
    }
  }
  Function main = MakeFunction(params, MakeCall(ex.function, args));
  NameSupply names("collage");
  return OutlineCompilerFunctions(InferTypes(IRModule::FromExpr(main)), names);
}

}  // namespace tessera::collage
