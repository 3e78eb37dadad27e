// Text printer for tensor IR: primfns, statements and scalar expressions with minimal
// parentheses (C precedence, left-associative).
#include <unordered_map>
#include <unordered_set>

#include "tessera/ir/printer.h"
#include "tessera/support/error.h"
#include "text_printer.h"
#include "text_util.h"

namespace tessera {

namespace text {

namespace {

constexpr int kPrimaryPrec = 100;
constexpr int kUnaryPrec = 7;

/// Precedence of an infix operator; 0 for the ones printed as calls (min, floordiv...).
int InfixPrec(tir::BinaryOp op) {
  switch (op) {
    case tir::BinaryOp::kOr:
      return 1;
    case tir::BinaryOp::kAnd:
      return 2;
    case tir::BinaryOp::kEQ:
    case tir::BinaryOp::kNE:
      return 3;
    case tir::BinaryOp::kLT:
    case tir::BinaryOp::kLE:
    case tir::BinaryOp::kGT:
    case tir::BinaryOp::kGE:
      return 4;
    case tir::BinaryOp::kAdd:
    case tir::BinaryOp::kSub:
      return 5;
    case tir::BinaryOp::kMul:
    case tir::BinaryOp::kDiv:
      return 6;
    default:
      return 0;
  }
}

std::string Pad(int indent) {
  return std::string(static_cast<size_t>(indent), ' ');
}

class TirPrinter {
 public:
  /// Text of `e` and the precedence of its outermost operator.
  std::string Expr(const tir::PrimExpr& e, int* prec_out = nullptr) {
    int prec = kPrimaryPrec;
    std::string text = ExprText(e, &prec);
    if (prec_out) *prec_out = prec;
    return text;
  }

  void Stmt(const tir::Stmt& s, int indent, std::string* out) {
    if (!s) return;
    std::string pad = Pad(indent);
    if (auto* seq = s.as<tir::SeqStmtNode>()) {
      for (const auto& item : seq->seq) Stmt(item, indent, out);
    } else if (auto* f = s.as<tir::ForNode>()) {
      *out += pad + "for %" + Name(f->loop_var.get(), f->loop_var->name) + ": " +
              DTypeName(f->loop_var->dtype) + " in " + Expr(f->min) + " +: " + Expr(f->extent) +
              " " + tir::ForKindName(f->kind) + " {\n";
      Stmt(f->body, indent + 2, out);
      *out += pad + "}\n";
    } else if (auto* b = s.as<tir::BlockNode>()) {
      *out += pad + "block " + QuoteString(b->name) + "(";
      for (size_t i = 0; i < b->iter_vars.size(); ++i) {
        const tir::IterVar& iv = b->iter_vars[i];
        *out +=
            (i ? ", %" : "%") + Name(iv.var.get(), iv.var->name) + ": " + DTypeName(iv.var->dtype) +
            " in " + Expr(iv.dom.min) + " +: " + Expr(iv.dom.extent) +
            (iv.kind == tir::IterKind::kReduce ? " reduce" : " spatial") + " = " + Expr(iv.binding);
      }
      *out += ") reads(" + Regions(b->reads) + ") writes(" + Regions(b->writes) + ") {\n";
      if (b->init) {
        *out += pad + "  init {\n";
        Stmt(b->init, indent + 4, out);
        *out += pad + "  }\n";
      }
      Stmt(b->body, indent + 2, out);
      *out += pad + "}\n";
    } else if (auto* st = s.as<tir::BufferStoreNode>()) {
      *out += pad + "%" + Name(st->buffer.get(), st->buffer->name) + "[" + Exprs(st->indices) +
              "] = " + Expr(st->value) + ";\n";
    } else if (auto* pf = s.as<tir::PrefetchNode>()) {
      *out += pad + "prefetch %" + Name(pf->buffer.get(), pf->buffer->name) + "[" +
              Exprs(pf->indices) + "];\n";
    } else if (auto* a = s.as<tir::AllocateNode>()) {
      *out += pad + "allocate " + BufferDecl(a->buffer) + (a->zero_fill ? "" : " uninitialized") +
              " {\n";
      Stmt(a->body, indent + 2, out);
      *out += pad + "}\n";
    } else if (auto* c = s.as<tir::IfThenElseNode>()) {
      *out += pad + "if (" + Expr(c->cond) + ") {\n";
      Stmt(c->then_case, indent + 2, out);
      if (c->else_case) {
        *out += pad + "} else {\n";
        Stmt(c->else_case, indent + 2, out);
      }
      *out += pad + "}\n";
    } else {
      TS_THROW(kInternal) << "cannot print statement of type index "
                          << static_cast<int>(s->type_index());
    }
  }

  std::string BufferDecl(const tir::Buffer& b) {
    std::string shape;
    for (size_t i = 0; i < b->shape.size(); ++i)
      shape += (i ? ", " : "") + std::to_string(b->shape[i]);
    return "%" + Name(b.get(), b->name) + ": Buffer[(" + shape + "), " + DTypeName(b->dtype) + "]";
  }

 private:
  /// The printed name of a variable or buffer, chosen at its first appearance.
  const std::string& Name(const Object* node, const std::string& hint) {
    auto it = names_.find(node);
    if (it != names_.end()) return it->second;
    return names_.emplace(node, table_.Unique(hint)).first->second;
  }

  std::string Exprs(const std::vector<tir::PrimExpr>& es) {
    std::string out;
    for (size_t i = 0; i < es.size(); ++i) out += (i ? ", " : "") + Expr(es[i]);
    return out;
  }

  std::string Regions(const std::vector<tir::BufferRegion>& regions) {
    std::string out;
    for (size_t i = 0; i < regions.size(); ++i) {
      const auto& r = regions[i];
      out += (i ? ", %" : "%") + Name(r.buffer.get(), r.buffer->name) + "[";
      for (size_t k = 0; k < r.region.size(); ++k) {
        const tir::Range& range = r.region[k];
        out += k ? ", " : "";
        auto* one = range.extent.as<tir::IntImmNode>();
        if (one && one->value == 1 && one->dtype == range.min->dtype)
          out += Expr(range.min);
        else
          out += Expr(range.min) + " +: " + Expr(range.extent);
      }
      out += "]";
    }
    return out;
  }

  /// `e` as an operand of an operator of precedence `parent`, parenthesised if needed.
  std::string Operand(const tir::PrimExpr& e, int parent, bool right) {
    int prec;
    std::string text = Expr(e, &prec);
    if (prec < parent || (right && prec == parent)) return "(" + text + ")";
    return text;
  }

  std::string ExprText(const tir::PrimExpr& e, int* prec) {
    *prec = kPrimaryPrec;
    if (auto* i = e.as<tir::IntImmNode>()) return IntLiteral(i->value, i->dtype);
    if (auto* f = e.as<tir::FloatImmNode>()) return FloatLiteral(f->value, f->dtype, false);
    if (auto* v = e.as<tir::VarNode>()) return "%" + Name(v, v->name);
    if (auto* b = e.as<tir::BinaryNode>()) {
      int p = InfixPrec(b->op);
      if (p == 0)
        return std::string(tir::BinaryOpName(b->op)) + "(" + Expr(b->a) + ", " + Expr(b->b) + ")";
      *prec = p;
      return Operand(b->a, p, false) + " " + tir::BinaryOpName(b->op) + " " +
             Operand(b->b, p, true);
    }
    if (auto* n = e.as<tir::NotNode>()) {
      *prec = kUnaryPrec;
      return "!" + Operand(n->a, kUnaryPrec, false);
    }
    if (auto* s = e.as<tir::SelectNode>())
      return "select(" + Expr(s->cond) + ", " + Expr(s->true_value) + ", " + Expr(s->false_value) +
             ")";
    if (auto* c = e.as<tir::CastNode>())
      return std::string(DTypeName(c->dtype)) + "(" + Expr(c->value) + ")";
    if (auto* l = e.as<tir::BufferLoadNode>())
      return "%" + Name(l->buffer.get(), l->buffer->name) + "[" + Exprs(l->indices) + "]";
    if (auto* in = e.as<tir::IntrinsicNode>()) return in->name + "(" + Exprs(in->args) + ")";
    TS_THROW(kInternal) << "cannot print scalar expression of type index "
                        << static_cast<int>(e->type_index());
  }

  std::unordered_map<const Object*, std::string> names_;
  NameTable table_;
};

}  // namespace

std::string PrintPrimFuncText(const std::string& name, const tir::PrimFuncNode* func) {
  TirPrinter p;
  size_t num_inputs = func->params.size() - static_cast<size_t>(func->num_outputs);
  std::string out = name.empty() ? "primfn (" : "primfn " + GlobalText(name) + "(";
  bool first = true;
  for (size_t i = 0; i < num_inputs; ++i, first = false)
    out += (first ? "" : ", ") + p.BufferDecl(func->params[i]);
  for (const auto& [key, value] : func->attrs.items()) {
    out += (first ? "" : ", ") + AttrKeyText(key) + "=" + AttrText(value);
    first = false;
  }
  out += ") -> (";
  for (size_t i = num_inputs; i < func->params.size(); ++i)
    out += (i > num_inputs ? ", " : "") + p.BufferDecl(func->params[i]);
  out += ") {\n";
  p.Stmt(func->body, 2, &out);
  return out + "}";
}

}  // namespace text

std::string PrintPrimExpr(const tir::PrimExpr& expr) {
  if (!expr) return "null";
  return text::TirPrinter().Expr(expr);
}

std::string PrintStmt(const tir::Stmt& stmt) {
  std::string out;
  text::TirPrinter().Stmt(stmt, 0, &out);
  return out;
}

}  // namespace tessera
