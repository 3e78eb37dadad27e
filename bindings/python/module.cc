// The tessera._core extension module: entry point (bindings are added per concept).
#include <pybind11/pybind11.h>

PYBIND11_MODULE(_core, m) { m.doc() = "Tessera's native core (use the `tessera` package)"; }
