// Text printer for modules and graph expressions in Relay's syntax. Every call, tuple,
// projection and nested function is bound once as `%N = ...;` in post-order, found by an
// explicit-stack DFS so deep graphs print without deep recursion.
#include "tessera/ir/printer.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "tessera/support/base64.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"
#include "text_printer.h"
#include "text_util.h"

namespace tessera {

namespace text {

namespace {

std::string Pad(int indent) {
  return std::string(static_cast<size_t>(indent), ' ');
}

bool IsLeaf(const ExprNode* e) {
  return IsInstance<VarNode>(e) || IsInstance<GlobalVarNode>(e) || IsInstance<OpNode>(e) ||
         IsInstance<ConstantNode>(e);
}

/// The i-th operand that must be printed before `e` (nullptr after the last one). As in
/// Relay, a call's arguments come before its callee, so a function binding sits next to
/// its call.
const Expr* OperandAt(const ExprNode* e, size_t i) {
  if (IsInstance<CallNode>(e)) {
    const auto* c = static_cast<const CallNode*>(e);
    if (i < c->args.size()) return &c->args[i];
    return i == c->args.size() ? &c->callee : nullptr;
  }
  if (IsInstance<TupleNode>(e)) {
    const auto* t = static_cast<const TupleNode*>(e);
    return i < t->fields.size() ? &t->fields[i] : nullptr;
  }
  if (IsInstance<TupleGetItemNode>(e))
    return i == 0 ? &static_cast<const TupleGetItemNode*>(e)->tuple : nullptr;
  return nullptr;
}

bool IsCallTir(const ExprNode* e) {
  if (!IsInstance<CallNode>(e)) return false;
  const OpNode* op = static_cast<const CallNode*>(e)->op();
  return op && op->name == kCallTirOp;
}

class GraphPrinter {
 public:
  explicit GraphPrinter(const PrintOptions& options) : options_(options) {}

  /// Counts references to every node reachable from `root`, nested functions included
  /// (iteratively; shared nodes are expanded once).
  void CountUses(const Expr& root) {
    if (!counted_.insert(root.get()).second) return;
    std::vector<const ExprNode*> stack{root.get()};
    auto visit = [&](const Expr& child) {
      if (!child) return;
      ++uses_[child.get()];
      if (counted_.insert(child.get()).second) stack.push_back(child.get());
    };
    while (!stack.empty()) {
      const ExprNode* e = stack.back();
      stack.pop_back();
      for (size_t i = 0; const Expr* child = OperandAt(e, i); ++i) visit(*child);
      if (auto* let =
              e->type_index() == TypeIndex::kLet ? static_cast<const LetNode*>(e) : nullptr) {
        visit(let->value);
        visit(let->body);
      }
      if (auto* f = e->type_index() == TypeIndex::kFunction ? static_cast<const FunctionNode*>(e)
                                                            : nullptr)
        visit(f->body);
    }
  }

  std::string PrintDef(const std::string& name, const FunctionNode* f) {
    ResetFunctionState();
    return FunctionText(f, "def " + GlobalText(name), 0);
  }

  std::string PrintStandalone(const Expr& e) {
    ResetFunctionState();
    std::string out;
    PrintBlock(e, 0, &out);
    return out;
  }

  std::string Metadata() const {
    if (meta_.empty() || !(options_.show_meta_data || options_.meta_shapes_only)) return "";
    nlohmann::ordered_json constants = nlohmann::ordered_json::array();
    for (const NDArray& a : meta_) {
      nlohmann::ordered_json c;
      c["dtype"] = DTypeName(a.dtype());
      c["shape"] = a.shape();
      if (options_.show_meta_data) c["data"] = base64::Encode(a.data(), a.NumBytes());
      constants.push_back(std::move(c));
    }
    nlohmann::ordered_json j;
    j["Constant"] = std::move(constants);
    return "#[metadata]\n" + j.dump() + "\n";
  }

 private:
  int Uses(const ExprNode* e) const {
    auto it = uses_.find(e);
    return it == uses_.end() ? 0 : it->second;
  }

  void ResetFunctionState() {
    counter_ = 0;
    memo_.clear();
    memo_scopes_.clear();
    inline_.clear();
    var_names_.clear();
    names_.Clear();
  }

  const std::string& VarName(const VarNode* v) {
    auto it = var_names_.find(v);
    if (it != var_names_.end()) return it->second;
    return var_names_.emplace(v, names_.Unique(v->name_hint)).first->second;
  }

  std::string TypeComment(const ExprNode* e) const {
    if (!options_.show_types || !e->checked_type_or_null()) return "";
    return " /* ty=" + TypeToString(e->checked_type_or_null()) + " */";
  }

  std::string FunctionText(const FunctionNode* f, const std::string& head, int indent) {
    std::string out = head + "(";
    bool first = true;
    for (const Var& p : f->params) {
      out += (first ? "%" : ", %") + VarName(p.get());
      if (p->type_annotation) out += ": " + TypeToString(p->type_annotation);
      first = false;
    }
    for (const auto& [key, value] : f->attrs.items()) {
      out += (first ? "" : ", ") + AttrKeyText(key) + "=" + AttrText(value);
      first = false;
    }
    out += ")";
    if (f->ret_type) out += " -> " + TypeToString(f->ret_type);
    out += " {\n";
    PrintBlock(f->body, indent + 2, &out);
    return out + Pad(indent) + "}";
  }

  /// Prints lets and bindings of a function body or `{ ... }` block, then its result.
  void PrintBlock(const Expr& body, int indent, std::string* out) {
    memo_scopes_.emplace_back();
    Expr e = body;
    while (e->type_index() == TypeIndex::kLet && !memo_.count(e.get())) {
      const auto* let = static_cast<const LetNode*>(e.get());
      std::string value = EmitTree(let->value, Uses(let->value.get()) <= 1, indent, out);
      *out += Pad(indent) + "let %" + VarName(let->var.get());
      if (let->var->type_annotation) *out += ": " + TypeToString(let->var->type_annotation);
      *out += " = " + value + ";\n";
      e = let->body;
    }
    std::string tail = EmitTree(e, true, indent, out);
    *out += Pad(indent) + tail + TypeComment(e.get()) + "\n";
    for (const Object* n : memo_scopes_.back()) memo_.erase(n);
    memo_scopes_.pop_back();
  }

  /// Binds the not-yet-printed nodes under `root` in post-order and returns the text
  /// that refers to `root` (its inline form when `inline_root`).
  std::string EmitTree(const Expr& root, bool inline_root, int indent, std::string* out) {
    if (IsLeaf(root.get()) || memo_.count(root.get())) return Ref(root, indent);
    struct Frame {
      const ExprNode* node;
      size_t next;
    };
    std::vector<Frame> stack{{root.get(), 0}};
    while (!stack.empty()) {
      Frame& top = stack.back();
      const ExprNode* n = top.node;
      if (const Expr* child = OperandAt(n, top.next)) {
        size_t index = top.next++;
        const ExprNode* c = child->get();
        if (IsLeaf(c) || memo_.count(c)) continue;
        // call_tir's argument tuple prints in place when nothing else uses it.
        if (index == 1 && IsCallTir(n) && IsInstance<TupleNode>(c) && Uses(c) <= 1)
          inline_.insert(c);
        stack.push_back({c, 0});
        continue;
      }
      stack.pop_back();
      if (n == root.get() && inline_root) break;
      if (inline_.count(n)) continue;
      std::string name = "%" + std::to_string(counter_++);
      std::string text = InlineText(n, indent);
      *out += Pad(indent) + name + " = " + text + TypeComment(n) + ";\n";
      memo_[n] = name;
      memo_scopes_.back().push_back(n);
    }
    return inline_root ? InlineText(root.get(), indent) : Ref(root, indent);
  }

  /// How an already-printed (or leaf, or in-place) node is referred to.
  std::string Ref(const Expr& e, int indent) {
    auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second;
    if (auto* v = e.as<VarNode>()) return "%" + VarName(v);
    if (auto* g = e.as<GlobalVarNode>()) return GlobalText(g->name);
    if (auto* op = e.as<OpNode>()) return op->name;
    if (auto* c = e.as<ConstantNode>()) return ConstantText(c);
    return InlineText(e.get(), indent);
  }

  std::string InlineText(const ExprNode* e, int indent) {
    switch (e->type_index()) {
      case TypeIndex::kCall:
        return CallText(static_cast<const CallNode*>(e), indent);
      case TypeIndex::kTuple: {
        const auto* t = static_cast<const TupleNode*>(e);
        std::string out = "(";
        for (size_t i = 0; i < t->fields.size(); ++i)
          out += (i ? ", " : "") + Ref(t->fields[i], indent);
        return out + (t->fields.size() == 1 ? ",)" : ")");
      }
      case TypeIndex::kTupleGetItem: {
        const auto* g = static_cast<const TupleGetItemNode*>(e);
        std::string tuple = Ref(g->tuple, indent);
        if (tuple[0] != '%') tuple = "(" + tuple + ")";
        return tuple + "." + std::to_string(g->index);
      }
      case TypeIndex::kFunction:
        return FunctionText(static_cast<const FunctionNode*>(e), "fn ", indent);
      case TypeIndex::kLet: {
        std::string out = "{\n";
        PrintBlock(Expr(e), indent + 2, &out);
        return out + Pad(indent) + "}";
      }
      case TypeIndex::kPrimFunc:
        TS_THROW(kUnsupported) << "a PrimFunc inside a graph function cannot be printed; add it "
                                  "to the module and call it with call_tir";
      default:
        return Ref(Expr(e), indent);
    }
  }

  std::string CallText(const CallNode* call, int indent) {
    std::string out;
    const OpNode* op = call->op();
    if (op) {
      out = op->name;
    } else {
      out = Ref(call->callee, indent);
      if (out[0] != '%' && out[0] != '@') out = "(" + out + ")";
    }
    out += "(";
    bool first = true;
    auto item = [&](const std::string& text) {
      out += (first ? "" : ", ") + text;
      first = false;
    };
    for (const Expr& arg : call->args) item(Ref(arg, indent));
    bool positional_type = op && op->name == kCallTirOp && call->type_args.size() == 1 &&
                           call->args.size() == 2 && call->type_args[0];
    if (positional_type) {
      item(TypeToString(call->type_args[0]));
    } else if (!call->type_args.empty()) {
      std::string types = "type_args=[";
      for (size_t i = 0; i < call->type_args.size(); ++i)
        types += (i ? ", " : "") + TypeToString(call->type_args[i]);
      item(types + "]");
    }
    for (const auto& [key, value] : call->attrs.items()) {
      if (op) {
        // Attributes at their schema default are left out: the parser fills them in.
        const AttrField* field = nullptr;
        for (const auto& f : op->def->attrs)
          if (f.name == key) field = &f;
        if (field && field->default_value == value) continue;
      }
      item(AttrKeyText(key) + "=" + AttrText(value));
    }
    return out + ")";
  }

  /// An inline literal for scalars with a literal form, else a meta reference. (Inline
  /// literals parse to one node per use; structural equality ignores constant sharing.)
  std::string ConstantText(const ConstantNode* c) {
    const NDArray& a = c->data;
    if (a.ndim() == 0) {
      switch (a.dtype()) {
        case DType::kFloat32:
        case DType::kFloat16: {
          float v = static_cast<float>(a.GetFloat(0));
          if (std::isfinite(v)) return ShortestFloat(v) + LiteralSuffix(a.dtype());
          break;
        }
        case DType::kFloat64: {
          double v = a.GetFloat(0);
          if (std::isfinite(v)) return ShortestDouble(v) + "f64";
          break;
        }
        case DType::kInt8:
        case DType::kInt32:
        case DType::kInt64:
        case DType::kUInt8:
          return IntLiteral(a.GetInt(0), a.dtype());
        case DType::kBool: {
          uint8_t byte = *static_cast<const uint8_t*>(a.data());
          if (byte <= 1) return byte ? "True" : "False";
          break;
        }
        case DType::kBFloat16:
          break;
      }
    }
    auto [it, added] = meta_index_.emplace(c, static_cast<int>(meta_.size()));
    if (added) meta_.push_back(a);
    return "meta[Constant][" + std::to_string(it->second) + "]";
  }

  const PrintOptions& options_;
  // Module-wide: reference counts and the metadata table.
  std::unordered_map<const Object*, int> uses_;
  std::unordered_set<const Object*> counted_;
  std::unordered_map<const Object*, int> meta_index_;
  std::vector<NDArray> meta_;
  // Per top-level function: binding numbers, their scopes, and variable names.
  int counter_ = 0;
  std::unordered_map<const Object*, std::string> memo_;
  std::vector<std::vector<const Object*>> memo_scopes_;
  std::unordered_set<const Object*> inline_;
  std::unordered_map<const Object*, std::string> var_names_;
  NameTable names_;
};

}  // namespace

}  // namespace text

std::string PrintModule(const IRModule& mod, const PrintOptions& options) {
  text::GraphPrinter printer(options);
  for (const auto& [name, func] : mod.functions())
    if (func.as<FunctionNode>()) printer.CountUses(func);
  std::string out = "#[version = \"0.0.5\"]\n";
  if (!mod.attrs().empty()) {
    out += "#[attrs(";
    bool first = true;
    for (const auto& [key, value] : mod.attrs().items()) {
      out += (first ? "" : ", ") + text::AttrKeyText(key) + "=" + text::AttrText(value);
      first = false;
    }
    out += ")]\n";
  }
  bool first = true;
  for (const auto& [name, func] : mod.functions()) {
    if (!first) out += "\n";
    first = false;
    if (auto* f = func.as<FunctionNode>())
      out += printer.PrintDef(name, f) + "\n";
    else
      out += text::PrintPrimFuncText(name, func.as<tir::PrimFuncNode>()) + "\n";
  }
  return out + printer.Metadata();
}

std::string PrintExpr(const Expr& expr, const PrintOptions& options) {
  if (!expr) return "null";
  if (auto* pf = expr.as<tir::PrimFuncNode>()) return text::PrintPrimFuncText("", pf) + "\n";
  text::GraphPrinter printer(options);
  printer.CountUses(expr);
  std::string out = printer.PrintStandalone(expr);
  return out + printer.Metadata();
}

}  // namespace tessera
