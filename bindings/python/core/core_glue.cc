// The shared conversions of tessera._core: handles to Python objects of the most derived
// class and back, attribute values, names and JSON.
#include "core_glue.h"

#include <pybind11/numpy.h>

namespace tessera_py {

namespace {

/// numpy.generic, cached for the process (leaked on purpose: never touched at shutdown).
py::handle NumpyGeneric() {
  static py::object* generic = new py::object(py::module_::import("numpy").attr("generic"));
  return *generic;
}

/// The borrowed handle inside `obj`, a Python object of class W (or a subclass).
template <typename W>
auto HandleOf(py::handle obj, const std::string& what, bool allow_none, const char* expected)
    -> decltype(std::declval<W>().handle.get()) {
  if (obj.is_none()) {
    if (allow_none) return nullptr;
    Raise(TS_ERROR_VALUE, what + ": expected " + expected + ", got None");
  }
  if (!py::isinstance<W>(obj))
    Raise(TS_ERROR_TYPE, what + ": expected " + expected + ", got a " + TypeName(obj));
  return obj.cast<const W&>().handle.get();
}

/// Wraps an owned handle as the Python class of struct W.
template <typename W, typename H>
py::object As(H owned) {
  W w;
  w.handle = decltype(w.handle)(owned);
  return py::cast(std::move(w));
}

}  // namespace

// ---- Wrapping ------------------------------------------------------------------------------

py::object WrapType(TsType owned) {
  if (!owned) return py::none();
  TsTypeKind kind{};
  TsStatus status = TsTypeGetKind(owned, &kind);
  if (status != TS_OK) {
    TsTypeDestroy(owned);
    RaiseStatus(status);
  }
  switch (kind) {
    case TS_TYPE_TENSOR:
      return As<PyTensorType>(owned);
    case TS_TYPE_TUPLE:
      return As<PyTupleType>(owned);
    case TS_TYPE_FUNC:
      return As<PyFuncType>(owned);
  }
  return As<PyType>(owned);
}

py::object WrapExpr(TsExpr owned) {
  if (!owned) return py::none();
  TsExprKind kind{};
  TsStatus status = TsExprGetKind(owned, &kind);
  if (status != TS_OK) {
    TsExprDestroy(owned);
    RaiseStatus(status);
  }
  switch (kind) {
    case TS_EXPR_VAR:
      return As<PyVar>(owned);
    case TS_EXPR_GLOBAL_VAR:
      return As<PyGlobalVar>(owned);
    case TS_EXPR_CONSTANT:
      return As<PyConstant>(owned);
    case TS_EXPR_OP:
      return As<PyOp>(owned);
    case TS_EXPR_CALL:
      return As<PyCall>(owned);
    case TS_EXPR_TUPLE:
      return As<PyTuple>(owned);
    case TS_EXPR_TUPLE_GET_ITEM:
      return As<PyTupleGetItem>(owned);
    case TS_EXPR_LET:
      return As<PyLet>(owned);
    case TS_EXPR_FUNCTION:
      return As<PyFunction>(owned);
    case TS_EXPR_PRIM_FUNC:
      return As<PyPrimFunc>(owned);
  }
  return As<PyExpr>(owned);
}

py::object WrapModule(TsModule owned) {
  if (!owned) return py::none();
  return As<PyModule>(owned);
}

py::object WrapPrimExpr(TsPrimExpr owned) {
  if (!owned) return py::none();
  TsPrimExprKind kind{};
  TsStatus status = TsPrimExprGetKind(owned, &kind);
  if (status != TS_OK) {
    TsPrimExprDestroy(owned);
    RaiseStatus(status);
  }
  switch (kind) {
    case TS_PRIM_EXPR_INT_IMM:
      return As<PyIntImm>(owned);
    case TS_PRIM_EXPR_FLOAT_IMM:
      return As<PyFloatImm>(owned);
    case TS_PRIM_EXPR_VAR:
      return As<PyTirVar>(owned);
    case TS_PRIM_EXPR_BINARY:
      return As<PyBinary>(owned);
    case TS_PRIM_EXPR_NOT:
      return As<PyNot>(owned);
    case TS_PRIM_EXPR_SELECT:
      return As<PySelect>(owned);
    case TS_PRIM_EXPR_CAST:
      return As<PyCast>(owned);
    case TS_PRIM_EXPR_BUFFER_LOAD:
      return As<PyBufferLoad>(owned);
    case TS_PRIM_EXPR_INTRINSIC:
      return As<PyIntrinsic>(owned);
  }
  return As<PyPrimExpr>(owned);
}

py::object WrapBuffer(TsBuffer owned) {
  if (!owned) return py::none();
  return As<PyBuffer>(owned);
}

py::object WrapStmt(TsStmt owned) {
  if (!owned) return py::none();
  TsStmtKind kind{};
  TsStatus status = TsStmtGetKind(owned, &kind);
  if (status != TS_OK) {
    TsStmtDestroy(owned);
    RaiseStatus(status);
  }
  switch (kind) {
    case TS_STMT_FOR:
      return As<PyFor>(owned);
    case TS_STMT_BLOCK:
      return As<PyBlock>(owned);
    case TS_STMT_BUFFER_STORE:
      return As<PyBufferStore>(owned);
    case TS_STMT_ALLOCATE:
      return As<PyAllocate>(owned);
    case TS_STMT_SEQ:
      return As<PySeqStmt>(owned);
    case TS_STMT_IF_THEN_ELSE:
      return As<PyIfThenElse>(owned);
    case TS_STMT_PREFETCH:
      return As<PyPrefetch>(owned);
  }
  return As<PyStmt>(owned);
}

py::object WrapPass(TsPass owned) {
  if (!owned) return py::none();
  return As<PyPass>(owned);
}

py::object WrapPassContext(TsPassContext owned) {
  if (!owned) return py::none();
  return As<PyPassContext>(owned);
}

py::object WrapPattern(TsPattern owned) {
  if (!owned) return py::none();
  return As<PyPattern>(owned);
}

// ---- Unwrapping ------------------------------------------------------------------------------

TsType TypeOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyType>(obj, what, allow_none, "a Type");
}
TsExpr ExprOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyExpr>(obj, what, allow_none, "an Expr");
}
TsModule ModuleOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyModule>(obj, what, allow_none, "an IRModule");
}
TsPrimExpr PrimExprOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyPrimExpr>(obj, what, allow_none, "a tir.PrimExpr");
}
TsBuffer BufferOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyBuffer>(obj, what, allow_none, "a tir.Buffer");
}
TsStmt StmtOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyStmt>(obj, what, allow_none, "a tir.Stmt");
}
TsPass PassOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyPass>(obj, what, allow_none, "a Pass");
}
TsPassContext PassContextOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyPassContext>(obj, what, allow_none, "a PassContext");
}
TsPattern PatternOf(py::handle obj, const std::string& what, bool allow_none) {
  return HandleOf<PyPattern>(obj, what, allow_none, "a DFPattern");
}

std::vector<TsExpr> ExprsOf(py::handle seq, const std::string& what, bool allow_none) {
  std::vector<TsExpr> out;
  size_t i = 0;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(seq))
    out.push_back(ExprOf(item, what + "[" + std::to_string(i++) + "]", allow_none));
  return out;
}

std::vector<TsType> TypesOf(py::handle seq, const std::string& what, bool allow_none) {
  std::vector<TsType> out;
  size_t i = 0;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(seq))
    out.push_back(TypeOf(item, what + "[" + std::to_string(i++) + "]", allow_none));
  return out;
}

// ---- Strings ---------------------------------------------------------------------------

std::vector<const char*> CStrings(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(n.c_str());
  return out;
}

std::string TypeName(py::handle obj) {
  return py::str(py::type::handle_of(obj).attr("__name__")).cast<std::string>();
}

// ---- Attributes ----------------------------------------------------------------------------

AttrRef AttrFromPy(py::handle value, const std::string& what) {
  TsAttribute out = nullptr;
  if (value.is_none()) {
    Check(TsAttributeNoneCreate(&out));
  } else if (PyBool_Check(value.ptr())) {
    Check(TsAttributeBoolCreate(value.cast<bool>() ? 1 : 0, &out));
  } else if (PyLong_Check(value.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow)
      Raise(TS_ERROR_VALUE,
            what + ": integer " + py::str(value).cast<std::string>() + " does not fit in 64 bits");
    Check(TsAttributeIntCreate(static_cast<int64_t>(v), &out));
  } else if (PyFloat_Check(value.ptr())) {
    Check(TsAttributeFloatCreate(value.cast<double>(), &out));
  } else if (PyUnicode_Check(value.ptr())) {
    std::string s = value.cast<std::string>();
    Check(TsAttributeStringCreate(RefOf(s), &out));
  } else if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    std::vector<AttrRef> items;
    for (py::handle item : value) items.push_back(AttrFromPy(item, what));
    std::vector<TsAttribute> handles;
    for (const AttrRef& item : items) handles.push_back(item.get());
    Check(TsAttributeArrayCreate(handles.data(), handles.size(), &out));
  } else if (py::isinstance(value, NumpyGeneric()) || py::isinstance<py::array>(value)) {
    return AttrFromPy(value.attr("tolist")(), what);
  } else {
    Raise(TS_ERROR_TYPE, what + ": cannot convert a Python " + TypeName(value) +
                             " to an attribute value (use None, bool, int, float, str or a list "
                             "of them)");
  }
  return AttrRef(out);
}

py::object AttrToPy(TsAttribute value) {
  TsAttributeKind kind{};
  Check(TsAttributeGetKind(value, &kind));
  switch (kind) {
    case TS_ATTRIBUTE_NONE:
      return py::none();
    case TS_ATTRIBUTE_BOOL: {
      int v = 0;
      Check(TsAttributeGetBool(value, &v));
      return py::bool_(v != 0);
    }
    case TS_ATTRIBUTE_INT: {
      int64_t v = 0;
      Check(TsAttributeGetInt(value, &v));
      return py::int_(v);
    }
    case TS_ATTRIBUTE_FLOAT: {
      double v = 0;
      Check(TsAttributeGetFloat(value, &v));
      return py::float_(v);
    }
    case TS_ATTRIBUTE_STRING: {
      TsStringRef s{};
      Check(TsAttributeGetString(value, &s));
      return Str(s);
    }
    case TS_ATTRIBUTE_ARRAY: {
      size_t n = 0;
      Check(TsAttributeGetNumItems(value, &n));
      py::tuple out(n);
      for (size_t i = 0; i < n; ++i) {
        TsAttribute item = nullptr;
        Check(TsAttributeGetItem(value, i, &item));
        AttrRef owned(item);
        out[i] = AttrToPy(owned.get());
      }
      return std::move(out);
    }
  }
  return py::none();
}

void NamedAttrs::Add(std::string name, AttrRef value) {
  names_.push_back(std::move(name));
  values_.push_back(std::move(value));
  // Entries point into names_ and values_: rebuild them after each growth.
  entries_.clear();
  for (size_t i = 0; i < names_.size(); ++i)
    entries_.push_back(TsNamedAttribute{RefOf(names_[i]), values_[i].get()});
}

NamedAttrs AttrsFromPy(py::handle dict, const std::string& what) {
  NamedAttrs attrs;
  if (dict.is_none()) return attrs;
  if (!PyDict_Check(dict.ptr()))
    Raise(TS_ERROR_TYPE, what + " must be a dict, got a " + TypeName(dict));
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(dict)) {
    if (!PyUnicode_Check(key.ptr()))
      Raise(TS_ERROR_TYPE, what + " keys must be strings, got a " + TypeName(key));
    std::string name = key.cast<std::string>();
    attrs.Add(name, AttrFromPy(value, what + " '" + name + "'"));
  }
  return attrs;
}

// ---- JSON ------------------------------------------------------------------------------

namespace {

/// `value` with NumPy scalars and arrays turned into Python numbers and lists, and tuples
/// into lists, so that json.dumps takes it; raises for what JSON cannot carry.
py::object Jsonable(py::handle value, const std::string& what) {
  if (value.is_none() || PyBool_Check(value.ptr()) || PyLong_Check(value.ptr()) ||
      PyFloat_Check(value.ptr()) || PyUnicode_Check(value.ptr()))
    return py::reinterpret_borrow<py::object>(value);
  if (py::isinstance(value, NumpyGeneric()) || py::isinstance<py::array>(value))
    return Jsonable(value.attr("tolist")(), what);
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    py::list out;
    for (py::handle item : value) out.append(Jsonable(item, what));
    return std::move(out);
  }
  if (PyDict_Check(value.ptr())) {
    py::dict out;
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(value)) {
      if (!PyUnicode_Check(k.ptr()))
        Raise(TS_ERROR_TYPE, what + ": dict keys must be strings, got a " + TypeName(k));
      out[k] = Jsonable(v, what);
    }
    return std::move(out);
  }
  Raise(TS_ERROR_TYPE, what + ": cannot convert a Python " + TypeName(value) +
                           " to a config value (use None, bool, int, float, str or a list of "
                           "them)");
}

}  // namespace

std::string JsonOf(py::handle value, const std::string& what) {
  static py::object* dumps = new py::object(py::module_::import("json").attr("dumps"));
  return (*dumps)(Jsonable(value, what), py::arg("allow_nan") = true).cast<std::string>();
}

py::object FromJson(const std::string& json) {
  static py::object* loads = new py::object(py::module_::import("json").attr("loads"));
  return (*loads)(json);
}

}  // namespace tessera_py
