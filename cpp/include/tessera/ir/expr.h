// Graph-level expressions: variables, constants, op and function calls, tuples, lets
// and functions. Nodes are immutable; build new nodes to change IR.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/ir/type.h"
#include "tessera/runtime/ndarray.h"
#include "tessera/support/object.h"

namespace tessera {

struct OpDef;

/// Base of graph-level expressions. `checked_type` is a cache filled by type
/// inference; it is derived from the node's structure and ignored by equality.
class ExprNode : public Object {
 public:
  /// The inferred type; throws an internal error when type inference has not run.
  const Type& checked_type() const;
  /// The inferred type or null.
  const Type& checked_type_or_null() const { return checked_type_; }
  /// Records the inferred type (type inference only).
  void set_checked_type(Type type) const { checked_type_ = std::move(type); }

  static constexpr TypeIndex kFirst = TypeIndex::kVar;
  static constexpr TypeIndex kLast = TypeIndex::kPrimFunc;

 protected:
  using Object::Object;

 private:
  mutable Type checked_type_;
};
/// Handle to a graph-level expression.
using Expr = Ref<const ExprNode>;

/// A local variable: a function parameter or a let binding. Identity is the node
/// itself; `name_hint` is only for printing.
class VarNode : public ExprNode {
 public:
  VarNode(std::string name_hint, Type type_annotation)
      : ExprNode(TypeIndex::kVar),
        name_hint(std::move(name_hint)),
        type_annotation(std::move(type_annotation)) {}
  std::string name_hint;
  Type type_annotation;  ///< may be null for let-bound variables
  static constexpr TypeIndex kFirst = TypeIndex::kVar;
  static constexpr TypeIndex kLast = TypeIndex::kVar;
};
using Var = Ref<const VarNode>;

/// A reference to a global function of the module, by name.
class GlobalVarNode : public ExprNode {
 public:
  explicit GlobalVarNode(std::string name)
      : ExprNode(TypeIndex::kGlobalVar), name(std::move(name)) {}
  std::string name;
  static constexpr TypeIndex kFirst = TypeIndex::kGlobalVar;
  static constexpr TypeIndex kLast = TypeIndex::kGlobalVar;
};
using GlobalVar = Ref<const GlobalVarNode>;

/// A constant tensor. The data must not be modified once the node exists.
class ConstantNode : public ExprNode {
 public:
  explicit ConstantNode(NDArray data) : ExprNode(TypeIndex::kConstant), data(std::move(data)) {}
  NDArray data;
  static constexpr TypeIndex kFirst = TypeIndex::kConstant;
  static constexpr TypeIndex kLast = TypeIndex::kConstant;
};
using Constant = Ref<const ConstantNode>;

/// A primitive operator, interned by the op registry: one node per op name.
class OpNode : public ExprNode {
 public:
  OpNode(std::string name, const OpDef* def)
      : ExprNode(TypeIndex::kOp), name(std::move(name)), def(def) {}
  std::string name;
  const OpDef* def;  ///< the registry entry; never null
  static constexpr TypeIndex kFirst = TypeIndex::kOp;
  static constexpr TypeIndex kLast = TypeIndex::kOp;
};
using Op = Ref<const OpNode>;

/// A call of an op, a global function or a function-valued expression.
/// `type_args` carries extra type arguments (call_tir's output type).
class CallNode : public ExprNode {
 public:
  CallNode(Expr callee, std::vector<Expr> args, Attrs attrs, std::vector<Type> type_args)
      : ExprNode(TypeIndex::kCall),
        callee(std::move(callee)),
        args(std::move(args)),
        attrs(std::move(attrs)),
        type_args(std::move(type_args)) {}
  Expr callee;
  std::vector<Expr> args;
  Attrs attrs;
  std::vector<Type> type_args;
  /// The callee as an op node, or nullptr.
  const OpNode* op() const { return callee.as<OpNode>(); }
  static constexpr TypeIndex kFirst = TypeIndex::kCall;
  static constexpr TypeIndex kLast = TypeIndex::kCall;
};
using Call = Ref<const CallNode>;

/// A tuple of values.
class TupleNode : public ExprNode {
 public:
  explicit TupleNode(std::vector<Expr> fields)
      : ExprNode(TypeIndex::kTuple), fields(std::move(fields)) {}
  std::vector<Expr> fields;
  static constexpr TypeIndex kFirst = TypeIndex::kTuple;
  static constexpr TypeIndex kLast = TypeIndex::kTuple;
};
using Tuple = Ref<const TupleNode>;

/// Projection of field `index` out of a tuple-valued expression.
class TupleGetItemNode : public ExprNode {
 public:
  TupleGetItemNode(Expr tuple, int index)
      : ExprNode(TypeIndex::kTupleGetItem), tuple(std::move(tuple)), index(index) {}
  Expr tuple;
  int index;
  static constexpr TypeIndex kFirst = TypeIndex::kTupleGetItem;
  static constexpr TypeIndex kLast = TypeIndex::kTupleGetItem;
};
using TupleGetItem = Ref<const TupleGetItemNode>;

/// `let var = value; body`.
class LetNode : public ExprNode {
 public:
  LetNode(Var var, Expr value, Expr body)
      : ExprNode(TypeIndex::kLet),
        var(std::move(var)),
        value(std::move(value)),
        body(std::move(body)) {}
  Var var;
  Expr value;
  Expr body;
  static constexpr TypeIndex kFirst = TypeIndex::kLet;
  static constexpr TypeIndex kLast = TypeIndex::kLet;
};
using Let = Ref<const LetNode>;

/// Base of the two kinds of functions a module holds: graph `Function`s and
/// tensor-level `PrimFunc`s (see ir/tir.h). Both carry attributes.
class BaseFuncNode : public ExprNode {
 public:
  Attrs attrs;
  static constexpr TypeIndex kFirst = TypeIndex::kFunction;
  static constexpr TypeIndex kLast = TypeIndex::kPrimFunc;

 protected:
  BaseFuncNode(TypeIndex index, Attrs attrs) : ExprNode(index), attrs(std::move(attrs)) {}
};
using BaseFunc = Ref<const BaseFuncNode>;

/// A graph-level function. Attributes are the contract between passes: `Primitive`,
/// `Composite`, `Compiler`, `global_symbol`, `SkipOptimization`.
class FunctionNode : public BaseFuncNode {
 public:
  FunctionNode(std::vector<Var> params, Expr body, Type ret_type, Attrs attrs)
      : BaseFuncNode(TypeIndex::kFunction, std::move(attrs)),
        params(std::move(params)),
        body(std::move(body)),
        ret_type(std::move(ret_type)) {}
  std::vector<Var> params;
  Expr body;
  Type ret_type;  ///< declared result type; may be null until type inference
  static constexpr TypeIndex kFirst = TypeIndex::kFunction;
  static constexpr TypeIndex kLast = TypeIndex::kFunction;
};
using Function = Ref<const FunctionNode>;

/// Well-known attribute names.
namespace attr {
inline constexpr const char* kPrimitive = "Primitive";
inline constexpr const char* kComposite = "Composite";
inline constexpr const char* kCompiler = "Compiler";
inline constexpr const char* kGlobalSymbol = "global_symbol";
inline constexpr const char* kSkipOptimization = "SkipOptimization";
/// A PrimFunc attr (an int): the kernel only concatenates its inputs, in order, along this
/// axis, so an executable may place the inputs in the output instead of running it. A
/// promise about the body: a pass that rewrites the body or its buffers drops it.
inline constexpr const char* kConcatAxis = "concat_axis";
/// A call attribute (not a function's) that every op accepts: see IsFrozenLayout (ir/op.h).
inline constexpr const char* kFrozenLayout = "frozen_layout";
}  // namespace attr

// ---- Builders -------------------------------------------------------------------

/// A fresh variable.
Var MakeVar(std::string name_hint, Type type_annotation = nullptr);
/// A global function reference.
GlobalVar MakeGlobalVar(std::string name);
/// A constant holding `data`.
Constant MakeConstant(NDArray data);
/// A call of a function-valued expression or global (no attribute normalisation).
Call MakeCall(Expr callee, std::vector<Expr> args, Attrs attrs = {},
              std::vector<Type> type_args = {});
/// A tuple.
Tuple MakeTuple(std::vector<Expr> fields);
/// A tuple projection.
TupleGetItem MakeTupleGetItem(Expr tuple, int index);
/// A let binding.
Let MakeLet(Var var, Expr value, Expr body);
/// A function.
Function MakeFunction(std::vector<Var> params, Expr body, Type ret_type = nullptr,
                      Attrs attrs = {});
/// A copy of `func` with attribute `key` set.
Function WithAttr(const Function& func, const std::string& key, AttrValue value);
/// The integer value of function attribute `key` (0 when absent), e.g. Primitive.
int64_t GetIntAttr(const BaseFuncNode* func, const char* key);

}  // namespace tessera
