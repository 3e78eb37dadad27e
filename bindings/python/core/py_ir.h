// Handle arrays and class checks of Typed arguments for py_ir/py_module/py_op.cc.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core_glue.h"

namespace tessera_py {

/// The borrowed expression handles of Typed arguments (kept alive by `items`); a None item
/// raises TesseraValueError `none_message` (the old bindings' wording), a non-Expr item a
/// type error naming "what[i]".
inline std::vector<TsExpr> ExprHandles(const std::vector<Typed<PyExpr>>& items,
                                       const std::string& what, const std::string& none_message) {
  std::vector<TsExpr> out;
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].obj.is_none()) Raise(TS_ERROR_VALUE, none_message);
    out.push_back(ExprOf(items[i].obj, what + "[" + std::to_string(i) + "]"));
  }
  return out;
}

/// The borrowed type handles of Typed arguments, as ExprHandles.
inline std::vector<TsType> TypeHandles(const std::vector<Typed<PyType>>& items,
                                       const std::string& what, const std::string& none_message) {
  std::vector<TsType> out;
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].obj.is_none()) Raise(TS_ERROR_VALUE, none_message);
    out.push_back(TypeOf(items[i].obj, what + "[" + std::to_string(i) + "]"));
  }
  return out;
}

/// The borrowed handle of a Typed argument that must be an instance of W (a Function, a
/// BaseFunc, a Var): None raises TesseraValueError `none_message`, another object a type
/// error "what: expected a <expected>, got a <class>".
template <typename W>
TsExpr ExprOfClass(const Typed<W>& arg, const std::string& what, const char* expected,
                   const std::string& none_message) {
  if (arg.obj.is_none()) Raise(TS_ERROR_VALUE, none_message);
  if (!py::isinstance<W>(arg.obj))
    Raise(TS_ERROR_TYPE, what + ": expected " + expected + ", got a " + TypeName(arg.obj));
  return arg.obj.template cast<const W&>().handle.get();
}

}  // namespace tessera_py
