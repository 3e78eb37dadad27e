// The tessera._core extension module: entry point (bindings are added per concept).
#include "bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Tessera's native core (use the `tessera` package)";
  using namespace tessera::python;
  BindErrors(m);
  BindIR(m);
  BindIRModule(m);
  BindOp(m);
  BindTransform(m);
  BindInstrument(m);
  BindNDArray(m);
  BindRuntime(m);
  BindBuild(m);
  BindPattern(m);
  BindCollage(m);
  BindFrontend(m);
}
