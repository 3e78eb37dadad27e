// tessera._core's op registry: op schemas (for the Python builders) and op calls.
#include "py_ir.h"

namespace tessera_py {

namespace {

/// The schema of op `name` as the dict tessera.op.get_schema reads.
py::dict OpSchema(const std::string& name) {
  TsExpr handle = nullptr;
  Check(TsOpGet(RefOf(name), &handle));
  Owned<TsExpr, TsExprDestroy, TsExprRetain> op(handle);
  TsExpr h = op.get();

  py::dict out;
  TsStringRef ref{};
  Check(TsOpGetName(h, &ref));
  out["name"] = Str(ref);
  Check(TsOpGetDescription(h, &ref));
  out["description"] = Str(ref);
  size_t num_inputs = CountOf([&](size_t* n) { return TsOpGetNumInputs(h, n); });
  py::tuple inputs(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    Check(TsOpGetInputName(h, i, &ref));
    inputs[i] = Str(ref);
  }
  out["inputs"] = inputs;
  int variadic = 0;
  Check(TsOpIsVariadic(h, &variadic));
  out["variadic"] = variadic != 0;
  TsOpPatternKind pattern{};
  Check(TsOpGetPattern(h, &pattern));
  out["pattern"] = TsOpPatternKindGetName(pattern);
  out["pattern_value"] = static_cast<int>(pattern);

  py::list attrs;
  size_t num_attrs = CountOf([&](size_t* n) { return TsOpGetNumAttrs(h, n); });
  for (size_t i = 0; i < num_attrs; ++i) {
    TsOpAttrSchema field{};
    Check(TsOpGetAttrSchema(h, i, &field));
    AttrRef default_value(field.default_value);
    py::dict a;
    a["name"] = Str(field.name);
    a["type"] = TsOpAttrTypeGetName(field.type);
    a["default"] = AttrToPy(default_value.get());
    // A None default on a non-optional kind marks a required attribute (the C API says so).
    a["required"] = field.required != 0;
    a["description"] = Str(field.description);
    attrs.append(a);
  }
  out["attrs"] = attrs;
  return out;
}

/// Every registered op name, sorted.
std::vector<std::string> ListOps() {
  std::vector<std::string> names;
  Check(TsOpListNames(&AppendToStrings, &names));
  return names;
}

}  // namespace

void BindOp(py::module_& m) {
  m.def("list_ops", &ListOps, "Names of all registered ops, sorted.");
  m.def("op_schema", &OpSchema, py::arg("name"), "The schema of op `name` as a dict.");
  m.def(
      "make_op_call",
      [](const std::string& name, const std::vector<Typed<PyExpr>>& args, py::object attrs,
         const std::vector<Typed<PyType>>& type_args) {
        std::vector<TsExpr> arg_handles;
        arg_handles.reserve(args.size());
        for (size_t i = 0; i < args.size(); ++i) {
          // The common case first: messages are built only for a bad argument.
          if (py::isinstance<PyExpr>(args[i].obj)) {
            arg_handles.push_back(args[i].obj.cast<const PyExpr&>().handle.get());
            continue;
          }
          if (args[i].obj.is_none())
            Raise(TS_ERROR_VALUE, "op '" + name + "': argument " + std::to_string(i) + " is None");
          ExprOf(args[i].obj, "op '" + name + "': argument " + std::to_string(i));
        }
        NamedAttrs given;
        if (!attrs.is_none()) given = AttrsFromPy(attrs, "op '" + name + "' attribute");
        std::vector<TsType> types;
        if (!type_args.empty())
          types = TypeHandles(type_args, "op '" + name + "': type_args",
                              "op '" + name + "': a type argument is None");
        TsExpr out = nullptr;
        Check(TsExprOpCallCreate(RefOf(name), arg_handles.data(), arg_handles.size(), given.data(),
                                 given.size(), types.data(), types.size(), &out));
        PyCall call;
        call.handle = decltype(call.handle)(out);
        return call;
      },
      py::arg("name"), py::arg("args"), py::arg("attrs") = py::none(),
      py::arg("type_args") = std::vector<Typed<PyType>>{});
}

}  // namespace tessera_py
