// The tessera._core extension module: entry point (bindings are added per concept), built on
// the C API alone.
#include "core_glue.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Tessera's native core (use the `tessera` package)";
  using namespace tessera_py;
  // The runtime extension registers NDArray and Executable, which this module's functions
  // take and return.
  py::module_::import("tessera._runtime");
  InitErrorClasses();
  BindIR(m);
  BindTir(m);
  BindIRModule(m);
  BindOp(m);
  BindTransform(m);
  BindInstrument(m);
  BindRuntime(m);
  BindBuild(m);
  BindPattern(m);
  BindCollage(m);
  BindCollageSearch(m);
  BindCostDatabase(m);
  BindFrontend(m);
  BindLayout(m);
}
