// tessera._core.collage over the C API: the CollagePartition pass, cost estimators (Python
// subclasses and plain functions estimate through C callbacks), the estimator registry,
// progress callbacks and report rendering.
#include <pybind11/functional.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core_glue.h"

namespace tessera_py {

namespace {

/// collage.CostEstimator. A null handle is a Python subclass (or a bare CostEstimator()):
/// C gets an estimator calling its `estimate` method when it is used.
struct PyCostEstimator {
  Shared<TsCostEstimator, TsCostEstimatorDestroy> handle;
};
struct PyMockCostEstimator : PyCostEstimator {};
struct PyCustomCostEstimator : PyCostEstimator {};
struct PyMeasuringCostEstimator : PyCostEstimator {};

using Estimator = Shared<TsCostEstimator, TsCostEstimatorDestroy>;
using Target = Shared<TsTarget, TsTargetDestroy>;
using Progress = std::function<void(size_t, size_t)>;

const char kNoEstimate[] = "CostEstimator subclasses must define estimate(mod, target)";

/// A parsed target.
Target TargetOf(const std::string& text) {
  TsTarget out = nullptr;
  Check(TsTargetParse(text.c_str(), &out));
  return Target(out);
}

/// A target's text as estimators get it ("dnnl -num_threads=1").
std::string TargetText(TsTarget target) {
  return Text([&](TsStringCallback cb, void* u) { return TsTargetPrint(target, cb, u); });
}

/// What a Python estimator calls: `fn(mod, target)`, or `fn.estimate(mod, target)` for a
/// CostEstimator subclass instance.
struct PyEstimate {
  py::object fn;
  bool method;
};

/// The TsCostEstimateCallback of a PyEstimate. Every failure only makes the candidate
/// invalid (the search goes on and reports the message), so the Python exception is not
/// kept for re-raising: a user's exception becomes a value error "Python estimator raised:
/// ..." as before, a result that is no number a type error.
TsStatus CallEstimate(TsModule module, TsTarget target, double* seconds, void* user_data) {
  auto* estimate = static_cast<PyEstimate*>(user_data);
  bool raised_by_user = false;
  TsStatus status = CallPython([&] {
    py::object fn = estimate->fn;
    if (estimate->method) {
      // A subclass without its own estimate() would reach the base's, which cannot estimate.
      py::object base = py::type::of<PyCostEstimator>().attr("estimate");
      py::object own = py::type::handle_of(fn).attr("estimate");
      if (own.is(base)) Raise(TS_ERROR_UNSUPPORTED, kNoEstimate);
      fn = fn.attr("estimate");
    }
    py::object mod = WrapModule(TsModuleRetain(module));
    py::object result;
    try {
      result = fn(mod, TargetText(target));
    } catch (py::error_already_set&) {
      raised_by_user = true;
      throw;
    }
    try {
      *seconds = result.cast<double>();
    } catch (const py::cast_error&) {
      Raise(TS_ERROR_TYPE, estimate->method
                               ? "a Python estimator's estimate() must return a number of seconds"
                               : "a custom estimator must return a number of seconds");
    }
  });
  if (status == TS_OK) return status;
  std::string message = TsGetLastError();
  ForgetPendingError();
  if (raised_by_user) {
    message = "Python estimator raised: " + message;
    status = TS_ERROR_VALUE;
  }
  TsSetLastError(message.c_str());
  return status;
}

/// A C estimator calling `fn` (see PyEstimate), reported as `name` (NULL: "custom").
Estimator EstimatorCalling(py::object fn, bool method, const char* name) {
  TsCostEstimator out = nullptr;
  // The C call owns the PyEstimate from here, also when it fails.
  Check(TsCostEstimatorCreate(name, &CallEstimate, new PyEstimate{std::move(fn), method},
                              &DestroyUnderGil<PyEstimate>, &out));
  return Estimator(out);
}

/// The estimator of Python object `obj` (None: null, the one collage.estimator names): a
/// built-in one's handle, a C estimator over a Python subclass (named after its class, as
/// reports show) or over a plain function (mod, target) -> seconds. The C estimator keeps
/// the Python object alive as long as C holds it.
Estimator EstimatorFromPy(const py::object& obj) {
  if (obj.is_none()) return Estimator();
  if (!py::isinstance<PyCostEstimator>(obj)) {
    if (!PyCallable_Check(obj.ptr()))
      Raise(TS_ERROR_TYPE,
            "a cost estimator is a collage.CostEstimator or a function (mod, target) -> "
            "seconds, got " +
                TypeName(obj));
    return EstimatorCalling(obj, false, nullptr);
  }
  const PyCostEstimator& e = obj.cast<const PyCostEstimator&>();
  if (e.handle) return e.handle;
  return EstimatorCalling(obj, true, TypeName(obj).c_str());
}

/// The TsCollageProgressCallback of a Python progress(done, total) (a std::function from
/// pybind11, which takes the GIL to call Python); its exceptions stop the search and come
/// back out unchanged.
TsStatus CallProgress(size_t done, size_t total, void* user_data) {
  auto* progress = static_cast<Progress*>(user_data);
  return CallPython([&] { (*progress)(done, total); });
}

/// CostEstimator.estimate of a built-in estimator (a Python subclass defines its own).
double Estimate(const PyCostEstimator& e, const PyModule& mod, const std::string& target) {
  if (!e.handle) Raise(TS_ERROR_UNSUPPORTED, kNoEstimate);
  Target t = TargetOf(target);
  double seconds = 0;
  Check(TsCostEstimatorEstimate(e.handle.get(), mod.handle.get(), t.get(), &seconds));
  return seconds;
}

/// Raises tessera.TesseraConfigError (a not-found and attribute error) with `message`.
[[noreturn]] void RaiseConfigError(const std::string& message) {
  py::object cls = py::module_::import("tessera.error").attr("TesseraConfigError");
  PyErr_SetString(cls.ptr(), message.c_str());
  throw py::error_already_set();
}

/// Checks `runner` as the config key collage.runner does ("local" or "dask://HOST:PORT"),
/// raising a config error as PassContext(config=...) would.
void CheckRunner(const std::string& runner) {
  py::dict config;
  config["collage.runner"] = runner;
  std::string json = JsonOf(config, "runner");
  TsPassContext context = nullptr;
  TsStatus status = TsPassContextCreate(2, nullptr, 0, nullptr, 0, json.c_str(), &context);
  TsPassContextDestroy(context);
  if (status != TS_OK) RaiseConfigError(TsGetLastError());
}

/// The submodule `collage` of `parent`, made on first use (BindCollage, BindCollageSearch
/// and BindCostDatabase all fill it, in any order).
py::module_ CollageModule(py::module_& parent) {
  if (py::hasattr(parent, "collage")) return parent.attr("collage").cast<py::module_>();
  return parent.def_submodule("collage", "Collage candidate partitions");
}

void BindEstimators(py::module_& m) {
  py::class_<PyCostEstimator>(
      m, "CostEstimator",
      "Base of cost estimators: subclass it and define estimate(self, mod, target) -> "
      "seconds (target is its text, e.g. \"dnnl\"). Raising makes the candidate invalid.")
      .def(py::init<>())
      .def("estimate", &Estimate, py::arg("mod"), py::arg("target"),
           "Seconds to run @main of `mod` on `target` (text).")
      .def_property_readonly("name", [](py::object self) -> std::string {
        const PyCostEstimator& e = self.cast<const PyCostEstimator&>();
        // A Python subclass is named after its class, as reports name it.
        if (!e.handle) return TypeName(self);
        return Text([&](TsStringCallback cb, void* u) {
          return TsCostEstimatorGetName(e.handle.get(), cb, u);
        });
      });
  py::class_<PyMockCostEstimator, PyCostEstimator>(
      m, "MockCostEstimator",
      "TVM's mock: costs[kind] * 0.9**k summed over a candidate's op calls.")
      .def(py::init([](std::map<std::string, double> costs, size_t max_estimates) {
             std::vector<std::string> kinds;
             std::vector<double> values;
             for (const auto& [kind, cost] : costs) {
               kinds.push_back(kind);
               values.push_back(cost);
             }
             std::vector<const char*> names = CStrings(kinds);
             TsCostEstimator out = nullptr;
             Check(TsCostEstimatorMockCreate(names.data(), values.data(), names.size(),
                                             max_estimates, &out));
             PyMockCostEstimator e;
             e.handle = Estimator(out);
             return e;
           }),
           py::arg("costs"), py::arg("max_estimates") = 0)
      .def_property_readonly("num_estimates", [](const PyMockCostEstimator& e) {
        return CountOf(
            [&](size_t* n) { return TsCostEstimatorMockGetNumEstimates(e.handle.get(), n); });
      });
  py::class_<PyCustomCostEstimator, PyCostEstimator>(
      m, "CustomCostEstimator", "An estimator calling fn(mod, target) -> seconds.")
      .def(py::init([](py::function fn) {
             PyCustomCostEstimator e;
             e.handle = EstimatorCalling(fn, false, nullptr);
             return e;
           }),
           py::arg("fn"));
  py::class_<PyMeasuringCostEstimator, PyCostEstimator>(
      m, "MeasuringCostEstimator",
      "Builds and times each candidate (the default): repeat samples of number runs.")
      .def(py::init([](int repeat, int number, double percentile, const std::string& runner,
                       bool isolate, double timeout_s) {
             CheckRunner(runner);
             TsCostEstimator out = nullptr;
             Check(TsCostEstimatorMeasuringCreate(repeat, number, percentile, runner.c_str(),
                                                  isolate ? 1 : 0, timeout_s, &out));
             PyMeasuringCostEstimator e;
             e.handle = Estimator(out);
             return e;
           }),
           py::arg("repeat") = 5, py::arg("number") = 0, py::arg("percentile") = 50.0,
           py::arg("runner") = "local", py::arg("isolate") = true, py::arg("timeout_s") = 60.0)
      .def("launch_penalty", [](const PyMeasuringCostEstimator& e, const std::string& target) {
        Target t = TargetOf(target);
        double seconds = 0;
        Check(TsCostEstimatorGetLaunchPenalty(e.handle.get(), t.get(), &seconds));
        return seconds;
      });

  m.def(
      "register_estimator",
      [](const std::string& name, const py::object& estimator) {
        Estimator e = EstimatorFromPy(estimator);
        Check(TsCostEstimatorRegister(name.c_str(), e.get()));
      },
      py::arg("name"), py::arg("estimator"),
      "Registers an estimator for config={'collage.estimator': name}.");
  m.def("list_estimators", [] {
    std::string json =
        Text([](TsStringCallback cb, void* u) { return TsListCostEstimators(cb, u); });
    return FromJson(json).cast<std::vector<std::string>>();
  });
}

void BindSearch(py::module_& m) {
  m.def(
      "collage_partition",
      [](const std::vector<std::string>& targets, const py::object& estimator, Progress progress) {
        std::vector<Target> owned;
        std::vector<TsTarget> handles;
        for (const std::string& t : targets) {
          owned.push_back(TargetOf(t));
          handles.push_back(owned.back().get());
        }
        Estimator e = EstimatorFromPy(estimator);
        Progress* data = progress ? new Progress(std::move(progress)) : nullptr;
        TsPass out = nullptr;
        // The C call owns `data` from here, also when it fails.
        Check(TsCollagePartitionPassCreate(handles.data(), handles.size(), e.get(),
                                           data ? &CallProgress : nullptr, data,
                                           data ? &DestroyUnderGil<Progress> : nullptr, &out));
        PyPass pass;
        pass.handle = decltype(pass.handle)(out);
        return pass;
      },
      py::arg("targets"), py::arg("cost_estimator") = py::none(), py::arg("progress") = nullptr);
  m.def(
      "set_progress",
      [](Progress progress) {
        Progress* data = progress ? new Progress(std::move(progress)) : nullptr;
        Check(TsCollageSetProgress(data ? &CallProgress : nullptr, data,
                                   data ? &DestroyUnderGil<Progress> : nullptr));
      },
      py::arg("progress"),
      "Sets progress(done, total) for Collage searches on this thread (None removes it).");
  auto render = [](const char* format) {
    return [format](const std::string& report, double measured_ms) {
      return Text([&](TsStringCallback cb, void* u) {
        return TsCollageReportRender(report.c_str(), format, measured_ms, cb, u);
      });
    };
  };
  m.def("report_text", render("text"), py::arg("report"), py::arg("measured_ms") = -1.0);
  m.def("report_html", render("html"), py::arg("report"), py::arg("measured_ms") = -1.0);
}

}  // namespace

void BindCollageSearch(py::module_& parent) {
  py::module_ m = CollageModule(parent);
  BindEstimators(m);
  BindSearch(m);
}

}  // namespace tessera_py
