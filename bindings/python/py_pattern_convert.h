// Conversions of Python patterns and predicates, shared by the pattern and Collage bindings.
#pragma once

#include "bindings.h"
#include "tessera/pattern/matcher.h"

namespace tessera::python {

/// `h` as a DFPattern; a type error naming `what` for anything else.
DFPattern PatternOf(py::handle h, const char* what);
/// A C++ predicate on a match's root calling a Python callable (None: no predicate).
PatternPredicate PredicateFromPy(py::object fn);

}  // namespace tessera::python
