// DOT output of a module's dataflow (fused kernels and partitions as coloured clusters),
// and SVG through Graphviz's dot program.
#include "tessera/ir/graph_dot.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "tessera/ir/expr.h"
#include "tessera/ir/op.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/type.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

// The built-in backends keep their colour in every picture; others take the palette's.
const std::pair<const char*, const char*> kBackendColours[] = {
    {"native", "#80b1d3"}, {"dnnl", "#fdb462"}, {"blas", "#8dd3c7"}};
const char* kPalette[] = {"#fb8072", "#bebada", "#b3de69", "#fccde5", "#d9d9d9"};

/// Escapes `text` for a double-quoted DOT string.
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

class DotWriter {
 public:
  explicit DotWriter(const IRModule& mod) : mod_(mod) {}

  std::string Write() {
    out_ << "digraph module {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
            "fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=10];\n";
    // Entry functions: graph functions that are not partitions or fused kernels.
    std::vector<std::pair<std::string, const FunctionNode*>> entries;
    for (const auto& [name, base] : mod_.functions()) {
      const auto* fn = base.as<FunctionNode>();
      if (fn && !fn->attrs.Has(attr::kCompiler) && !GetIntAttr(fn, attr::kPrimitive))
        entries.emplace_back(name, fn);
    }
    for (const auto& [name, fn] : entries) {
      bool cluster = entries.size() > 1;
      if (cluster) Open("@" + name, "#ffffff");
      for (const Var& p : fn->params)
        values_[p.get()] = Node(p->name_hint + (p->type_annotation
                                                    ? ": " + TypeToString(p->type_annotation)
                                                    : ""),
                                "ellipse");
      std::string result = Emit(fn->body);
      if (!result.empty()) Edge(result, Node("@" + name + " result", "ellipse"));
      if (cluster) Close();
    }
    out_ << edges_.str() << "}\n";
    return out_.str();
  }

 private:
  std::string Indent() const { return std::string(2 * (depth_ + 1), ' '); }

  std::string Node(const std::string& label, const std::string& shape = "box") {
    std::string id = "n" + std::to_string(next_++);
    out_ << Indent() << id << " [label=" << Quote(label);
    if (shape != "box") out_ << ", shape=" << shape;
    if (!fill_.empty()) out_ << ", fillcolor=\"" << fill_.back() << "\"";
    out_ << "];\n";
    return id;
  }

  void Edge(const std::string& from, const std::string& to) {
    if (!from.empty()) edges_ << "  " << from << " -> " << to << ";\n";
  }

  std::string Colour(const std::string& backend) {
    for (const auto& [name, colour] : kBackendColours)
      if (backend == name) return colour;
    auto [it, added] = colours_.emplace(backend, "");
    if (added) it->second = kPalette[(colours_.size() - 1) % (sizeof(kPalette) / sizeof(*kPalette))];
    return it->second;
  }

  void Open(const std::string& label, const std::string& fill) {
    out_ << Indent() << "subgraph cluster_" << clusters_++ << " {\n"
         << Indent() << "  label=" << Quote(label) << "; style=rounded; color=\"#555555\";\n";
    ++depth_;
    fill_.push_back(fill);
  }

  void Close() {
    --depth_;
    fill_.pop_back();
    out_ << Indent() << "}\n";
  }

  /// The ops of `fn` applied to `args` inside a cluster labelled `label`.
  std::string Inline(const FunctionNode* fn, const std::vector<std::string>& args,
                     const std::string& label, const std::string& backend) {
    Open(label, Colour(backend));
    backends_.push_back(backend);
    for (size_t i = 0; i < fn->params.size() && i < args.size(); ++i)
      values_[fn->params[i].get()] = args[i];
    std::string result = Emit(fn->body);
    backends_.pop_back();
    Close();
    return result;
  }

  std::string EmitCall(const CallNode* call) {
    if (const OpNode* op = call->op()) {
      if (op->name == "call_tir" && call->args.size() == 2) {
        const auto* callee = call->args[0].as<GlobalVarNode>();
        std::vector<std::string> inputs;
        if (const auto* tuple = call->args[1].as<TupleNode>()) {
          for (const Expr& f : tuple->fields) inputs.push_back(Emit(f));
        } else {
          inputs.push_back(Emit(call->args[1]));
        }
        std::string id = Node("call_tir @" + (callee ? callee->name : std::string("?")));
        for (const std::string& in : inputs) Edge(in, id);
        return id;
      }
      std::vector<std::string> inputs;
      for (const Expr& a : call->args) inputs.push_back(Emit(a));
      std::string id = Node(op->name);
      for (const std::string& in : inputs) Edge(in, id);
      return id;
    }
    std::vector<std::string> inputs;
    for (const Expr& a : call->args) inputs.push_back(Emit(a));
    const FunctionNode* fn = call->callee.as<FunctionNode>();
    if (const auto* v = call->callee.as<VarNode>()) {
      auto it = functions_.find(v);
      if (it != functions_.end()) fn = it->second;
    }
    if (fn) {
      const AttrValue* composite = fn->attrs.Find(attr::kComposite);
      if (composite && composite->is_string())
        return Inline(fn, inputs, composite->AsString(),
                      backends_.empty() ? "native" : backends_.back());
      return Inline(fn, inputs, "native: fused", "native");
    }
    if (const auto* g = call->callee.as<GlobalVarNode>()) {
      BaseFunc base = mod_.Lookup(g->name);
      const auto* global = base.as<FunctionNode>();
      const AttrValue* compiler = global ? global->attrs.Find(attr::kCompiler) : nullptr;
      if (compiler && compiler->is_string())
        return Inline(global, inputs, compiler->AsString() + " @" + g->name,
                      compiler->AsString());
      std::string id = Node("@" + g->name);
      for (const std::string& in : inputs) Edge(in, id);
      return id;
    }
    std::string callee = Emit(call->callee);
    std::string id = Node("call");
    Edge(callee, id);
    for (const std::string& in : inputs) Edge(in, id);
    return id;
  }

  std::string Emit(const Expr& e) {
    auto memo = values_.find(e.get());
    if (memo != values_.end()) return memo->second;
    std::string id;
    if (const auto* call = e.as<CallNode>()) {
      id = EmitCall(call);
    } else if (const auto* let = e.as<LetNode>()) {
      if (const auto* fn = let->value.as<FunctionNode>()) {
        functions_[let->var.get()] = fn;  // inlined where it is called
      } else {
        values_[let->var.get()] = Emit(let->value);
      }
      id = Emit(let->body);
    } else if (const auto* tuple = e.as<TupleNode>()) {
      std::vector<std::string> inputs;
      for (const Expr& f : tuple->fields) inputs.push_back(Emit(f));
      id = Node("tuple", "point");
      for (const std::string& in : inputs) Edge(in, id);
    } else if (const auto* item = e.as<TupleGetItemNode>()) {
      std::string from = Emit(item->tuple);
      id = Node("." + std::to_string(item->index), "plaintext");
      Edge(from, id);
    } else if (const auto* v = e.as<VarNode>()) {
      id = Node(v->name_hint, "ellipse");  // free (unbound) variable
    }
    // Constants, ops as values and function literals not called draw nothing.
    values_[e.get()] = id;
    return id;
  }

  const IRModule& mod_;
  std::ostringstream out_, edges_;
  std::unordered_map<const ExprNode*, std::string> values_;
  std::unordered_map<const VarNode*, const FunctionNode*> functions_;
  std::map<std::string, std::string> colours_;
  std::vector<std::string> fill_;      // the fill colour of each open cluster
  std::vector<std::string> backends_;  // the backend of each open kernel cluster
  int next_ = 0, clusters_ = 0, depth_ = 0;
};

}  // namespace

std::string ModuleToDot(const IRModule& mod) { return DotWriter(mod).Write(); }

std::string DotToSvg(const std::string& dot) {
  if (std::system("command -v dot >/dev/null 2>&1") != 0)
    TS_THROW(kUnsupported) << "Graphviz's 'dot' program is not installed (Debian: apt-get "
                              "install graphviz); write the graph as .dot instead";
  const char* tmp = std::getenv("TMPDIR");
  std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-dot-XXXXXX";
  int fd = mkstemp(base.data());
  if (fd < 0) TS_THROW(kIO) << "cannot create a temporary file in " << base;
  close(fd);
  std::string in = base, out = base + ".svg";
  { std::ofstream(in) << dot; }
  std::string cmd = "dot -Tsvg '" + in + "' -o '" + out + "' 2>/dev/null";
  int rc = std::system(cmd.c_str());
  std::stringstream svg;
  if (rc == 0) svg << std::ifstream(out).rdbuf();
  std::remove(in.c_str());
  std::remove(out.c_str());
  if (rc != 0) TS_THROW(kIO) << "Graphviz's dot failed (exit status " << rc << ")";
  std::string text = svg.str();
  size_t start = text.find("<svg");
  if (start == std::string::npos) TS_THROW(kIO) << "Graphviz's dot wrote no SVG";
  return text.substr(start);
}

}  // namespace tessera
