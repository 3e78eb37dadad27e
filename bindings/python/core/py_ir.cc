// tessera._core's IR types and graph-level expressions (nodes, fields, builders).
#include "py_ir.h"

#include <functional>

namespace tessera_py {

namespace {

/// A wrapper struct of class W owning the new reference `owned` (for results whose class is
/// known, so that signatures name it).
template <typename W, typename H>
W Own(H owned) {
  W w;
  w.handle = decltype(w.handle)(owned);
  return w;
}

/// The text of an expression without the printer's final newline, so that
/// str(call.op) == "nn.relu" as in TVM.
std::string ExprText(TsExpr expr) {
  std::string text =
      Text([&](TsStringCallback cb, void* u) { return TsExprPrint(expr, 0, cb, u); });
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string TypeText(TsType type) {
  return Text([&](TsStringCallback cb, void* u) { return TsTypePrint(type, cb, u); });
}

/// The dtype named `name`; an unknown name raises the C API's value error, reworded to
/// name `what` as the old binding did ("TensorType dtype: unknown dtype 'x' (valid: ...)").
TsDType DTypeOf(const std::string& name, const std::string& what) {
  TsDType out{};
  TsStatus status = TsDTypeFromName(RefOf(name), &out);
  if (status == TS_OK) return out;
  std::string message = TsGetLastError();
  const std::string prefix = "dtype: ";
  if (message.compare(0, prefix.size(), prefix) == 0)
    Raise(status, what + ": " + message.substr(prefix.size()));
  RaiseStatus(status);
}

std::string DTypeText(TsDType dtype) {
  const char* name = nullptr;
  Check(TsDTypeGetName(dtype, &name));
  return name;
}

/// "[-1, 3]": a shape in the old binding's messages (as ShapeToString wrote it).
std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// The name string a node owns (`get(handle, &ref)`), as a Python-side std::string.
template <typename Get>
std::string NameOf(TsExpr expr, Get&& get) {
  TsStringRef ref{};
  Check(get(expr, &ref));
  return StringOf(ref);
}

/// The new expression or type that `get(&out)` hands out, as a Typed result.
template <typename W, typename H, typename Get, typename Wrap>
Typed<W> Field(Get&& get, Wrap&& wrap) {
  H out = nullptr;
  Check(get(&out));
  return TypedOf<W>(wrap(out));
}

void BindTypes(py::module_& m) {
  py::class_<PyType>(m, "Type", "Base of all types.")
      .def("__str__", [](const PyType& t) { return TypeText(t.handle.get()); })
      .def("__repr__", [](const PyType& t) { return TypeText(t.handle.get()); })
      .def("__eq__",
           [](const PyType& a, py::object b) {
             if (!py::isinstance<PyType>(b)) return false;
             int equal = 0;
             Check(TsTypeEqual(a.handle.get(), b.cast<const PyType&>().handle.get(), &equal));
             return equal != 0;
           })
      .def("__hash__", [](const PyType& t) {
        uint64_t hash = 0;
        Check(TsTypeHash(t.handle.get(), &hash));
        return static_cast<size_t>(hash);
      });

  py::class_<PyTensorType, PyType>(m, "TensorType", "A tensor of static shape and dtype.")
      .def(py::init([](std::vector<int64_t> shape, const std::string& dtype) {
             for (int64_t d : shape)
               if (d < 0)
                 Raise(TS_ERROR_VALUE, "TensorType: dimension " + std::to_string(d) + " in " +
                                           ShapeText(shape) + " is negative");
             TsDType dt = DTypeOf(dtype, "TensorType dtype");
             TsType out = nullptr;
             Check(TsTypeTensorCreate(shape.data(), shape.size(), dt, &out));
             return Own<PyTensorType>(out);
           }),
           py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly("shape",
                             [](const PyTensorType& t) {
                               const int64_t* dims = nullptr;
                               size_t ndim = 0;
                               Check(TsTensorTypeGetShape(t.handle.get(), &dims, &ndim));
                               py::tuple out(ndim);
                               for (size_t i = 0; i < ndim; ++i) out[i] = py::int_(dims[i]);
                               return out;
                             })
      .def_property_readonly("dtype",
                             [](const PyTensorType& t) {
                               TsDType dtype{};
                               Check(TsTensorTypeGetDType(t.handle.get(), &dtype));
                               return DTypeText(dtype);
                             })
      .def_property_readonly("ndim", [](const PyTensorType& t) {
        const int64_t* dims = nullptr;
        size_t ndim = 0;
        Check(TsTensorTypeGetShape(t.handle.get(), &dims, &ndim));
        return static_cast<int>(ndim);
      });

  py::class_<PyTupleType, PyType>(m, "TupleType", "A tuple of types.")
      .def(py::init([](const std::vector<Typed<PyType>>& fields) {
             std::vector<TsType> handles =
                 TypeHandles(fields, "TupleType fields", "TupleType: a field type is None");
             TsType out = nullptr;
             Check(TsTypeTupleCreate(handles.data(), handles.size(), &out));
             return Own<PyTupleType>(out);
           }),
           py::arg("fields"))
      .def_property_readonly("fields", [](const PyTupleType& t) {
        TsType h = t.handle.get();
        return TypedList<PyType, TsType>(
            CountOf([&](size_t* n) { return TsTupleTypeGetNumFields(h, n); }),
            [&](size_t i, TsType* out) { return TsTupleTypeGetField(h, i, out); }, WrapType);
      });

  py::class_<PyFuncType, PyType>(m, "FuncType", "A function type.")
      .def(py::init([](const std::vector<Typed<PyType>>& arg_types, const Typed<PyType>& ret_type) {
             std::vector<TsType> args =
                 TypeHandles(arg_types, "FuncType arg_types", "FuncType: an argument type is None");
             if (ret_type.obj.is_none()) Raise(TS_ERROR_VALUE, "FuncType: ret_type is None");
             TsType ret = TypeOf(ret_type.obj, "FuncType ret_type");
             TsType out = nullptr;
             Check(TsTypeFuncCreate(args.data(), args.size(), ret, &out));
             return Own<PyFuncType>(out);
           }),
           py::arg("arg_types"), py::arg("ret_type"))
      .def_property_readonly(
          "arg_types",
          [](const PyFuncType& t) {
            TsType h = t.handle.get();
            return TypedList<PyType, TsType>(
                CountOf([&](size_t* n) { return TsFuncTypeGetNumArgs(h, n); }),
                [&](size_t i, TsType* out) { return TsFuncTypeGetArg(h, i, out); }, WrapType);
          })
      .def_property_readonly("ret_type", [](const PyFuncType& t) {
        return Field<PyType, TsType>(
            [&](TsType* out) { return TsFuncTypeGetRetType(t.handle.get(), out); }, WrapType);
      });
}

/// The attribute dictionary of a Function or PrimFunc.
py::dict FuncAttrs(TsExpr func) {
  return AttrsToPy(
      CountOf([&](size_t* n) { return TsBaseFuncGetNumAttrs(func, n); }),
      [&](size_t i, TsNamedAttribute* out) { return TsBaseFuncGetAttr(func, i, out); });
}

/// Identity of expressions: the handle is the node.
bool SameNode(const PyExpr& a, const py::object& b) {
  return py::isinstance<PyExpr>(b) && b.cast<const PyExpr&>().handle.get() == a.handle.get();
}

void BindExprBase(py::module_& m) {
  py::class_<PyExpr>(m, "Expr", "Base of graph-level expressions.")
      .def(
          "astext",
          [](const PyExpr& e, bool show_types) {
            return Text([&](TsStringCallback cb, void* u) {
              return TsExprPrint(e.handle.get(), show_types ? 1 : 0, cb, u);
            });
          },
          py::arg("show_types") = false)
      .def("__str__", [](const PyExpr& e) { return ExprText(e.handle.get()); })
      .def("same_as", &SameNode)
      .def("__eq__", &SameNode)
      .def("__hash__", [](const PyExpr& e) { return std::hash<const void*>()(e.handle.get()); })
      .def_property_readonly("checked_type",
                             [](const PyExpr& e) {
                               TsType type = nullptr;
                               Check(TsExprGetCheckedType(e.handle.get(), &type));
                               if (!type)
                                 Raise(TS_ERROR_VALUE,
                                       "the type of this expression is not inferred yet (run "
                                       "InferType)");
                               return TypedOf<PyType>(WrapType(type));
                             })
      .def_property_readonly("checked_type_or_none", [](const PyExpr& e) {
        return Field<PyType, TsType>(
            [&](TsType* out) { return TsExprGetCheckedType(e.handle.get(), out); }, WrapType);
      });
}

void BindLeaves(py::module_& m) {
  py::class_<PyVar, PyExpr>(m, "Var", "A local variable.")
      .def(py::init([](const std::string& name, const Typed<PyType>& type) {
             TsType annotation = TypeOf(type.obj, "Var type_annotation", /*allow_none=*/true);
             TsExpr out = nullptr;
             Check(TsExprVarCreate(RefOf(name), annotation, &out));
             return Own<PyVar>(out);
           }),
           py::arg("name_hint"), py::arg("type_annotation") = py::none())
      .def_property_readonly("name_hint",
                             [](const PyVar& v) { return NameOf(v.handle.get(), TsVarGetName); })
      .def_property_readonly(
          "type_annotation",
          [](const PyVar& v) {
            return Field<PyType, TsType>(
                [&](TsType* out) { return TsVarGetTypeAnnotation(v.handle.get(), out); }, WrapType);
          })
      .def("__repr__",
           [](const PyVar& v) { return "Var(%" + NameOf(v.handle.get(), TsVarGetName) + ")"; });

  py::class_<PyGlobalVar, PyExpr>(m, "GlobalVar", "A reference to a global function.")
      .def(py::init([](const std::string& name) {
             TsExpr out = nullptr;
             Check(TsExprGlobalVarCreate(RefOf(name), &out));
             return Own<PyGlobalVar>(out);
           }),
           py::arg("name_hint"))
      .def_property_readonly(
          "name_hint",
          [](const PyGlobalVar& g) { return NameOf(g.handle.get(), TsGlobalVarGetName); })
      .def("__repr__", [](const PyGlobalVar& g) {
        return "GlobalVar(@" + NameOf(g.handle.get(), TsGlobalVarGetName) + ")";
      });

  py::class_<PyConstant, PyExpr>(m, "Constant", "A constant tensor.")
      .def(py::init([](py::object data) {
             // A tessera NDArray goes through a NumPy view that this frame keeps alive:
             // NDArrayFromPy(copy=true) lets its own temporary view of one die before
             // copying it (reported to the glue's owner).
             if (py::isinstance<PyNDArray>(data))
               data = NDArrayToPy(data.cast<const PyNDArray&>().handle.get(), false);
             // A copy: the constant never aliases the caller's array.
             Shared<TsNDArray, TsNDArrayDestroy> array =
                 NDArrayFromPy(data, "Constant data", /*copy=*/true);
             TsExpr out = nullptr;
             Check(TsExprConstantCreate(array.get(), &out));
             return Own<PyConstant>(out);
           }),
           py::arg("data"))
      .def_property_readonly("data",
                             [](const PyConstant& c) {
                               TsNDArray data = nullptr;
                               Check(TsConstantGetData(c.handle.get(), &data));
                               Shared<TsNDArray, TsNDArrayDestroy> owned(data);
                               // Read-only: constants are immutable and may be shared.
                               return NDArrayToPy(owned.get(), /*writeable=*/false);
                             })
      .def_property_readonly(
          "dtype",
          [](const PyConstant& c) {
            TsNDArray data = nullptr;
            Check(TsConstantGetData(c.handle.get(), &data));
            Shared<TsNDArray, TsNDArrayDestroy> owned(data);
            TsDType dtype{};
            Check(TsNDArrayGetInfo(owned.get(), nullptr, nullptr, nullptr, &dtype));
            return DTypeText(dtype);
          })
      .def_property_readonly("shape", [](const PyConstant& c) {
        TsNDArray data = nullptr;
        Check(TsConstantGetData(c.handle.get(), &data));
        Shared<TsNDArray, TsNDArrayDestroy> owned(data);
        const int64_t* dims = nullptr;
        int32_t ndim = 0;
        Check(TsNDArrayGetInfo(owned.get(), nullptr, &dims, &ndim, nullptr));
        py::tuple out(ndim);
        for (int32_t i = 0; i < ndim; ++i) out[i] = py::int_(dims[i]);
        return out;
      });

  py::class_<PyOp, PyExpr>(m, "Op", "A primitive operator (interned by name).")
      .def_static(
          "get",
          [](const std::string& name) {
            TsExpr out = nullptr;
            Check(TsOpGet(RefOf(name), &out));
            return Own<PyOp>(out);
          },
          py::arg("name"))
      .def_property_readonly("name",
                             [](const PyOp& op) { return NameOf(op.handle.get(), TsOpGetName); })
      .def("__repr__",
           [](const PyOp& op) { return "Op(" + NameOf(op.handle.get(), TsOpGetName) + ")"; });
}

void BindCompound(py::module_& m) {
  py::class_<PyCall, PyExpr>(m, "Call", "A call of an op or function.")
      .def(py::init([](const Typed<PyExpr>& callee, const std::vector<Typed<PyExpr>>& args,
                       py::object attrs, const std::vector<Typed<PyType>>& type_args) {
             if (callee.obj.is_none()) Raise(TS_ERROR_VALUE, "Call: callee is None");
             TsExpr op = ExprOf(callee.obj, "Call op");
             std::vector<TsExpr> arg_handles =
                 ExprHandles(args, "Call args", "Call: an argument is None");
             NamedAttrs given = AttrsFromPy(attrs, "Call attrs");
             std::vector<TsType> types =
                 TypeHandles(type_args, "Call type_args", "Call: a type argument is None");
             // Op calls are validated and normalised like every other op call (by the C API).
             TsExpr out = nullptr;
             Check(TsExprCallCreate(op, arg_handles.data(), arg_handles.size(), given.data(),
                                    given.size(), types.data(), types.size(), &out));
             return Own<PyCall>(out);
           }),
           py::arg("op"), py::arg("args"), py::arg("attrs") = py::none(),
           py::arg("type_args") = std::vector<Typed<PyType>>{})
      .def_property_readonly(
          "op",
          [](const PyCall& c) {
            return Field<PyExpr, TsExpr>(
                [&](TsExpr* out) { return TsCallGetCallee(c.handle.get(), out); }, WrapExpr);
          })
      .def_property_readonly("args",
                             [](const PyCall& c) {
                               TsExpr h = c.handle.get();
                               return TypedList<PyExpr, TsExpr>(
                                   CountOf([&](size_t* n) { return TsCallGetNumArgs(h, n); }),
                                   [&](size_t i, TsExpr* out) { return TsCallGetArg(h, i, out); },
                                   WrapExpr);
                             })
      .def_property_readonly(
          "attrs",
          [](const PyCall& c) {
            TsExpr h = c.handle.get();
            return AttrsToPy(
                CountOf([&](size_t* n) { return TsCallGetNumAttrs(h, n); }),
                [&](size_t i, TsNamedAttribute* out) { return TsCallGetAttr(h, i, out); });
          })
      .def_property_readonly("type_args", [](const PyCall& c) {
        TsExpr h = c.handle.get();
        return TypedList<PyType, TsType>(
            CountOf([&](size_t* n) { return TsCallGetNumTypeArgs(h, n); }),
            [&](size_t i, TsType* out) { return TsCallGetTypeArg(h, i, out); }, WrapType);
      });

  py::class_<PyTuple, PyExpr>(m, "Tuple", "A tuple of values.")
      .def(py::init([](const std::vector<Typed<PyExpr>>& fields) {
             std::vector<TsExpr> handles =
                 ExprHandles(fields, "Tuple fields", "Tuple: a field is None");
             TsExpr out = nullptr;
             Check(TsExprTupleCreate(handles.data(), handles.size(), &out));
             return Own<PyTuple>(out);
           }),
           py::arg("fields"))
      .def_property_readonly(
          "fields",
          [](const PyTuple& t) {
            TsExpr h = t.handle.get();
            return TypedList<PyExpr, TsExpr>(
                CountOf([&](size_t* n) { return TsTupleGetNumFields(h, n); }),
                [&](size_t i, TsExpr* out) { return TsTupleGetField(h, i, out); }, WrapExpr);
          })
      .def("__len__", [](const PyTuple& t) {
        return CountOf([&](size_t* n) { return TsTupleGetNumFields(t.handle.get(), n); });
      });

  py::class_<PyTupleGetItem, PyExpr>(m, "TupleGetItem", "A tuple projection.")
      .def(py::init([](const Typed<PyExpr>& tuple, int index) {
             if (tuple.obj.is_none()) Raise(TS_ERROR_VALUE, "TupleGetItem: tuple is None");
             TsExpr t = ExprOf(tuple.obj, "TupleGetItem tuple_value");
             if (index < 0)
               Raise(TS_ERROR_VALUE,
                     "TupleGetItem: index " + std::to_string(index) + " is negative");
             TsExpr out = nullptr;
             Check(TsExprTupleGetItemCreate(t, index, &out));
             return Own<PyTupleGetItem>(out);
           }),
           py::arg("tuple_value"), py::arg("index"))
      .def_property_readonly(
          "tuple_value",
          [](const PyTupleGetItem& t) {
            return Field<PyExpr, TsExpr>(
                [&](TsExpr* out) { return TsTupleGetItemGetTuple(t.handle.get(), out); }, WrapExpr);
          })
      .def_property_readonly("index", [](const PyTupleGetItem& t) {
        int index = 0;
        Check(TsTupleGetItemGetIndex(t.handle.get(), &index));
        return index;
      });

  py::class_<PyLet, PyExpr>(m, "Let", "let var = value; body.")
      .def(py::init(
               [](const Typed<PyVar>& var, const Typed<PyExpr>& value, const Typed<PyExpr>& body) {
                 const char* none = "Let: var, value and body must not be None";
                 if (value.obj.is_none() || body.obj.is_none()) Raise(TS_ERROR_VALUE, none);
                 TsExpr v = ExprOfClass(var, "Let var", "a Var", none);
                 TsExpr out = nullptr;
                 Check(TsExprLetCreate(v, ExprOf(value.obj, "Let value"),
                                       ExprOf(body.obj, "Let body"), &out));
                 return Own<PyLet>(out);
               }),
           py::arg("var"), py::arg("value"), py::arg("body"))
      .def_property_readonly("var",
                             [](const PyLet& l) {
                               return Field<PyVar, TsExpr>(
                                   [&](TsExpr* out) { return TsLetGetVar(l.handle.get(), out); },
                                   WrapExpr);
                             })
      .def_property_readonly("value",
                             [](const PyLet& l) {
                               return Field<PyExpr, TsExpr>(
                                   [&](TsExpr* out) { return TsLetGetValue(l.handle.get(), out); },
                                   WrapExpr);
                             })
      .def_property_readonly("body", [](const PyLet& l) {
        return Field<PyExpr, TsExpr>([&](TsExpr* out) { return TsLetGetBody(l.handle.get(), out); },
                                     WrapExpr);
      });
}

void BindFunctions(py::module_& m) {
  // PrimFunc (a BaseFunc too) is registered by BindTir.
  py::class_<PyBaseFunc, PyExpr>(m, "BaseFunc", "A graph Function or a PrimFunc.")
      .def_property_readonly("attrs",
                             [](const PyBaseFunc& f) { return FuncAttrs(f.handle.get()); });

  py::class_<PyFunction, PyBaseFunc>(m, "Function", "A graph-level function.")
      .def(py::init([](const std::vector<Typed<PyVar>>& params, const Typed<PyExpr>& body,
                       const Typed<PyType>& ret_type, py::object attrs) {
             if (body.obj.is_none()) Raise(TS_ERROR_VALUE, "Function: body is None");
             std::vector<TsExpr> param_handles;
             for (size_t i = 0; i < params.size(); ++i)
               param_handles.push_back(ExprOfClass(params[i],
                                                   "Function params[" + std::to_string(i) + "]",
                                                   "a Var", "Function: a parameter is None"));
             TsExpr b = ExprOf(body.obj, "Function body");
             TsType ret = TypeOf(ret_type.obj, "Function ret_type", /*allow_none=*/true);
             NamedAttrs given = AttrsFromPy(attrs, "Function attrs");
             TsExpr out = nullptr;
             Check(TsExprFunctionCreate(param_handles.data(), param_handles.size(), b, ret,
                                        given.data(), given.size(), &out));
             return Own<PyFunction>(out);
           }),
           py::arg("params"), py::arg("body"), py::arg("ret_type") = py::none(),
           py::arg("attrs") = py::none())
      .def_property_readonly(
          "params",
          [](const PyFunction& f) {
            TsExpr h = f.handle.get();
            return TypedList<PyVar, TsExpr>(
                CountOf([&](size_t* n) { return TsFunctionGetNumParams(h, n); }),
                [&](size_t i, TsExpr* out) { return TsFunctionGetParam(h, i, out); }, WrapExpr);
          })
      .def_property_readonly(
          "body",
          [](const PyFunction& f) {
            return Field<PyExpr, TsExpr>(
                [&](TsExpr* out) { return TsFunctionGetBody(f.handle.get(), out); }, WrapExpr);
          })
      .def_property_readonly(
          "ret_type",
          [](const PyFunction& f) {
            return Field<PyType, TsType>(
                [&](TsType* out) { return TsFunctionGetRetType(f.handle.get(), out); }, WrapType);
          })
      .def(
          "with_attr",
          [](const PyFunction& f, const std::string& key, py::object value) {
            AttrRef attr = AttrFromPy(value, "function attribute '" + key + "'");
            TsExpr out = nullptr;
            Check(TsFunctionWithAttr(f.handle.get(), RefOf(key), attr.get(), &out));
            return Own<PyFunction>(out);
          },
          py::arg("key"), py::arg("value"));
}

}  // namespace

void BindIR(py::module_& m) {
  BindTypes(m);
  BindExprBase(m);
  BindLeaves(m);
  BindCompound(m);
  BindFunctions(m);
}

}  // namespace tessera_py
