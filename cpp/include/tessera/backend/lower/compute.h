// Compute definitions: the TE-like vocabulary (lazily indexed tensors, reductions) that
// per-op rules use to describe an op in tensor IR, and the registry of those rules.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/tir.h"

namespace tessera::lower {

/// Index expressions, one per dimension.
using Indices = std::vector<tir::PrimExpr>;

/// A tensor whose element at `indices` is a scalar expression: an inlined producer or a
/// load from a buffer. Building one emits no statements.
struct TensorExpr {
  std::vector<int64_t> shape;
  DType dtype = DType::kFloat32;
  std::function<tir::PrimExpr(const Indices& indices)> at;
  /// How many ops are inlined into `at` (0 for a buffer load); the function lowering
  /// materialises deeper chains so expressions stay shallow.
  int depth = 0;
  /// Set when this tensor is exactly a constant's data (read from a kernel input), so a
  /// template may transform it at compile time (e.g. pre-pack conv2d weights).
  NDArray constant{};
};

/// A tensor reading `buffer` at the given indices.
TensorExpr FromBuffer(const tir::Buffer& buffer);
/// A tensor of `shape` whose every element is `value`.
TensorExpr Broadcast(tir::PrimExpr value, std::vector<int64_t> shape);

class LowerContext;

/// Emits a whole reduction nest itself (a tuned template) writing `dest`; `epilogue`
/// (null when there is none) gives the final value of element `i` and reads dest only at
/// `i`, so it must run once per element after that element's reduction is complete.
using NestEmitter =
    std::function<tir::Stmt(LowerContext& ctx, const tir::Buffer& dest,
                            const std::function<tir::PrimExpr(const Indices& i)>& epilogue)>;

/// One reduction: out[i] = finalize(fold of update over the reduce domain, i). Conv2d,
/// dense, pooling and the reduce ops are all of this form.
struct ReduceSpec {
  std::vector<int64_t> shape;           ///< spatial (output) shape
  DType dtype = DType::kFloat32;        ///< accumulator and result dtype
  std::vector<int64_t> reduce_extents;  ///< one reduce iter var per entry
  tir::PrimExpr init;                   ///< accumulator start value
  /// The new accumulator value from the old one, spatial indices and reduce indices.
  std::function<tir::PrimExpr(const tir::PrimExpr& acc, const Indices& i, const Indices& r)> update;
  /// Optional guard: the update runs only where it is true (padding, ragged windows).
  std::function<tir::PrimExpr(const Indices& i, const Indices& r)> predicate;
  /// Optional: the result from the final accumulator (mean, average pooling).
  std::function<tir::PrimExpr(const tir::PrimExpr& acc, const Indices& i)> finalize;
  /// Optional: a scheduled template (the blocked GEMM, the direct conv) emitting the nest
  /// instead of the default one; it may emit preparation statements (packing) first. The
  /// other fields still describe the reduction; used only when finalize is unset.
  NestEmitter emit_nest;
};

/// Collects the statements and scratch buffers of the PrimFunc being built.
class LowerContext {
 public:
  LowerContext();
  ~LowerContext();
  LowerContext(const LowerContext&) = delete;
  LowerContext& operator=(const LowerContext&) = delete;

  /// A new scratch buffer (allocated for the whole function body), named uniquely. Pass
  /// `zero_fill` false only when the body writes every element before reading it.
  tir::Buffer AllocScratch(const std::string& name, std::vector<int64_t> shape, DType dtype,
                           bool zero_fill = true);
  /// Appends a statement to the function body.
  void Emit(tir::Stmt stmt);
  /// Emits a block nest writing `value` into `buffer` (same shape) and returns nothing.
  void StoreInto(const TensorExpr& value, const tir::Buffer& buffer, const std::string& name);
  /// Writes `value` into a new scratch buffer and returns a tensor loading from it.
  TensorExpr Materialize(const TensorExpr& value, const std::string& name);
  /// Emits the reduction now into a new scratch buffer and returns a tensor loading it.
  TensorExpr ReduceNow(const ReduceSpec& spec, const std::string& name);
  /// Records a reduction whose destination and elementwise epilogue the caller (the
  /// lowering of a Primitive function) decides later; returns a stand-in tensor.
  TensorExpr Reduce(ReduceSpec spec, const std::string& name);

  /// A new constant kernel input holding `data` (computed at compile time, e.g. packed
  /// weights); the function lowering appends it to the kernel's constants.
  tir::Buffer AddConstant(const std::string& name, NDArray data);
  /// Internal: the constants added so far, in order (cleared).
  std::vector<std::pair<tir::Buffer, NDArray>> TakeConstants();

  /// A unique buffer name with prefix `base`.
  std::string FreshName(const std::string& base);
  /// A unique block name with prefix `base`.
  std::string FreshBlockName(const std::string& base);

  /// Internal: pending reductions handed to the function lowering.
  struct Pending;
  std::vector<std::shared_ptr<Pending>> TakePending();
  /// Emits pending reduction `p` into `dest`, applying `epilogue` (which reads the
  /// stand-in only at its own index) to every element once its reduction is done.
  void EmitPending(const std::shared_ptr<Pending>& p, const TensorExpr& epilogue,
                   const tir::Buffer& dest);
  /// The stand-in buffer of a pending reduction.
  static tir::Buffer StandInOf(const std::shared_ptr<Pending>& p);

  /// The statements emitted so far wrapped in the scratch allocations.
  tir::Stmt Finish();

 private:
  std::vector<tir::Stmt> stmts_;
  std::vector<std::pair<tir::Buffer, bool>> scratch_;  ///< with its zero fill
  std::vector<std::pair<tir::Buffer, NDArray>> constants_;
  std::vector<std::shared_ptr<Pending>> pending_;
  std::vector<std::string> names_;
  std::vector<std::string> block_names_;
};

/// Computes an op's results (one per tuple field) from its flattened inputs.
using ComputeRule =
    std::function<std::vector<TensorExpr>(LowerContext& ctx, const std::vector<TensorExpr>& inputs,
                                          const Attrs& attrs, const Type& out_type)>;

/// The compute rules by op name, filled on first use by explicit registration functions.
class ComputeRegistry {
 public:
  /// The process-wide registry with every built-in rule.
  static ComputeRegistry& Global();
  /// Adds a rule; throws an internal error when the name is taken.
  void Register(const std::string& op_name, ComputeRule rule);
  /// The rule for `op_name`, or nullptr.
  const ComputeRule* Find(const std::string& op_name) const;
  /// Names with a rule, sorted.
  std::vector<std::string> ListOps() const;

 private:
  ComputeRegistry() = default;
  std::vector<std::pair<std::string, ComputeRule>> rules_;
};

// ---- Scalar helpers shared by the rules ------------------------------------------

/// A literal of `dtype` holding `value` (ints truncate).
tir::PrimExpr Const(double value, DType dtype);
/// Fresh int32 iteration variables v0, v1, ... named after `prefix`.
std::vector<tir::Var> MakeVars(const std::string& prefix, size_t n);
/// Indices of a NumPy-broadcast operand of `shape` inside an output indexed by `out`.
Indices BroadcastIndices(const std::vector<int64_t>& shape, const Indices& out);
/// max/min that propagate NaN for floats (as the reference kernels do).
tir::PrimExpr NanMax(const tir::PrimExpr& a, const tir::PrimExpr& b);
tir::PrimExpr NanMin(const tir::PrimExpr& a, const tir::PrimExpr& b);

}  // namespace tessera::lower
