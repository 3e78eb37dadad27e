// The tessera._runtime extension module: NDArray, Executable and load, linked against
// libtessera_runtime only (no compiler).
#include "runtime_bindings.h"
#include "tessera/support/logging.h"
#include "tessera/support/version.h"

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Tessera's runtime (use `tessera.runtime`): load and run saved executables";
  using namespace tessera::python;
  BindErrors(m);
  BindNDArray(m);
  BindExecutable(m);
  m.def("version", [] { return std::string(tessera::Version()); },
        "The native library's version (tessera.__version__ is the package's).");
  m.def("set_log_level", [](const std::string& level) { tessera::SetLogLevel(level); },
        py::arg("level"), "Sets the log level of the runtime and the compiler (one logger).");
}
