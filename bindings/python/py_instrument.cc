// Bindings of pass instruments: a trampoline so Python classes can implement the hooks,
// and the built-in timing, printing, dumping and verifying instruments.
#include <cstdio>

#include "bindings.h"
#include "tessera/transform/pass.h"
#include "tessera/transform/pass_instrument.h"

namespace tessera::python {

namespace {

/// Forwards every hook to the Python method of the same (TVM) name when the Python class
/// defines one; exceptions raised there propagate as the original Python exception.
class PyPassInstrument : public PassInstrument {
 public:
  using PassInstrument::PassInstrument;
  void EnterPassContext() override {
    PYBIND11_OVERRIDE_NAME(void, PassInstrument, "enter_pass_ctx", EnterPassContext);
  }
  void ExitPassContext() override {
    PYBIND11_OVERRIDE_NAME(void, PassInstrument, "exit_pass_ctx", ExitPassContext);
  }
  bool ShouldRun(const IRModule& mod, const PassInfo& info) override {
    PYBIND11_OVERRIDE_NAME(bool, PassInstrument, "should_run", ShouldRun, mod, info);
  }
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override {
    PYBIND11_OVERRIDE_NAME(void, PassInstrument, "run_before_pass", RunBeforePass, mod, info);
  }
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override {
    PYBIND11_OVERRIDE_NAME(void, PassInstrument, "run_after_pass", RunAfterPass, mod, info);
  }
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override {
    PYBIND11_OVERRIDE_NAME(void, PassInstrument, "run_after_pass_failed", RunAfterPassFailed, mod,
                           info);
  }
};

/// The printing instrument, flushing stdout after each print so that output written by
/// C stdio interleaves correctly with Python's (and is seen by fd-capturing tools).
class FlushingPrintIR : public PrintIRInstrument {
 public:
  explicit FlushingPrintIR(PrintIROptions options)
      : PrintIRInstrument(std::move(options), stdout) {}
  void RunBeforePass(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunBeforePass(mod, info);
    std::fflush(stdout);
  }
  void RunAfterPass(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunAfterPass(mod, info);
    std::fflush(stdout);
  }
  void RunAfterPassFailed(const IRModule& mod, const PassInfo& info) override {
    PrintIRInstrument::RunAfterPassFailed(mod, info);
    std::fflush(stdout);
  }
};

std::shared_ptr<FlushingPrintIR> MakePrinter(bool before_all, bool after_all, bool after_change,
                                             std::vector<std::string> before,
                                             std::vector<std::string> after) {
  PrintIROptions options;
  options.before_all = before_all;
  options.after_all = after_all;
  options.after_change = after_change;
  options.before_passes = std::move(before);
  options.after_passes = std::move(after);
  return std::make_shared<FlushingPrintIR>(std::move(options));
}

}  // namespace

/// The C++ instruments of a Python list (or None). Each shares ownership of its Python
/// object, so a Python subclass (and its state) lives as long as any context holds it.
std::vector<std::shared_ptr<PassInstrument>> InstrumentsFromPy(py::handle list) {
  std::vector<std::shared_ptr<PassInstrument>> out;
  if (list.is_none()) return out;
  if (!py::isinstance<py::list>(list) && !py::isinstance<py::tuple>(list))
    TS_THROW(kType) << "instruments must be a list of PassInstrument, got a "
                    << py::str(py::type::handle_of(list).attr("__name__")).cast<std::string>();
  for (py::handle item : list) {
    if (!py::isinstance<PassInstrument>(item))
      TS_THROW(kType) << "instruments must contain only PassInstrument objects, got a "
                      << py::str(py::type::handle_of(item).attr("__name__")).cast<std::string>();
    auto* raw = item.cast<PassInstrument*>();
    auto keep = SharePy(py::reinterpret_borrow<py::object>(item));
    out.push_back(std::shared_ptr<PassInstrument>(keep, raw));
  }
  return out;
}

void BindInstrument(py::module_& m) {
  py::class_<PassInstrument, PyPassInstrument, std::shared_ptr<PassInstrument>>(
      m, "PassInstrument", "Hooks called around pass contexts and passes.", py::dynamic_attr())
      .def(py::init<std::string>(), py::arg("name"))
      .def_property_readonly("name", &PassInstrument::name);

  py::class_<PassTimingInstrument, PassInstrument, std::shared_ptr<PassTimingInstrument>>(
      m, "PassTimingInstrument", "Times every pass as a nested tree.")
      .def(py::init<>())
      .def("render", &PassTimingInstrument::Render);

  py::class_<FlushingPrintIR, PassInstrument, std::shared_ptr<FlushingPrintIR>>(
      m, "PrintIRInstrument", "Prints the module to stdout before and/or after passes.")
      .def(py::init(&MakePrinter), py::arg("before_all") = false, py::arg("after_all") = false,
           py::arg("after_change") = false, py::arg("before_passes") = std::vector<std::string>{},
           py::arg("after_passes") = std::vector<std::string>{});

  py::class_<DumpIRInstrument, PassInstrument, std::shared_ptr<DumpIRInstrument>>(
      m, "DumpIR", "Writes the module after every pass to <dir>/<NNN>_<pass>.txt.")
      .def(py::init<std::string>(), py::arg("dir"));

  py::class_<VerifierInstrument, PassInstrument, std::shared_ptr<VerifierInstrument>>(
      m, "Verifier", "Checks well-formedness after every pass.")
      .def(py::init<>());
}

}  // namespace tessera::python
