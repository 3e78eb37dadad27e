// Short renderings and difference descriptions for structural-diff reports.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "structural_internal.h"

namespace tessera::structural {

namespace {

constexpr size_t kMaxRender = 160;

std::string Clip(std::string s) {
  if (s.size() > kMaxRender) s = s.substr(0, kMaxRender - 3) + "...";
  return s;
}

std::string FormatNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

std::string RenderConstant(const NDArray& data) {
  std::string out = "const " + data.Describe();
  if (data.NumElements() == 1) out += " = " + FormatNumber(data.GetFloat(0));
  return out;
}

std::string RenderAttrs(const Attrs& attrs) {
  std::string out;
  for (const auto& [key, value] : attrs.items()) out += ", " + key + "=" + value.ToString();
  return out;
}

std::string Render(const Expr& e, int depth) {
  if (!e) return "null";
  if (auto* v = e.as<VarNode>()) return "%" + v->name_hint;
  if (auto* g = e.as<GlobalVarNode>()) return "@" + g->name;
  if (auto* c = e.as<ConstantNode>()) return RenderConstant(c->data);
  if (auto* o = e.as<OpNode>()) return o->name;
  if (auto* pf = e.as<tir::PrimFuncNode>())
    return "primfn(" + std::to_string(pf->params.size()) + " buffers, " +
           std::to_string(pf->num_outputs) + " outputs)";
  if (depth <= 0) return "...";
  if (auto* c = e.as<CallNode>()) {
    std::string callee = c->callee.as<OpNode>() || c->callee.as<GlobalVarNode>()
                             ? Render(c->callee, depth)
                             : "(" + Render(c->callee, depth - 1) + ")";
    std::string out = callee + "(";
    for (size_t i = 0; i < c->args.size(); ++i)
      out += (i ? ", " : "") + Render(c->args[i], depth - 1);
    return out + RenderAttrs(c->attrs) + ")";
  }
  if (auto* t = e.as<TupleNode>()) {
    std::string out = "(";
    for (size_t i = 0; i < t->fields.size(); ++i)
      out += (i ? ", " : "") + Render(t->fields[i], depth - 1);
    return out + (t->fields.size() == 1 ? ",)" : ")");
  }
  if (auto* g = e.as<TupleGetItemNode>())
    return Render(g->tuple, depth - 1) + "." + std::to_string(g->index);
  if (auto* l = e.as<LetNode>())
    return "let %" + l->var->name_hint + " = " + Render(l->value, depth - 1) + "; ...";
  auto* f = e.as<FunctionNode>();
  std::string out = "fn (";
  for (size_t i = 0; i < f->params.size(); ++i) out += (i ? ", %" : "%") + f->params[i]->name_hint;
  return out + ") { " + Render(f->body, depth - 1) + " }";
}

std::string Prim(const tir::PrimExpr& e) {
  using namespace tir;
  if (!e) return "null";
  if (auto* i = e.as<IntImmNode>()) return std::to_string(i->value);
  if (auto* f = e.as<FloatImmNode>()) return FormatNumber(f->value) + "f";
  if (auto* v = e.as<tir::VarNode>()) return v->name;
  if (auto* b = e.as<BinaryNode>()) {
    const char* name = BinaryOpName(b->op);
    if (std::isalpha(static_cast<unsigned char>(name[0])))
      return std::string(name) + "(" + Prim(b->a) + ", " + Prim(b->b) + ")";
    return "(" + Prim(b->a) + " " + name + " " + Prim(b->b) + ")";
  }
  if (auto* n = e.as<NotNode>()) return "!" + Prim(n->a);
  if (auto* s = e.as<SelectNode>())
    return "select(" + Prim(s->cond) + ", " + Prim(s->true_value) + ", " + Prim(s->false_value) +
           ")";
  if (auto* c = e.as<CastNode>())
    return std::string("cast<") + DTypeName(c->dtype) + ">(" + Prim(c->value) + ")";
  auto list = [](const std::vector<PrimExpr>& xs) {
    std::string out;
    for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + Prim(xs[i]);
    return out;
  };
  if (auto* l = e.as<BufferLoadNode>()) return l->buffer->name + "[" + list(l->indices) + "]";
  auto* in = e.as<IntrinsicNode>();
  return in->name + "(" + list(in->args) + ")";
}

}  // namespace

size_t PairHash::operator()(const std::pair<const Object*, const Object*>& p) const {
  return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
}

std::string RenderExpr(const Expr& expr, int depth) {
  return Clip(Render(expr, depth));
}

std::string RenderPrim(const tir::PrimExpr& expr) {
  return Clip(Prim(expr));
}

std::string RenderStmt(const tir::Stmt& stmt) {
  using namespace tir;
  if (!stmt) return "none";
  if (auto* f = stmt.as<ForNode>())
    return Clip("for " + f->loop_var->name + " in [" + Prim(f->min) + ", " + Prim(f->min) + " + " +
                Prim(f->extent) + ") " + ForKindName(f->kind));
  if (auto* b = stmt.as<BlockNode>()) return "block " + b->name;
  if (auto* s = stmt.as<BufferStoreNode>()) {
    std::string idx;
    for (size_t i = 0; i < s->indices.size(); ++i) idx += (i ? ", " : "") + Prim(s->indices[i]);
    return Clip(s->buffer->name + "[" + idx + "] = " + Prim(s->value));
  }
  if (auto* p = stmt.as<PrefetchNode>()) {
    std::string idx;
    for (size_t i = 0; i < p->indices.size(); ++i) idx += (i ? ", " : "") + Prim(p->indices[i]);
    return Clip("prefetch " + p->buffer->name + "[" + idx + "]");
  }
  if (auto* a = stmt.as<AllocateNode>())
    return "allocate " + a->buffer->name + ShapeToString(a->buffer->shape) + " " +
           DTypeName(a->buffer->dtype) + (a->zero_fill ? "" : " uninitialized");
  if (auto* s = stmt.as<SeqStmtNode>()) return "sequence of " + std::to_string(s->seq.size());
  auto* i = stmt.as<IfThenElseNode>();
  return Clip("if (" + Prim(i->cond) + ")" + (i->else_case ? " ... else ..." : ""));
}

std::string RenderType(const Type& type) {
  return type ? TypeToString(type) : "none";
}

std::string DescribeTypeDiff(const Type& a, const Type& b) {
  auto* ta = a.as<TensorTypeNode>();
  auto* tb = b.as<TensorTypeNode>();
  if (ta && tb) {
    if (ta->shape != tb->shape)
      return "shape " + ShapeToString(ta->shape) + " vs " + ShapeToString(tb->shape);
    return std::string("dtype ") + DTypeName(ta->dtype) + " vs " + DTypeName(tb->dtype);
  }
  auto* ua = a.as<TupleTypeNode>();
  auto* ub = b.as<TupleTypeNode>();
  if (ua && ub && ua->fields.size() == ub->fields.size()) {
    for (size_t i = 0; i < ua->fields.size(); ++i)
      if (!TypeEqual(ua->fields[i], ub->fields[i]))
        return "tuple field " + std::to_string(i) + ": " +
               DescribeTypeDiff(ua->fields[i], ub->fields[i]);
  }
  return "type " + RenderType(a) + " vs " + RenderType(b);
}

std::string DescribeAttrsDiff(const Attrs& a, const Attrs& b) {
  for (const auto& [key, value] : a.items()) {
    const AttrValue* other = b.Find(key);
    if (!other) return "attribute '" + key + "' only in lhs (" + value.ToString() + ")";
    if (!(*other == value))
      return "attribute '" + key + "': " + value.ToString() + " vs " + other->ToString();
  }
  for (const auto& [key, value] : b.items())
    if (!a.Find(key)) return "attribute '" + key + "' only in rhs (" + value.ToString() + ")";
  return "attributes differ";
}

std::string DescribeDataDiff(const NDArray& a, const NDArray& b) {
  int64_t n = std::min(a.NumElements(), b.NumElements());
  size_t width = DTypeBytes(a.dtype());
  auto* pa = static_cast<const char*>(a.data());
  auto* pb = static_cast<const char*>(b.data());
  for (int64_t i = 0; i < n; ++i)
    if (std::memcmp(pa + i * width, pb + i * width, width) != 0)
      return "constant data differs at element " + std::to_string(i) + ": " +
             FormatNumber(a.GetFloat(i)) + " vs " + FormatNumber(b.GetFloat(i));
  return "constant data differs";
}

}  // namespace tessera::structural
