// What an op is and the registry of ops: per op its inputs, attribute schema, type
// relation, pattern kind (read by FuseOps and Collage) and reference kernel (run by the
// interpreter). The op definitions themselves live in the op layer (cpp/src/op/).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/expr.h"

namespace tessera {

/// How an op composes under fusion (TVM's OpPatternKind, same order and meaning).
enum class OpPatternKind {
  kElemwise = 0,         ///< out[i] depends on in[i] of same-shaped inputs
  kBroadcast = 1,        ///< elementwise after broadcasting
  kInjective = 2,        ///< each output element reads inputs at computable positions
  kCommReduce = 3,       ///< commutative reduction
  kOutEWiseFusable = 4,  ///< conv2d/dense-like: elementwise epilogues may fuse in
  kTuple = 7,            ///< tuple construction
  kOpaque = 8,           ///< fuses with nothing
};
/// "elemwise", "broadcast", "injective", "comm_reduce", "out_elemwise_fusable", "tuple", "opaque".
const char* OpPatternKindName(OpPatternKind kind);

/// The value kinds an attribute accepts. Validation coerces ints to floats where a
/// float is expected and a single int to a one-element array where an array is.
enum class AttrType {
  kInt,
  kFloat,
  kBool,
  kString,
  kIntArray,          ///< [1, 2]
  kNestedIntArray,    ///< [[0, 0], [1, 1]]
  kOptionalInt,       ///< int or None
  kOptionalIntArray,  ///< int array or None
  kIntOrIntArray,     ///< an int or an int array, kept as given (split's indices_or_sections)
  kOptionalFloat,     ///< number or None
};

/// One attribute of an op: name, accepted kind, default (None means "required" for
/// kinds that are not optional) and a one-line description.
struct AttrField {
  std::string name;
  AttrType type;
  AttrValue default_value;
  std::string description;
};

/// Infers the result type of a call from its argument types (tuple-typed arguments
/// arrive as TupleTypes), normalised attributes and type arguments. Throws a type
/// error describing the mismatch; the caller prefixes the op name.
using TypeRelation = std::function<Type(const std::vector<Type>& arg_types, const Attrs& attrs,
                                        const std::vector<Type>& type_args)>;

/// Evaluates the op on concrete tensors. Tuple-typed arguments arrive flattened into
/// `inputs`; a tuple result is returned as one array per field. `out_type` is the
/// inferred result type, so kernels need not re-derive shapes.
using ReferenceKernel = std::function<std::vector<NDArray>(
    const std::vector<NDArray>& inputs, const Attrs& attrs, const Type& out_type)>;

/// Canonicalises already-validated attributes (e.g. padding [1, 1] -> [1, 1, 1, 1]) so
/// that equal programs have one form; throws a value error for invalid values.
using AttrNormalizer = std::function<void(Attrs& attrs)>;

/// Everything Tessera knows about one op. Backends attach their own predicates and
/// patterns elsewhere; nothing backend-specific lives here.
struct OpDef {
  std::string name;
  std::string description;
  std::vector<std::string> inputs;  ///< input names; the arity unless `variadic`
  bool variadic = false;            ///< accepts any number >= inputs.size() of inputs
  std::vector<AttrField> attrs;     ///< schema, in printing order
  OpPatternKind pattern = OpPatternKind::kOpaque;
  TypeRelation type_rel;
  ReferenceKernel kernel;
  AttrNormalizer normalize;  ///< optional
};

/// The global table of ops, filled on first use by explicit registration functions
/// (no static constructors).
class OpRegistry {
 public:
  /// The process-wide registry with every built-in op registered.
  static OpRegistry& Global();
  /// Adds an op; throws an internal error when the name is taken.
  void Register(OpDef def);
  /// The op named `name`, or nullptr.
  const OpDef* Find(std::string_view name) const;
  /// The op named `name`; throws a not-found error ("unknown op 'x'") otherwise.
  const OpDef& Get(std::string_view name) const;
  /// The interned Op expression for `name` (one node per op).
  Op GetOp(std::string_view name) const;
  /// Names of all ops, sorted.
  std::vector<std::string> ListOps() const;

 private:
  OpRegistry() = default;
  struct Entry {
    OpDef def;
    Op op;
  };
  std::vector<std::unique_ptr<Entry>> entries_;  // stable addresses for OpNode::def
};

/// Registers every built-in op; defined by the top-level wiring
/// (cpp/src/registry/builtins.cc) and called once by OpRegistry::Global().
void RegisterBuiltinOps(OpRegistry& registry);

/// The interned Op for `name`; throws for an unknown op.
Op GetOp(std::string_view name);

/// Validates `given` against `def`'s schema and returns the full, normalised attribute
/// list in schema order (defaults filled in), then `frozen_layout=True` when given so. Unknown names, wrong kinds and missing
/// required attributes throw a value error naming the op and the attribute.
Attrs NormalizeOpAttrs(const OpDef& def, const Attrs& given);

/// Whether `call` carries `frozen_layout=True` (attr::kFrozenLayout): an op call whose
/// operand and result layouts layout planning must leave as they are. Every op accepts the
/// attribute; NormalizeOpAttrs keeps it only when true.
bool IsFrozenLayout(const Call& call);

/// Builds a call of op `name` after checking arity and normalising attributes.
Call MakeOpCall(std::string_view name, std::vector<Expr> args, const Attrs& attrs = {},
                std::vector<Type> type_args = {});

/// The canonical name of the destination-passing call into a PrimFunc:
/// `call_tir(@f, (args...), out_type)`.
inline constexpr const char* kCallTirOp = "call_tir";

}  // namespace tessera
