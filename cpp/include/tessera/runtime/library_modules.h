// The runtime modules of the library backends (oneDNN, OpenBLAS): a partition graph run
// by the library, saved as that graph. Present when the runtime was built with them.
#pragma once

#include <string>
#include <vector>

#include "tessera/runtime/module.h"
#include "tessera/runtime/library_graph.h"

namespace tessera::runtime {

/// True when this runtime was built with the oneDNN modules.
bool HasDnnlModules();
/// True when this runtime was built with the OpenBLAS modules.
bool HasBlasModules();

/// A oneDNN module running `graph` as kernel `symbol` on `num_threads` threads (0: the
/// caller's pool); oneDNN primitives are created now. Unsupported error without oneDNN.
Module MakeDnnlModule(LibraryGraph graph, std::string symbol, int num_threads);
/// One primitive a oneDNN partition runs on every call.
struct DnnlStep {
  std::string kind;  ///< oneDNN's primitive kind: "convolution", "reorder", "pooling_v2", ...
  std::string impl;  ///< the implementation oneDNN chose: "jit:avx512_core", "ref:any", ...
  std::string what;  ///< what it computes: the op name, or why a reorder is there
  /// The formats of its source and destination when they are ones Tessera produces
  /// ("nChw16c", "nchw", "abcde", ...; "" for another format or none).
  std::string src_format, dst_format;
};
/// The primitives a oneDNN module running `graph` executes per call, in order, with a plan
/// built on this thread (constant weights reordered once while building are not among
/// them: they cost nothing at run time). Unsupported error without oneDNN.
std::vector<DnnlStep> DescribeDnnlPlan(const LibraryGraph& graph);

/// A BLAS module running `graph` (GEMMs with bias and relu) as kernel `symbol`.
/// Unsupported error without OpenBLAS, or for an op it cannot run.
Module MakeBlasModule(LibraryGraph graph, std::string symbol, int num_threads);

/// The OpenBLAS kernel family in use (openblas_get_corename, e.g. "Cooperlake"; follows
/// the OPENBLAS_CORETYPE environment variable), or "none" without OpenBLAS.
std::string BlasCoreName();
/// OpenBLAS's build configuration, or "none" without OpenBLAS.
std::string BlasConfig();
/// oneDNN's version ("2.6.0 (commit ...)", with its CPU runtime), or "none" without oneDNN.
std::string DnnlVersion();

}  // namespace tessera::runtime
