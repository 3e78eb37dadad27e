// Bindings of the op registry: op schemas for generating Python builders, and op calls.
#include "bindings.h"
#include "tessera/ir/op.h"

namespace tessera::python {

namespace {

const char* AttrTypeKey(AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kBool:
      return "bool";
    case AttrType::kString:
      return "str";
    case AttrType::kIntArray:
      return "int_array";
    case AttrType::kNestedIntArray:
      return "nested_int_array";
    case AttrType::kOptionalInt:
      return "optional_int";
    case AttrType::kOptionalIntArray:
      return "optional_int_array";
    case AttrType::kIntOrIntArray:
      return "int_or_int_array";
    case AttrType::kOptionalFloat:
      return "optional_float";
  }
  return "?";
}

bool IsOptional(AttrType type) {
  return type == AttrType::kOptionalInt || type == AttrType::kOptionalIntArray ||
         type == AttrType::kOptionalFloat;
}

py::dict OpSchema(const OpDef& def) {
  py::dict out;
  out["name"] = def.name;
  out["description"] = def.description;
  out["inputs"] = py::tuple(py::cast(def.inputs));
  out["variadic"] = def.variadic;
  out["pattern"] = OpPatternKindName(def.pattern);
  out["pattern_value"] = static_cast<int>(def.pattern);
  py::list attrs;
  for (const AttrField& field : def.attrs) {
    py::dict a;
    a["name"] = field.name;
    a["type"] = AttrTypeKey(field.type);
    a["default"] = AttrToPy(field.default_value);
    // A None default on a non-optional kind marks a required attribute.
    a["required"] = field.default_value.is_none() && !IsOptional(field.type);
    a["description"] = field.description;
    attrs.append(a);
  }
  out["attrs"] = attrs;
  return out;
}

}  // namespace

void BindOp(py::module_& m) {
  m.def(
      "list_ops", [] { return OpRegistry::Global().ListOps(); },
      "Names of all registered ops, sorted.");
  m.def(
      "op_schema", [](const std::string& name) { return OpSchema(OpRegistry::Global().Get(name)); },
      py::arg("name"), "The schema of op `name` as a dict.");
  m.def(
      "make_op_call",
      [](const std::string& name, std::vector<Expr> args, py::object attrs,
         std::vector<Type> type_args) {
        for (size_t i = 0; i < args.size(); ++i)
          if (!args[i]) TS_THROW(kValue) << "op '" << name << "': argument " << i << " is None";
        return MakeOpCall(name, std::move(args), AttrsFromPy(attrs, "op '" + name + "' attribute"),
                          std::move(type_args));
      },
      py::arg("name"), py::arg("args"), py::arg("attrs") = py::none(),
      py::arg("type_args") = std::vector<Type>{});
}

}  // namespace tessera::python
