// Private helpers shared by the two files of tessera._core.tir (py_tir.cc, py_tir_stmt.cc):
// Python numbers as scalar expressions, dtypes, and typed returns of wrapped handles.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core_glue.h"

namespace tessera_py::tir_bind {

using tessera_py::Typed;

/// An owned scalar expression.
using PrimRef = Owned<TsPrimExpr, TsPrimExprDestroy, TsPrimExprRetain>;

/// Typed wrappers of owned handles (NULL gives None).
inline Typed<PyPrimExpr> AsPrim(TsPrimExpr owned) {
  return {WrapPrimExpr(owned)};
}
inline Typed<PyStmt> AsStmt(TsStmt owned) {
  return {WrapStmt(owned)};
}
inline Typed<PyBuffer> AsBuffer(TsBuffer owned) {
  return {WrapBuffer(owned)};
}

/// The new reference (or value) a getter `get(handle, &out)` hands out.
template <typename Out, typename In>
Out Got(TsStatus (*get)(In, Out*), In handle) {
  Out out{};
  Check(get(handle, &out));
  return out;
}
/// Item `index` a getter `get(handle, index, &out)` hands out.
template <typename Out, typename In>
Out GotAt(TsStatus (*get)(In, size_t, Out*), In handle, size_t index) {
  Out out{};
  Check(get(handle, index, &out));
  return out;
}
/// The `count` scalar expressions `get(handle, i, &out)` hands out, as a typed list.
template <typename In>
std::vector<Typed<PyPrimExpr>> PrimList(TsStatus (*get)(In, size_t, TsPrimExpr*), In handle,
                                        size_t count) {
  std::vector<Typed<PyPrimExpr>> out;
  for (size_t i = 0; i < count; ++i) out.push_back(AsPrim(GotAt(get, handle, i)));
  return out;
}

/// Identity equality and hash for a tir class W: two Python objects for one node are equal
/// (the old binding gave this by reusing the node's live Python object).
template <typename W, typename Class>
void IdentityEq(Class& cls) {
  cls.def("__eq__",
          [](const W& a, py::object b) {
            return py::isinstance<W>(b) &&
                   b.template cast<const W&>().handle.get() == a.handle.get();
          })
      .def("__hash__", [](const W& a) { return std::hash<const void*>()(a.handle.get()); });
}

/// The dtype named `name`; an unknown name raises TesseraValueError as "`what`: unknown
/// dtype 'x' (valid: ...)".
TsDType ParseDType(const std::string& name, const std::string& what);
/// The name of a dtype ("float32").
std::string DTypeText(TsDType dtype);
/// The dtype of a scalar expression.
TsDType DTypeOfPrim(TsPrimExpr expr);
/// The dtype of `value` when it is a tir.PrimExpr.
std::optional<TsDType> DTypeOf(py::handle value);

/// `value` as a scalar expression: a PrimExpr as itself; a bool as a bool literal; an int
/// as a literal of dtype `like` (a float literal when `like` is a float dtype; int32 without
/// `like`); a float as a literal of `like` when it is a float dtype, else float32. Anything
/// else raises TesseraTypeError "`what`: expected a PrimExpr, int or float, got T".
PrimRef ToPrim(py::handle value, std::optional<TsDType> like, const std::string& what);
/// A tuple or list of values (or one value) as scalar expressions, by ToPrim.
std::vector<PrimRef> ToPrims(py::handle values, const std::string& what);
/// The borrowed handles of `refs` (valid while `refs` lives).
std::vector<TsPrimExpr> Handles(const std::vector<PrimRef>& refs);

/// Registers the statement classes and builders in `t` (tessera._core.tir), then PrimFunc
/// in `m` (tessera._core) and tir.prim_func; called by BindTir after the expressions.
void BindTirStmts(py::module_& m, py::module_& t);

}  // namespace tessera_py::tir_bind
