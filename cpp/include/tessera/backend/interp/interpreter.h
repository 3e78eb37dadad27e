// The reference interpreter: evaluates any module on NDArrays. It is the numerical
// ground truth that every backend and pass is checked against.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/ir/module.h"
#include "tessera/ir/tir.h"

namespace tessera {

/// A runtime value: a tensor or a tuple of values.
class Value {
 public:
  Value() = default;
  Value(NDArray tensor) : tensor_(std::move(tensor)), is_tuple_(false) {}  // NOLINT
  /// A tuple of values.
  static Value TupleOf(std::vector<Value> fields);

  bool is_tuple() const { return is_tuple_; }
  /// The tensor; throws a type error when this is a tuple.
  const NDArray& tensor() const;
  /// The fields; throws a type error when this is a tensor.
  const std::vector<Value>& fields() const;
  /// Every tensor in this value, depth first.
  std::vector<NDArray> Flatten() const;

 private:
  NDArray tensor_;
  std::vector<Value> fields_;
  bool is_tuple_ = false;
};

/// Evaluates graph function `func_name` of `mod` (types are inferred first) on `args`.
/// Calls to global functions, nested Primitive/Composite functions, ops (by their
/// reference kernels) and call_tir (by executing the PrimFunc) are all supported.
/// Argument shapes and dtypes are checked against the parameters with errors naming
/// the parameter.
Value Evaluate(const IRModule& mod, const std::string& func_name, const std::vector<Value>& args);

/// Evaluates @main with inputs given by parameter name; every parameter must be given
/// and every name must be a parameter (errors list the expected names).
Value RunMain(const IRModule& mod, const std::map<std::string, NDArray>& inputs);

/// Executes a PrimFunc on buffers (inputs then outputs, matching its params in shape
/// and dtype); writes the outputs in place. Out-of-bounds accesses throw.
void RunPrimFunc(const tir::PrimFunc& func, const std::vector<NDArray>& buffers);

}  // namespace tessera
