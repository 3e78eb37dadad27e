// The tessera._runtime extension module: NDArray, Executable and load, linked against
// libtessera_runtime only (no compiler).
#include "runtime_bindings.h"

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Tessera's runtime (use `tessera.runtime`): load and run saved executables";
  using namespace tessera::python;
  BindErrors(m);
  BindNDArray(m);
  BindExecutable(m);
}
