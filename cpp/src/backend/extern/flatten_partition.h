// A Compiler partition flattened for library backends: Composite calls inlined, every
// value a parameter, a constant or one op call, in dataflow order (the runtime's form).
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/attrs.h"
#include "tessera/ir/expr.h"
#include "tessera/runtime/library_graph.h"

namespace tessera::ext {

using runtime::LibraryGraph;
using runtime::LibraryNode;

/// Flattens `fn` (typed): Composite functions are inlined, `TupleGetItem(batch_norm, 0)`
/// is the batch_norm node; other tuples inside are unsupported. Every value must be
/// float32: anything else is an unsupported error naming `backend`, the op and its dtype.
/// Attributes become KernelAttrs; a nested list attribute is an unsupported error.
LibraryGraph FlattenPartition(const Function& fn, const std::string& backend);

}  // namespace tessera::ext
