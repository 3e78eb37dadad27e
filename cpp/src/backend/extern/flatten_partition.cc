// Flattening a Compiler partition into the runtime's LibraryGraph.
#include "flatten_partition.h"

#include <unordered_map>

#include "tessera/support/error.h"

namespace tessera::ext {

namespace {

class Flattener {
 public:
  explicit Flattener(std::string backend) : backend_(std::move(backend)) {}

  LibraryGraph graph;

  void Run(const Function& fn) {
    Scope scope;
    for (size_t i = 0; i < fn->params.size(); ++i) {
      const Var& p = fn->params[i];
      LibraryNode n;
      n.kind = LibraryNode::Kind::kParam;
      n.param = static_cast<int>(i);
      SetType(n, p->type_annotation.defined() ? p->type_annotation : p->checked_type(),
              "parameter %" + p->name_hint);
      scope.vars[p.get()] = Add(std::move(n));
    }
    graph.num_params = static_cast<int>(fn->params.size());
    if (const auto* tup = fn->body.as<TupleNode>()) {
      for (const Expr& f : tup->fields) graph.outputs.push_back(Visit(f, scope));
    } else {
      graph.outputs.push_back(Visit(fn->body, scope));
    }
    for (int o : graph.outputs) ++graph.nodes[o].uses;
  }

 private:
  struct Scope {
    std::unordered_map<const ExprNode*, int> vars;
    std::unordered_map<const ExprNode*, int> memo;
  };

  int Add(LibraryNode n) {
    graph.nodes.push_back(std::move(n));
    return static_cast<int>(graph.nodes.size() - 1);
  }

  void SetType(LibraryNode& n, const Type& t, const std::string& what) {
    const auto* tt = t.as<TensorTypeNode>();
    if (!tt)
      TS_THROW(kUnsupported) << "backend '" << backend_ << "': " << what
                             << " must be a tensor, got "
                             << (t.defined() ? TypeToString(t) : "<no type>");
    if (tt->dtype != DType::kFloat32)
      TS_THROW(kUnsupported) << "backend '" << backend_ << "' supports float32 only; " << what
                             << " has dtype " << DTypeName(tt->dtype);
    n.shape = tt->shape;
    n.dtype = tt->dtype;
  }

  int Visit(const Expr& e, Scope& scope) {
    if (const auto* v = e.as<VarNode>()) {
      auto it = scope.vars.find(v);
      if (it == scope.vars.end())
        TS_THROW(kUnsupported) << "backend '" << backend_ << "': variable %" << v->name_hint
                               << " is not bound in the partition";
      return it->second;
    }
    auto memo = scope.memo.find(e.get());
    if (memo != scope.memo.end()) return memo->second;
    int id = VisitNew(e, scope);
    scope.memo[e.get()] = id;
    return id;
  }

  int VisitNew(const Expr& e, Scope& scope) {
    if (const auto* c = e.as<ConstantNode>()) {
      LibraryNode n;
      n.kind = LibraryNode::Kind::kConstant;
      n.data = c->data;
      if (c->data.dtype() != DType::kFloat32)
        TS_THROW(kUnsupported) << "backend '" << backend_
                               << "' supports float32 only; a constant has dtype "
                               << DTypeName(c->data.dtype());
      n.shape = c->data.shape();
      return Add(std::move(n));
    }
    if (const auto* g = e.as<TupleGetItemNode>()) {
      const auto* call = g->tuple.as<CallNode>();
      if (g->index == 0 && call && call->op() && call->op()->name == "nn.batch_norm") {
        int id = VisitCall(call, scope, /*tuple_item=*/true);
        SetType(graph.nodes[id], e->checked_type(), "the result of nn.batch_norm");
        return id;
      }
      TS_THROW(kUnsupported) << "backend '" << backend_
                             << "': tuple projections are only supported on nn.batch_norm's "
                                "first result";
    }
    if (const auto* call = e.as<CallNode>()) return VisitCall(call, scope, false);
    TS_THROW(kUnsupported) << "backend '" << backend_
                           << "': a partition may only hold op calls, Composite function calls, "
                              "constants and parameters";
  }

  int VisitCall(const CallNode* call, Scope& scope, bool tuple_item) {
    std::vector<int> args;
    for (const Expr& a : call->args) args.push_back(Visit(a, scope));
    if (const auto* fn = call->callee.as<FunctionNode>()) {
      // A Composite (or any local) function: inline it with its params bound to the args.
      if (fn->params.size() != args.size())
        TS_THROW(kType) << "backend '" << backend_ << "': a local function takes "
                        << fn->params.size() << " arguments, given " << args.size();
      Scope inner;
      for (size_t i = 0; i < args.size(); ++i) inner.vars[fn->params[i].get()] = args[i];
      return Visit(fn->body, inner);
    }
    const OpNode* op = call->op();
    if (!op)
      TS_THROW(kUnsupported) << "backend '" << backend_
                             << "': partitions may not call global functions";
    LibraryNode n;
    n.op = op->name;
    n.attrs = ConvertAttrs(call->attrs, op->name);
    n.inputs = args;
    for (int a : args) ++graph.nodes[a].uses;
    if (!tuple_item) SetType(n, call->checked_type(), "the result of " + op->name);
    return Add(std::move(n));
  }

  /// The op's attributes in the runtime's plain form.
  runtime::KernelAttrs ConvertAttrs(const Attrs& attrs, const std::string& op) {
    runtime::KernelAttrs out;
    for (const auto& [key, v] : attrs.items()) {
      if (v.is_none()) out.Set(key, std::monostate{});
      else if (v.is_bool()) out.Set(key, v.AsBool());
      else if (v.is_int()) out.Set(key, v.AsInt());
      else if (v.is_float()) out.Set(key, v.AsFloat());
      else if (v.is_string()) out.Set(key, v.AsString());
      else out.Set(key, ListAttr(v, key, op));
    }
    return out;
  }

  runtime::KernelAttr ListAttr(const AttrValue& v, const std::string& key, const std::string& op) {
    bool ints = true;
    for (const AttrValue& e : v.AsArray()) {
      if (!e.is_int() && !e.is_float())
        TS_THROW(kUnsupported) << "backend '" << backend_ << "': attribute '" << key << "' of "
                               << op << " is a nested list, which library kernels do not take";
      ints &= e.is_int();
    }
    if (ints) return v.AsInts();
    std::vector<double> floats;
    for (const AttrValue& e : v.AsArray()) floats.push_back(e.AsFloat());
    return floats;
  }

  std::string backend_;
};

}  // namespace

LibraryGraph FlattenPartition(const Function& fn, const std::string& backend) {
  Flattener f(backend);
  f.Run(fn);
  return std::move(f.graph);
}

}  // namespace tessera::ext
