"""The IR: types, expressions, modules, text/JSON round trips and structural equality."""
import numbers

import numpy as np

from . import _core
from .error import TesseraTypeError, TesseraValueError

Type = _core.Type
TensorType = _core.TensorType
TupleType = _core.TupleType
FuncType = _core.FuncType
Expr = _core.Expr
Var = _core.Var
GlobalVar = _core.GlobalVar
Constant = _core.Constant
Op = _core.Op
Call = _core.Call
Tuple = _core.Tuple
TupleGetItem = _core.TupleGetItem
Let = _core.Let
BaseFunc = _core.BaseFunc
Function = _core.Function
PrimFunc = _core.PrimFunc
IRModule = _core.IRModule

__all__ = [
    "Type", "TensorType", "TupleType", "FuncType", "Expr", "Var", "GlobalVar", "Constant",
    "Op", "Call", "Tuple", "TupleGetItem", "Let", "BaseFunc", "Function", "PrimFunc",
    "IRModule", "parse", "parse_expr", "var", "const", "structural_equal", "structural_hash",
    "assert_structural_equal", "dtype_name", "as_module",
]


def parse(text, source_name="<string>"):
    """Parses a module in the text format (Relay syntax plus ``primfn``)."""
    return _core.parse(text, source_name)


def parse_expr(text, source_name="<string>"):
    """Parses a single graph expression."""
    return _core.parse_expr(text, source_name)


def dtype_name(dtype):
    """The canonical dtype name of a str, numpy dtype or numpy scalar type."""
    if isinstance(dtype, str):
        return dtype
    try:
        return np.dtype(dtype).name
    except TypeError:
        raise TesseraTypeError(f"cannot interpret {dtype!r} as a dtype") from None


def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A fresh variable, as ``relay.var``: ``var("x", shape=(1, 3), dtype="float32")``.

    A str ``type_annotation`` means a scalar of that dtype. Without a shape or an
    annotation the variable has no type annotation.
    """
    if type_annotation is not None and shape is not None:
        raise TesseraValueError("var: give either type_annotation or shape, not both")
    if shape is not None:
        type_annotation = TensorType(tuple(int(d) for d in shape), dtype_name(dtype))
    elif isinstance(type_annotation, str):
        type_annotation = TensorType((), type_annotation)
    return Var(name_hint, type_annotation)


def const(value, dtype=None):
    """A constant from a NumPy array or Python scalar/list (the data is copied).

    Python floats default to float32 and ints to int32, as in Relay; NumPy arrays keep
    their dtype unless ``dtype`` is given.
    """
    if isinstance(value, Constant):
        return value
    if dtype is not None:
        dtype = dtype_name(dtype)
    if isinstance(value, np.ndarray):
        array = value if dtype is None else value.astype(dtype)
    else:
        if dtype is None:
            probe = np.asarray(value)
            if probe.dtype == np.float64:
                dtype = "float32"
            elif probe.dtype == np.int64:
                dtype = "int32"
            else:
                dtype = probe.dtype.name
        array = np.asarray(value, dtype=dtype)
    return Constant(array)  # copied (into C order) by Constant


def _known_dtype(expr):
    """The element dtype of ``expr`` when it is known without type inference."""
    ty = expr.checked_type_or_none
    if ty is None and isinstance(expr, Var):
        ty = expr.type_annotation
    if ty is None and isinstance(expr, Constant):
        return expr.dtype
    if isinstance(ty, TensorType):
        return ty.dtype
    return None


def as_module(mod):
    """``mod`` as an IRModule: an IRModule as is, a Function as the @main of a new module;
    TesseraTypeError otherwise."""
    if isinstance(mod, IRModule):
        return mod
    if isinstance(mod, Function):
        return IRModule.from_expr(mod)
    raise TesseraTypeError(f"expected an IRModule or a Function, got a {type(mod).__name__}")


def as_expr(value, like=None, what="value"):
    """Converts ``value`` to an expression: Exprs pass through, lists/tuples become Tuples,
    arrays and scalars become constants (scalars take the dtype of ``like`` when known)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (list, tuple)):
        return Tuple([as_expr(v, like, what) for v in value])
    if isinstance(value, np.ndarray):
        return const(value)
    if isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex):
        dtype = None
        for candidate in like or ():
            if isinstance(candidate, Expr):
                dtype = _known_dtype(candidate)
                if dtype:
                    break
        return const(value, dtype)
    raise TesseraTypeError(f"{what} must be an expression, got a {type(value).__name__}")


def _binary(op_name, reverse=False):
    def apply(self, other):
        other = as_expr(other, like=[self], what=f"operand of '{op_name}'")
        args = [other, self] if reverse else [self, other]
        return _core.make_op_call(op_name, args)

    apply.__name__ = f"__{'r' if reverse else ''}{op_name}__"
    return apply


def _getitem(self, index):
    if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
        raise TesseraTypeError(f"tuple index must be an int, got a {type(index).__name__}")
    index = int(index)
    if index < 0:
        size = _tuple_size(self)
        if size is None:
            raise TesseraValueError("negative tuple index needs a tuple of known size")
        index += size
        if index < 0:
            raise IndexError("tuple index out of range")
    return TupleGetItem(self, index)


def _tuple_size(expr):
    if isinstance(expr, Tuple):
        return len(expr.fields)
    ty = expr.checked_type_or_none
    if isinstance(ty, TupleType):
        return len(ty.fields)
    return None


def _iter(self):
    size = _tuple_size(self)
    if size is None:
        raise TesseraTypeError("only tuples of known size can be iterated")
    return iter([TupleGetItem(self, i) for i in range(size)])


# The operators of Expr (the extension's stub declares them for type checkers).
for _name, _method in {
        "__add__": _binary("add"), "__radd__": _binary("add", reverse=True),
        "__sub__": _binary("subtract"), "__rsub__": _binary("subtract", reverse=True),
        "__mul__": _binary("multiply"), "__rmul__": _binary("multiply", reverse=True),
        "__truediv__": _binary("divide"), "__rtruediv__": _binary("divide", reverse=True),
        "__neg__": lambda self: _core.make_op_call("negative", [self]),
        "__getitem__": _getitem, "__iter__": _iter}.items():
    setattr(Expr, _name, _method)


def _repr(self):
    try:
        return f"{type(self).__name__}({self.astext()})"
    except Exception:  # noqa: BLE001 - repr must never fail
        return f"<tessera.ir.{type(self).__name__}>"


setattr(Expr, "__repr__", _repr)


def structural_equal(lhs, rhs, map_free_vars=False):
    """Structural equality of two modules or two expressions (see StructuralEqual).

    ``map_free_vars`` lets free variables match by first occurrence (expressions only).
    """
    if isinstance(lhs, IRModule) and isinstance(rhs, IRModule):
        return _core.module_structural_equal(lhs, rhs)
    if isinstance(lhs, Expr) and isinstance(rhs, Expr):
        return _core.expr_structural_equal(lhs, rhs, map_free_vars)
    if isinstance(lhs, Type) and isinstance(rhs, Type):
        return lhs == rhs
    if lhs is None or rhs is None:
        return lhs is None and rhs is None
    if isinstance(lhs, (IRModule, Expr, Type)) and isinstance(rhs, (IRModule, Expr, Type)):
        return False
    raise TesseraTypeError(
        f"structural_equal expects IR (modules, expressions or types), got "
        f"{type(lhs).__name__} and {type(rhs).__name__}")


def structural_hash(node):
    """A hash consistent with structural_equal."""
    if isinstance(node, IRModule):
        return _core.module_structural_hash(node)
    if isinstance(node, Expr):
        return _core.expr_structural_hash(node)
    if isinstance(node, Type):
        return hash(node)
    raise TesseraTypeError(f"structural_hash expects IR, got {type(node).__name__}")


def _text(node):
    return node.astext() if hasattr(node, "astext") else str(node)


def assert_structural_equal(lhs, rhs, map_free_vars=False):
    """Raises AssertionError describing the first difference, with both texts."""
    if structural_equal(lhs, rhs, map_free_vars):
        return
    diff = None
    if isinstance(lhs, IRModule) and isinstance(rhs, IRModule):
        diff = _core.module_structural_diff(lhs, rhs)
    elif isinstance(lhs, Expr) and isinstance(rhs, Expr):
        diff = _core.expr_structural_diff(lhs, rhs, map_free_vars)
    message = "IR is not structurally equal"
    if diff:
        message += f": {diff}"
    message += f"\n--- lhs ---\n{_text(lhs)}\n--- rhs ---\n{_text(rhs)}"
    raise AssertionError(message)
