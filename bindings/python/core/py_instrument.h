// What the pass bindings (py_transform.cc) use of the instrument bindings (py_instrument.cc):
// instruments from and to Python objects.
#pragma once

#include <vector>

#include "core_glue.h"

namespace tessera_py {

/// An owned instrument handle.
using InstrumentRef = Shared<TsPassInstrument, TsPassInstrumentDestroy>;

/// The instruments of a Python list or tuple of PassInstrument (None: none). A library
/// instrument gives its own handle; one written in Python gives a new instrument calling its
/// hooks, which keeps the Python object alive as long as a context holds it. Raises
/// TesseraTypeError for anything else.
std::vector<InstrumentRef> InstrumentsFromPy(py::handle list);
/// PassContext(trace=fn): an instrument named "trace" calling `fn(mod, info, is_before)`
/// before and after every pass.
InstrumentRef TraceInstrument(py::handle fn);
/// The Python object of an instrument (a new reference): the object it was given to a
/// context as (always for one written in Python; for a library one while that object
/// lives), else a new object of the most derived class.
py::object WrapInstrument(TsPassInstrument owned);

}  // namespace tessera_py
