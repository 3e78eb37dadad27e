// tessera._core.tir, part 1: scalar expressions (PrimExpr and its kinds, their builders and
// Python operators) and buffers, over the C API; BindTir, the entry point of the concept.
#include "py_tir.h"

namespace tessera_py {

namespace tir_bind {

namespace {

// Dtypes of literals made from Python values (TsDType is DLPack's code, bits, lanes).
constexpr TsDType kBool{6, 8, 1};
constexpr TsDType kInt32{0, 32, 1};
constexpr TsDType kFloat32{2, 32, 1};

/// Whether `dtype` is a floating-point dtype (float16/32/64, bfloat16).
bool IsFloat(TsDType dtype) {
  return dtype.code == 2 || dtype.code == 4;
}

/// A new literal (owned) of `dtype` holding the Python number `value`, converted by pybind11
/// as the old binding did (an int or anything with __index__ for integer dtypes, an int or
/// float for float dtypes); other values raise TesseraTypeError naming `what`.
TsPrimExpr Literal(py::handle value, TsDType dtype, const std::string& what) {
  TsPrimExpr out = nullptr;
  try {
    if (IsFloat(dtype))
      Check(TsPrimExprFloatImmCreate(value.cast<double>(), dtype, &out));
    else
      Check(TsPrimExprIntImmCreate(value.cast<int64_t>(), dtype, &out));
  } catch (const py::cast_error&) {
    Raise(TS_ERROR_TYPE, what + ": cannot make a literal of dtype " + DTypeText(dtype) +
                             " from a Python " + TypeName(value) + " (expected " +
                             (IsFloat(dtype) ? "an int or float" : "an int in 64 bits") + ")");
  }
  return out;
}

/// `a op b`, Python numbers taking the dtype of the other operand (the left one's when both
/// are expressions).
Typed<PyPrimExpr> BinaryOf(TsBinaryOp op, py::handle a, py::handle b) {
  std::optional<TsDType> like = DTypeOf(a) ? DTypeOf(a) : DTypeOf(b);
  const std::string what = TsBinaryOpGetName(op);
  PrimRef lhs = ToPrim(a, like, what), rhs = ToPrim(b, like, what);
  TsPrimExpr out = nullptr;
  Check(TsPrimExprBinaryCreate(op, lhs.get(), rhs.get(), &out));
  return AsPrim(out);
}

/// Registers `name` (and its reflected form `rname` when given) as operator `op`.
template <typename Class>
void Operator(Class& cls, const char* name, const char* rname, TsBinaryOp op) {
  cls.def(
      name, [op](py::object a, py::object b) { return BinaryOf(op, a, b); }, py::is_operator());
  if (rname)
    cls.def(
        rname, [op](py::object a, py::object b) { return BinaryOf(op, b, a); }, py::is_operator());
}

/// The text of a scalar expression ("%i * 4 + %j").
std::string PrimText(TsPrimExpr expr) {
  return Text([&](TsStringCallback cb, void* u) { return TsPrimExprPrint(expr, cb, u); });
}

void BindExprs(py::module_& t) {
  // Classes first, members after, so that every signature names the classes it mentions.
  py::class_<PyPrimExpr> expr(t, "PrimExpr", "A scalar expression.");
  py::class_<PyBuffer> buffer(t, "Buffer", "A dense row-major buffer.");
  py::class_<PyTirVar, PyPrimExpr> var(t, "Var", "A loop or index variable.");
  py::class_<PyIntImm, PyPrimExpr> int_imm(t, "IntImm", "An integer literal.");
  py::class_<PyFloatImm, PyPrimExpr> float_imm(t, "FloatImm", "A float literal.");
  py::class_<PyBinary, PyPrimExpr> binary(t, "Binary", "`a op b`.");
  py::class_<PyBufferLoad, PyPrimExpr> load(t, "BufferLoad", "`buffer[indices]`.");
  py::class_<PySelect, PyPrimExpr>(t, "Select", "`cond ? t : f`.");
  py::class_<PyCast, PyPrimExpr>(t, "Cast", "A dtype conversion.");
  py::class_<PyNot, PyPrimExpr>(t, "Not", "Logical not.");
  py::class_<PyIntrinsic, PyPrimExpr> intrinsic(t, "Intrinsic", "exp, sqrt, ...");

  expr.def_property_readonly(
          "dtype", [](const PyPrimExpr& e) { return DTypeText(DTypeOfPrim(e.handle.get())); })
      .def("__str__", [](const PyPrimExpr& e) { return PrimText(e.handle.get()); })
      .def("__repr__",
           [](const PyPrimExpr& e) { return "PrimExpr(" + PrimText(e.handle.get()) + ")"; })
      .def("same_as", [](const PyPrimExpr& a,
                         const PyPrimExpr& b) { return a.handle.get() == b.handle.get(); })
      .def("__neg__", [](const PyPrimExpr& e) {
        PrimRef zero = ToPrim(py::int_(0), DTypeOfPrim(e.handle.get()), "-");
        TsPrimExpr out = nullptr;
        Check(TsPrimExprBinaryCreate(TS_BINARY_SUB, zero.get(), e.handle.get(), &out));
        return AsPrim(out);
      });
  IdentityEq<PyPrimExpr>(expr);
  Operator(expr, "__add__", "__radd__", TS_BINARY_ADD);
  Operator(expr, "__sub__", "__rsub__", TS_BINARY_SUB);
  Operator(expr, "__mul__", "__rmul__", TS_BINARY_MUL);
  Operator(expr, "__truediv__", "__rtruediv__", TS_BINARY_DIV);
  Operator(expr, "__floordiv__", "__rfloordiv__", TS_BINARY_FLOOR_DIV);
  Operator(expr, "__mod__", "__rmod__", TS_BINARY_FLOOR_MOD);
  Operator(expr, "__lt__", nullptr, TS_BINARY_LT);
  Operator(expr, "__le__", nullptr, TS_BINARY_LE);
  Operator(expr, "__gt__", nullptr, TS_BINARY_GT);
  Operator(expr, "__ge__", nullptr, TS_BINARY_GE);

  var.def(py::init([](const std::string& name, const std::string& dtype) {
            PyTirVar v;
            TsPrimExpr out = nullptr;
            Check(TsPrimExprVarCreate(RefOf(name), ParseDType(dtype, "tir.Var"), &out));
            v.handle = PrimRef(out);
            return v;
          }),
          py::arg("name"), py::arg("dtype") = "int32")
      .def_property_readonly(
          "name", [](const PyTirVar& v) { return Str(Got(TsPrimExprVarGetName, v.handle.get())); });
  int_imm.def_property_readonly(
      "value", [](const PyIntImm& i) { return Got(TsPrimExprIntImmGetValue, i.handle.get()); });
  float_imm.def_property_readonly(
      "value", [](const PyFloatImm& f) { return Got(TsPrimExprFloatImmGetValue, f.handle.get()); });
  binary
      .def_property_readonly(
          "op",
          [](const PyBinary& b) {
            return std::string(TsBinaryOpGetName(Got(TsPrimExprBinaryGetOp, b.handle.get())));
          })
      .def_property_readonly(
          "a", [](const PyBinary& b) { return AsPrim(Got(TsPrimExprBinaryGetA, b.handle.get())); })
      .def_property_readonly(
          "b", [](const PyBinary& b) { return AsPrim(Got(TsPrimExprBinaryGetB, b.handle.get())); });
  load.def_property_readonly("buffer",
                             [](const PyBufferLoad& l) {
                               return AsBuffer(Got(TsPrimExprBufferLoadGetBuffer, l.handle.get()));
                             })
      .def_property_readonly("indices", [](const PyBufferLoad& l) {
        TsPrimExpr h = l.handle.get();
        return PrimList(TsPrimExprBufferLoadGetIndex, h, Got(TsPrimExprBufferLoadGetNumIndices, h));
      });
  intrinsic.def_property_readonly("name", [](const PyIntrinsic& i) {
    return Str(Got(TsPrimExprIntrinsicGetName, i.handle.get()));
  });

  buffer
      .def(py::init(
               [](const std::string& name, std::vector<int64_t> shape, const std::string& dtype) {
                 PyBuffer b;
                 TsBuffer out = nullptr;
                 Check(TsBufferCreate(RefOf(name), shape.data(), shape.size(),
                                      ParseDType(dtype, "tir.Buffer"), &out));
                 b.handle = decltype(b.handle)(out);
                 return b;
               }),
           py::arg("name"), py::arg("shape"), py::arg("dtype") = "float32")
      .def_property_readonly(
          "name", [](const PyBuffer& b) { return Str(Got(TsBufferGetName, b.handle.get())); })
      .def_property_readonly("shape",
                             [](const PyBuffer& b) {
                               const int64_t* shape = nullptr;
                               size_t ndim = 0;
                               Check(TsBufferGetShape(b.handle.get(), &shape, &ndim));
                               return std::vector<int64_t>(shape, shape + ndim);
                             })
      .def_property_readonly(
          "dtype",
          [](const PyBuffer& b) { return DTypeText(Got(TsBufferGetDType, b.handle.get())); })
      .def(
          "__getitem__",
          [](const PyBuffer& b, py::object indices) {
            std::vector<PrimRef> refs = ToPrims(indices, "buffer index");
            std::vector<TsPrimExpr> handles = Handles(refs);
            TsPrimExpr out = nullptr;
            Check(TsPrimExprBufferLoadCreate(b.handle.get(), handles.data(), handles.size(), &out));
            return AsPrim(out);
          })
      .def("__repr__", [](const PyBuffer& b) {
        return "Buffer(" + StringOf(Got(TsBufferGetName, b.handle.get())) + ")";
      });
  IdentityEq<PyBuffer>(buffer);
}

/// Registers the expression builders (const, select, cast, min, ..., call_intrin).
void BindExprBuilders(py::module_& t) {
  t.def(
      "const",
      [](py::object v, const std::string& dtype) {
        return AsPrim(Literal(v, ParseDType(dtype, "tir.const"), "tir.const"));
      },
      py::arg("value"), py::arg("dtype") = "int32", "A literal of `dtype`.");
  t.def(
      "select",
      [](py::object c, py::object a, py::object b) {
        std::optional<TsDType> like = DTypeOf(a) ? DTypeOf(a) : DTypeOf(b);
        PrimRef cond = ToPrim(c, std::nullopt, "select");
        PrimRef yes = ToPrim(a, like, "select"), no = ToPrim(b, like, "select");
        TsPrimExpr out = nullptr;
        Check(TsPrimExprSelectCreate(cond.get(), yes.get(), no.get(), &out));
        return AsPrim(out);
      },
      py::arg("cond"), py::arg("true_value"), py::arg("false_value"));
  t.def(
      "cast",
      [](const std::string& dtype, py::object v) {
        TsDType to = ParseDType(dtype, "tir.cast");
        PrimRef value = ToPrim(v, std::nullopt, "cast");
        TsPrimExpr out = nullptr;
        Check(TsPrimExprCastCreate(to, value.get(), &out));
        return AsPrim(out);
      },
      py::arg("dtype"), py::arg("value"));
  // Named binary operators without a Python operator (positional arguments, as before).
  const std::pair<const char*, TsBinaryOp> named[] = {{"min", TS_BINARY_MIN},
                                                      {"max", TS_BINARY_MAX},
                                                      {"floordiv", TS_BINARY_FLOOR_DIV},
                                                      {"floormod", TS_BINARY_FLOOR_MOD},
                                                      {"eq", TS_BINARY_EQ}};
  for (const auto& [name, op] : named)
    t.def(name, [op = op](py::object a, py::object b) { return BinaryOf(op, a, b); });
  t.def(
      "call_intrin",
      [](const std::string& name, py::args args) {
        // Python numbers take the first argument's dtype (pow(x, 2.0) stays float16).
        std::vector<PrimRef> in;
        for (py::handle a : args)
          in.push_back(ToPrim(
              a, in.empty() ? std::nullopt : std::optional<TsDType>(DTypeOfPrim(in[0].get())),
              "call_intrin"));
        std::vector<TsPrimExpr> handles = Handles(in);
        TsPrimExpr out = nullptr;
        Check(TsPrimExprIntrinsicCreate(RefOf(name), handles.data(), handles.size(), &out));
        return AsPrim(out);
      },
      py::arg("name"), "An intrinsic (exp, sqrt, pow, ...) of the arguments.");
}

}  // namespace

// ---- Shared helpers (py_tir.h) ----------------------------------------------------------------

TsDType ParseDType(const std::string& name, const std::string& what) {
  TsDType out{};
  TsStatus status = TsDTypeFromName(RefOf(name), &out);
  if (status == TS_OK) return out;
  // The C API names its argument ("dtype: unknown dtype ..."); the old binding named the
  // Python caller ("tir.Var: unknown dtype ..."), which says more to a Python user.
  std::string message = TsGetLastError();
  const std::string prefix = "dtype: ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  Raise(status, what + ": " + message);
}

std::string DTypeText(TsDType dtype) {
  const char* name = nullptr;
  Check(TsDTypeGetName(dtype, &name));
  return name;
}

TsDType DTypeOfPrim(TsPrimExpr expr) {
  return Got(TsPrimExprGetDType, expr);
}

std::optional<TsDType> DTypeOf(py::handle value) {
  if (!py::isinstance<PyPrimExpr>(value)) return std::nullopt;
  return DTypeOfPrim(value.cast<const PyPrimExpr&>().handle.get());
}

PrimRef ToPrim(py::handle value, std::optional<TsDType> like, const std::string& what) {
  if (py::isinstance<PyPrimExpr>(value)) return value.cast<const PyPrimExpr&>().handle;
  TsPrimExpr out = nullptr;
  if (PyBool_Check(value.ptr())) {
    Check(TsPrimExprIntImmCreate(value.cast<bool>() ? 1 : 0, kBool, &out));
    return PrimRef(out);
  }
  if (PyLong_Check(value.ptr())) {
    if (like && IsFloat(*like)) return PrimRef(Literal(value, *like, what));
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow)
      Raise(TS_ERROR_VALUE,
            what + ": integer " + py::str(value).cast<std::string>() + " does not fit in 64 bits");
    Check(TsPrimExprIntImmCreate(static_cast<int64_t>(v), like ? *like : kInt32, &out));
    return PrimRef(out);
  }
  if (PyFloat_Check(value.ptr())) {
    TsDType dtype = like && IsFloat(*like) ? *like : kFloat32;
    Check(TsPrimExprFloatImmCreate(value.cast<double>(), dtype, &out));
    return PrimRef(out);
  }
  Raise(TS_ERROR_TYPE, what + ": expected a PrimExpr, int or float, got " + TypeName(value));
}

std::vector<PrimRef> ToPrims(py::handle values, const std::string& what) {
  std::vector<PrimRef> out;
  if (PyTuple_Check(values.ptr()) || PyList_Check(values.ptr())) {
    for (py::handle v : values) out.push_back(ToPrim(v, std::nullopt, what));
  } else {
    out.push_back(ToPrim(values, std::nullopt, what));
  }
  return out;
}

std::vector<TsPrimExpr> Handles(const std::vector<PrimRef>& refs) {
  std::vector<TsPrimExpr> out;
  out.reserve(refs.size());
  for (const PrimRef& r : refs) out.push_back(r.get());
  return out;
}

}  // namespace tir_bind

void BindTir(py::module_& m) {
  // BindIR ran before: PrimFunc (registered by BindTirStmts) derives from its BaseFunc.
  py::module_ t = m.def_submodule("tir", "Tensor-level IR (use tessera.tir).");
  tir_bind::BindExprs(t);
  tir_bind::BindExprBuilders(t);
  tir_bind::BindTirStmts(m, t);
}

}  // namespace tessera_py
