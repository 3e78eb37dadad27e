// The tessera._core extension module: entry point (bindings are added per concept).
#include "bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Tessera's native core (use the `tessera` package)";
  using namespace tessera::python;
  // The runtime extension registers NDArray, Executable and the error translation, which
  // this module's functions take and return.
  py::module_::import("tessera._runtime");
  InitErrorClasses();
  BindTir(m);
  BindIR(m);
  BindIRModule(m);
  BindOp(m);
  BindTransform(m);
  BindInstrument(m);
  BindRuntime(m);
  BindBuild(m);
  BindPattern(m);
  BindCollage(m);
  BindFrontend(m);
}
