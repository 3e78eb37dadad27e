// A library partition as the runtime keeps it: op nodes in dataflow order with plain
// attributes and constant data, serialisable without the IR (oneDNN and BLAS modules).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tessera/runtime/kernel_abi.h"
#include "tessera/runtime/ndarray.h"

namespace tessera::runtime {

/// One attribute value of a partition op: none, bool, int, float, string, or a flat list
/// of ints or floats.
using KernelAttr = std::variant<std::monostate, bool, int64_t, double, std::string,
                                std::vector<int64_t>, std::vector<double>>;

/// An op's attributes by name; the getters throw a value error naming the key when it is
/// missing or has another type.
class KernelAttrs {
 public:
  /// Sets `key`.
  void Set(const std::string& key, KernelAttr value) { values_[key] = std::move(value); }
  /// True when `key` is set (to anything but none).
  bool Has(const std::string& key) const;
  bool GetBool(const std::string& key) const;
  int64_t GetInt(const std::string& key) const;
  /// An int or a float.
  double GetFloat(const std::string& key) const;
  const std::string& GetString(const std::string& key) const;
  const std::vector<int64_t>& GetInts(const std::string& key) const;
  /// Every attribute, sorted by name.
  const std::map<std::string, KernelAttr>& values() const { return values_; }

 private:
  const KernelAttr& At(const std::string& key) const;
  std::map<std::string, KernelAttr> values_;
};

/// One value of a partition.
struct LibraryNode {
  enum class Kind { kParam, kConstant, kOp };
  Kind kind = Kind::kOp;
  int param = -1;                 ///< kParam: its position
  NDArray data;                   ///< kConstant: the value
  std::string op;                 ///< kOp: the op name
  KernelAttrs attrs;              ///< kOp: its attributes
  std::vector<int> inputs;        ///< kOp: the nodes it reads
  std::vector<int64_t> shape;     ///< the value's shape
  DType dtype = DType::kFloat32;  ///< the value's dtype
  int uses = 0;                   ///< how many op inputs and outputs read it
};

/// A library partition as nodes in dataflow order (inputs before their users).
struct LibraryGraph {
  std::vector<LibraryNode> nodes;
  std::vector<int> outputs;  ///< the results, in order
  int num_params = 0;
};

/// `g` as bytes (a JSON description followed by the constants' raw bytes).
std::string SerializeLibraryGraph(const LibraryGraph& g);
/// Reads what SerializeLibraryGraph wrote, checking every index; a parse error naming
/// `what` (e.g. "dnnl module") on damaged bytes.
LibraryGraph DeserializeLibraryGraph(const std::string& bytes, const std::string& what);

/// What a library module (oneDNN, BLAS) saves: its kernel symbol, its thread count (0: the
/// caller's pool) and its graph.
struct LibraryModuleBytes {
  std::string symbol;
  int num_threads = 0;
  LibraryGraph graph;
};
/// The bytes of a library module.
std::string SaveLibraryModule(const std::string& symbol, int num_threads, const LibraryGraph& g);
/// Reads what SaveLibraryModule wrote; a parse error naming `what` on damaged bytes.
LibraryModuleBytes LoadLibraryModule(const std::string& bytes, const std::string& what);

/// The number of threads a library call should use: the executor pool's size (which is
/// the build target's `num_threads` unless the program was loaded with another), else
/// `num_threads` if positive, else 1.
int ThreadsFor(int num_threads, const TsKernelEnv* env);

}  // namespace tessera::runtime
