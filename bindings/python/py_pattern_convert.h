// Conversions of Python patterns and predicates, shared by the pattern and Collage bindings.
#pragma once

#include "bindings.h"
#include "tessera/pattern/matcher.h"
#include "tessera/pattern/pattern_table.h"

namespace tessera::python {

/// `h` as a DFPattern; a type error naming `what` for anything else.
DFPattern PatternOf(py::handle h, const char* what);
/// A C++ predicate on a match's root calling a Python callable (None: no predicate).
PatternPredicate PredicateFromPy(py::object fn);
/// A pattern table from Python entries (label, pattern[, predicate]); labels without the
/// "<name>." prefix get it.
std::vector<PatternTableEntry> PatternTableFromPy(const std::string& name, py::iterable table);

}  // namespace tessera::python
