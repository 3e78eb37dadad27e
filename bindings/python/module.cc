// The tessera._core extension module: entry point (bindings are added per concept).
#include "bindings.h"
#include "common/capi_glue.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Tessera's native core (use the `tessera` package)";
  using namespace tessera::python;
  // The runtime extension registers NDArray and Executable, which this module's functions
  // take and return.
  py::module_::import("tessera._runtime");
  tessera_py::InitErrorClasses();
  BindErrors(m);
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
