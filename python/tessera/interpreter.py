"""Evaluating modules on NumPy arrays with the reference interpreter (the compiler's
ground truth; ``tessera.evaluate``).

Inputs that are C-contiguous, aligned NumPy arrays are passed without copying; outputs are
NumPy arrays viewing the interpreter's result memory (so an input returned unchanged
shares memory with the caller's array).
"""
import numpy as np

from . import _core
from .error import TesseraTypeError, TesseraValueError
from .ir import Function, IRModule, TensorType, TupleType, as_module

__all__ = ["evaluate", "evaluate_function", "run"]



def _convert(value, ty, what):
    """Checks ``value`` against the parameter type ``ty`` and converts it for C++."""
    if isinstance(ty, TupleType):
        if not isinstance(value, (tuple, list)):
            raise TesseraTypeError(f"{what}: expected a tuple of {len(ty.fields)} values, "
                                   f"got a {type(value).__name__}")
        if len(value) != len(ty.fields):
            raise TesseraValueError(f"{what}: expected a tuple of {len(ty.fields)} values, "
                                    f"got {len(value)}")
        return tuple(_convert(v, t, f"{what}[{i}]") for i, (v, t) in enumerate(zip(value, ty.fields)))
    if isinstance(value, (tuple, list)) and ty is None:
        return tuple(_convert(v, None, f"{what}[{i}]") for i, v in enumerate(value))
    if isinstance(ty, TensorType):
        if isinstance(value, np.ndarray):
            if value.dtype.name != ty.dtype:
                raise TesseraTypeError(f"{what}: expected dtype {ty.dtype}, got {value.dtype.name}")
        else:
            try:
                value = np.asarray(value, dtype=ty.dtype)
            except (TypeError, ValueError) as err:
                raise TesseraTypeError(f"{what}: cannot convert a {type(value).__name__} to "
                                       f"{ty.dtype}: {err}") from None
        if tuple(value.shape) != tuple(ty.shape):
            # A type error, as the compiled executor reports the same mistake.
            raise TesseraTypeError(f"{what}: expected shape {tuple(ty.shape)}, got {tuple(value.shape)}")
        return value
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    return value


def evaluate_function(mod, func_name, *args):
    """Evaluates graph function ``func_name`` of ``mod`` on positional inputs."""
    mod = as_module(mod)
    func = mod[func_name]
    if not isinstance(func, Function):
        raise TesseraTypeError(f"@{func_name} must be a graph Function to be evaluated")
    if len(args) != len(func.params):
        raise TesseraTypeError(f"@{func_name} takes {len(func.params)} input(s), got {len(args)}")
    converted = [_convert(v, p.type_annotation, f"input '{p.name_hint}'")
                 for v, p in zip(args, func.params)]
    return _core.evaluate(mod, func_name, converted, [p.name_hint for p in func.params])


def evaluate(mod, /, *args, **kwargs):
    """Evaluates ``@main`` of ``mod`` (an IRModule or a Function) on NumPy arrays given
    positionally and/or by parameter name. Returns a NumPy array, or a tuple for a tuple
    result. A missing or unknown input name raises TesseraValueError, an input of the wrong
    shape or dtype TesseraTypeError, naming the input (as the compiled executable does)."""
    mod = as_module(mod)
    main = mod["main"]
    if not isinstance(main, Function):
        raise TesseraTypeError("@main must be a graph Function to be evaluated")
    params = main.params
    names = [p.name_hint for p in params]
    if len(args) > len(params):
        raise TesseraTypeError(f"@main takes {len(params)} input(s) ({', '.join(names)}), "
                               f"got {len(args)} positional")
    values = list(args) + [None] * (len(params) - len(args))
    given = [True] * len(args) + [False] * (len(params) - len(args))
    for key, value in kwargs.items():
        candidates = [i for i, n in enumerate(names) if n == key]
        if not candidates:
            raise TesseraValueError(f"unknown input '{key}'; @main's inputs are: {', '.join(names)}")
        index = next((i for i in candidates if not given[i]), None)
        if index is None:
            raise TesseraTypeError(f"input '{key}' given more than once")
        values[index] = value
        given[index] = True
    missing = [n for n, g in zip(names, given) if not g]
    if missing:
        raise TesseraValueError(f"missing input(s) {', '.join(missing)}; @main's inputs are: "
                                f"{', '.join(names)}")
    converted = [_convert(v, p.type_annotation, f"input '{p.name_hint}'")
                 for v, p in zip(values, params)]
    return _core.evaluate(mod, "main", converted, names)


def run(mod, /, **inputs):
    """Runs ``@main`` with inputs by parameter name: ``run(mod, x=np_array)``."""
    return evaluate(mod, **inputs)
