// Bindings of IR types and graph-level expressions (nodes, fields and builders).
#include "bindings.h"
#include "tessera/ir/expr.h"
#include "tessera/ir/module.h"
#include "tessera/ir/printer.h"
#include "tessera/ir/tir.h"
#include "tessera/ir/op.h"

namespace tessera::python {

namespace {

std::string ExprText(const Expr& expr) {
  // Without the printer's final newline, so str(call.op) == "nn.relu" as in TVM.
  std::string text = PrintExpr(expr);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

void BindTypes(py::module_& m) {
  py::class_<TypeNode, Holder<TypeNode>>(m, "Type", "Base of all types.")
      .def("__str__", [](const TypeNode& t) { return TypeToString(Type(&t)); })
      .def("__repr__", [](const TypeNode& t) { return TypeToString(Type(&t)); })
      .def("__eq__",
           [](const TypeNode& a, py::object b) {
             if (!py::isinstance<TypeNode>(b)) return false;
             return TypeEqual(Type(&a), b.cast<Type>());
           })
      .def("__hash__", [](const TypeNode& t) { return TypeHash(Type(&t)); });

  py::class_<TensorTypeNode, TypeNode, Holder<TensorTypeNode>>(
      m, "TensorType", "A tensor of static shape and dtype.")
      .def(py::init([](std::vector<int64_t> shape, const std::string& dtype) {
             for (int64_t d : shape)
               if (d < 0)
                 TS_THROW(kValue) << "TensorType: dimension " << d << " in " << ShapeToString(shape)
                                  << " is negative";
             return Hold(
                 MakeTensorType(std::move(shape), ParseDTypeOrThrow(dtype, "TensorType dtype")));
           }),
           py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("shape",
                             [](const TensorTypeNode& t) { return py::tuple(py::cast(t.shape)); })
      .def_property_readonly(
          "dtype", [](const TensorTypeNode& t) { return std::string(DTypeName(t.dtype)); })
      .def_property_readonly("ndim", &TensorTypeNode::ndim);

  py::class_<TupleTypeNode, TypeNode, Holder<TupleTypeNode>>(m, "TupleType", "A tuple of types.")
      .def(py::init([](std::vector<Type> fields) {
             for (const Type& f : fields)
               if (!f) TS_THROW(kValue) << "TupleType: a field type is None";
             return Hold(MakeTupleType(std::move(fields)));
           }),
           py::arg("fields"))
      .def_property_readonly("fields", [](const TupleTypeNode& t) { return t.fields; });

  py::class_<FuncTypeNode, TypeNode, Holder<FuncTypeNode>>(m, "FuncType", "A function type.")
      .def(py::init([](std::vector<Type> arg_types, Type ret_type) {
             return Hold(MakeFuncType(std::move(arg_types), std::move(ret_type)));
           }),
           py::arg("arg_types"), py::arg("ret_type"))
      .def_property_readonly("arg_types", [](const FuncTypeNode& t) { return t.arg_types; })
      .def_property_readonly("ret_type", [](const FuncTypeNode& t) { return t.ret_type; });
}

void BindExprs(py::module_& m) {
  py::class_<ExprNode, Holder<ExprNode>>(m, "Expr", "Base of graph-level expressions.")
      .def(
          "astext",
          [](const ExprNode& e, bool show_types) {
            PrintOptions options;
            options.show_types = show_types;
            return PrintExpr(Expr(&e), options);
          },
          py::arg("show_types") = false)
      .def("__str__", [](const ExprNode& e) { return ExprText(Expr(&e)); })
      .def("same_as",
           [](const ExprNode& a, py::object b) {
             return py::isinstance<ExprNode>(b) && b.cast<Expr>().get() == &a;
           })
      .def("__eq__",
           [](const ExprNode& a, py::object b) {
             return py::isinstance<ExprNode>(b) && b.cast<Expr>().get() == &a;
           })
      .def("__hash__", [](const ExprNode& e) { return std::hash<const void*>()(&e); })
      .def_property_readonly(
          "checked_type",
          [](const ExprNode& e) {
            if (!e.checked_type_or_null())
              TS_THROW(kValue) << "the type of this expression is not inferred yet (run InferType)";
            return e.checked_type_or_null();
          })
      .def_property_readonly("checked_type_or_none",
                             [](const ExprNode& e) { return e.checked_type_or_null(); });

  py::class_<VarNode, ExprNode, Holder<VarNode>>(m, "Var", "A local variable.")
      .def(py::init([](std::string name, Type type) {
             return Hold(MakeVar(std::move(name), std::move(type)));
           }),
           py::arg("name_hint"), py::arg("type_annotation") = py::none())
      .def_property_readonly("name_hint", [](const VarNode& v) { return v.name_hint; })
      .def_property_readonly("type_annotation", [](const VarNode& v) { return v.type_annotation; })
      .def("__repr__", [](const VarNode& v) { return "Var(%" + v.name_hint + ")"; });

  py::class_<GlobalVarNode, ExprNode, Holder<GlobalVarNode>>(m, "GlobalVar",
                                                             "A reference to a global function.")
      .def(py::init([](std::string name) { return Hold(MakeGlobalVar(std::move(name))); }),
           py::arg("name_hint"))
      .def_property_readonly("name_hint", [](const GlobalVarNode& g) { return g.name; })
      .def("__repr__", [](const GlobalVarNode& g) { return "GlobalVar(@" + g.name + ")"; });

  py::class_<ConstantNode, ExprNode, Holder<ConstantNode>>(m, "Constant", "A constant tensor.")
      .def(py::init([](py::object data) {
             return Hold(MakeConstant(NDArrayFromPy(data, "Constant data", /*copy=*/true)));
           }),
           py::arg("data"))
      .def_property_readonly("data",
                             [](const ConstantNode& c) { return NDArrayToPy(c.data, false); })
      .def_property_readonly(
          "dtype", [](const ConstantNode& c) { return std::string(DTypeName(c.data.dtype())); })
      .def_property_readonly(
          "shape", [](const ConstantNode& c) { return py::tuple(py::cast(c.data.shape())); });

  py::class_<OpNode, ExprNode, Holder<OpNode>>(m, "Op", "A primitive operator (interned by name).")
      .def_static(
          "get", [](const std::string& name) { return GetOp(name); }, py::arg("name"))
      .def_property_readonly("name", [](const OpNode& op) { return op.name; })
      .def("__repr__", [](const OpNode& op) { return "Op(" + op.name + ")"; });

  py::class_<CallNode, ExprNode, Holder<CallNode>>(m, "Call", "A call of an op or function.")
      .def(py::init([](Expr callee, std::vector<Expr> args, py::object attrs,
                       std::vector<Type> type_args) {
             if (!callee) TS_THROW(kValue) << "Call: callee is None";
             for (const Expr& a : args)
               if (!a) TS_THROW(kValue) << "Call: an argument is None";
             Attrs given = AttrsFromPy(attrs, "Call attrs");
             // Op calls are validated and normalised like every other op call.
             if (const auto* op = callee.as<OpNode>())
               return Hold(MakeOpCall(op->name, std::move(args), given, std::move(type_args)));
             return Hold(MakeCall(std::move(callee), std::move(args), given, std::move(type_args)));
           }),
           py::arg("op"), py::arg("args"), py::arg("attrs") = py::none(),
           py::arg("type_args") = std::vector<Type>{})
      .def_property_readonly("op", [](const CallNode& c) { return c.callee; })
      .def_property_readonly("args", [](const CallNode& c) { return c.args; })
      .def_property_readonly("attrs", [](const CallNode& c) { return AttrsToPy(c.attrs); })
      .def_property_readonly("type_args", [](const CallNode& c) { return c.type_args; });

  py::class_<TupleNode, ExprNode, Holder<TupleNode>>(m, "Tuple", "A tuple of values.")
      .def(py::init([](std::vector<Expr> fields) {
             for (const Expr& f : fields)
               if (!f) TS_THROW(kValue) << "Tuple: a field is None";
             return Hold(MakeTuple(std::move(fields)));
           }),
           py::arg("fields"))
      .def_property_readonly("fields", [](const TupleNode& t) { return t.fields; })
      .def("__len__", [](const TupleNode& t) { return t.fields.size(); });

  py::class_<TupleGetItemNode, ExprNode, Holder<TupleGetItemNode>>(m, "TupleGetItem",
                                                                   "A tuple projection.")
      .def(py::init([](Expr tuple, int index) {
             if (!tuple) TS_THROW(kValue) << "TupleGetItem: tuple is None";
             if (index < 0) TS_THROW(kValue) << "TupleGetItem: index " << index << " is negative";
             return Hold(MakeTupleGetItem(std::move(tuple), index));
           }),
           py::arg("tuple_value"), py::arg("index"))
      .def_property_readonly("tuple_value", [](const TupleGetItemNode& t) { return t.tuple; })
      .def_property_readonly("index", [](const TupleGetItemNode& t) { return t.index; });

  py::class_<LetNode, ExprNode, Holder<LetNode>>(m, "Let", "let var = value; body.")
      .def(py::init([](Var var, Expr value, Expr body) {
             if (!var || !value || !body)
               TS_THROW(kValue) << "Let: var, value and body must not be None";
             return Hold(MakeLet(std::move(var), std::move(value), std::move(body)));
           }),
           py::arg("var"), py::arg("value"), py::arg("body"))
      .def_property_readonly("var", [](const LetNode& l) { return l.var; })
      .def_property_readonly("value", [](const LetNode& l) { return l.value; })
      .def_property_readonly("body", [](const LetNode& l) { return l.body; });

  py::class_<BaseFuncNode, ExprNode, Holder<BaseFuncNode>>(m, "BaseFunc",
                                                           "A graph Function or a PrimFunc.")
      .def_property_readonly("attrs", [](const BaseFuncNode& f) { return AttrsToPy(f.attrs); });

  py::class_<FunctionNode, BaseFuncNode, Holder<FunctionNode>>(m, "Function",
                                                               "A graph-level function.")
      .def(py::init([](std::vector<Var> params, Expr body, Type ret_type, py::object attrs) {
             if (!body) TS_THROW(kValue) << "Function: body is None";
             for (const Var& p : params)
               if (!p) TS_THROW(kValue) << "Function: a parameter is None";
             return Hold(MakeFunction(std::move(params), std::move(body), std::move(ret_type),
                                      AttrsFromPy(attrs, "Function attrs")));
           }),
           py::arg("params"), py::arg("body"), py::arg("ret_type") = py::none(),
           py::arg("attrs") = py::none())
      .def_property_readonly("params", [](const FunctionNode& f) { return f.params; })
      .def_property_readonly("body", [](const FunctionNode& f) { return f.body; })
      .def_property_readonly("ret_type", [](const FunctionNode& f) { return f.ret_type; })
      .def(
          "with_attr",
          [](const FunctionNode& f, const std::string& key, py::object value) {
            return WithAttr(Function(&f), key,
                            AttrFromPy(value, "function attribute '" + key + "'"));
          },
          py::arg("key"), py::arg("value"));

  py::class_<tir::PrimFuncNode, BaseFuncNode, Holder<tir::PrimFuncNode>>(m, "PrimFunc",
                                                                         "A tensor-level function.")
      .def_property_readonly("num_outputs",
                             [](const tir::PrimFuncNode& f) { return f.num_outputs; })
      .def_property_readonly("num_params",
                             [](const tir::PrimFuncNode& f) { return f.params.size(); })
      .def_property_readonly(
          "params", [](const tir::PrimFuncNode& f) { return f.params; },
          "Input buffers first, then the num_outputs output buffers.")
      .def_property_readonly("body", [](const tir::PrimFuncNode& f) { return f.body; })
      .def(
          "with_body",
          [](const tir::PrimFuncNode& f, tir::Stmt body) {
            if (!body) TS_THROW(kValue) << "PrimFunc.with_body: body is None";
            return tir::MakePrimFunc(f.params, f.num_outputs, body, f.attrs);
          },
          py::arg("body"), "A copy with another body (same buffers and attributes).")
      .def(
          "script",
          [](const tir::PrimFuncNode& f, const std::string& name) {
            return PrintModule(IRModule().WithFunction(name, tir::PrimFunc(&f)));
          },
          py::arg("name") = "func", "The PrimFunc in the text format, as @name.");
  py::module_ tir_module = m.attr("tir").cast<py::module_>();
  tir_module.def(
      "prim_func",
      [](std::vector<tir::Buffer> params, tir::Stmt body, int num_outputs, py::object attrs) {
        if (!body) TS_THROW(kValue) << "tir.prim_func: body is None";
        if (num_outputs < 1 || static_cast<size_t>(num_outputs) > params.size())
          TS_THROW(kValue) << "tir.prim_func: num_outputs must be from 1 to the " << params.size()
                           << " buffer(s), got " << num_outputs;
        return tir::MakePrimFunc(std::move(params), num_outputs, body,
                                 AttrsFromPy(attrs, "PrimFunc attribute"));
      },
      py::arg("params"), py::arg("body"), py::arg("num_outputs") = 1,
      py::arg("attrs") = py::none(),
      "A PrimFunc: `params` are the input buffers, then the `num_outputs` output buffers.");
}

}  // namespace

void BindIR(py::module_& m) {
  BindTypes(m);
  BindExprs(m);
}

}  // namespace tessera::python
