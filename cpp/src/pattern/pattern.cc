// Pattern builders and the readable (Python-like) printing of patterns.
#include "tessera/pattern/pattern.h"

#include <sstream>

#include "tessera/ir/printer.h"
#include "tessera/ir/op.h"
#include "tessera/support/error.h"

namespace tessera {

namespace {

DFPattern Make(DFPatternKind kind, std::vector<DFPattern> operands = {}) {
  auto node = MakeNode<DFPatternNode>();
  node->kind = kind;
  node->operands = std::move(operands);
  return DFPattern(Ref<const DFPatternNode>(std::move(node)));
}

DFPatternNode* Mutable(const DFPattern& p) {
  return const_cast<DFPatternNode*>(p.get());  // only while building a fresh node
}

void CheckDefined(const DFPattern& p, const char* what) {
  if (!p.defined()) TS_THROW(kValue) << "pattern " << what << " is null";
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string AttrsText(const Attrs& attrs) {
  std::string out = "{";
  for (size_t i = 0; i < attrs.items().size(); ++i) {
    const auto& [k, v] = attrs.items()[i];
    out += (i ? ", " : "") + Quote(k) + ": " + v.ToString();
  }
  return out + "}";
}

void Print(const DFPattern& p, std::ostream& os) {
  if (!p.defined()) {
    os << "None";
    return;
  }
  auto list = [&](const std::vector<DFPattern>& items) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) os << ", ";
      Print(items[i], os);
    }
  };
  switch (p->kind) {
    case DFPatternKind::kWildcard:
      os << "wildcard()";
      return;
    case DFPatternKind::kExpr:
      if (auto* op = p->expr.as<OpNode>()) {
        os << "is_op(" << Quote(op->name) << ")";
      } else {
        std::string text = PrintExpr(p->expr, PrintOptions{false, false});
        while (!text.empty() && text.back() == '\n') text.pop_back();
        os << "is_expr(" << text << ")";
      }
      return;
    case DFPatternKind::kVar:
      os << "is_var(" << (p->name.empty() ? "" : Quote(p->name)) << ")";
      return;
    case DFPatternKind::kConstant:
      os << "is_constant()";
      return;
    case DFPatternKind::kCall:
      Print(DFPattern(p->callee), os);
      os << "(";
      if (p->any_args)
        os << "...";
      else
        list(p->operands);
      os << ")";
      return;
    case DFPatternKind::kTuple:
      os << "is_tuple([";
      list(p->operands);
      os << "])";
      return;
    case DFPatternKind::kTupleGetItem:
      os << "is_tuple_get_item(";
      Print(p->operands[0], os);
      if (p->index >= 0) os << ", " << p->index;
      os << ")";
      return;
    case DFPatternKind::kAlt:
      os << "(";
      Print(p->operands[0], os);
      os << " | ";
      Print(p->operands[1], os);
      os << ")";
      return;
    case DFPatternKind::kAttr:
      Print(p->operands[0], os);
      os << ".has_attr(" << AttrsText(p->attrs) << ")";
      return;
    case DFPatternKind::kType:
      Print(p->operands[0], os);
      os << ".has_type(" << TypeToString(p->type) << ")";
      return;
    case DFPatternKind::kShape: {
      Print(p->operands[0], os);
      os << ".has_shape([";
      for (size_t i = 0; i < p->shape.size(); ++i) os << (i ? ", " : "") << p->shape[i];
      os << "])";
      return;
    }
    case DFPatternKind::kDType:
      Print(p->operands[0], os);
      os << ".has_dtype(" << Quote(DTypeName(p->dtype)) << ")";
      return;
    case DFPatternKind::kDominator:
      os << "dominates(";
      list(p->operands);
      os << ")";
      return;
  }
}

}  // namespace

DFPattern DFPattern::operator()(std::vector<DFPattern> args) const {
  CheckDefined(*this, "callee");
  for (const DFPattern& a : args) CheckDefined(a, "argument");
  DFPattern call = Make(DFPatternKind::kCall, std::move(args));
  Mutable(call)->callee = node_;
  return call;
}

DFPattern DFPattern::CallAnyArgs() const {
  CheckDefined(*this, "callee");
  DFPattern call = Make(DFPatternKind::kCall);
  Mutable(call)->callee = node_;
  Mutable(call)->any_args = true;
  return call;
}

DFPattern DFPattern::operator|(const DFPattern& other) const {
  CheckDefined(*this, "alternative");
  CheckDefined(other, "alternative");
  return Make(DFPatternKind::kAlt, {*this, other});
}

DFPattern DFPattern::Optional(const std::function<DFPattern(const DFPattern&)>& fn) const {
  return *this | fn(*this);
}

DFPattern DFPattern::HasAttr(Attrs attrs) const {
  CheckDefined(*this, "operand");
  DFPattern p = Make(DFPatternKind::kAttr, {*this});
  Mutable(p)->attrs = std::move(attrs);
  return p;
}

DFPattern DFPattern::HasType(Type type) const {
  CheckDefined(*this, "operand");
  if (!type.defined()) TS_THROW(kValue) << "has_type needs a type";
  DFPattern p = Make(DFPatternKind::kType, {*this});
  Mutable(p)->type = std::move(type);
  return p;
}

DFPattern DFPattern::HasShape(std::vector<int64_t> shape) const {
  CheckDefined(*this, "operand");
  DFPattern p = Make(DFPatternKind::kShape, {*this});
  Mutable(p)->shape = std::move(shape);
  return p;
}

DFPattern DFPattern::HasDType(DType dtype) const {
  CheckDefined(*this, "operand");
  DFPattern p = Make(DFPatternKind::kDType, {*this});
  Mutable(p)->dtype = dtype;
  return p;
}

std::string DFPattern::ToString() const {
  std::ostringstream os;
  Print(*this, os);
  return os.str();
}

DFPattern Wildcard() {
  return Make(DFPatternKind::kWildcard);
}

DFPattern IsOp(const std::string& name) {
  return IsExpr(GetOp(name));
}

DFPattern IsExpr(Expr expr) {
  if (!expr.defined()) TS_THROW(kValue) << "is_expr needs an expression";
  DFPattern p = Make(DFPatternKind::kExpr);
  Mutable(p)->expr = std::move(expr);
  return p;
}

DFPattern IsConstant() {
  return Make(DFPatternKind::kConstant);
}

DFPattern IsVar(std::string name) {
  DFPattern p = Make(DFPatternKind::kVar);
  Mutable(p)->name = std::move(name);
  return p;
}

DFPattern IsTuple(std::vector<DFPattern> fields) {
  for (const DFPattern& f : fields) CheckDefined(f, "tuple field");
  return Make(DFPatternKind::kTuple, std::move(fields));
}

DFPattern IsTupleGetItem(DFPattern tuple, int index) {
  CheckDefined(tuple, "tuple");
  if (index < -1)
    TS_THROW(kValue) << "is_tuple_get_item index must be >= 0 (or -1: any), got " << index;
  DFPattern p = Make(DFPatternKind::kTupleGetItem, {std::move(tuple)});
  Mutable(p)->index = index;
  return p;
}

DFPattern Dominates(DFPattern parent, DFPattern path, DFPattern child) {
  CheckDefined(parent, "parent");
  CheckDefined(path, "path");
  CheckDefined(child, "child");
  return Make(DFPatternKind::kDominator, {std::move(parent), std::move(path), std::move(child)});
}

}  // namespace tessera
