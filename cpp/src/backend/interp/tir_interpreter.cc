// The tensor-IR interpreter: executes a PrimFunc statement by statement on NDArrays.
#include "tir_interpreter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tessera/backend/interp/interpreter.h"
#include "tessera/support/error.h"

namespace tessera {
namespace interp {
namespace {

using tir::AllocateNode;
using tir::BinaryNode;
using tir::BinaryOp;
using tir::BlockNode;
using tir::Buffer;
using tir::BufferLoadNode;
using tir::BufferNode;
using tir::BufferStoreNode;
using tir::CastNode;
using tir::FloatImmNode;
using tir::ForNode;
using tir::IfThenElseNode;
using tir::IntImmNode;
using tir::IntrinsicNode;
using tir::IterKind;
using tir::IterVar;
using tir::NotNode;
using tir::PrimExpr;
using tir::PrimFuncNode;
using tir::SelectNode;
using tir::SeqStmtNode;
using tir::Stmt;
using tir::VarNode;

/// A scalar at run time: integers and bools as int64, floats as double.
struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
  bool AsBool() const { return is_float ? f != 0.0 : i != 0; }
};

Scalar Int(int64_t v) {
  return {false, v, 0.0};
}
Scalar Float(double v) {
  return {true, 0, v};
}

/// Float to integer conversion: truncation toward zero, saturating, NaN to 0 (the
/// same rule as NDArray::SetFloat).
int64_t TruncToInt(double v) {
  if (!std::isfinite(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

Scalar CastTo(DType dtype, const Scalar& s) {
  if (IsFloat(dtype)) return Float(RoundToDType(dtype, s.AsDouble()));
  if (dtype == DType::kBool) return Int(s.AsBool());
  return Int(WrapToDType(dtype, s.is_float ? TruncToInt(s.f) : s.i));
}

int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

std::string IndexString(const std::vector<int64_t>& idx) {
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

class PrimFuncRunner {
 public:
  PrimFuncRunner(const std::string& name, const PrimFuncNode* func)
      : ctx_("in PrimFunc @" + name + ": "), func_(func) {}

  void Run(const std::vector<NDArray>& buffers) {
    const auto& params = func_->params;
    if (buffers.size() != params.size()) {
      std::string names;
      for (size_t i = 0; i < params.size(); ++i) names += (i ? ", " : "") + params[i]->name;
      TS_THROW(kValue) << ctx_ << "takes " << params.size() << " buffer(s) (" << names << ") but "
                       << buffers.size() << " were given";
    }
    size_t num_inputs = params.size() - func_->num_outputs;
    for (size_t i = 0; i < params.size(); ++i) {
      const BufferNode* b = params[i].get();
      const NDArray& arr = buffers[i];
      if (!arr.defined() && ShapeNumElements(b->shape) != 0)
        TS_THROW(kValue) << ctx_ << "buffer param '" << b->name << "' was given an undefined array";
      if (arr.shape() != b->shape || arr.dtype() != b->dtype)
        TS_THROW(kType) << ctx_ << "buffer param '" << b->name << "': expected "
                        << DTypeName(b->dtype) << ShapeToString(b->shape) << " but got "
                        << arr.Describe();
      buffers_[b] = arr;
      if (i < num_inputs) inputs_.insert(b);
    }
    if (func_->body.defined()) Exec(func_->body);
  }

 private:
  Scalar Eval(const PrimExpr& e);
  Scalar EvalBinary(const BinaryNode* n);
  Scalar EvalIntrinsic(const IntrinsicNode* n);
  void Exec(const Stmt& s);
  void ExecBlock(const BlockNode* b);
  int64_t EvalInt(const PrimExpr& e, const char* what) {
    Scalar s = Eval(e);
    if (s.is_float) TS_THROW(kType) << ctx_ << what << " is a float";
    return s.i;
  }
  /// The array behind `buffer` and the row-major offset of `indices`, bounds-checked.
  std::pair<const NDArray*, int64_t> Locate(const Buffer& buffer,
                                            const std::vector<PrimExpr>& indices,
                                            const char* access);

  std::string ctx_;
  const PrimFuncNode* func_;
  std::unordered_map<const VarNode*, Scalar> vars_;
  std::unordered_map<const BufferNode*, NDArray> buffers_;
  std::unordered_set<const BufferNode*> inputs_;
};

std::pair<const NDArray*, int64_t> PrimFuncRunner::Locate(const Buffer& buffer,
                                                          const std::vector<PrimExpr>& indices,
                                                          const char* access) {
  auto it = buffers_.find(buffer.get());
  if (it == buffers_.end())
    TS_THROW(kValue) << ctx_ << access << " of buffer '" << buffer->name
                     << "', which is neither a parameter nor allocated here";
  const auto& shape = buffer->shape;
  if (indices.size() != shape.size())
    TS_THROW(kType) << ctx_ << access << " of buffer '" << buffer->name << "' of rank "
                    << shape.size() << " with " << indices.size() << " indices";
  std::vector<int64_t> idx(indices.size());
  int64_t flat = 0;
  bool in_bounds = true;
  for (size_t d = 0; d < indices.size(); ++d) {
    idx[d] = EvalInt(indices[d], "a buffer index");
    in_bounds = in_bounds && idx[d] >= 0 && idx[d] < shape[d];
    flat = flat * shape[d] + idx[d];
  }
  if (!in_bounds)
    TS_THROW(kValue) << ctx_ << access << " " << buffer->name << IndexString(idx)
                     << " is out of bounds for buffer '" << buffer->name << "' of shape "
                     << ShapeToString(shape);
  return {&it->second, flat};
}

Scalar PrimFuncRunner::Eval(const PrimExpr& e) {
  switch (e->type_index()) {
    case TypeIndex::kIntImm:
      return Int(WrapToDType(e->dtype, static_cast<const IntImmNode*>(e.get())->value));
    case TypeIndex::kFloatImm:
      return Float(RoundToDType(e->dtype, static_cast<const FloatImmNode*>(e.get())->value));
    case TypeIndex::kTirVar: {
      auto it = vars_.find(static_cast<const VarNode*>(e.get()));
      if (it == vars_.end())
        TS_THROW(kValue) << ctx_ << "variable '" << static_cast<const VarNode*>(e.get())->name
                         << "' is used outside the loop or block that binds it";
      return it->second;
    }
    case TypeIndex::kBinary:
      return EvalBinary(static_cast<const BinaryNode*>(e.get()));
    case TypeIndex::kNot:
      return Int(!Eval(static_cast<const NotNode*>(e.get())->a).AsBool());
    case TypeIndex::kSelect: {
      // Only the chosen side runs, so a guarded out-of-bounds load is never executed.
      const auto* n = static_cast<const SelectNode*>(e.get());
      return Eval(Eval(n->cond).AsBool() ? n->true_value : n->false_value);
    }
    case TypeIndex::kCast: {
      const auto* n = static_cast<const CastNode*>(e.get());
      return CastTo(n->dtype, Eval(n->value));
    }
    case TypeIndex::kBufferLoad: {
      const auto* n = static_cast<const BufferLoadNode*>(e.get());
      auto [arr, flat] = Locate(n->buffer, n->indices, "load");
      if (IsFloat(arr->dtype())) return Float(arr->GetFloat(flat));
      return Int(arr->GetInt(flat));
    }
    case TypeIndex::kIntrinsic:
      return EvalIntrinsic(static_cast<const IntrinsicNode*>(e.get()));
    default:
      TS_THROW(kInternal) << ctx_ << "unknown scalar expression";
  }
}

Scalar PrimFuncRunner::EvalBinary(const BinaryNode* n) {
  Scalar a = Eval(n->a), b = Eval(n->b);
  DType operand = n->a->dtype;
  if (IsFloat(operand)) {
    double x = a.AsDouble(), y = b.AsDouble();
    switch (n->op) {
      case BinaryOp::kAdd:
        return Float(x + y);
      case BinaryOp::kSub:
        return Float(x - y);
      case BinaryOp::kMul:
        return Float(x * y);
      case BinaryOp::kDiv:
        return Float(x / y);
      case BinaryOp::kFloorDiv:
        return Float(std::floor(x / y));
      case BinaryOp::kFloorMod:
        return Float(x - std::floor(x / y) * y);
      case BinaryOp::kMin:
        return Float(std::min(x, y));
      case BinaryOp::kMax:
        return Float(std::max(x, y));
      case BinaryOp::kEQ:
        return Int(x == y);
      case BinaryOp::kNE:
        return Int(x != y);
      case BinaryOp::kLT:
        return Int(x < y);
      case BinaryOp::kLE:
        return Int(x <= y);
      case BinaryOp::kGT:
        return Int(x > y);
      case BinaryOp::kGE:
        return Int(x >= y);
      case BinaryOp::kAnd:
        return Int(x != 0 && y != 0);
      case BinaryOp::kOr:
        return Int(x != 0 || y != 0);
    }
  }
  int64_t x = a.is_float ? TruncToInt(a.f) : a.i, y = b.is_float ? TruncToInt(b.f) : b.i;
  auto check_zero = [&] {
    if (y == 0)
      TS_THROW(kValue) << ctx_ << "integer division by zero in '" << BinaryOpName(n->op) << "' ("
                       << x << " " << BinaryOpName(n->op) << " 0)";
  };
  DType out = n->dtype;
  switch (n->op) {
    case BinaryOp::kAdd:
      return Int(WrapToDType(out, WrapAdd(x, y)));
    case BinaryOp::kSub:
      return Int(WrapToDType(out, WrapSub(x, y)));
    case BinaryOp::kMul:
      return Int(WrapToDType(out, WrapMul(x, y)));
    case BinaryOp::kDiv:
      check_zero();
      return Int(WrapToDType(out, y == -1 ? WrapSub(0, x) : x / y));
    case BinaryOp::kFloorDiv: {
      check_zero();
      if (y == -1) return Int(WrapToDType(out, WrapSub(0, x)));
      int64_t q = x / y;
      if (x % y != 0 && ((x < 0) != (y < 0))) --q;
      return Int(WrapToDType(out, q));
    }
    case BinaryOp::kFloorMod: {
      check_zero();
      if (y == -1) return Int(0);
      int64_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) r += y;
      return Int(WrapToDType(out, r));
    }
    case BinaryOp::kMin:
      return Int(std::min(x, y));
    case BinaryOp::kMax:
      return Int(std::max(x, y));
    case BinaryOp::kEQ:
      return Int(x == y);
    case BinaryOp::kNE:
      return Int(x != y);
    case BinaryOp::kLT:
      return Int(x < y);
    case BinaryOp::kLE:
      return Int(x <= y);
    case BinaryOp::kGT:
      return Int(x > y);
    case BinaryOp::kGE:
      return Int(x >= y);
    case BinaryOp::kAnd:
      return Int(x != 0 && y != 0);
    case BinaryOp::kOr:
      return Int(x != 0 || y != 0);
  }
  TS_THROW(kInternal) << ctx_ << "unknown binary operator";
}

Scalar PrimFuncRunner::EvalIntrinsic(const IntrinsicNode* n) {
  const std::string& name = n->name;
  std::vector<Scalar> args;
  args.reserve(n->args.size());
  for (const PrimExpr& a : n->args) args.push_back(Eval(a));
  if (args.empty()) TS_THROW(kType) << ctx_ << "intrinsic '" << name << "' without arguments";
  bool int_arg = !IsFloat(n->args[0]->dtype);
  if (name == "isnan") return Int(!args[0].is_float ? 0 : std::isnan(args[0].f));
  if (int_arg) {
    // Exact integer forms where they exist; otherwise compute in double and truncate.
    int64_t x = args[0].i;
    if (name == "abs") return Int(WrapToDType(n->dtype, x < 0 ? WrapSub(0, x) : x));
    if (name == "floor" || name == "ceil" || name == "round") return Int(x);
    if (name == "fmod") {
      int64_t y = args[1].i;
      if (y == 0) TS_THROW(kValue) << ctx_ << "integer division by zero in 'fmod'";
      return Int(y == -1 ? 0 : x % y);
    }
  }
  double x = args[0].AsDouble();
  double r;
  if (name == "exp")
    r = std::exp(x);
  else if (name == "log")
    r = std::log(x);
  else if (name == "sqrt")
    r = std::sqrt(x);
  else if (name == "rsqrt")
    r = 1.0 / std::sqrt(x);
  else if (name == "tanh")
    r = std::tanh(x);
  else if (name == "erf")
    r = std::erf(x);
  else if (name == "sigmoid")
    r = 1.0 / (1.0 + std::exp(-x));
  else if (name == "abs")
    r = std::fabs(x);
  else if (name == "floor")
    r = std::floor(x);
  else if (name == "ceil")
    r = std::ceil(x);
  else if (name == "round")
    r = std::nearbyint(x);  // half to even, as NumPy and TVM
  else if (name == "sin")
    r = std::sin(x);
  else if (name == "cos")
    r = std::cos(x);
  else if (name == "pow")
    r = std::pow(x, args.at(1).AsDouble());
  else if (name == "fmod")
    r = std::fmod(x, args.at(1).AsDouble());
  else
    TS_THROW(kUnsupported) << ctx_ << "intrinsic '" << name << "' is not supported";
  return IsFloat(n->dtype) ? Float(r) : CastTo(n->dtype, Float(r));
}

/// Binds a scalar variable for a scope and restores the previous binding afterwards.
class ScopedVar {
 public:
  ScopedVar(std::unordered_map<const VarNode*, Scalar>& vars, const VarNode* var, Scalar value)
      : vars_(vars), var_(var) {
    auto it = vars_.find(var);
    if (it != vars_.end()) {
      had_ = true;
      old_ = it->second;
      it->second = value;
    } else {
      vars_.emplace(var, value);
    }
  }
  ~ScopedVar() {
    if (had_)
      vars_[var_] = old_;
    else
      vars_.erase(var_);
  }
  ScopedVar(const ScopedVar&) = delete;
  ScopedVar& operator=(const ScopedVar&) = delete;

 private:
  std::unordered_map<const VarNode*, Scalar>& vars_;
  const VarNode* var_;
  bool had_ = false;
  Scalar old_;
};

void PrimFuncRunner::Exec(const Stmt& s) {
  switch (s->type_index()) {
    case TypeIndex::kSeqStmt:
      for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->seq) Exec(c);
      return;
    case TypeIndex::kFor: {
      // Every loop kind runs serially: parallel and vectorized are schedule hints.
      const auto* n = static_cast<const ForNode*>(s.get());
      int64_t min = EvalInt(n->min, "a loop bound");
      int64_t extent = EvalInt(n->extent, "a loop extent");
      ScopedVar bind(vars_, n->loop_var.get(), Int(min));
      Scalar& slot = vars_[n->loop_var.get()];
      for (int64_t i = 0; i < extent; ++i) {
        slot = Int(min + i);
        Exec(n->body);
      }
      return;
    }
    case TypeIndex::kBlock:
      ExecBlock(static_cast<const BlockNode*>(s.get()));
      return;
    case TypeIndex::kBufferStore: {
      const auto* n = static_cast<const BufferStoreNode*>(s.get());
      Scalar v = Eval(n->value);
      if (inputs_.count(n->buffer.get()))
        TS_THROW(kValue) << ctx_ << "store into input buffer '" << n->buffer->name
                         << "'; PrimFuncs may only write their outputs and allocations";
      auto [arr, flat] = Locate(n->buffer, n->indices, "store");
      if (IsFloat(arr->dtype()))
        arr->SetFloat(flat, v.AsDouble());
      else
        arr->SetInt(flat, CastTo(arr->dtype(), v).i);
      return;
    }
    case TypeIndex::kAllocate: {
      const auto* n = static_cast<const AllocateNode*>(s.get());
      const BufferNode* b = n->buffer.get();
      NDArray previous;
      auto it = buffers_.find(b);
      bool shadowed = it != buffers_.end();
      if (shadowed) previous = it->second;
      NDArray fresh = NDArray::Zeros(b->shape, b->dtype);
      if (!n->zero_fill) {
        // Undefined until written: NaN (or a fixed pattern) makes a kernel that reads it
        // first differ from the generated code's results instead of passing by luck.
        for (int64_t k = 0, count = fresh.NumElements(); k < count; ++k) {
          if (IsFloat(b->dtype))
            fresh.SetFloat(k, std::numeric_limits<double>::quiet_NaN());
          else
            fresh.SetInt(k, 0x5A);
        }
      }
      buffers_[b] = fresh;
      bool was_input = inputs_.erase(b) > 0;
      Exec(n->body);
      if (shadowed) {
        buffers_[b] = previous;
        if (was_input) inputs_.insert(b);
      } else {
        buffers_.erase(b);
      }
      return;
    }
    case TypeIndex::kPrefetch:
      return;  // a cache hint: nothing to compute
    case TypeIndex::kIfThenElse: {
      const auto* n = static_cast<const IfThenElseNode*>(s.get());
      if (Eval(n->cond).AsBool())
        Exec(n->then_case);
      else if (n->else_case.defined())
        Exec(n->else_case);
      return;
    }
    default:
      TS_THROW(kInternal) << ctx_ << "unknown statement";
  }
}

void PrimFuncRunner::ExecBlock(const BlockNode* b) {
  // Bindings are evaluated before any iter var is bound: they read the outer loops.
  std::vector<int64_t> values(b->iter_vars.size());
  bool at_reduce_start = true;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    values[i] = EvalInt(iv.binding, "a block binding");
    int64_t min = EvalInt(iv.dom.min, "a block domain");
    int64_t extent = EvalInt(iv.dom.extent, "a block domain");
    if (values[i] < min || values[i] >= min + extent)
      TS_THROW(kValue) << ctx_ << "block '" << b->name << "': iter var '" << iv.var->name
                       << "' is bound to " << values[i] << ", outside its domain [" << min << ", "
                       << min + extent << ")";
    if (iv.kind == IterKind::kReduce && values[i] != min) at_reduce_start = false;
  }
  std::vector<std::unique_ptr<ScopedVar>> scope;
  scope.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    scope.push_back(std::make_unique<ScopedVar>(vars_, b->iter_vars[i].var.get(), Int(values[i])));
  if (b->init.defined() && at_reduce_start) Exec(b->init);
  Exec(b->body);
  while (!scope.empty()) scope.pop_back();  // unbind innermost first
}

}  // namespace

void RunPrimFuncNamed(const std::string& name, const PrimFuncNode* func,
                      const std::vector<NDArray>& buffers) {
  TS_ICHECK(func) << "RunPrimFunc on a null PrimFunc";
  PrimFuncRunner(name, func).Run(buffers);
}

}  // namespace interp

void RunPrimFunc(const tir::PrimFunc& func, const std::vector<NDArray>& buffers) {
  if (!func.defined()) TS_THROW(kValue) << "RunPrimFunc: null PrimFunc";
  std::string name = "<anonymous>";
  if (const AttrValue* sym = func->attrs.Find(attr::kGlobalSymbol); sym && sym->is_string())
    name = sym->AsString();
  interp::RunPrimFuncNamed(name, func.get(), buffers);
}

}  // namespace tessera
