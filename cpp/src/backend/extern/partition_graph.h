// A Compiler partition flattened for library backends: Composite calls inlined, every
// value a parameter, a constant or one op call, in dataflow order; plus (de)serialisation.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/ir/expr.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::ext {

/// One value of a partition.
struct PNode {
  enum class Kind { kParam, kConstant, kOp };
  Kind kind = Kind::kOp;
  int param = -1;                 ///< kParam: its position
  NDArray data;                   ///< kConstant: the value
  std::string op;                 ///< kOp: the op name
  Attrs attrs;                    ///< kOp: its attributes
  std::vector<int> inputs;        ///< kOp: the nodes it reads
  std::vector<int64_t> shape;     ///< the value's shape
  DType dtype = DType::kFloat32;  ///< the value's dtype
  int uses = 0;                   ///< how many op inputs and outputs read it
};

/// A partition as nodes in dataflow order (inputs before their users).
struct PartitionGraph {
  std::vector<PNode> nodes;
  std::vector<int> outputs;  ///< the results, in order
  int num_params = 0;
};

/// Flattens `fn` (typed): Composite functions are inlined, `TupleGetItem(batch_norm, 0)`
/// is the batch_norm node; other tuples inside are unsupported. Every value must be
/// float32: anything else is an unsupported error naming `backend`, the op and its dtype.
PartitionGraph FlattenPartition(const Function& fn, const std::string& backend);

/// `fn` (with its constants) as bytes, for a runtime module to save.
std::string SavePartitionFunction(const Function& fn);
/// Reads back (and types) what SavePartitionFunction wrote.
Function LoadPartitionFunction(const std::string& bytes);

/// The number of threads a library call should use: the executor pool's size (which is
/// the build target's `num_threads` unless the program was loaded with another), else
/// `num_threads` if positive, else 1.
int ThreadsFor(int num_threads, const void* kernel_env);

}  // namespace tessera::ext
