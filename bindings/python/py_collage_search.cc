// Bindings of Collage's search (tessera._core.collage): the CollagePartition pass, cost
// estimators (subclassable in Python), the estimator registry and report rendering.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "tessera/collage/collage_partition.h"
#include "tessera/collage/cost_estimator.h"
#include "tessera/collage/measure.h"
#include "tessera/collage/report.h"
#include "tessera/target/target.h"

namespace tessera::python {

namespace {

using namespace tessera::collage;

/// Lets Python classes override CostEstimator.estimate (and name).
class PyCostEstimator : public CostEstimator {
 public:
  double Estimate(const IRModule& mod, const Target& target) override {
    py::gil_scoped_acquire gil;
    py::function fn = py::get_override(static_cast<const CostEstimator*>(this), "estimate");
    if (!fn) TS_THROW(kUnsupported) << "CostEstimator subclasses must define estimate(mod, target)";
    try {
      py::object r = fn(mod, target.ToString());
      return r.cast<double>();
    } catch (py::error_already_set& e) {
      // A Python error makes this candidate invalid; the search goes on.
      std::string what = e.what();
      TS_THROW(kValue) << "Python estimator raised: " << what;
    } catch (const py::cast_error&) {
      TS_THROW(kType) << "a Python estimator's estimate() must return a number of seconds";
    }
  }
  /// The Python class's name (reports say which estimator chose).
  std::string name() const override {
    py::gil_scoped_acquire gil;
    py::object self = py::cast(static_cast<const CostEstimator*>(this));
    return py::str(self.get_type().attr("__name__"));
  }
};

std::vector<Target> TargetsFromStrings(const std::vector<std::string>& texts) {
  std::vector<Target> targets;
  for (const std::string& t : texts) targets.push_back(Target::Parse(t));
  return targets;
}

/// A cost function calling Python `fn(mod, target_text)`: its errors make the candidate
/// invalid (a value error with the Python message), a non-number result a type error.
CustomCostEstimator::Fn CostFnFromPy(py::object fn) {
  return [fn](const IRModule& mod, const Target& target) -> double {
    py::gil_scoped_acquire gil;
    try {
      return fn(mod, target.ToString()).cast<double>();
    } catch (py::error_already_set& e) {
      std::string what = e.what();
      TS_THROW(kValue) << "Python estimator raised: " << what;
    } catch (const py::cast_error&) {
      TS_THROW(kType) << "a custom estimator must return a number of seconds";
    }
  };
}

/// The estimator of Python object `obj` (None: null), keeping the Python object alive as
/// long as C++ holds it (a Python subclass's overrides live on the Python object).
CostEstimatorPtr EstimatorFromPy(const py::object& obj) {
  if (obj.is_none()) return nullptr;
  if (!py::isinstance<CostEstimator>(obj)) {
    if (!PyCallable_Check(obj.ptr()))
      TS_THROW(kType) << "a cost estimator is a collage.CostEstimator or a function (mod, target) "
                         "-> seconds, got "
                      << std::string(py::str(obj.get_type().attr("__name__")));
    return std::make_shared<CustomCostEstimator>(CostFnFromPy(obj));  // a plain function
  }
  auto* raw = obj.cast<CostEstimator*>();
  auto* keep = new py::object(obj);
  return CostEstimatorPtr(raw, [keep](CostEstimator*) {
    py::gil_scoped_acquire gil;
    delete keep;
  });
}

}  // namespace

void BindCollageSearch(py::module_& m) {
  py::class_<CostEstimator, PyCostEstimator, std::shared_ptr<CostEstimator>>(
      m, "CostEstimator",
      "Base of cost estimators: subclass it and define estimate(self, mod, target) -> "
      "seconds (target is its text, e.g. \"dnnl\"). Raising makes the candidate invalid.")
      .def(py::init<>())
      .def(
          "estimate",
          [](CostEstimator& e, const IRModule& mod, const std::string& target) {
            return e.Estimate(mod, Target::Parse(target));
          },
          py::arg("mod"), py::arg("target"), "Seconds to run @main of `mod` on `target` (text).")
      .def_property_readonly("name", &CostEstimator::name);
  py::class_<MockCostEstimator, CostEstimator, std::shared_ptr<MockCostEstimator>>(
      m, "MockCostEstimator",
      "TVM's mock: costs[kind] * 0.9**k summed over a candidate's op calls.")
      .def(py::init<std::map<std::string, double>, size_t>(), py::arg("costs"),
           py::arg("max_estimates") = 0)
      .def_property_readonly("num_estimates", &MockCostEstimator::num_estimates);
  py::class_<CustomCostEstimator, CostEstimator, std::shared_ptr<CustomCostEstimator>>(
      m, "CustomCostEstimator", "An estimator calling fn(mod, target) -> seconds.")
      .def(py::init([](py::function fn) {
             return std::make_shared<CustomCostEstimator>(CostFnFromPy(fn));
           }),
           py::arg("fn"));
  py::class_<MeasuringCostEstimator, CostEstimator, std::shared_ptr<MeasuringCostEstimator>>(
      m, "MeasuringCostEstimator",
      "Builds and times each candidate (the default): repeat samples of number runs.")
      .def(py::init([](int repeat, int number, double percentile, const std::string& runner,
                       bool isolate, double timeout_s) {
             MeasureOptions o;
             o.repeat = repeat;
             o.number = number;
             o.percentile = percentile;
             // The config key's check: "local" or "dask://HOST:PORT" (a config error, as in
             // PassContext(config=...)).
             try {
               PassContext::Create(2, {}, {}, Attrs{{"collage.runner", AttrValue(runner)}});
             } catch (const Error& e) {
               RaiseConfigError(e);
             }
             o.runner = runner;
             o.isolate = isolate;
             o.timeout_s = timeout_s;
             return std::make_shared<MeasuringCostEstimator>(o);
           }),
           py::arg("repeat") = 5, py::arg("number") = 0, py::arg("percentile") = 50.0,
           py::arg("runner") = "local", py::arg("isolate") = true, py::arg("timeout_s") = 60.0)
      .def("launch_penalty", [](MeasuringCostEstimator& e, const std::string& target) {
        return e.LaunchPenalty(Target::Parse(target));
      });
  m.def(
      "register_estimator",
      [](const std::string& name, const py::object& estimator) {
        RegisterCostEstimator(name, EstimatorFromPy(estimator));
      },
      py::arg("name"), py::arg("estimator"),
      "Registers an estimator for config={'collage.estimator': name}.");
  m.def("list_estimators", &ListCostEstimators);
  m.def(
      "collage_partition",
      [](const std::vector<std::string>& targets, const py::object& estimator,
         std::function<void(size_t, size_t)> progress) {
        return CollagePartition(TargetsFromStrings(targets), EstimatorFromPy(estimator),
                                progress ? ProgressFn(progress) : ProgressFn());
      },
      py::arg("targets"), py::arg("cost_estimator") = py::none(), py::arg("progress") = nullptr);
  m.def(
      "set_progress",
      [](std::function<void(size_t, size_t)> progress) {
        SetDefaultProgress(progress ? ProgressFn(progress) : ProgressFn());
      },
      py::arg("progress"),
      "Sets progress(done, total) for Collage searches on this thread (None removes it).");
  m.def("report_text", &ReportToText, py::arg("report"), py::arg("measured_ms") = -1.0);
  m.def("report_html", &ReportToHtml, py::arg("report"), py::arg("measured_ms") = -1.0);
}

}  // namespace tessera::python
