// Private glue of the tessera._core binding files, over the C API only: the Python classes
// of C handles, conversions between Python objects and handles, attributes and names.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "../common/capi_glue.h"
#include "tessera/c_api.h"

// Hidden like pybind11's own types (Typed holds a py::object): GCC warns about a type more
// visible than its members when the target does not hide symbols by default.
#if defined(__GNUC__)
#define TESSERA_PY_HIDDEN __attribute__((visibility("hidden")))
#else
#define TESSERA_PY_HIDDEN
#endif

namespace tessera_py {

// ---- Python classes over handles ---------------------------------------------------------
// One C++ struct per Python class; a struct owns one reference to its node (released when
// the last Python object holding it goes). Subclass structs add no members: they exist so
// that pybind11 gives Python the same class hierarchy as the IR. Two Python objects for one
// node compare (and hash) equal: the handle is the node.

/// A type (Type); subclasses per kind.
struct PyType {
  Owned<TsType, TsTypeDestroy, TsTypeRetain> handle;
};
struct PyTensorType : PyType {};
struct PyTupleType : PyType {};
struct PyFuncType : PyType {};

/// A graph-level expression (Expr); subclasses per TsExprKind.
struct PyExpr {
  Owned<TsExpr, TsExprDestroy, TsExprRetain> handle;
};
struct PyVar : PyExpr {};
struct PyGlobalVar : PyExpr {};
struct PyConstant : PyExpr {};
struct PyOp : PyExpr {};
struct PyCall : PyExpr {};
struct PyTuple : PyExpr {};
struct PyTupleGetItem : PyExpr {};
struct PyLet : PyExpr {};
struct PyBaseFunc : PyExpr {};
struct PyFunction : PyBaseFunc {};
struct PyPrimFunc : PyBaseFunc {};

/// An IRModule.
struct PyModule {
  Owned<TsModule, TsModuleDestroy, TsModuleRetain> handle;
};

/// A tensor-level scalar expression (tir.PrimExpr); subclasses per TsPrimExprKind.
struct PyPrimExpr {
  Owned<TsPrimExpr, TsPrimExprDestroy, TsPrimExprRetain> handle;
};
struct PyTirVar : PyPrimExpr {};
struct PyIntImm : PyPrimExpr {};
struct PyFloatImm : PyPrimExpr {};
struct PyBinary : PyPrimExpr {};
struct PyNot : PyPrimExpr {};
struct PySelect : PyPrimExpr {};
struct PyCast : PyPrimExpr {};
struct PyBufferLoad : PyPrimExpr {};
struct PyIntrinsic : PyPrimExpr {};
/// A tir.Buffer.
struct PyBuffer {
  Owned<TsBuffer, TsBufferDestroy, TsBufferRetain> handle;
};
/// A tensor-level statement (tir.Stmt); subclasses per TsStmtKind.
struct PyStmt {
  Owned<TsStmt, TsStmtDestroy, TsStmtRetain> handle;
};
struct PyFor : PyStmt {};
struct PyBlock : PyStmt {};
struct PyBufferStore : PyStmt {};
struct PyPrefetch : PyStmt {};
struct PyAllocate : PyStmt {};
struct PySeqStmt : PyStmt {};
struct PyIfThenElse : PyStmt {};

/// A pass or pipeline (Pass), its PassInfo, a PassContext.
struct PyPass {
  Owned<TsPass, TsPassDestroy, TsPassRetain> handle;
};
struct PyPassInfo {
  Owned<TsPassInfo, TsPassInfoDestroy, TsPassInfoRetain> handle;
};
struct PyPassContext {
  Owned<TsPassContext, TsPassContextDestroy, TsPassContextRetain> handle;
};

/// A dataflow pattern (DFPattern).
struct PyPattern {
  Owned<TsPattern, TsPatternDestroy, TsPatternRetain> handle;
};

// ---- Handles to Python and back ------------------------------------------------------------
// Wrap* take ownership of a new reference (NULL gives None) and return an object of the
// most derived class. *Of return the borrowed handle inside a Python object (valid while the
// object lives); None gives NULL when `allow_none`, and anything else raises
// TesseraTypeError naming `what`.

py::object WrapType(TsType owned);
py::object WrapExpr(TsExpr owned);
py::object WrapModule(TsModule owned);
py::object WrapPrimExpr(TsPrimExpr owned);
py::object WrapBuffer(TsBuffer owned);
py::object WrapStmt(TsStmt owned);
py::object WrapPass(TsPass owned);
py::object WrapPassContext(TsPassContext owned);
py::object WrapPattern(TsPattern owned);

TsType TypeOf(py::handle obj, const std::string& what, bool allow_none = false);
TsExpr ExprOf(py::handle obj, const std::string& what, bool allow_none = false);
TsModule ModuleOf(py::handle obj, const std::string& what, bool allow_none = false);
TsPrimExpr PrimExprOf(py::handle obj, const std::string& what, bool allow_none = false);
TsBuffer BufferOf(py::handle obj, const std::string& what, bool allow_none = false);
TsStmt StmtOf(py::handle obj, const std::string& what, bool allow_none = false);
TsPass PassOf(py::handle obj, const std::string& what, bool allow_none = false);
TsPassContext PassContextOf(py::handle obj, const std::string& what, bool allow_none = false);
TsPattern PatternOf(py::handle obj, const std::string& what, bool allow_none = false);

/// Borrowed handles of a Python sequence's items (the sequence keeps them alive); item i is
/// named "what[i]" in errors; None items raise unless `allow_none`.
std::vector<TsExpr> ExprsOf(py::handle seq, const std::string& what, bool allow_none = false);
std::vector<TsType> TypesOf(py::handle seq, const std::string& what, bool allow_none = false);

/// A Python list of the `count` handles `get(i, &out)` hands out (new references), each
/// wrapped by `wrap`.
template <typename H, typename Get, typename Wrap>
py::list ListOf(size_t count, Get&& get, Wrap&& wrap) {
  py::list out;
  for (size_t i = 0; i < count; ++i) {
    H handle = nullptr;
    Check(get(i, &handle));
    out.append(wrap(handle));
  }
  return out;
}

/// The count a `TsXGetNumY(handle, &count)` call returns.
template <typename F>
size_t CountOf(F&& get_num) {
  size_t n = 0;
  Check(get_num(&n));
  return n;
}

// ---- Typed objects -------------------------------------------------------------------

/// A Python object that signatures (help(), the generated stubs) name as the Python class
/// of wrapper struct W ("Expr", "List[Var]", "-> Type"), as the old bindings' node handles
/// were named. As an argument it takes any object, None included: the binding checks it
/// with ExprOf and friends, so that a wrong value raises a tessera error naming the argument
/// (and None keeps the old "... is None" messages) instead of pybind11's generic TypeError.
/// As a result it returns the object as it is (a Wrap* result: the most derived class).
template <typename W>
struct TESSERA_PY_HIDDEN Typed {
  py::object obj;
};

/// A Typed result from a Wrap* result.
template <typename W>
Typed<W> TypedOf(py::object obj) {
  return Typed<W>{std::move(obj)};
}

/// A list, typed as List[W], of the `count` handles `get(i, &out)` hands out (new
/// references), each wrapped by `wrap`.
template <typename W, typename H, typename Get, typename Wrap>
std::vector<Typed<W>> TypedList(size_t count, Get&& get, Wrap&& wrap) {
  std::vector<Typed<W>> out;
  out.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    H handle = nullptr;
    Check(get(i, &handle));
    out.push_back(Typed<W>{wrap(handle)});
  }
  return out;
}

// ---- Strings ---------------------------------------------------------------------------

/// A TsStringRef viewing `s` (valid while `s` lives).
inline TsStringRef RefOf(const std::string& s) {
  return TsStringRef{s.data(), s.size()};
}
/// A std::string copy of a borrowed TsStringRef.
inline std::string StringOf(TsStringRef ref) {
  return std::string(ref.data ? ref.data : "", ref.length);
}
/// The `char*` array of `names` (valid while `names` lives).
std::vector<const char*> CStrings(const std::vector<std::string>& names);
/// The Python type name of `obj` for messages ("int", "Var").
std::string TypeName(py::handle obj);

// ---- Attributes ----------------------------------------------------------------------------

/// An owned attribute value.
using AttrRef = Shared<TsAttribute, TsAttributeDestroy>;
/// Converts a Python value (None, bool, int, float, str, nested list/tuple, NumPy scalar or
/// array) to an attribute value; raises TesseraTypeError naming `what` otherwise.
AttrRef AttrFromPy(py::handle value, const std::string& what);
/// Converts a (borrowed) attribute value to Python (arrays become tuples).
py::object AttrToPy(TsAttribute value);

/// An attribute dictionary in the C API's form, owning what its entries point to.
class NamedAttrs {
 public:
  const TsNamedAttribute* data() const { return entries_.empty() ? nullptr : entries_.data(); }
  size_t size() const { return entries_.size(); }
  /// Appends `name` = `value`.
  void Add(std::string name, AttrRef value);

 private:
  std::vector<std::string> names_;
  std::vector<AttrRef> values_;
  std::vector<TsNamedAttribute> entries_;
};
/// A dict (or None) of attribute values, in the dict's order; raises TesseraTypeError for a
/// non-dict or a non-str key.
NamedAttrs AttrsFromPy(py::handle dict, const std::string& what);
/// An ordered dict of the `count` attributes `get(i, &named)` hands out (each value a new
/// reference, released here).
template <typename Get>
py::dict AttrsToPy(size_t count, Get&& get) {
  py::dict out;
  for (size_t i = 0; i < count; ++i) {
    TsNamedAttribute named{};
    Check(get(i, &named));
    AttrRef value(named.value);
    out[Str(named.name)] = AttrToPy(value.get());
  }
  return out;
}

/// A Python value as JSON text (None, bool, int, float, str, lists/tuples and dicts of them,
/// NumPy scalars), for config values and pass options; raises TesseraTypeError naming `what`.
std::string JsonOf(py::handle value, const std::string& what);
/// A Python value from JSON text.
py::object FromJson(const std::string& json);

// ---- Registration per concept, called in this order by the module entry point --------------

/// Type, Expr and its subclasses (PrimFunc comes from BindTir), attribute conversions.
void BindIR(py::module_& m);
/// tir submodule: PrimExpr, Buffer, Stmt classes and builders; PrimFunc and tir.prim_func.
void BindTir(py::module_& m);
/// IRModule, structural equality/hash/diff, parse, verify.
void BindIRModule(py::module_& m);
/// The op registry: list_ops, op_schema, make_op_call.
void BindOp(py::module_& m);
/// PassInfo, Pass, PassContext, pass creation and the registry.
void BindTransform(py::module_& m);
/// Pass instruments.
void BindInstrument(py::module_& m);
/// The reference interpreter: evaluate, run_main.
void BindRuntime(py::module_& m);
/// build, lower_for_build, list_targets.
void BindBuild(py::module_& m);
/// pattern submodule: DFPattern, matching, rewriting, pattern tables, BYOC partitioning;
/// register_external.
void BindPattern(py::module_& m);
/// collage submodule: rules and candidates.
void BindCollage(py::module_& m);
/// collage submodule: the search, estimators, reports.
void BindCollageSearch(py::module_& m);
/// collage submodule: CostDatabase and fingerprints.
void BindCostDatabase(py::module_& m);
/// ONNX import.
void BindFrontend(py::module_& m);
/// layout submodule: IndexMap.
void BindLayout(py::module_& m);

/// A TsUserDataDestroy deleting a heap-held T (a Python reference, or a struct or
/// std::function holding one) under the GIL, from any thread; leaks it after interpreter
/// shutdown, when Python objects can no longer be released.
template <typename T>
void DestroyUnderGil(void* user_data) {
  if (!Py_IsInitialized()) return;
  py::gil_scoped_acquire gil;
  delete static_cast<T*>(user_data);
}

}  // namespace tessera_py

namespace pybind11::detail {

/// Loads any object into Typed<W> and returns its object; named as W's Python class.
template <typename W>
struct type_caster<tessera_py::Typed<W>> {
  PYBIND11_TYPE_CASTER(tessera_py::Typed<W>, make_caster<W>::name);

  bool load(handle src, bool /*convert*/) {
    value.obj = reinterpret_borrow<object>(src);
    return true;
  }
  static handle cast(const tessera_py::Typed<W>& src, return_value_policy /*policy*/,
                     handle /*parent*/) {
    return src.obj.inc_ref();
  }
};

}  // namespace pybind11::detail
