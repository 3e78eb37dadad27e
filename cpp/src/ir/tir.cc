// Tensor-level IR builders, with the dtype checks that keep PrimFuncs well formed, and
// the operand access (children, rebuild, pre-order visit) of scalar expressions.
#include "tessera/ir/tir.h"

#include <algorithm>

#include "tessera/support/error.h"

namespace tessera::tir {

const char* BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "floordiv";
    case BinaryOp::kFloorMod:
      return "floormod";
    case BinaryOp::kMin:
      return "min";
    case BinaryOp::kMax:
      return "max";
    case BinaryOp::kEQ:
      return "==";
    case BinaryOp::kNE:
      return "!=";
    case BinaryOp::kLT:
      return "<";
    case BinaryOp::kLE:
      return "<=";
    case BinaryOp::kGT:
      return ">";
    case BinaryOp::kGE:
      return ">=";
    case BinaryOp::kAnd:
      return "&&";
    case BinaryOp::kOr:
      return "||";
  }
  return "?";
}

bool IsComparison(BinaryOp op) {
  return op >= BinaryOp::kEQ;
}

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
  }
  return "?";
}

const std::vector<std::pair<std::string, int>>& IntrinsicNames() {
  static const std::vector<std::pair<std::string, int>> names = {
      {"exp", 1},     {"log", 1}, {"sqrt", 1},  {"rsqrt", 1}, {"tanh", 1},  {"erf", 1},
      {"sigmoid", 1}, {"abs", 1}, {"floor", 1}, {"ceil", 1},  {"round", 1}, {"sin", 1},
      {"cos", 1},     {"pow", 2}, {"isnan", 1}, {"fmod", 2},
  };
  return names;
}

BufferLoadNode::BufferLoadNode(Buffer buffer, std::vector<PrimExpr> indices)
    : PrimExprNode(TypeIndex::kBufferLoad, buffer->dtype),
      buffer(std::move(buffer)),
      indices(std::move(indices)) {}

PrimExpr IntImm(int64_t value, DType dtype) {
  if (IsFloat(dtype)) TS_THROW(kType) << "IntImm of float dtype " << DTypeName(dtype);
  return MakeNode<const IntImmNode>(dtype, value);
}

PrimExpr FloatImm(double value, DType dtype) {
  if (!IsFloat(dtype)) TS_THROW(kType) << "FloatImm of non-float dtype " << DTypeName(dtype);
  return MakeNode<const FloatImmNode>(dtype, value);
}

Var MakeVar(std::string name, DType dtype) {
  return MakeNode<const VarNode>(std::move(name), dtype);
}

PrimExpr MakeBinary(BinaryOp op, PrimExpr a, PrimExpr b) {
  TS_ICHECK(a.defined() && b.defined()) << "binary " << BinaryOpName(op) << " with a null operand";
  if (a->dtype != b->dtype)
    TS_THROW(kType) << "operands of '" << BinaryOpName(op)
                    << "' have different dtypes: " << DTypeName(a->dtype) << " and "
                    << DTypeName(b->dtype);
  if ((op == BinaryOp::kAnd || op == BinaryOp::kOr) && a->dtype != DType::kBool)
    TS_THROW(kType) << "operands of '" << BinaryOpName(op) << "' must be bool, got "
                    << DTypeName(a->dtype);
  DType result = IsComparison(op) ? DType::kBool : a->dtype;
  return MakeNode<const BinaryNode>(result, op, std::move(a), std::move(b));
}

PrimExpr MakeNot(PrimExpr a) {
  if (a->dtype != DType::kBool)
    TS_THROW(kType) << "operand of '!' must be bool, got " << DTypeName(a->dtype);
  return MakeNode<const NotNode>(std::move(a));
}

PrimExpr MakeSelect(PrimExpr cond, PrimExpr t, PrimExpr f) {
  if (cond->dtype != DType::kBool)
    TS_THROW(kType) << "select condition must be bool, got " << DTypeName(cond->dtype);
  if (t->dtype != f->dtype)
    TS_THROW(kType) << "select branches have different dtypes: " << DTypeName(t->dtype) << " and "
                    << DTypeName(f->dtype);
  return MakeNode<const SelectNode>(std::move(cond), std::move(t), std::move(f));
}

PrimExpr MakeCast(DType dtype, PrimExpr value) {
  return MakeNode<const CastNode>(dtype, std::move(value));
}

PrimExpr MakeLoad(Buffer buffer, std::vector<PrimExpr> indices) {
  if (indices.size() != buffer->shape.size())
    TS_THROW(kType) << "load from buffer '" << buffer->name << "' of rank " << buffer->shape.size()
                    << " with " << indices.size() << " indices";
  for (const auto& i : indices)
    if (IsFloat(i->dtype))
      TS_THROW(kType) << "index into buffer '" << buffer->name << "' is a float";
  return MakeNode<const BufferLoadNode>(std::move(buffer), std::move(indices));
}

PrimExpr MakeIntrinsic(std::string name, std::vector<PrimExpr> args) {
  for (const auto& [n, arity] : IntrinsicNames()) {
    if (n != name) continue;
    if (static_cast<int>(args.size()) != arity)
      TS_THROW(kType) << "intrinsic '" << name << "' takes " << arity << " argument(s), got "
                      << args.size();
    DType dtype = name == "isnan" ? DType::kBool : args[0]->dtype;
    return MakeNode<const IntrinsicNode>(dtype, std::move(name), std::move(args));
  }
  std::string valid;
  for (const auto& [n, arity] : IntrinsicNames()) valid += (valid.empty() ? "" : ", ") + n;
  TS_THROW(kNotFound) << "unknown intrinsic '" << name << "' (valid: " << valid << ")";
}

Buffer MakeBuffer(std::string name, std::vector<int64_t> shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) TS_THROW(kType) << "buffer '" << name << "' has a negative dimension";
  return MakeNode<const BufferNode>(std::move(name), std::move(shape), dtype);
}

Stmt MakeFor(Var loop_var, PrimExpr min, PrimExpr extent, ForKind kind, Stmt body) {
  TS_ICHECK(loop_var.defined() && min.defined() && extent.defined() && body.defined())
      << "for with a null part";
  return MakeNode<const ForNode>(std::move(loop_var), std::move(min), std::move(extent), kind,
                                 std::move(body));
}

Stmt MakeBlock(std::string name, std::vector<IterVar> iter_vars, std::vector<BufferRegion> reads,
               std::vector<BufferRegion> writes, Stmt init, Stmt body) {
  TS_ICHECK(body.defined()) << "block '" << name << "' without body";
  for (const auto& iv : iter_vars)
    TS_ICHECK(iv.var.defined() && iv.binding.defined() && iv.dom.min.defined() &&
              iv.dom.extent.defined())
        << "block '" << name << "' has an incomplete iteration variable";
  return MakeNode<const BlockNode>(std::move(name), std::move(iter_vars), std::move(reads),
                                   std::move(writes), std::move(init), std::move(body));
}

Stmt MakeStore(Buffer buffer, PrimExpr value, std::vector<PrimExpr> indices) {
  if (indices.size() != buffer->shape.size())
    TS_THROW(kType) << "store to buffer '" << buffer->name << "' of rank " << buffer->shape.size()
                    << " with " << indices.size() << " indices";
  if (value->dtype != buffer->dtype)
    TS_THROW(kType) << "store of " << DTypeName(value->dtype) << " into "
                    << DTypeName(buffer->dtype) << " buffer '" << buffer->name << "'";
  return MakeNode<const BufferStoreNode>(std::move(buffer), std::move(value), std::move(indices));
}

Stmt MakePrefetch(Buffer buffer, std::vector<PrimExpr> indices) {
  if (indices.size() != buffer->shape.size())
    TS_THROW(kType) << "prefetch of buffer '" << buffer->name << "' of rank "
                    << buffer->shape.size() << " with " << indices.size() << " indices";
  for (const PrimExpr& i : indices)
    if (IsFloat(i->dtype))
      TS_THROW(kType) << "index into buffer '" << buffer->name << "' is a float";
  return MakeNode<const PrefetchNode>(std::move(buffer), std::move(indices));
}

Stmt MakeAllocate(Buffer buffer, Stmt body, bool zero_fill) {
  return MakeNode<const AllocateNode>(std::move(buffer), std::move(body), zero_fill);
}

Stmt MakeSeq(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (auto& s : seq) {
    TS_ICHECK(s.defined()) << "null statement in a sequence";
    if (auto* inner = s.as<SeqStmtNode>())
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    else
      flat.push_back(std::move(s));
  }
  if (flat.size() == 1) return flat[0];
  return MakeNode<const SeqStmtNode>(std::move(flat));
}

Stmt MakeIfThenElse(PrimExpr cond, Stmt then_case, Stmt else_case) {
  if (cond->dtype != DType::kBool)
    TS_THROW(kType) << "if condition must be bool, got " << DTypeName(cond->dtype);
  return MakeNode<const IfThenElseNode>(std::move(cond), std::move(then_case),
                                        std::move(else_case));
}

PrimFunc MakePrimFunc(std::vector<Buffer> params, int num_outputs, Stmt body, Attrs attrs) {
  if (num_outputs < 0 || num_outputs > static_cast<int>(params.size()))
    TS_THROW(kValue) << "PrimFunc with " << params.size() << " params cannot have " << num_outputs
                     << " outputs";
  return MakeNode<const PrimFuncNode>(std::move(params), num_outputs, std::move(body),
                                      std::move(attrs));
}

// ---- Operands ----------------------------------------------------------------------

namespace {

/// Calls `fn(operand)` for each operand of `e` in evaluation order: the one switch over
/// the kinds of scalar expression that the children functions below share.
template <typename Fn>
void ForEachOperand(const PrimExprNode* e, Fn&& fn) {
  switch (e->type_index()) {
    case TypeIndex::kBinary: {
      auto* n = static_cast<const BinaryNode*>(e);
      fn(n->a);
      fn(n->b);
      return;
    }
    case TypeIndex::kNot:
      fn(static_cast<const NotNode*>(e)->a);
      return;
    case TypeIndex::kSelect: {
      auto* n = static_cast<const SelectNode*>(e);
      fn(n->cond);
      fn(n->true_value);
      fn(n->false_value);
      return;
    }
    case TypeIndex::kCast:
      fn(static_cast<const CastNode*>(e)->value);
      return;
    case TypeIndex::kBufferLoad:
      for (const PrimExpr& i : static_cast<const BufferLoadNode*>(e)->indices) fn(i);
      return;
    case TypeIndex::kIntrinsic:
      for (const PrimExpr& a : static_cast<const IntrinsicNode*>(e)->args) fn(a);
      return;
    default:
      return;  // literals and variables
  }
}

/// "binary '+'", "cast", ... for messages about rebuilding `e`.
std::string KindName(const PrimExprNode* e) {
  switch (e->type_index()) {
    case TypeIndex::kBinary:
      return std::string("binary '") + BinaryOpName(static_cast<const BinaryNode*>(e)->op) + "'";
    case TypeIndex::kNot:
      return "not";
    case TypeIndex::kSelect:
      return "select";
    case TypeIndex::kCast:
      return "cast";
    case TypeIndex::kBufferLoad:
      return "load";
    case TypeIndex::kIntrinsic:
      return "intrinsic '" + static_cast<const IntrinsicNode*>(e)->name + "'";
    case TypeIndex::kTirVar:
      return "variable";
    default:
      return "literal";
  }
}

}  // namespace

std::vector<PrimExpr> PrimExprChildren(const PrimExpr& expr) {
  TS_ICHECK(expr.defined()) << "children of a null scalar expression";
  std::vector<PrimExpr> out;
  ForEachOperand(expr.get(), [&](const PrimExpr& c) { out.push_back(c); });
  return out;
}

PrimExpr WithChildren(const PrimExpr& expr, const std::vector<PrimExpr>& children) {
  TS_ICHECK(expr.defined()) << "rebuilding a null scalar expression";
  size_t count = 0;
  bool same = true;
  ForEachOperand(expr.get(), [&](const PrimExpr& c) {
    same = same && count < children.size() && c.same_as(children[count]);
    ++count;
  });
  if (children.size() != count)
    TS_THROW(kValue) << "cannot rebuild a scalar expression (" << KindName(expr.get()) << ") from "
                     << children.size() << " operand(s); it has " << count;
  if (same) return expr;
  for (size_t i = 0; i < children.size(); ++i)
    if (!children[i])
      TS_THROW(kValue) << "operand " << i << " of a scalar expression (" << KindName(expr.get())
                       << ") is null";
  switch (expr->type_index()) {
    case TypeIndex::kBinary:
      return MakeBinary(expr.as<BinaryNode>()->op, children[0], children[1]);
    case TypeIndex::kNot:
      return MakeNot(children[0]);
    case TypeIndex::kSelect:
      return MakeSelect(children[0], children[1], children[2]);
    case TypeIndex::kCast:
      return MakeCast(expr->dtype, children[0]);
    case TypeIndex::kBufferLoad:
      return MakeLoad(expr.as<BufferLoadNode>()->buffer, children);
    case TypeIndex::kIntrinsic:
      return MakeIntrinsic(expr.as<IntrinsicNode>()->name, children);
    default:
      return expr;  // no operands: `same` above
  }
}

bool VisitPrimExpr(const PrimExpr& root, const std::function<bool(const PrimExprNode*)>& fn) {
  std::vector<const PrimExprNode*> stack{root.get()};
  while (!stack.empty()) {
    const PrimExprNode* e = stack.back();
    stack.pop_back();
    if (!e) continue;
    if (!fn(e)) return false;
    // Operands go on in reverse so the first one is visited next.
    size_t first = stack.size();
    ForEachOperand(e, [&](const PrimExpr& c) { stack.push_back(c.get()); });
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }
  return true;
}

PrimExpr operator+(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kAdd, a, b);
}
PrimExpr operator-(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kSub, a, b);
}
PrimExpr operator*(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kMul, a, b);
}
PrimExpr operator+(const PrimExpr& a, int64_t b) {
  return a + IntImm(b, a->dtype);
}
PrimExpr operator*(const PrimExpr& a, int64_t b) {
  return a * IntImm(b, a->dtype);
}
PrimExpr FloorDiv(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kFloorDiv, a, b);
}
PrimExpr FloorMod(const PrimExpr& a, const PrimExpr& b) {
  return MakeBinary(BinaryOp::kFloorMod, a, b);
}

}  // namespace tessera::tir
