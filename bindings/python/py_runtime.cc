// Bindings of evaluation with the reference interpreter on NumPy arrays.
#include "bindings.h"
#include "tessera/backend/interp/interpreter.h"

namespace tessera::python {

namespace {

/// A runtime value from a NumPy array or a (nested) tuple/list of them.
Value ValueFromPy(py::handle obj, const std::string& what) {
  if (py::isinstance<py::tuple>(obj) || py::isinstance<py::list>(obj)) {
    std::vector<Value> fields;
    size_t i = 0;
    for (py::handle item : obj)
      fields.push_back(ValueFromPy(item, what + "[" + std::to_string(i++) + "]"));
    return Value::TupleOf(std::move(fields));
  }
  return Value(NDArrayFromPy(obj, what, /*copy=*/false));
}

/// NumPy arrays for tensors, tuples for tuple values.
py::object ValueToPy(const Value& value) {
  if (!value.is_tuple()) return NDArrayToPy(value.tensor(), /*writeable=*/true);
  py::tuple out(value.fields().size());
  for (size_t i = 0; i < value.fields().size(); ++i) out[i] = ValueToPy(value.fields()[i]);
  return std::move(out);
}

}  // namespace

void BindRuntime(py::module_& m) {
  m.def(
      "evaluate",
      [](const IRModule& mod, const std::string& func_name, py::list args, py::list names) {
        std::vector<Value> values;
        for (size_t i = 0; i < args.size(); ++i) {
          std::string what = i < names.size() ? "input '" + names[i].cast<std::string>() + "'"
                                              : "argument " + std::to_string(i);
          values.push_back(ValueFromPy(args[i], what));
        }
        Value result;
        {
          py::gil_scoped_release release;
          result = Evaluate(mod, func_name, values);
        }
        return ValueToPy(result);
      },
      py::arg("mod"), py::arg("func_name"), py::arg("args"), py::arg("names") = py::list());
  m.def("run_main", [](const IRModule& mod, py::dict inputs) {
    std::map<std::string, NDArray> arrays;
    for (auto [key, value] : inputs) {
      std::string name = key.cast<std::string>();
      arrays[name] = NDArrayFromPy(value, "input '" + name + "'", /*copy=*/false);
    }
    Value result;
    {
      py::gil_scoped_release release;
      result = RunMain(mod, arrays);
    }
    return ValueToPy(result);
  });
}

}  // namespace tessera::python
