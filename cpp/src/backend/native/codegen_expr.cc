// C emission of tensor-IR scalar expressions: value mode (exact interpreter semantics:
// wrapping integers, saturating float-to-int, float16 rounding) and index mode (int64
// affine arithmetic the C compiler can analyse).
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "codegen_internal.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/error.h"

namespace tessera::native::detail {

using tir::BinaryNode;
using tir::BinaryOp;
using tir::PrimExpr;

namespace {

/// An int64 literal that C reads back as exactly `v`.
std::string Int64Literal(int64_t v) {
  if (v == INT64_MIN) return "INT64_MIN";
  if (v >= INT32_MIN + 1 && v <= INT32_MAX)
    return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
  return "INT64_C(" + std::to_string(v) + ")";
}

std::string IntLiteral(DType dtype, int64_t raw) {
  int64_t v = WrapToDType(dtype, raw);
  switch (dtype) {
    case DType::kInt64:
      return v == INT64_MIN ? "INT64_MIN" : "INT64_C(" + std::to_string(v) + ")";
    case DType::kInt32:
      return v == INT32_MIN ? "INT32_MIN" : Int64Literal(v);
    case DType::kBool:
      return v ? "1" : "0";
    default:
      return std::string("((") + ValueCType(dtype) + ")" + std::to_string(v) + ")";
  }
}

std::string FloatLiteral(DType dtype, double value) {
  bool f64 = dtype == DType::kFloat64;
  double v = value;
  if (dtype == DType::kFloat32) v = static_cast<float>(value);
  if (dtype == DType::kFloat16) v = HalfToFloat(FloatToHalf(static_cast<float>(value)));
  if (dtype == DType::kBFloat16) v = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(value)));
  if (std::isnan(v)) return f64 ? "__builtin_nan(\"\")" : "__builtin_nanf(\"\")";
  if (std::isinf(v))
    return std::string(v < 0 ? "(-" : "(") + (f64 ? "__builtin_inf()" : "__builtin_inff()") + ")";
  char buf[64];
  std::snprintf(buf, sizeof buf, f64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (!f64) s += "f";
  return s[0] == '-' ? "(" + s + ")" : s;
}

bool IsIntLike(DType d) {
  return !IsFloat(d);
}

/// `expr` (an int64 or narrower integer C expression) converted to `dtype`'s value type
/// with the interpreter's wrap-around.
std::string Wrap(DType dtype, const std::string& expr) {
  if (dtype == DType::kBool) return "((" + expr + ") != 0)";
  if (dtype == DType::kInt64) return "((int64_t)(" + expr + "))";
  return std::string("((") + ValueCType(dtype) + ")(" + expr + "))";
}

const char* FloatFn(const std::string& name, bool f64) {
  struct Entry {
    const char* name;
    const char* f32;
    const char* f64;
  };
  static const Entry table[] = {
      {"exp", "__builtin_expf", "__builtin_exp"},
      {"log", "__builtin_logf", "__builtin_log"},
      {"sqrt", "__builtin_sqrtf", "__builtin_sqrt"},
      {"tanh", "__builtin_tanhf", "__builtin_tanh"},
      {"erf", "__builtin_erff", "__builtin_erf"},
      {"abs", "__builtin_fabsf", "__builtin_fabs"},
      {"floor", "__builtin_floorf", "__builtin_floor"},
      {"ceil", "__builtin_ceilf", "__builtin_ceil"},
      {"round", "__builtin_nearbyintf", "__builtin_nearbyint"},  // half to even
      {"sin", "__builtin_sinf", "__builtin_sin"},
      {"cos", "__builtin_cosf", "__builtin_cos"},
      {"pow", "__builtin_powf", "__builtin_pow"},
      {"fmod", "__builtin_fmodf", "__builtin_fmod"},
  };
  for (const Entry& e : table)
    if (name == e.name) return f64 ? e.f64 : e.f32;
  return nullptr;
}

/// `name` applied to float (or double when `f64`) operands `x`, `y` like the interpreter.
std::string FloatIntrinsic(const std::string& name, bool f64, const std::string& x,
                           const std::string& y) {
  std::string one = f64 ? "1.0" : "1.0f";
  if (name == "rsqrt")
    return "(" + one + " / " + (f64 ? "__builtin_sqrt(" : "__builtin_sqrtf(") + x + "))";
  if (name == "sigmoid")
    return "(" + one + " / (" + one + " + " + (f64 ? "__builtin_exp(-(" : "__builtin_expf(-(") + x +
           "))))";
  const char* fn = FloatFn(name, f64);
  if (!fn) return "";
  if (name == "pow" || name == "fmod") return std::string(fn) + "(" + x + ", " + y + ")";
  return std::string(fn) + "(" + x + ")";
}

}  // namespace

KernelEmitter::DepthGuard::DepthGuard(KernelEmitter* e) : e_(e) {
  if (++e_->depth_ > kMaxDepth) e_->ThrowTooDeep();
}

void KernelEmitter::ThrowTooDeep() const {
  TS_THROW(kUnsupported) << ctx_ << "IR nested deeper than " << kMaxDepth
                         << " levels; the C generator does not support it";
}

std::string KernelEmitter::Value(const PrimExpr& e) {
  return EmitExpr(e, ExprMode::kValue);
}

std::string KernelEmitter::Index(const PrimExpr& e) {
  return EmitExpr(e, ExprMode::kIndex);
}

// Expressions are emitted by a post-order walk over an explicit stack: each task first
// lists the operand strings it needs (ExprNeeds), then builds its own string from them
// (ExprCombine). Nesting depth therefore costs heap, never native stack; the depth limit
// only protects the C compiler that reads the result.
std::string KernelEmitter::EmitExpr(const PrimExpr& root, ExprMode mode) {
  struct Task {
    const PrimExpr* e;
    ExprMode mode;
    std::vector<ExprNeed> needs;
    std::vector<std::string> done;
  };
  std::vector<Task> stack;
  auto push = [&](const PrimExpr* e, ExprMode m) {
    if (depth_ + static_cast<int>(stack.size()) + 1 > kMaxDepth) ThrowTooDeep();
    Task t{e, m, {}, {}};
    ExprNeeds(*e, m, &t.needs);
    stack.push_back(std::move(t));
  };
  // A value bound to a C variable (EmitStore's shared sub-expressions) is that variable.
  auto bound = [&](const PrimExpr* e, ExprMode m) -> const std::string* {
    if (m != ExprMode::kValue || bound_values_.empty()) return nullptr;
    auto it = bound_values_.find(e->get());
    return it == bound_values_.end() ? nullptr : &it->second;
  };
  if (const std::string* name = bound(&root, mode)) return *name;
  push(&root, mode);
  std::string result;
  while (true) {
    Task& top = stack.back();
    if (top.done.size() < top.needs.size()) {
      ExprNeed need = top.needs[top.done.size()];
      if (const std::string* name = bound(need.e, need.mode)) {
        top.done.push_back(*name);
        continue;
      }
      push(need.e, need.mode);  // invalidates `top`
      continue;
    }
    std::string s = ExprCombine(*top.e, top.mode, top.done);
    stack.pop_back();
    if (stack.empty()) return s;
    stack.back().done.push_back(std::move(s));
  }
}

namespace {

bool IndexCastIsExact(const tir::CastNode* cast) {
  // Widening integer casts do not change an index; narrowing ones wrap.
  DType from = cast->value->dtype;
  return (IsInteger(from) && cast->dtype == DType::kInt64) ||
         (from == DType::kInt32 && cast->dtype == DType::kInt32);
}

/// True when an int32/int64 binary index expression is emitted from the index forms of
/// its operands (else it is emitted through its exact value form).
bool IndexArithmetic(const BinaryNode* n) {
  if (n->dtype != DType::kInt32 && n->dtype != DType::kInt64) return false;
  switch (n->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul:
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      return true;
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      const auto* ib = n->b.as<tir::IntImmNode>();
      int64_t bv = ib ? WrapToDType(n->b->dtype, ib->value) : 0;
      return ib && bv != 0 && bv != -1;
    }
    default:
      return false;
  }
}

}  // namespace

void KernelEmitter::ExprNeeds(const PrimExpr& e, ExprMode mode, std::vector<ExprNeed>* needs) {
  auto value = [&](const PrimExpr& x) { needs->push_back({&x, ExprMode::kValue}); };
  auto index = [&](const PrimExpr& x) { needs->push_back({&x, ExprMode::kIndex}); };
  if (mode == ExprMode::kIndex) {
    if (!IsIntLike(e->dtype)) TS_THROW(kType) << ctx_ << "an index or loop bound is a float";
    if (e.as<tir::IntImmNode>() || e.as<tir::VarNode>()) return;
    if (const auto* cast = e.as<tir::CastNode>()) {
      if (IndexCastIsExact(cast)) return index(cast->value);
      return value(e);
    }
    const auto* n = e.as<BinaryNode>();
    // int32/int64 index arithmetic is done in int64 without wrap-around (in-bounds indices
    // never overflow); narrower types keep their exact wrapping value semantics.
    if (n && IndexArithmetic(n)) {
      index(n->a);
      return index(n->b);
    }
    return value(e);
  }
  switch (e->type_index()) {
    case TypeIndex::kBinary: {
      const auto* n = static_cast<const BinaryNode*>(e.get());
      value(n->a);
      return value(n->b);
    }
    case TypeIndex::kNot:
      return value(static_cast<const tir::NotNode*>(e.get())->a);
    case TypeIndex::kSelect: {
      const auto* n = static_cast<const tir::SelectNode*>(e.get());
      value(n->cond);
      value(n->true_value);
      return value(n->false_value);
    }
    case TypeIndex::kCast:
      return value(static_cast<const tir::CastNode*>(e.get())->value);
    case TypeIndex::kBufferLoad: {
      const auto* n = static_cast<const tir::BufferLoadNode*>(e.get());
      CheckRank(n->buffer.get(), n->indices);
      for (const PrimExpr& idx : n->indices)
        if (!idx.as<tir::IntImmNode>()) index(idx);
      return;
    }
    case TypeIndex::kIntrinsic: {
      const auto* n = static_cast<const tir::IntrinsicNode*>(e.get());
      if (n->args.empty())
        TS_THROW(kType) << ctx_ << "intrinsic '" << n->name << "' without arguments";
      value(n->args[0]);
      if (n->args.size() > 1) value(n->args[1]);
      return;
    }
    default:
      return;
  }
}

std::string KernelEmitter::ExprCombine(const PrimExpr& e, ExprMode mode,
                                       const std::vector<std::string>& r) {
  if (mode == ExprMode::kIndex) return IndexCombine(e, r);
  switch (e->type_index()) {
    case TypeIndex::kIntImm:
      return IntLiteral(e->dtype, static_cast<const tir::IntImmNode*>(e.get())->value);
    case TypeIndex::kFloatImm:
      return FloatLiteral(e->dtype, static_cast<const tir::FloatImmNode*>(e.get())->value);
    case TypeIndex::kTirVar: {
      const std::string& name = VarName(static_cast<const tir::VarNode*>(e.get()));
      if (e->dtype == DType::kInt64) return name;
      if (IsFloat(e->dtype)) return std::string("((") + ValueCType(e->dtype) + ")" + name + ")";
      return Wrap(e->dtype, name);
    }
    case TypeIndex::kBinary:
      return BinaryValue(static_cast<const BinaryNode*>(e.get()), r[0], r[1]);
    case TypeIndex::kNot:
      return "(!" + r[0] + ")";
    case TypeIndex::kSelect: {
      // Floats select without a branch (see ts_sel_f32 in the prelude).
      std::string type = IsFloat(e->dtype) ? ValueCType(e->dtype) : "";
      if (type == "float") return "ts_sel_f32(" + r[0] + ", " + r[1] + ", " + r[2] + ")";
      if (type == "double") return "ts_sel_f64(" + r[0] + ", " + r[1] + ", " + r[2] + ")";
      return "(" + r[0] + " ? " + r[1] + " : " + r[2] + ")";
    }
    case TypeIndex::kCast: {
      const auto* n = static_cast<const tir::CastNode*>(e.get());
      return CastValue(n->dtype, n->value->dtype, r[0]);
    }
    case TypeIndex::kBufferLoad: {
      const auto* n = static_cast<const tir::BufferLoadNode*>(e.get());
      std::string at = Buf(n->buffer.get(), "load").name + "[" +
                       JoinOffset(n->buffer.get(), n->indices, r) + "]";
      switch (n->buffer->dtype) {
        case DType::kFloat16:
          return "ts_h2f(" + at + ")";
        case DType::kBFloat16:
          return "ts_bf2f(" + at + ")";
        case DType::kBool:
          return "(" + at + " != 0)";
        default:
          return at;
      }
    }
    case TypeIndex::kIntrinsic:
      return IntrinsicValue(static_cast<const tir::IntrinsicNode*>(e.get()), r[0],
                            r.size() > 1 ? r[1] : "");
    default:
      TS_THROW(kInternal) << ctx_ << "unknown scalar expression";
  }
}

std::string KernelEmitter::BinaryValue(const BinaryNode* n, const std::string& a,
                                       const std::string& b) {
  DType operand = n->a->dtype;
  auto infix = [&](const char* op) { return "(" + a + " " + op + " " + b + ")"; };
  switch (n->op) {
    case BinaryOp::kEQ:
      return infix("==");
    case BinaryOp::kNE:
      return infix("!=");
    case BinaryOp::kLT:
      return infix("<");
    case BinaryOp::kLE:
      return infix("<=");
    case BinaryOp::kGT:
      return infix(">");
    case BinaryOp::kGE:
      return infix(">=");
    case BinaryOp::kAnd:
      return infix("&&");
    case BinaryOp::kOr:
      return infix("||");
    default:
      break;
  }
  if (IsFloat(operand)) {
    bool f64 = operand == DType::kFloat64;
    std::string sfx = f64 ? "_f64(" : "_f32(";
    switch (n->op) {
      case BinaryOp::kAdd:
        return infix("+");
      case BinaryOp::kSub:
        return infix("-");
      case BinaryOp::kMul:
        return infix("*");
      case BinaryOp::kDiv:
        return infix("/");
      case BinaryOp::kFloorDiv:
        return "ts_floordiv" + sfx + a + ", " + b + ")";
      case BinaryOp::kFloorMod:
        return "ts_floormod" + sfx + a + ", " + b + ")";
      case BinaryOp::kMin:
        return "ts_min" + sfx + a + ", " + b + ")";
      case BinaryOp::kMax:
        return "ts_max" + sfx + a + ", " + b + ")";
      default:
        break;
    }
  }
  // Integers (and bools): int64 arithmetic wrapped to the result type.
  DType out = n->dtype;
  auto wrapped = [&](const char* op) {
    return Wrap(out, "(uint64_t)(" + a + ") " + op + " (uint64_t)(" + b + ")");
  };
  const auto* divisor = n->b.as<tir::IntImmNode>();
  bool const_divisor =
      divisor && WrapToDType(operand, divisor->value) != 0 && WrapToDType(operand, divisor->value) != -1;
  std::string args = "(int64_t)(" + a + "), (int64_t)(" + b + ")";
  switch (n->op) {
    case BinaryOp::kAdd:
      return wrapped("+");
    case BinaryOp::kSub:
      return wrapped("-");
    case BinaryOp::kMul:
      return wrapped("*");
    case BinaryOp::kDiv:
      if (const_divisor) return Wrap(out, "(int64_t)(" + a + ") / (int64_t)(" + b + ")");
      return Wrap(out, "ts_div_i64(" + args + ", &ts_status)");
    case BinaryOp::kFloorDiv:
      if (const_divisor) return Wrap(out, "ts_floordiv_c(" + args + ")");
      return Wrap(out, "ts_floordiv_i64(" + args + ", &ts_status)");
    case BinaryOp::kFloorMod:
      if (const_divisor) return Wrap(out, "ts_floormod_c(" + args + ")");
      return Wrap(out, "ts_floormod_i64(" + args + ", &ts_status)");
    case BinaryOp::kMin:
      return Wrap(out, "ts_min_i64(" + args + ")");
    case BinaryOp::kMax:
      return Wrap(out, "ts_max_i64(" + args + ")");
    default:
      TS_THROW(kInternal) << ctx_ << "unknown binary operator";
  }
}

std::string KernelEmitter::IntrinsicValue(const tir::IntrinsicNode* n, const std::string& x,
                                          const std::string& y) {
  const std::string& name = n->name;
  DType arg = n->args[0]->dtype;
  if (name == "isnan") return IsFloat(arg) ? "(__builtin_isnan(" + x + ") != 0)" : "0";
  if (IsFloat(arg)) {
    std::string r = FloatIntrinsic(name, arg == DType::kFloat64, x, y);
    if (r.empty()) TS_THROW(kUnsupported) << ctx_ << "intrinsic '" << name << "' is not supported";
    return r;
  }
  // Integer arguments: exact forms where the interpreter has them, else double math.
  DType out = n->dtype;
  if (name == "abs") return Wrap(out, "ts_abs_i64((int64_t)(" + x + "))");
  if (name == "floor" || name == "ceil" || name == "round") return x;
  if (name == "fmod")
    return Wrap(out, "ts_fmod_i64((int64_t)(" + x + "), (int64_t)(" + y + "), &ts_status)");
  std::string r = FloatIntrinsic(name, true, "(double)(" + x + ")", "(double)(" + y + ")");
  if (r.empty()) TS_THROW(kUnsupported) << ctx_ << "intrinsic '" << name << "' is not supported";
  if (out == DType::kBool) return "(" + r + " != 0.0)";
  return Wrap(out, "ts_f2i(" + r + ")");
}

std::string KernelEmitter::CastValue(DType to, DType from, const std::string& x) {
  if (from == to) return x;
  switch (to) {
    case DType::kFloat32:
      return from == DType::kInt64 ? "((float)(double)(" + x + "))" : "((float)(" + x + "))";
    case DType::kFloat64:
      return "((double)(" + x + "))";
    case DType::kFloat16:
    case DType::kBFloat16: {
      std::string f = from == DType::kInt64 ? "(float)(double)(" + x + ")" : "(float)(" + x + ")";
      return std::string(to == DType::kFloat16 ? "ts_round_f16(" : "ts_round_bf16(") + f + ")";
    }
    case DType::kBool:
      return "((" + x + ") != 0)";
    default:
      if (IsFloat(from)) return Wrap(to, "ts_f2i((double)(" + x + "))");
      return Wrap(to, x);
  }
}

std::string KernelEmitter::IndexCombine(const PrimExpr& e, const std::vector<std::string>& r) {
  if (const auto* imm = e.as<tir::IntImmNode>()) return Int64Literal(WrapToDType(e->dtype, imm->value));
  if (const auto* var = e.as<tir::VarNode>()) return VarName(var);
  if (const auto* cast = e.as<tir::CastNode>(); cast && IndexCastIsExact(cast)) return r[0];
  const auto* n = e.as<BinaryNode>();
  if (!n || !IndexArithmetic(n)) return "((int64_t)" + r[0] + ")";  // r[0]: the value form
  const std::string &a = r[0], &b = r[1];
  const auto* ia = n->a.as<tir::IntImmNode>();
  const auto* ib = n->b.as<tir::IntImmNode>();
  int64_t bv = ib ? WrapToDType(n->b->dtype, ib->value) : 0;
  switch (n->op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub:
    case BinaryOp::kMul: {
      if (ia && ib) {  // fold: two C int literals could overflow int
        uint64_t x = static_cast<uint64_t>(WrapToDType(n->a->dtype, ia->value)),
                 y = static_cast<uint64_t>(bv);
        uint64_t v = n->op == BinaryOp::kAdd ? x + y : n->op == BinaryOp::kSub ? x - y : x * y;
        return Int64Literal(WrapToDType(n->dtype, static_cast<int64_t>(v)));
      }
      const char* op = n->op == BinaryOp::kAdd ? " + " : n->op == BinaryOp::kSub ? " - " : " * ";
      // An int64 operand first keeps the whole expression in int64.
      if (ia) return "((int64_t)" + a + op + b + ")";
      return "(" + a + op + b + ")";
    }
    case BinaryOp::kFloorDiv:
      return "ts_floordiv_c(" + a + ", " + b + ")";
    case BinaryOp::kFloorMod:
      return "ts_floormod_c(" + a + ", " + b + ")";
    case BinaryOp::kMin:
      return "ts_min_i64(" + a + ", " + b + ")";
    default:  // kMax
      return "ts_max_i64(" + a + ", " + b + ")";
  }
}

void KernelEmitter::CheckRank(const tir::BufferNode* buffer, const std::vector<PrimExpr>& indices) {
  if (indices.size() != buffer->shape.size())
    TS_THROW(kType) << ctx_ << "access of buffer '" << buffer->name << "' of rank "
                    << buffer->shape.size() << " with " << indices.size() << " indices";
}

std::string KernelEmitter::Offset(const tir::BufferNode* buffer,
                                  const std::vector<PrimExpr>& indices) {
  CheckRank(buffer, indices);
  std::vector<std::string> index_forms;
  for (const PrimExpr& idx : indices)
    if (!idx.as<tir::IntImmNode>()) index_forms.push_back(Index(idx));
  return JoinOffset(buffer, indices, index_forms);
}

std::string KernelEmitter::JoinOffset(const tir::BufferNode* buffer,
                                      const std::vector<PrimExpr>& indices,
                                      const std::vector<std::string>& index_forms) {
  const auto& shape = buffer->shape;
  std::string sum;
  int64_t stride = 1;
  std::vector<std::string> terms(indices.size());
  size_t next_form = index_forms.size();  // non-constant indices' forms, in order
  for (size_t d = indices.size(); d-- > 0;) {
    const auto* imm = indices[d].as<tir::IntImmNode>();
    if (imm && imm->value == 0) {
    } else if (imm) {
      terms[d] = Int64Literal(WrapToDType(indices[d]->dtype, imm->value) * stride);
    } else {
      const std::string& idx = index_forms[--next_form];
      terms[d] = stride == 1 ? idx : idx + " * " + Int64Literal(stride);
    }
    stride *= shape[d];
  }
  for (const std::string& t : terms)
    if (!t.empty()) sum += (sum.empty() ? "" : " + ") + t;
  return sum.empty() ? "0" : sum;
}

}  // namespace tessera::native::detail
