// Internals of the ONNX importer shared by the graph walker and the op converters:
// the conversion context (typed values, constant folding) and node-attribute access.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "tessera/ir/expr.h"
#include "tessera/ir/type.h"
#include "tessera/runtime/ndarray.h"

namespace tessera {
namespace frontend {
namespace onnx_detail {

/// Converts an ONNX TensorProto (initializer or Constant value) to an NDArray; throws
/// an unsupported error for element types Tessera has no dtype for.
NDArray TensorFromProto(const onnx::TensorProto& tensor, const std::string& what);
/// The Tessera dtype of an ONNX TensorProto element type, or nullopt.
std::optional<DType> DTypeFromOnnx(int32_t elem_type);

/// Reads a node's attributes and remembers which ones a converter looked at, so that
/// attributes no converter understood are reported instead of silently ignored.
class NodeAttrs {
 public:
  explicit NodeAttrs(const onnx::NodeProto& node);
  /// True when the node carries attribute `name` (marks it as read).
  bool Has(const std::string& name);
  int64_t Int(const std::string& name, int64_t def);
  double Float(const std::string& name, double def);
  std::string String(const std::string& name, const std::string& def);
  std::vector<int64_t> Ints(const std::string& name, const std::vector<int64_t>& def = {});
  std::vector<float> Floats(const std::string& name);
  const onnx::TensorProto* Tensor(const std::string& name);
  /// Names of attributes present but never read, in node order.
  std::vector<std::string> Unread() const;
  /// Throws an unsupported error naming attribute `name` and why.
  [[noreturn]] void Reject(const std::string& name, const std::string& why) const;

 private:
  const onnx::AttributeProto* Find(const std::string& name);
  const onnx::NodeProto& node_;
  std::set<std::string> read_;
};

/// The state of one import: ONNX value names to typed Tessera expressions.
class Context {
 public:
  explicit Context(int64_t opset) : opset(opset) {}
  int64_t opset;  ///< the default-domain opset of the model

  /// Input `i` of `node`; throws a parse error when it is absent or undefined.
  Expr Input(const onnx::NodeProto& node, int i) const;
  /// True when input `i` exists and is not the empty name (an omitted optional input).
  bool HasInput(const onnx::NodeProto& node, int i) const;
  /// Binds an ONNX value name.
  void Bind(const std::string& name, Expr value);
  /// The bound expression for `name`, or null.
  Expr Lookup(const std::string& name) const;

  /// The (checked) tensor type of a value produced by this context.
  const TensorTypeNode* TypeOf(const Expr& e) const;
  std::vector<int64_t> ShapeOf(const Expr& e) const { return TypeOf(e)->shape; }
  DType DTypeOf(const Expr& e) const { return TypeOf(e)->dtype; }
  int64_t RankOf(const Expr& e) const { return static_cast<int64_t>(TypeOf(e)->shape.size()); }

  /// The data of `e` when it is a constant.
  std::optional<NDArray> ConstValue(const Expr& e) const;
  /// The integer elements of constant `e`; throws an unsupported error naming `what`
  /// when `e` is computed at run time.
  std::vector<int64_t> ConstInts(const Expr& e, const std::string& what) const;
  /// A typed constant.
  Expr Const(NDArray data) const;
  /// A scalar constant of `dtype`.
  Expr Scalar(double value, DType dtype) const;

  /// Calls op `name`, infers its type with the op's type relation and folds it to a
  /// constant when every argument is constant. Tuple-typed results come back as a
  /// Tuple of the fields (folded) or the call itself.
  Expr Emit(const std::string& name, std::vector<Expr> args, Attrs attrs = {});
  /// Field `i` of a tuple-typed value.
  Expr Field(const Expr& tuple, int i);
  /// `x` reshaped to `shape` (no-op when the shape already matches).
  Expr Reshape(const Expr& x, const std::vector<int64_t>& shape);
  /// `x` cast to `dtype` (no-op when it already has it).
  Expr Cast(const Expr& x, DType dtype);

 private:
  std::map<std::string, Expr> values_;
};

/// Converts one node; returns one expression per node output (null for an output the
/// converter does not produce, which is an error only when the graph uses it).
using Converter =
    std::function<std::vector<Expr>(Context& ctx, const onnx::NodeProto& node, NodeAttrs& attrs)>;
/// Op type -> converter, for the default ONNX domain.
using ConverterTable = std::map<std::string, Converter>;

void RegisterMathConverters(ConverterTable& table);
void RegisterNNConverters(ConverterTable& table);
void RegisterShapeConverters(ConverterTable& table);

/// Normalises an axis in [-rank, rank) to [0, rank); throws a value error otherwise.
int64_t NormAxis(int64_t axis, int64_t rank, const std::string& what);

}  // namespace onnx_detail
}  // namespace frontend
}  // namespace tessera
