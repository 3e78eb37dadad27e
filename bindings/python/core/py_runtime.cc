// Bindings of evaluation with the reference interpreter on NumPy arrays.
#include "core_glue.h"

namespace tessera_py {

namespace {

using ValueRef = Shared<TsValue, TsValueDestroy>;

/// An interpreter value from an array or a (nested) tuple/list of them.
ValueRef ValueFromPy(py::handle obj, const std::string& what) {
  TsValue out = nullptr;
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    std::vector<ValueRef> fields;
    size_t i = 0;
    for (py::handle item : obj)
      fields.push_back(ValueFromPy(item, what + "[" + std::to_string(i++) + "]"));
    std::vector<TsValue> handles;
    for (const ValueRef& f : fields) handles.push_back(f.get());
    Check(TsValueTupleCreate(handles.data(), handles.size(), &out));
    return ValueRef(out);
  }
  auto array = NDArrayFromPy(obj, what, /*copy=*/false);
  Check(TsValueFromNDArray(array.get(), &out));
  return ValueRef(out);
}

/// NumPy arrays for tensors, tuples for tuple values.
py::object ValueToPy(TsValue value) {
  TsValueKind kind{};
  Check(TsValueGetKind(value, &kind));
  if (kind == TS_VALUE_TENSOR) {
    TsNDArray tensor = nullptr;
    Check(TsValueGetNDArray(value, &tensor));
    Shared<TsNDArray, TsNDArrayDestroy> owned(tensor);
    return NDArrayToPy(owned.get(), /*writeable=*/true);
  }
  size_t n = CountOf([&](size_t* c) { return TsValueGetNumFields(value, c); });
  py::tuple out(n);
  for (size_t i = 0; i < n; ++i) {
    TsValue field = nullptr;
    Check(TsValueGetField(value, i, &field));
    ValueRef owned(field);
    out[i] = ValueToPy(owned.get());
  }
  return std::move(out);
}

}  // namespace

void BindRuntime(py::module_& m) {
  m.def(
      "evaluate",
      [](const PyModule& mod, const std::string& func_name, py::list args, py::list names) {
        TsModule module = mod.handle.get();
        std::vector<ValueRef> values;
        for (size_t i = 0; i < args.size(); ++i) {
          std::string what = i < names.size() ? "input '" + names[i].cast<std::string>() + "'"
                                              : "argument " + std::to_string(i);
          values.push_back(ValueFromPy(args[i], what));
        }
        std::vector<TsValue> handles;
        for (const ValueRef& v : values) handles.push_back(v.get());
        TsValue result = nullptr;
        TsStatus status;
        {
          py::gil_scoped_release release;
          status =
              TsModuleEvaluate(module, RefOf(func_name), handles.data(), handles.size(), &result);
        }
        Check(status);
        ValueRef owned(result);
        return ValueToPy(owned.get());
      },
      py::arg("mod"), py::arg("func_name"), py::arg("args"), py::arg("names") = py::list());
  m.def("run_main", [](const PyModule& mod, py::dict inputs) {
    TsModule module = mod.handle.get();
    std::vector<std::string> names;
    std::vector<Shared<TsNDArray, TsNDArrayDestroy>> arrays;
    for (auto [key, value] : inputs) {
      std::string name = key.cast<std::string>();
      arrays.push_back(NDArrayFromPy(value, "input '" + name + "'", /*copy=*/false));
      names.push_back(std::move(name));
    }
    std::vector<const char*> name_ptrs = CStrings(names);
    std::vector<TsNDArray> handles;
    for (const auto& a : arrays) handles.push_back(a.get());
    TsValue result = nullptr;
    TsStatus status;
    {
      py::gil_scoped_release release;
      status =
          TsModuleRunMainValue(module, name_ptrs.data(), handles.data(), handles.size(), &result);
    }
    Check(status);
    ValueRef owned(result);
    return ValueToPy(owned.get());
  });
}

}  // namespace tessera_py
