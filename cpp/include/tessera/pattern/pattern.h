// The DFPattern language (TVM's dataflow patterns): wildcards, op calls, constants,
// variables, tuples, alternation, attribute/type predicates and dominator patterns.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/runtime/dtype.h"
#include "tessera/ir/expr.h"
#include "tessera/ir/type.h"
#include "tessera/support/object.h"

namespace tessera {

/// What a pattern node matches.
enum class DFPatternKind {
  kWildcard,      ///< any expression
  kExpr,          ///< an expression structurally equal to `expr` (an op: that op)
  kVar,           ///< a Var, optionally with name hint `name`
  kConstant,      ///< any Constant
  kCall,          ///< a call whose callee matches `callee` and args match `operands`
  kTuple,         ///< a tuple whose fields match `operands`
  kTupleGetItem,  ///< projection `index` (-1: any) of a tuple matching operands[0]
  kAlt,           ///< operands[0] or else operands[1]
  kAttr,          ///< operands[0] with attributes `attrs` (call or function attributes)
  kType,          ///< operands[0] whose checked type equals `type`
  kShape,         ///< operands[0], a tensor of shape `shape`
  kDType,         ///< operands[0], a tensor of dtype `dtype`
  kDominator,     ///< operands {parent, path, child}: see Dominates()
};

class DFPatternNode;

/// A handle to a pattern with TVM's builder methods.
class DFPattern {
 public:
  DFPattern() = default;
  explicit DFPattern(Ref<const DFPatternNode> node) : node_(std::move(node)) {}

  /// A call of this pattern (usually IsOp) with argument patterns.
  DFPattern operator()(std::vector<DFPattern> args) const;
  /// A call of this pattern with any arguments.
  DFPattern CallAnyArgs() const;
  /// Matches this, or else `other`.
  DFPattern operator|(const DFPattern& other) const;
  /// TVM's `optional`: `*this | fn(*this)`.
  DFPattern Optional(const std::function<DFPattern(const DFPattern&)>& fn) const;
  /// This pattern with call (or function) attributes `attrs`; on an op pattern (IsOp),
  /// the key `TOpPattern` compares the op's pattern kind as an int.
  DFPattern HasAttr(Attrs attrs) const;
  /// This pattern with checked type `type`.
  DFPattern HasType(Type type) const;
  /// This pattern with tensor shape `shape`.
  DFPattern HasShape(std::vector<int64_t> shape) const;
  /// This pattern with tensor dtype `dtype`.
  DFPattern HasDType(DType dtype) const;

  /// Readable Python-like text: `is_op("nn.relu")(wildcard())`.
  std::string ToString() const;

  const DFPatternNode* get() const { return node_.get(); }
  const DFPatternNode* operator->() const { return node_.get(); }
  bool defined() const { return node_.defined(); }
  bool same_as(const DFPattern& other) const { return node_.same_as(other.node_); }

 private:
  Ref<const DFPatternNode> node_;
};

/// One pattern node. Immutable; fields not used by `kind` stay empty. Identity matters:
/// a node used twice in one pattern must match the same expression both times.
class DFPatternNode : public Object {
 public:
  DFPatternNode() : Object(TypeIndex::kOther) {}
  DFPatternKind kind = DFPatternKind::kWildcard;
  std::vector<DFPattern> operands;  ///< sub-patterns (call args, tuple fields, ...)
  Ref<const DFPatternNode> callee;  ///< kCall: the callee pattern
  bool any_args = false;            ///< kCall: args are not constrained
  Expr expr;                        ///< kExpr
  std::string name;                 ///< kVar: required name hint (empty: any)
  int index = -1;                   ///< kTupleGetItem
  Attrs attrs;                      ///< kAttr
  Type type;                        ///< kType
  std::vector<int64_t> shape;       ///< kShape
  DType dtype = DType::kFloat32;    ///< kDType
};

/// Matches any expression.
DFPattern Wildcard();
/// Matches op `name` (an unknown op is a not-found error); call it to match calls.
DFPattern IsOp(const std::string& name);
/// Matches expressions structurally equal to `expr`.
DFPattern IsExpr(Expr expr);
/// Matches any constant.
DFPattern IsConstant();
/// Matches any variable, or the one with name hint `name`.
DFPattern IsVar(std::string name = "");
/// Matches a tuple with fields matching `fields`.
DFPattern IsTuple(std::vector<DFPattern> fields);
/// Matches field `index` (-1: any field) of a tuple matching `tuple`.
DFPattern IsTupleGetItem(DFPattern tuple, int index = -1);
/// TVM's dominator pattern, matched at the consumer: the expression matches `child`,
/// each of its inputs, followed upwards, is either the one expression matching `parent`
/// or matches `path` (whose inputs are followed in turn), and the expression
/// post-dominates the parent. E.g. conv2d -> elementwise ops -> add diamonds.
DFPattern Dominates(DFPattern parent, DFPattern path, DFPattern child);

}  // namespace tessera
