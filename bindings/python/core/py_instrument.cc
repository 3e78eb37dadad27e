// Bindings of pass instruments: Python classes whose hook methods the library calls through
// C instrument callbacks, and the built-in timing, printing, dumping and verifying ones.
#include "py_instrument.h"

#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

namespace tessera_py {

namespace {

/// Python's PassInstrument. A library instrument (a built-in one, or one a context hands back
/// that was not written in Python) holds its handle. One written in Python holds none: each
/// context it is given to gets a new C instrument whose user data owns the Python object. The
/// object cannot own that instrument itself: the two would form a reference cycle through C
/// that Python's garbage collector cannot see.
struct PyPassInstrument {
  InstrumentRef handle;
  std::string name;
};
struct PyPassTimingInstrument : PyPassInstrument {};
struct PyPrintIRInstrument : PyPassInstrument {};
struct PyDumpIR : PyPassInstrument {};
struct PyVerifier : PyPassInstrument {};

/// The user data of an instrument made here: the Python instrument whose hook methods it
/// calls, or the trace function of PassContext(trace=...).
struct HookData {
  py::object target;
  bool trace;
};

/// The HookData alive, so that WrapInstrument tells its own user data from that of
/// instruments made elsewhere. Leaked: destroy callbacks may run after static destructors.
std::mutex& HooksMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::unordered_set<const void*>& LiveHooks() {
  static auto* live = new std::unordered_set<const void*>;
  return *live;
}

/// The HookData at `user_data` when it is one of ours, else NULL.
HookData* OwnHookData(void* user_data) {
  if (!user_data) return nullptr;
  std::lock_guard<std::mutex> lock(HooksMutex());
  return LiveHooks().count(user_data) ? static_cast<HookData*>(user_data) : nullptr;
}

/// The TsUserDataDestroy of HookData; the library may call it on any thread, with or
/// without the GIL.
void DropHookData(void* user_data) {
  {
    std::lock_guard<std::mutex> lock(HooksMutex());
    LiveHooks().erase(user_data);
  }
  if (!Py_IsInitialized()) return;  // after interpreter shutdown: leak the Python reference
  py::gil_scoped_acquire gil;
  delete static_cast<HookData*>(user_data);
}

/// The Python object a hook calls (under the GIL).
py::object Target(void* user_data) {
  return static_cast<HookData*>(user_data)->target;
}

/// A PassInfo object of an info lent to a hook.
py::object InfoToPy(TsPassInfo lent) {
  TsPassInfo owned = TsPassInfoRetain(lent);
  if (!owned) Raise(TS_ERROR_INTERNAL, TsGetLastError());
  return py::cast(PyPassInfo{Owned<TsPassInfo, TsPassInfoDestroy, TsPassInfoRetain>(owned)});
}

/// A module object of a module lent to a hook.
py::object ModuleToPy(TsModule lent) {
  return WrapModule(TsModuleRetain(lent));
}

// ---- Hooks calling the Python instrument's methods (each set only when it has the method) ----

TsStatus EnterPassCtx(void* user_data) {
  return CallPython([&] { Target(user_data).attr("enter_pass_ctx")(); });
}

TsStatus ExitPassCtx(void* user_data) {
  return CallPython([&] { Target(user_data).attr("exit_pass_ctx")(); });
}

TsStatus ShouldRun(TsModule mod, TsPassInfo info, int* run, void* user_data) {
  return CallPython([&] {
    py::object result = Target(user_data).attr("should_run")(ModuleToPy(mod), InfoToPy(info));
    *run = result.cast<bool>() ? 1 : 0;
  });
}

TsStatus RunBeforePass(TsModule mod, TsPassInfo info, void* user_data) {
  return CallPython(
      [&] { Target(user_data).attr("run_before_pass")(ModuleToPy(mod), InfoToPy(info)); });
}

TsStatus RunAfterPass(TsModule mod, TsPassInfo info, void* user_data) {
  return CallPython(
      [&] { Target(user_data).attr("run_after_pass")(ModuleToPy(mod), InfoToPy(info)); });
}

/// The library ignores this hook's failure and reports the pass's own error, which a
/// callback of the pass may have left pending: going through CallPython would replace that
/// exception by this one, so an exception here is dropped (as the old binding did).
TsStatus RunAfterPassFailed(TsModule mod, TsPassInfo info, void* user_data) {
  py::gil_scoped_acquire gil;
  try {
    Target(user_data).attr("run_after_pass_failed")(ModuleToPy(mod), InfoToPy(info));
  } catch (...) {
  }
  return TS_OK;
}

TsStatus TraceBefore(TsModule mod, TsPassInfo info, void* user_data) {
  return CallPython([&] { Target(user_data)(ModuleToPy(mod), InfoToPy(info), true); });
}

TsStatus TraceAfter(TsModule mod, TsPassInfo info, void* user_data) {
  return CallPython([&] { Target(user_data)(ModuleToPy(mod), InfoToPy(info), false); });
}

/// A C instrument named `name` with `hooks` whose user data owns `target`.
InstrumentRef MakeHookInstrument(const std::string& name, const TsPassInstrumentCallbacks& hooks,
                                 py::handle target, bool trace) {
  auto* data = new HookData{py::reinterpret_borrow<py::object>(target), trace};
  {
    std::lock_guard<std::mutex> lock(HooksMutex());
    LiveHooks().insert(data);
  }
  TsPassInstrument out = nullptr;
  // The library owns `data` from here on, and destroys it if the call fails.
  Check(TsPassInstrumentCreate(name.c_str(), &hooks, data, &DropHookData, &out));
  return InstrumentRef(out);
}

/// The C instrument of an instrument written in Python: hooks for the methods it has, so
/// that hooks it does not define cost nothing (should_run then says yes).
InstrumentRef PythonInstrument(py::handle obj, const std::string& name) {
  TsPassInstrumentCallbacks hooks{};
  if (py::hasattr(obj, "enter_pass_ctx")) hooks.enter_pass_context = &EnterPassCtx;
  if (py::hasattr(obj, "exit_pass_ctx")) hooks.exit_pass_context = &ExitPassCtx;
  if (py::hasattr(obj, "should_run")) hooks.should_run = &ShouldRun;
  if (py::hasattr(obj, "run_before_pass")) hooks.run_before_pass = &RunBeforePass;
  if (py::hasattr(obj, "run_after_pass")) hooks.run_after_pass = &RunAfterPass;
  if (py::hasattr(obj, "run_after_pass_failed")) hooks.run_after_pass_failed = &RunAfterPassFailed;
  return MakeHookInstrument(name, hooks, obj, false);
}

/// A wrapper W of the library instrument `create(&out)` makes.
template <typename W, typename F>
W MadeBy(F&& create) {
  TsPassInstrument out = nullptr;
  Check(create(&out));
  W w;
  w.handle = InstrumentRef(out);
  w.name = StringOf(TsPassInstrumentGetName(out));
  return w;
}

/// Weak references to the Python objects of library instruments given to contexts, so that
/// PassContext.instruments hands back those very objects while they live (a PrintBeforeAll,
/// not a new PrintIRInstrument) as the old binding did. Touched only with the GIL held; dead
/// entries are dropped as they are met.
std::vector<py::weakref>& GivenObjects() {
  static auto* given = new std::vector<py::weakref>;
  return *given;
}

/// Remembers `obj`, a library instrument's Python object, unless it already is.
void RememberGiven(py::handle obj) {
  std::vector<py::weakref>& given = GivenObjects();
  for (size_t i = 0; i < given.size();) {
    py::object alive = given[i]();
    if (alive.is(obj)) return;
    if (alive.is_none()) {
      given.erase(given.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  given.emplace_back(obj);
}

/// The remembered Python object holding the same instrument as `handle`, or None.
py::object GivenObject(TsPassInstrument handle) {
  for (const py::weakref& ref : GivenObjects()) {
    py::object alive = ref();
    if (!alive.is_none() &&
        TsPassInstrumentEqual(alive.cast<const PyPassInstrument&>().handle.get(), handle))
      return alive;
  }
  return py::none();
}

/// A wrapper W holding `handle`.
template <typename W>
py::object Holding(const InstrumentRef& handle, const std::string& name) {
  W w;
  w.handle = handle;
  w.name = name;
  return py::cast(std::move(w));
}

}  // namespace

std::vector<InstrumentRef> InstrumentsFromPy(py::handle list) {
  std::vector<InstrumentRef> out;
  if (list.is_none()) return out;
  if (!py::isinstance<py::list>(list) && !py::isinstance<py::tuple>(list))
    Raise(TS_ERROR_TYPE, "instruments must be a list of PassInstrument, got a " + TypeName(list));
  for (py::handle item : list) {
    if (!py::isinstance<PyPassInstrument>(item))
      Raise(TS_ERROR_TYPE,
            "instruments must contain only PassInstrument objects, got a " + TypeName(item));
    const auto& w = item.cast<const PyPassInstrument&>();
    if (w.handle) {
      RememberGiven(item);
      out.push_back(w.handle);
    } else {
      out.push_back(PythonInstrument(item, w.name));
    }
  }
  return out;
}

InstrumentRef TraceInstrument(py::handle fn) {
  TsPassInstrumentCallbacks hooks{};
  hooks.run_before_pass = &TraceBefore;
  hooks.run_after_pass = &TraceAfter;
  return MakeHookInstrument("trace", hooks, fn, true);
}

py::object WrapInstrument(TsPassInstrument owned) {
  if (!owned) return py::none();
  InstrumentRef handle(owned);
  HookData* data = OwnHookData(TsPassInstrumentGetUserData(owned));
  if (data && !data->trace) return data->target;
  py::object given = GivenObject(owned);
  if (!given.is_none()) return given;
  // The built-in instruments, by the names the library gives them (only the timing one has
  // a method of its own, and its render checks the kind).
  std::string name = StringOf(TsPassInstrumentGetName(owned));
  if (name == "PassTimingInstrument") return Holding<PyPassTimingInstrument>(handle, name);
  if (name == "PrintIRInstrument") return Holding<PyPrintIRInstrument>(handle, name);
  if (name == "DumpIRInstrument") return Holding<PyDumpIR>(handle, name);
  if (name == "VerifierInstrument") return Holding<PyVerifier>(handle, name);
  return Holding<PyPassInstrument>(handle, name);
}

void BindInstrument(py::module_& m) {
  py::class_<PyPassInstrument>(m, "PassInstrument", "Hooks called around pass contexts and passes.",
                               py::dynamic_attr())
      .def(py::init([](std::string name) {
             PyPassInstrument w;
             w.name = std::move(name);
             return w;
           }),
           py::arg("name"))
      .def_property_readonly("name", [](const PyPassInstrument& w) { return w.name; });

  py::class_<PyPassTimingInstrument, PyPassInstrument>(m, "PassTimingInstrument",
                                                       "Times every pass as a nested tree.")
      .def(py::init([] { return MadeBy<PyPassTimingInstrument>(&TsPassTimingInstrumentCreate); }))
      .def("render", [](const PyPassTimingInstrument& w) {
        return Text([&](TsStringCallback cb, void* u) {
          return TsPassTimingInstrumentRender(w.handle.get(), cb, u);
        });
      });

  py::class_<PyPrintIRInstrument, PyPassInstrument>(
      m, "PrintIRInstrument", "Prints the module to stdout before and/or after passes.")
      .def(py::init([](bool before_all, bool after_all, bool after_change,
                       const std::vector<std::string>& before_passes,
                       const std::vector<std::string>& after_passes) {
             std::vector<const char*> before = CStrings(before_passes);
             std::vector<const char*> after = CStrings(after_passes);
             return MadeBy<PyPrintIRInstrument>([&](TsPassInstrument* out) {
               return TsPrintIRInstrumentCreate(before_all, after_all, after_change, before.data(),
                                                before.size(), after.data(), after.size(), out);
             });
           }),
           py::arg("before_all") = false, py::arg("after_all") = false,
           py::arg("after_change") = false, py::arg("before_passes") = std::vector<std::string>{},
           py::arg("after_passes") = std::vector<std::string>{});

  py::class_<PyDumpIR, PyPassInstrument>(
      m, "DumpIR", "Writes the module after every pass to <dir>/<NNN>_<pass>.txt.")
      .def(py::init([](const std::string& dir) {
             return MadeBy<PyDumpIR>(
                 [&](TsPassInstrument* out) { return TsDumpIRInstrumentCreate(dir.c_str(), out); });
           }),
           py::arg("dir"));

  py::class_<PyVerifier, PyPassInstrument>(m, "Verifier",
                                           "Checks well-formedness after every pass.")
      .def(py::init([] { return MadeBy<PyVerifier>(&TsVerifierInstrumentCreate); }));
}

}  // namespace tessera_py
