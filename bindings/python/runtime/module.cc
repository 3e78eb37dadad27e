// The tessera._runtime extension module: NDArray, Executable and load, over the runtime's C
// API (libtessera_runtime only; no compiler).
#include "../common/capi_glue.h"

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Tessera's runtime (use `tessera.runtime`): load and run saved executables";
  using namespace tessera_py;
  InitErrorClasses();
  BindNDArray(m);
  BindExecutable(m);
  m.def(
      "version", [] { return std::string(TsGetVersion()); },
      "The native library's version (tessera.__version__ is the package's).");
  m.def(
      "set_log_level", [](const std::string& level) { Check(TsSetLogLevel(level.c_str())); },
      py::arg("level"), "Sets the log level of the runtime and the compiler (one logger).");
}
