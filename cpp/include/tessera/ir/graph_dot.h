// A module's dataflow as a Graphviz picture: ops, fused kernels and the backend of each.
#pragma once

#include <string>

#include "tessera/ir/module.h"

namespace tessera {

/// The graph functions of `mod` as one DOT digraph: a node per op call, input, tuple and
/// projection, an edge per use. A call of a fused function (Primitive or Composite) or of
/// a partition (a global function with a Compiler attribute) is a cluster holding its ops,
/// labelled and coloured by who runs it: "native: fused" for fused kernels, the Compiler
/// name for partitions (native, dnnl and blas keep one colour in every picture); a call_tir
/// is one node named after its PrimFunc. Constants are left out
/// (weights would crowd the picture). Deterministic: the same module gives the same text.
std::string ModuleToDot(const IRModule& mod);

/// `dot` rendered as SVG by Graphviz's `dot` program; an unsupported error when Graphviz is
/// not installed (Debian: graphviz), an I/O error when it fails.
std::string DotToSvg(const std::string& dot);

}  // namespace tessera
